//! `sojx run --acp` and the `acp` producer: the recording's reader (the last turn's text is the
//! answer, by structure alone), and the client against a fake ACP agent
//! (`tests/fixtures/acp/fake-agent.py`) for the protocol's failure paths.

use serde_json::{Value, json};

use crate::common::run_stdin;

/// A recorded line.
fn to(m: &Value) -> String {
    json!({"direction": "to_agent", "message": m}).to_string()
}

fn from(m: &Value) -> String {
    json!({"direction": "from_agent", "message": m}).to_string()
}

fn chunk(session: &str, text: &str) -> String {
    from(
        &json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session,
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}}),
    )
}

/// `initialize` and `session/new` (session `s1`), answered.
fn setup() -> Vec<String> {
    vec![
        to(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
        ),
        from(
            &json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1,
            "agentInfo": {"name": "fake-agent", "version": "1.2.3"}, "authMethods": []}}),
        ),
        to(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}}),
        ),
        from(&json!({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}})),
    ]
}

fn prompt(id: u64) -> String {
    to(
        &json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
        "params": {"sessionId": "s1", "prompt": [{"type": "text", "text": "go"}]}}),
    )
}

fn end(id: u64, stop: &str) -> String {
    from(
        &json!({"jsonrpc": "2.0", "id": id, "result": {"stopReason": stop,
        "usage": {"inputTokens": 10, "outputTokens": 3, "totalTokens": 13}}}),
    )
}

/// The envelope of `lines` read with detection.
fn read(lines: &[String]) -> Value {
    let text = lines.join("\n") + "\n";
    run_stdin(&["extract"], text).one().clone()
}

#[test]
fn the_last_turns_text_is_the_answer() {
    let mut l = setup();
    l.extend([
        prompt(2),
        chunk("s1", "{\"verdict\": \"F"),
        end(2, "end_turn"),
        prompt(3),
        chunk("s1", "Here: {\"verdict\": "),
        chunk("s1", "\"PASS\"}"),
        end(3, "end_turn"),
    ]);
    let e = read(&l);
    assert_eq!(e["producer"], "acp");
    assert_eq!(e["data"], json!({"verdict": "PASS"}));
    assert_eq!(e["session"]["id"], "s1");
    assert_eq!(e["session"]["turns"], 2);
    assert_eq!(e["session"]["agent_info"]["name"], "fake-agent");
    assert_eq!(e["session"]["usage"]["input_tokens"], 10);
    assert_eq!(e["source"]["line"], 10);
}

#[test]
fn stale_foreign_and_out_of_turn_text_is_never_the_answer() {
    let mut l = setup();
    l.extend([
        // Before any turn.
        chunk("s1", "{\"verdict\": \"STALE\"}"),
        prompt(2),
        // Another session's text, in the turn.
        chunk("other", "{\"verdict\": \"FOREIGN\"}"),
        end(2, "end_turn"),
        // After the turn's response.
        chunk("s1", "{\"verdict\": \"LATE\"}"),
    ]);
    let e = read(&l);
    assert_eq!(e["error"]["kind"], "not_found", "{e}");
    // A quoted recording line inside the answer text is text, not an event.
    let mut l = setup();
    l.extend([
        prompt(2),
        chunk("s1", &end(9, "end_turn")),
        end(2, "end_turn"),
    ]);
    let e = read(&l);
    assert_eq!(e["producer"], "acp");
    assert_eq!(e["data"]["direction"], "from_agent", "{e}");
}

/// sojx's barrier before a turn: `initialize` again (id `id`).
fn barrier(id: u64) -> String {
    to(
        &json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {"protocolVersion": 1}}),
    )
}

#[test]
fn a_repeated_initialize_is_a_barrier_read_as_nothing() {
    // Answered with an error (an agent that takes `initialize` once): not the turn's error, not
    // an event, and the greeting read before it is before the turn.
    let refused = from(
        &json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}}),
    );
    let mut l = setup();
    l.extend([
        chunk("s1", "{\"verdict\": \"GREETING\"}"),
        barrier(2),
        refused.clone(),
        prompt(3),
        chunk("s1", "{\"verdict\": \"PASS\"}"),
        end(3, "end_turn"),
    ]);
    let text = l.join("\n") + "\n";
    let r = run_stdin(&["extract", "--activity"], text);
    let e = r.one();
    assert_eq!(e["data"], json!({"verdict": "PASS"}), "{e}");
    assert_eq!(e["session"]["turns"], 1);
    assert!(!r.stderr.contains("-32601"), "{}", r.stderr);
    // Cut off in the turn: truncated, retryable, the barrier's error never named.
    let mut l = setup();
    l.extend([
        barrier(2),
        refused,
        prompt(3),
        chunk("s1", "{\"verdict\": "),
    ]);
    let e = read(&l);
    assert_eq!(e["error"]["kind"], "truncated", "{e}");
    assert_eq!(e["error"]["retryable"], true);
    assert!(!e.to_string().contains("Method not found"), "{e}");
}

