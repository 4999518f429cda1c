//! Every producer, from fixtures written from the documented shapes
//! (`tests/fixtures/producers/cases.json`): success, each failure marker, truncation. Adding a
//! sample needs no Rust: add the file and a case.

use serde_json::Value;

use crate::common::{expect_mismatches, fixture, root, run, run_case, sojx};

#[test]
fn producer_fixtures() {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixture("producers/cases.json")).unwrap())
            .unwrap();
    assert!(
        cases.len() >= 80,
        "only {} producer cases: cases.json lost some",
        cases.len()
    );
    let mut failures = Vec::new();
    // Every fixture file has a case.
    let named: std::collections::HashSet<&str> =
        cases.iter().filter_map(|c| c["file"].as_str()).collect();
    for dir in std::fs::read_dir(fixture("producers")).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            let short = format!(
                "{}/{}",
                dir.file_name().unwrap().to_string_lossy(),
                f.file_name().unwrap().to_string_lossy()
            );
            if !named.contains(short.as_str()) {
                failures.push(format!("{short}: no case in cases.json"));
            }
        }
    }
    for c in &cases {
        let file = fixture(&format!("producers/{}", c["file"].as_str().unwrap()));
        let r = run_case(&file, c);
        let why = expect_mismatches(&r, &c["expect"]);
        if !why.is_empty() {
            failures.push(format!("{}: {}", c["file"], why.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// `--from X` on another producer's input names what was detected.
#[test]
fn from_mismatch_names_the_detected_producer() {
    for (from, file, detected) in [
        ("anthropic", "producers/codex/output-schema.jsonl", "codex"),
        (
            "ollama",
            "producers/openai-chat/content.json",
            "openai-chat",
        ),
        (
            "codex",
            "producers/gemini-cli/stream-json.jsonl",
            "gemini-cli",
        ),
        // Forced producers that would accept some of the events (a `result`, an `error` line)
        // still name the producer that was detected.
        (
            "claude-code",
            "producers/gemini-cli/stream-json.jsonl",
            "gemini-cli",
        ),
        (
            "amp",
            "producers/gemini-cli/stream-json.jsonl",
            "gemini-cli",
        ),
        (
            "gemini-cli",
            "claude-code/retry-then-accepted.ndjson",
            "claude-code",
        ),
        (
            "gemini-cli",
            "producers/anthropic/json-output.json",
            "anthropic",
        ),
        (
            "openai-chat",
            "producers/ollama/midstream-error.ndjson",
            "ollama",
        ),
    ] {
        let r = run(sojx().args(["extract", "--from", from]).arg(fixture(file)));
        assert_eq!(r.kind(), Some("parse"), "{file}");
        let e = r.one();
        assert_eq!(e["producer"], from);
        assert!(
            e["error"]["message"].as_str().unwrap().contains(detected),
            "{}",
            e["error"]["message"]
        );
        assert!(
            e["error"]["hint"]
                .as_str()
                .unwrap()
                .contains(&format!("--from {detected}"))
        );
    }
}

/// `--strict` refuses JSON dug out of prose or fences, and repairs.
#[test]
fn strict_accepts_only_exact_values() {
    let r = run(sojx()
        .args(["extract", "--strict"])
        .arg(fixture("producers/amp/stream-json-fenced.jsonl")));
    assert_eq!(r.kind(), Some("not_found"));
    let r = run(sojx()
        .args(["extract", "--strict"])
        .arg(fixture("producers/meerkat/structured.json")));
    assert_eq!(r.code, 0);
    let r = run(sojx()
        .args(["extract", "--strict", "--repair"])
        .arg(fixture("producers/text/cut-off.txt")));
    assert_eq!(r.kind(), Some("usage"));
}

/// `--repair` lists every repair and marks the source.
#[test]
fn repairs_are_reported() {
    let r = run(sojx()
        .args(["extract", "--repair"])
        .arg(fixture("producers/text/cut-off-repaired.txt")));
    assert_eq!(r.code, 0);
    let e = r.one();
    assert_eq!(e["source"]["repaired"], true);
    let kinds: Vec<&str> = e["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"dropped_incomplete_member") && kinds.contains(&"unclosed_brackets"),
        "{kinds:?}"
    );
    // Without --repair the same input is json_invalid, with the text as candidate.
    let r = run(sojx()
        .arg("extract")
        .arg(fixture("producers/text/cut-off-repaired.txt")));
    assert_eq!(r.kind(), Some("json_invalid"));
    assert!(
        r.one()["candidate"]
            .as_str()
            .unwrap()
            .starts_with("{\"verdict\"")
    );
}

/// A producer's failure marker beats data found earlier in the stream.
#[test]
fn failure_markers_beat_earlier_data() {
    for f in [
        "producers/codex/turn-failed.jsonl",
        "producers/ollama/midstream-error.ndjson",
        "producers/anthropic/stream-error.sse",
    ] {
        let r = run(sojx().args(["extract", "--repair"]).arg(fixture(f)));
        assert_eq!(r.kind(), Some("agent_error"), "{f}");
        assert!(r.one()["error"]["details"].is_object());
    }
}

/// Sessions are normalized across producers.
#[test]
fn sessions_are_normalized() {
    let r = run(sojx()
        .arg("extract")
        .arg(fixture("producers/openai-chat/content.json")));
    let s = &r.one()["session"];
    assert_eq!(s["model"], "gpt-4o-2024-08-06");
    assert_eq!(s["usage"]["input_tokens"], 81);
    let r = run(sojx()
        .arg("extract")
        .arg(fixture("producers/ollama/chat-stream.ndjson")));
    assert_eq!(r.one()["session"]["duration_ms"], 4883);
    let r = run(sojx()
        .arg("extract")
        .arg(fixture("producers/opencode/run.jsonl")));
    assert_eq!(r.one()["session"]["usage"]["input_tokens"], 220);
    let r = run(sojx()
        .arg("extract")
        .arg(fixture("producers/codex/output-schema.jsonl")));
    assert_eq!(r.one()["session"]["usage"]["cache_read_input_tokens"], 1500);
    let r = run(sojx()
        .arg("extract")
        .arg(fixture("producers/qwen-code/json-array.json")));
    assert_eq!(r.one()["session"]["model"], "qwen3-coder");
}

/// Adding a producer to the table in `crates/sojx-core/src/producer/id.rs` is not done until it has a fixture
/// that it reads successfully (a case in `cases.json` that expects it and exit 0) and a row in
/// the README's `--from` table.
#[test]
fn every_producer_has_a_fixture_and_a_readme_row() {
    use sojx_core::producer::Producer;
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixture("producers/cases.json")).unwrap())
            .unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| `--from` |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(!table.is_empty(), "the README's `--from` table is gone");
    let mut missing = Vec::new();
    for p in Producer::ALL {
        let id = p.id();
        let read = cases.iter().any(|c| {
            c["expect"]["producer"] == id
                && c["expect"]["exit_code"] == 0
                && c["file"]
                    .as_str()
                    .is_some_and(|f| fixture(&format!("producers/{f}")).is_file())
        });
        if !read {
            missing.push(format!("{id}: no fixture read successfully in cases.json"));
        }
        if !table.iter().any(|l| l.starts_with(&format!("| `{id}` |"))) {
            missing.push(format!("{id}: no row in the README's `--from` table"));
        }
    }
    // And no row for a producer that does not exist.
    for row in &table[2..] {
        let id = row.split('`').nth(1).unwrap_or("");
        if !Producer::ALL.iter().any(|p| p.id() == id) {
            missing.push(format!("README row `{id}`: no such producer"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// `retryable` follows the API's own error type or code, never the message: a bad key, a
/// permission, the bill or the request cannot be fixed by re-running; a rate limit, an
/// overload or a server error can.
#[test]
fn api_errors_are_retryable_by_their_own_codes() {
    let cases = [
        (
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            "anthropic",
            false,
        ),
        (
            r#"{"type":"error","error":{"type":"billing_error","message":"credit balance too low"}}"#,
            "anthropic",
            false,
        ),
        (
            r#"{"type":"error","error":{"type":"permission_error","message":"no"}}"#,
            "anthropic",
            false,
        ),
        (
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            "anthropic",
            true,
        ),
        (
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"invalid key (not really)"}}"#,
            "anthropic",
            true,
        ),
        (
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
            "openai-chat",
            false,
        ),
        (
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
            "openai-chat",
            false,
        ),
        (
            r#"{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#,
            "openai-chat",
            true,
        ),
        (
            r#"{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}"#,
            "openai-chat",
            true,
        ),
    ];
    for (body, producer, retryable) in cases {
        let r = run(sojx().arg("extract").write_stdin(body));
        assert_eq!(r.code, 1, "{body}");
        let e = r.one();
        assert_eq!(e["producer"], producer, "{body}");
        assert_eq!(e["error"]["kind"], "agent_error", "{body}");
        assert_eq!(e["error"]["retryable"], retryable, "{body}");
        if !retryable {
            let hint = e["error"]["hint"].as_str().unwrap();
            assert!(hint.starts_with("re-running will not help"), "{hint}");
        }
    }
    // The Responses API's failed response: its error code decides.
    let failed = |code: &str| {
        format!(
            r#"{{"id":"resp_1","object":"response","status":"failed","error":{{"code":"{code}","message":"m"}},"output":[]}}"#
        )
    };
    for (code, retryable) in [
        ("invalid_prompt", false),
        ("server_error", true),
        ("rate_limit_exceeded", true),
    ] {
        let r = run(sojx().arg("extract").write_stdin(failed(code)));
        let e = r.one();
        assert_eq!(e["producer"], "openai-responses", "{code}");
        assert_eq!(e["error"]["retryable"], retryable, "{code}");
    }
}

/// The inputs that carry `token` (a type or code, a status, or a message as it is) as each
/// provider of docs/producers.md's `retryable` table passes it on, with the producer sojx must
/// name.
fn carrying(provider: &str, token: &str) -> Vec<(String, &'static str)> {
    let status = token.parse::<u64>().ok();
    let codex = |message: String| {
        let failed = serde_json::json!({"type": "turn.failed", "error": {"message": message}});
        format!(
            "{{\"type\":\"thread.started\",\"thread_id\":\"t1\"}}\n{{\"type\":\"turn.started\"}}\n{failed}\n"
        )
    };
    match (provider, status) {
        ("Anthropic", None) => vec![(
            format!(r#"{{"type":"error","error":{{"type":"{token}","message":"m"}}}}"#),
            "anthropic",
        )],
        ("OpenAI", None) => vec![
            (
                format!(
                    r#"{{"error":{{"message":"m","type":"{token}","param":null,"code":"{token}"}}}}"#
                ),
                "openai-chat",
            ),
            (
                format!(
                    r#"{{"id":"resp_1","object":"response","status":"failed","error":{{"code":"{token}","message":"m"}},"output":[]}}"#
                ),
                "openai-responses",
            ),
        ],
        ("Claude Code", _) => {
            let member = match status {
                Some(s) => format!(r#""api_error_status":{s}"#),
                None => format!(r#""api_error_type":"{token}""#),
            };
            vec![(
                format!(
                    r#"{{"type":"result","subtype":"success","is_error":true,"duration_ms":200,"duration_api_ms":0,"num_turns":1,"result":"API Error","session_id":"s1",{member}}}"#
                ),
                "claude-code",
            )]
        }
        ("Codex", Some(s)) => vec![(
            codex(format!(
                r#"{{"type":"error","error":{{"type":"error","message":"m"}},"status":{s}}}"#
            )),
            "codex",
        )],
        ("Codex", None) if token.contains(' ') => vec![(codex(token.to_owned()), "codex")],
        ("Codex", None) => vec![(
            codex(format!(
                r#"{{"error": {{"type": "{token}", "code": "{token}", "message": "m", "param": null}}}}"#
            )),
            "codex",
        )],
        _ => Vec::new(),
    }
}

/// docs/producers.md's `retryable` table, each row: every type or code in backquotes, every
/// status, and (Codex) every message as it is, each as its provider passes it on, says what the
/// row says (issue 40, item 5).
#[test]
fn every_row_of_the_retryable_table_holds() {
    let doc = std::fs::read_to_string(root().join("docs/producers.md")).unwrap();
    let table = doc
        .split("| provider | type / code | meaning | `retryable` |\n| --- | --- | --- | --- |\n")
        .nth(1)
        .expect("the retryable table");
    // Field names in the cells, not codes.
    let names = ["api_error_type", "api_error_status", "status", "result"];
    let mut rows = 0;
    for row in table.lines().take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (provider, codes, retryable) = (cells[1], cells[2], cells[4] == "true");
        assert!(["true", "false"].contains(&cells[4]), "{row}");
        let quoted = codes.split('`').skip(1).step_by(2);
        let mut tokens: Vec<&str> = quoted
            .filter(|t| {
                !names.contains(t)
                    && (t.chars().all(|c| c.is_ascii_lowercase() || c == '_') || t.contains(' '))
            })
            .collect();
        if matches!(provider, "Claude Code" | "Codex") {
            tokens.extend(
                codes
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .filter(|w| w.len() == 3 && w.parse::<u16>().is_ok_and(|n| n >= 100)),
            );
        }
        let mut cases = 0;
        for token in tokens {
            for (input, producer) in carrying(provider, token) {
                cases += 1;
                let r = run(sojx().arg("extract").write_stdin(input.clone()));
                let e = r.one();
                let what = format!("{provider} {token}: {input}");
                assert_eq!(r.code, 1, "{what}");
                assert_eq!(e["producer"], producer, "{what}");
                assert_eq!(e["error"]["kind"], "agent_error", "{what}");
                assert_eq!(e["error"]["retryable"], retryable, "{what}");
                let hint = e["error"]["hint"].as_str().unwrap();
                assert_eq!(
                    hint.starts_with("re-running will not help"),
                    !retryable,
                    "{what}"
                );
            }
        }
        assert!(cases > 0, "a row without a case: {row}");
        rows += 1;
    }
    assert_eq!(rows, 8, "the table's rows");
}