#[test]
fn stop_reasons_and_errors_fail_the_turn() {
    for (stop, retryable) in [
        ("max_tokens", true),
        ("refusal", false),
        ("cancelled", true),
        ("max_turn_requests", true),
    ] {
        let mut l = setup();
        l.extend([
            prompt(2),
            chunk("s1", "{\"verdict\": \"PASS\"}"),
            end(2, stop),
        ]);
        let e = read(&l);
        assert_eq!(e["error"]["kind"], "agent_error", "{stop}: {e}");
        assert_eq!(e["error"]["retryable"], retryable, "{stop}");
        assert_eq!(e["error"]["details"]["subtype"], stop);
    }
    let mut l = setup();
    l.extend([
        prompt(2),
        from(&json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Authentication required"}})),
    ]);
    let e = read(&l);
    assert_eq!(e["error"]["kind"], "agent_error");
    assert_eq!(e["error"]["retryable"], false);
    assert_eq!(e["error"]["details"]["code"], -32000);
    // No response: cut off.
    let mut l = setup();
    l.extend([prompt(2), chunk("s1", "{\"verdict\": \"PASS\"}")]);
    assert_eq!(read(&l)["error"]["kind"], "truncated");
    // A failed session/new, and no turn.
    let mut l = setup();
    l[3] = from(&json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}}));
    let e = read(&l);
    assert_eq!(e["error"]["kind"], "agent_error");
    assert_eq!(e["error"]["retryable"], true);
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("session/new")
    );
}

#[test]
fn permission_requests_are_counted() {
    let mut l = setup();
    let ask = |id: u64| {
        from(
            &json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission",
            "params": {"sessionId": "s1", "toolCall": {"toolCallId": "t", "title": "rm -rf /"},
            "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "no", "name": "Reject", "kind": "reject_once"}]}}),
        )
    };
    let answer = |id: u64, opt: &str| {
        to(
            &json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "selected", "optionId": opt}}}),
        )
    };
    l.extend([
        prompt(2),
        ask(100),
        answer(100, "no"),
        ask(101),
        answer(101, "yes"),
        chunk("s1", "{\"verdict\": \"PASS\"}"),
        end(2, "end_turn"),
    ]);
    let e = read(&l);
    assert_eq!(
        e["session"]["permissions"],
        json!({"asked": 2, "allowed": 1, "denied": 1})
    );
}

/// Unanswered permission requests are kept small and counted in `--max-answer-bytes` (issue 58,
/// item 7): their options as 8-byte keys of the ids that allow, whatever the agent wrote (64
/// options of 1 KiB ids once kept 64 KiB a request, outside any bound), and their ids counted.
#[test]
fn unanswered_requests_count_in_max_answer_bytes() {
    let request = |id: String, option: usize| {
        let options: Vec<Value> = (0..64)
            .map(|o| json!({"optionId": format!("{o:04}{}", "o".repeat(option)), "kind": "allow_once"}))
            .collect();
        from(
            &json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission",
            "params": {"sessionId": "s1", "options": options}}),
        )
    };
    let recording = |requests: Vec<String>| {
        let mut l = setup();
        l.push(prompt(2));
        l.extend(requests);
        l.extend([chunk("s1", "{\"verdict\": \"PASS\"}"), end(2, "end_turn")]);
        l.join("\n") + "\n"
    };
    // 40 requests of 64 options with 1 KiB ids (2.5 MiB of options): kept in a few KiB, within
    // a bound of 1 MiB.
    let options = recording((0..40).map(|i| request(format!("r{i}"), 1020)).collect());
    let r = run_stdin(&["extract", "--max-answer-bytes", "1MiB"], options);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["session"]["permissions"]["asked"], 40);
    // 40 requests whose ids are 64 KiB each (2.5 MiB of ids): past the bound.
    let ids = recording(
        (0..40)
            .map(|i| request(format!("{i}{}", "i".repeat(64 << 10)), 1))
            .collect(),
    );
    let r = run_stdin(&["extract", "--max-answer-bytes", "1MiB"], ids.clone());
    assert_eq!((r.code, r.kind()), (1, Some("parse")), "{}", r.stdout);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--max-answer-bytes"),
        "{}",
        r.stdout
    );
    // Within the default, the answer stands.
    assert_eq!(run_stdin(&["extract"], ids).code, 0);
}

// --- `sojx run --acp` against the fake agent ---

/// The fake ACP agent, when python3 is here (else a skip notice, or a failure under
/// `SOJX_REQUIRE_TOOLS=1`).
fn fake(test: &str) -> Option<String> {
    crate::common::have_tool("python3", test)
        .then(|| crate::common::path_str(&crate::common::fixture("acp/fake-agent.py")).to_owned())
}

/// `sojx run --acp ARGS -- fake-agent FAKE_ARGS`, timed; the run, the seconds it took, and
/// the messages sojx sent (the fake's log).
fn acp_run(
    args: &[&str],
    fake_args: &[&str],
    env: &[(&str, &str)],
) -> Option<(crate::common::Run, f64, Vec<Value>)> {
    let agent = fake("sojx run --acp")?;
    let dir = crate::common::scratch_dir("acp", "log");
    let log = dir.join("sent.jsonl");
    let mut cmd = crate::common::sojx();
    cmd.args(["run", "--acp"]).args(args).arg("--").arg(&agent);
    cmd.args(fake_args).arg("--log").arg(&log);
    cmd.env_remove("GEMINI_API_KEY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let t = std::time::Instant::now();
    let r = crate::common::run(&mut cmd);
    let secs = t.elapsed().as_secs_f64();
    let sent = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Some((r, secs, sent))
}

/// The methods of `sent`, in order.
fn methods(sent: &[Value]) -> Vec<String> {
    sent.iter()
        .map(|m| m["method"].as_str().unwrap_or("(response)").to_owned())
        .collect()
}

const SCHEMA: &str = "examples/verdict.schema.json";
const GOOD: &str = r#"{"verdict":"PASS","confidence":0.9,"issues":[]}"#;

#[test]
fn run_acp_returns_the_turns_answer_validated() {
    let Some((r, _, sent)) = acp_run(
        &["--prompt", "review", "--schema", SCHEMA],
        &["--answer", GOOD],
        &[],
    ) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = r.one();
    assert_eq!(e["producer"], "acp");
    assert_eq!(e["schema_version"], "1.2");
    assert_eq!(e["data"]["verdict"], "PASS");
    assert_eq!(e["validation"]["valid"], true);
    assert_eq!(e["session"]["id"], "fake-session-1");
    assert_eq!(e["session"]["agent_info"]["version"], "0.1.0");
    assert_eq!(e["session"]["usage"]["output_tokens"], 5);
    // The agent exited when sojx closed its stdin.
    assert_eq!(e["agent"]["exit_status"], 0);
    // The barrier before the turn: `initialize` again, as the handshake sent it.
    assert_eq!(
        methods(&sent),
        ["initialize", "session/new", "initialize", "session/prompt"]
    );
    assert_eq!(sent[2]["params"], sent[0]["params"]);
    // No capability offered; the prompt as given; the session in the current folder.
    assert_eq!(sent[0]["params"]["protocolVersion"], 1);
    assert_eq!(sent[0]["params"]["clientCapabilities"]["terminal"], false);
    assert_eq!(
        sent[0]["params"]["clientCapabilities"]["fs"]["readTextFile"],
        false
    );
    let cwd = sent[1]["params"]["cwd"].as_str().unwrap();
    assert!(std::path::Path::new(cwd).is_absolute(), "{cwd}");
    assert_eq!(sent[3]["params"]["prompt"][0]["text"], "review");
}

#[test]
fn run_acp_retries_in_the_same_session_with_the_extraction_turn_then_the_feedback() {
    let Some((r, _, sent)) = acp_run(
        &[
            "--prompt",
            "review",
            "--schema",
            SCHEMA,
            "--max-attempts",
            "3",
        ],
        &[
            "--answer",
            "I looked, it is fine.",
            "--answer",
            r#"{"verdict":"MAYBE"}"#,
            "--answer",
            GOOD,
        ],
        &[],
    ) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = r.one();
    let vias: Vec<&str> = e["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["via"].as_str().unwrap())
        .collect();
    assert_eq!(vias, ["acp:prompt", "acp:extraction_turn", "acp:feedback"]);
    assert_eq!(e["attempts"][0]["error_kind"], "not_found");
    assert_eq!(e["attempts"][1]["error_kind"], "validation_failed");
    assert_eq!(e["session"]["turns"], 3);
    // One process, one session: three turns of it, each after its barrier.
    assert_eq!(
        methods(&sent),
        [
            "initialize",
            "session/new",
            "initialize",
            "session/prompt",
            "initialize",
            "session/prompt",
            "initialize",
            "session/prompt"
        ]
    );
    let prompts: Vec<&Value> = sent
        .iter()
        .filter(|m| m["method"] == "session/prompt")
        .collect();
    assert!(
        prompts
            .iter()
            .all(|m| m["params"]["sessionId"] == "fake-session-1")
    );
    let extraction = prompts[1]["params"]["prompt"][0]["text"].as_str().unwrap();
    assert!(
        extraction.contains("Reply with only a JSON value matching this JSON schema"),
        "{extraction}"
    );
    assert!(
        extraction.contains("\"verdict\""),
        "the schema is in it: {extraction}"
    );
    let feedback = prompts[2]["params"]["prompt"][0]["text"].as_str().unwrap();
    assert!(feedback.contains("/verdict"), "{feedback}");
    assert!(
        r.stderr
            .contains("attempt 2 asks for only the JSON in the same session"),
        "{}",
        r.stderr
    );
}

#[test]
fn run_acp_answers_permissions_by_its_policy_and_refuses_what_it_does_not_implement() {
    for (policy, chosen, allowed) in [
        (None, "reject", 0),
        (Some("allow-once"), "allow", 1),
        (Some("allow"), "always", 1),
    ] {
        let mut args = vec!["--prompt", "go", "--activity"];
        if let Some(p) = policy {
            args.extend(["--acp-permissions", p]);
        }
        let Some((r, _, sent)) = acp_run(&args, &["--ask-permission"], &[]) else {
            return;
        };
        assert_eq!(r.code, 0, "{}", r.stderr);
        let answer = sent.iter().find(|m| m.get("result").is_some()).unwrap();
        assert_eq!(
            answer["result"]["outcome"]["optionId"], chosen,
            "{policy:?}"
        );
        assert_eq!(
            r.one()["session"]["permissions"],
            json!({"asked": 1, "allowed": allowed, "denied": 1 - allowed})
        );
        assert!(
            r.stderr.contains("permission asked: Run rm -rf build"),
            "{}",
            r.stderr
        );
        assert!(
            r.stderr.contains(&format!("permission answered: {chosen}")),
            "{}",
            r.stderr
        );
    }
    let Some((r, _, sent)) = acp_run(
        &["--prompt", "go"],
        &["--request", "fs/read_text_file"],
        &[],
    ) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.stderr);
    let refusal = sent.iter().find(|m| m.get("error").is_some()).unwrap();
    assert_eq!(refusal["error"]["code"], -32601);
}

#[test]
fn run_acp_cancels_a_permission_request_whose_option_id_names_two_kinds() {
    // `allow_always` and `reject_once` both "x": under any policy, "x" might allow.
    let options = r#"[{"optionId": "x", "name": "Always", "kind": "allow_always"},
        {"optionId": "x", "name": "Reject", "kind": "reject_once"}]"#;
    for policy in ["deny", "allow-once", "allow"] {
        let Some((r, _, sent)) = acp_run(
            &["--prompt", "go", "--acp-permissions", policy],
            &["--ask-permission", "--options", options],
            &[],
        ) else {
            return;
        };
        assert_eq!(r.code, 0, "{}", r.stderr);
        let answer = sent.iter().find(|m| m.get("result").is_some()).unwrap();
        assert_eq!(
            answer["result"]["outcome"],
            json!({"outcome": "cancelled"}),
            "{policy}"
        );
        // Counted as what sojx meant: a refusal.
        assert_eq!(
            r.one()["session"]["permissions"],
            json!({"asked": 1, "allowed": 0, "denied": 1}),
            "{policy}"
        );
    }
}

#[test]
fn run_acp_refuses_a_long_method_without_a_line_the_agent_never_sent() {
    // The agent's request fits --max-line-bytes; sojx's refusal quoting the whole method name
    // would not, and its recorded line would be warned about as too long.
    let method = "m".repeat(1500);
    let Some((r, _, sent)) = acp_run(
        &["--prompt", "go", "--max-line-bytes", "1700"],
        &["--request", &method],
        &[],
    ) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.stdout);
    let refusal = sent.iter().find(|m| m.get("error").is_some()).unwrap();
    assert_eq!(refusal["error"]["code"], -32601);
    assert!(
        refusal["error"]["message"].as_str().unwrap().len() < 500,
        "{refusal}"
    );
    assert_eq!(
        crate::common::warned(&r, "line_too_long"),
        Vec::<String>::new()
    );
}

#[test]
fn run_acp_fails_typed_when_the_agent_breaks_the_protocol() {
    // Dies in the middle of a turn: agent_error, with its stderr.
    let Some((r, _, _)) = acp_run(&["--prompt", "go"], &["--crash"], &[]) else {
        return;
    };
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")), "{}", r.stdout);
    assert_eq!(r.one()["agent"]["exit_status"], 3);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("crashed in the middle")
    );
    // A line that is not JSON-RPC.
    let (r, _, _) = acp_run(&["--prompt", "go"], &["--malformed"], &[]).unwrap();
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")));
    assert_eq!(r.one()["error"]["retryable"], false);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a JSON-RPC 2.0 message")
    );
    // A version sojx does not speak.
    let (r, _, _) = acp_run(&["--prompt", "go"], &["--version", "2"], &[]).unwrap();
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")));
    // A stop reason other than end_turn.
    let (r, _, _) = acp_run(&["--prompt", "go"], &["--stop", "max_tokens"], &[]).unwrap();
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")));
    assert_eq!(r.one()["error"]["details"]["subtype"], "max_tokens");
}

#[test]
fn run_acp_cancels_then_stops_the_agent_at_the_timeout() {
    // Silent from the start: the handshake's deadline.
    let Some((r, secs, _)) = acp_run(
        &["--prompt", "go", "--timeout", "1", "--kill-after", "1"],
        &["--silent"],
        &[],
    ) else {
        return;
    };
    assert_eq!((r.code, r.kind()), (2, Some("timeout")), "{}", r.stdout);
    assert!(secs < crate::common::patience(std::time::Duration::from_secs(3)).as_secs_f64());
    assert_eq!(r.one()["agent"]["stopped"], "timeout");
    // A turn that never ends: session/cancel first, which this agent answers.
    let (r, _, sent) = acp_run(
        &["--prompt", "go", "--timeout", "1", "--kill-after", "1"],
        &["--hang"],
        &[],
    )
    .unwrap();
    assert_eq!((r.code, r.kind()), (2, Some("timeout")), "{}", r.stdout);
    assert!(
        methods(&sent).contains(&"session/cancel".to_owned()),
        "{sent:?}"
    );
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the agent ended the turn")
    );
    // One that ignores the cancel: SIGTERM after --kill-after.
    let (r, secs, _) = acp_run(
        &["--prompt", "go", "--timeout", "1", "--kill-after", "1"],
        &["--deaf"],
        &[],
    )
    .unwrap();
    assert_eq!((r.code, r.kind()), (2, Some("timeout")), "{}", r.stdout);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not end the turn")
    );
    assert!(secs < crate::common::patience(std::time::Duration::from_secs(4)).as_secs_f64());
}

#[test]
fn run_acp_with_a_command_that_is_no_acp_agent_fails_at_once() {
    let t = std::time::Instant::now();
    let r = crate::common::run(
        crate::common::sojx().args(["run", "--acp", "--prompt", "go", "--", "cat"]),
    );
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")), "{}", r.stdout);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("echoes its input")
    );
    assert!(t.elapsed() < crate::common::patience(std::time::Duration::from_secs(1)));
    // A program that prints something else.
    let r = crate::common::run(
        crate::common::sojx().args(["run", "--acp", "--prompt", "go", "--", "echo", "hello"]),
    );
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")), "{}", r.stdout);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("on its stdout: hello")
    );
}

#[test]
fn run_acp_authenticates_only_with_a_method_the_environment_satisfies() {
    let Some((r, _, sent)) = acp_run(&["--prompt", "go"], &["--auth"], &[]) else {
        return;
    };
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")), "{}", r.stdout);
    assert_eq!(r.one()["error"]["retryable"], false);
    let m = r.one()["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("gemini-api-key")
            && m.contains("set GEMINI_API_KEY")
            && m.contains("oauth-personal"),
        "{m}"
    );
    assert!(!methods(&sent).contains(&"authenticate".to_owned()));
    let (r, _, sent) =
        acp_run(&["--prompt", "go"], &["--auth"], &[("GEMINI_API_KEY", "k")]).unwrap();
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        methods(&sent),
        [
            "initialize",
            "session/new",
            "authenticate",
            "session/new",
            "initialize",
            "session/prompt"
        ]
    );
    assert_eq!(sent[2]["params"]["methodId"], "gemini-api-key");
}

#[test]
fn run_acp_records_the_traffic_and_extract_reads_it_back_the_same() {
    let dir = crate::common::scratch_dir("acp", "tee");
    let tee = dir.join("run.acp.jsonl");
    let tee_s = crate::common::path_str(&tee).to_owned();
    let Some((r, _, _)) = acp_run(
        &[
            "--prompt",
            "go",
            "--schema",
            SCHEMA,
            "--max-attempts",
            "2",
            "--tee",
            &tee_s,
        ],
        &[
            "--ask-permission",
            "--answer",
            r#"{"verdict":"MAYBE"}"#,
            "--answer",
            GOOD,
        ],
        &[],
    ) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Both turns' requests, counted for the session, live and read back.
    assert_eq!(
        r.one()["session"]["permissions"],
        json!({"asked": 2, "allowed": 0, "denied": 2})
    );
    let recorded = std::fs::read_to_string(&tee).unwrap();
    assert!(recorded.lines().all(|l| {
        let v: Value = serde_json::from_str(l).unwrap();
        (v["direction"] == "to_agent" || v["direction"] == "from_agent")
            && v["message"]["jsonrpc"] == "2.0"
    }));
    let back =
        crate::common::run(crate::common::sojx().args(["extract", "--schema", SCHEMA, &tee_s]));
    assert_eq!(back.code, 0);
    let (live, read) = (r.one(), back.one());
    for k in ["producer", "data", "source", "session"] {
        assert_eq!(live[k], read[k], "{k}");
    }
}

#[test]
fn run_acp_reads_the_prompt_from_stdin_or_a_file_and_refuses_none() {
    let Some(agent) = fake("the prompt's sources") else {
        return;
    };
    let r = crate::common::run(
        crate::common::sojx()
            .args(["run", "--acp", "--", &agent])
            .write_stdin("from stdin"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = crate::common::run(
        crate::common::sojx()
            .args(["run", "--acp", "--", &agent])
            .write_stdin("  \n"),
    );
    assert_eq!((r.code, r.kind()), (3, Some("usage")));
    let r = crate::common::run(crate::common::sojx().args([
        "run",
        "--acp",
        "--prompt-file",
        "/nonexistent/prompt.txt",
        "--",
        &agent,
    ]));
    assert_eq!((r.code, r.kind()), (3, Some("filesystem")));
    // --prompt is --acp's.
    let out = crate::common::sojx()
        .args(["run", "--prompt", "x", "--", "true"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn run_acp_reads_messages_as_sojx_reads_json_and_never_takes_a_late_chunk_for_the_next_turn() {
    // A lone surrogate escape in a tool call's title (Node.js cut a string in an emoji).
    let Some((r, _, _)) = acp_run(&["--prompt", "go"], &["--lone-surrogate"], &[]) else {
        return;
    };
    assert_eq!(r.code, 0, "{}", r.stdout);
    // After turn 1's response the agent sends one more chunk, a valid answer; turn 2 answers
    // prose. The late chunk is neither turn's answer.
    let (r, _, _) = acp_run(
        &["--prompt", "go", "--schema", SCHEMA, "--max-attempts", "2"],
        &[
            "--answer",
            r#"{"verdict":"MAYBE"}"#,
            "--answer",
            "Still thinking.",
            "--late",
            GOOD,
        ],
        &[],
    )
    .unwrap();
    assert_eq!((r.code, r.kind()), (1, Some("not_found")), "{}", r.stdout);
}

#[test]
fn run_acp_fails_typed_when_the_agent_stops_reading_its_stdin() {
    let Some((r, secs, _)) = acp_run(
        &["--prompt", "go", "--timeout", "30"],
        &["--flood", "3000"],
        &[],
    ) else {
        return;
    };
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")), "{}", r.stdout);
    assert_eq!(
        r.one()["error"]["details"]["terminal_reason"],
        "not_reading"
    );
    assert!(secs < 25.0, "{secs} s: not told before the timeout");
}

#[test]
fn run_acp_refuses_a_prompt_longer_than_a_line() {
    let Some(agent) = fake("a prompt longer than a line") else {
        return;
    };
    let r = crate::common::run(crate::common::sojx().args([
        "run",
        "--acp",
        "--max-line-bytes",
        "600",
        "--prompt",
        &"x".repeat(800),
        "--",
        &agent,
    ]));
    assert_eq!((r.code, r.kind()), (3, Some("usage")), "{}", r.stdout);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer than --max-line-bytes")
    );
}

#[test]
fn run_acp_checks_the_prompt_before_the_agent_starts() {
    let Some(agent) = fake("the prompt checked before the agent starts") else {
        return;
    };
    let dir = crate::common::scratch_dir("acp", "prompt");
    let log = dir.join("sent.jsonl");
    // NUL bytes on stdin: six bytes each in the message, past --max-line-bytes.
    let r = crate::common::run(
        crate::common::sojx()
            .args(["run", "--acp", "--max-line-bytes", "4000", "--"])
            .arg(&agent)
            .arg("--log")
            .arg(&log)
            .write_stdin(vec![0u8; 1000]),
    );
    assert_eq!((r.code, r.kind()), (3, Some("usage")), "{}", r.stdout);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer than --max-line-bytes"),
        "{}",
        r.stdout
    );
    // The agent never started: no handshake, no message sent.
    assert!(!log.exists(), "the agent was started");
    assert!(r.one().get("agent").is_none(), "{}", r.stdout);
}

#[test]
fn run_acp_reads_an_endless_prompt_on_stdin_only_up_to_its_bound() {
    use std::io::Write;
    use std::process::Stdio;
    let Some(agent) = fake("an endless prompt on stdin") else {
        return;
    };
    let mut child = crate::common::sojx_process()
        .args(["run", "--acp", "--max-line-bytes", "1MiB", "--", &agent])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Written until sojx stops reading (a broken pipe).
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 64 * 1024];
        while stdin.write_all(&chunk).is_ok() {}
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed().as_secs() > 30 {
            let _ = child.kill();
            panic!("sojx read the endless prompt for 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    writer.join().unwrap();
    assert_eq!(status.code(), Some(3));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    let e: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(e["error"]["kind"], "usage", "{out}");
}

#[test]
fn run_acp_blames_the_agent_for_a_session_id_that_fills_the_line() {
    let id = "s".repeat(1900);
    let Some((r, _, sent)) = acp_run(
        &["--prompt", "hi", "--max-line-bytes", "2000"],
        &["--session-id", &id],
        &[],
    ) else {
        return;
    };
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")), "{}", r.stdout);
    assert_eq!(
        r.one()["error"]["details"]["terminal_reason"],
        "session_id_too_long"
    );
    assert_eq!(r.one()["error"]["retryable"], false);
    assert!(!methods(&sent).contains(&"session/prompt".to_owned()));
}

#[test]
fn run_acp_cancels_a_turn_past_max_answer_bytes_and_names_the_bound() {
    let answer = "a".repeat(3000);
    let Some((r, secs, sent)) = acp_run(
        &[
            "--prompt",
            "go",
            "--max-answer-bytes",
            "1000",
            "--timeout",
            "20",
        ],
        &["--answer", &answer, "--hang"],
        &[],
    ) else {
        return;
    };
    assert_eq!((r.code, r.kind()), (1, Some("parse")), "{}", r.stdout);
    let message = r.one()["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-answer-bytes"), "{message}");
    assert!(secs < 15.0, "{secs} s: the turn waited for --timeout");
    assert!(
        methods(&sent).contains(&"session/cancel".to_owned()),
        "{sent:?}"
    );
}

/// What the agent writes outside every turn in the ordering test: a valid answer, so that
/// taking it would pass.
const OUTSIDE: &str = r#"{"verdict":"FAIL","confidence":0.1,"issues":[]}"#;

/// One run of the ordering test: `None`, or what went wrong.
fn outside_chunks_run(i: usize) -> Option<String> {
    let delay = ["0", "0.01", "0.05", "0.2"][i % 4];
    let dir = crate::common::scratch_dir("acp", "order");
    let tee = dir.join("run.acp.jsonl");
    let tee_s = crate::common::path_str(&tee).to_owned();
    let args = [
        "--prompt",
        "review",
        "--schema",
        SCHEMA,
        "--max-attempts",
        "3",
        "--tee",
        &tee_s,
    ];
    let fake_args = [
        "--answer",
        r#"{"verdict":"MAYBE"}"#,
        "--answer",
        "Still thinking.",
        "--answer",
        GOOD,
        "--outside",
        OUTSIDE,
        "--outside-delay",
        delay,
    ];
    let (r, _, _) = acp_run(&args, &fake_args, &[])?;
    let e = r.envelopes.first().cloned().unwrap_or_default();
    let vias: Vec<&str> = e["attempts"]
        .as_array()
        .map(|a| a.iter().filter_map(|a| a["via"].as_str()).collect())
        .unwrap_or_default();
    let good: Value = serde_json::from_str(GOOD).unwrap();
    if r.code != 0
        || e["data"] != good
        || vias != ["acp:prompt", "acp:feedback", "acp:extraction_turn"]
    {
        return Some(format!(
            "run {i} (delay {delay} s): exit {}, data {}, attempts {vias:?}",
            r.code, e["data"]
        ));
    }
    // On the wire: each chunk sent outside a turn is recorded outside it, and the greeting and
    // those after turns 1 and 2 were all read (the barrier waits for them).
    let recorded = std::fs::read_to_string(&tee).unwrap_or_default();
    let mut open: Option<Value> = None;
    let mut outside = 0;
    for line in recorded.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let m = &v["message"];
        if m["method"] == "session/prompt" {
            open = Some(m["id"].clone());
        } else if m["method"].is_null() && open.as_ref() == Some(&m["id"]) {
            open = None;
        } else if m["params"]["update"]["content"]["text"] == OUTSIDE {
            outside += 1;
            if open.is_some() {
                return Some(format!(
                    "run {i} (delay {delay} s): an outside chunk recorded in a turn:\n{recorded}"
                ));
            }
        }
    }
    (outside < 3).then(|| {
        format!("run {i} (delay {delay} s): {outside} outside chunks recorded:\n{recorded}")
    })
}

#[test]
fn run_acp_never_takes_a_chunk_sent_outside_a_turn_for_its_answer() {
    // The agent greets with a chunk after session/new's response, and sends one after each
    // turn's response (the last one's too), each a valid answer, some of them late enough to
    // be still in the pipe when sojx goes on; the turns answer an invalid value, prose, then
    // the answer. 20 runs, 4 at a time (load): every one takes three turns and the third
    // turn's answer, and records each outside chunk outside the turns.
    if fake("chunks outside the turns").is_none() {
        return;
    }
    let failed: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|w| {
                s.spawn(move || {
                    (w..20)
                        .step_by(4)
                        .filter_map(outside_chunks_run)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(
        failed.is_empty(),
        "{} of 20 runs took a chunk sent outside a turn:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn run_acp_fails_typed_when_the_agent_never_answers_the_barrier() {
    // It answers the handshake's `initialize`, and never the barrier's: --timeout bounds the
    // wait, and the prompt is never sent.
    let Some((r, secs, sent)) = acp_run(
        &["--prompt", "go", "--timeout", "1", "--kill-after", "1"],
        &["--once"],
        &[],
    ) else {
        return;
    };
    assert_eq!((r.code, r.kind()), (2, Some("timeout")), "{}", r.stdout);
    let m = r.one()["error"]["message"].as_str().unwrap();
    assert!(m.contains("did not answer `initialize`"), "{m}");
    assert!(
        !methods(&sent).contains(&"session/prompt".to_owned()),
        "{sent:?}"
    );
    assert!(secs < crate::common::patience(std::time::Duration::from_secs(3)).as_secs_f64());
}
