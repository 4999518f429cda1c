//! Producer files from the command line (issue 43, docs/producer-files.md): `--producer-file`,
//! the config folder, `--from` with a file's id, `sojx producers` and `sojx producers check`,
//! and each mistake in a file named with its place (`usage`, exit 3).

use serde_json::Value;

use crate::common::{path_str, run, scratch_dir, sojx};

const ACME: &str = "examples/producer-file/acme.toml";
const RUN: &str = "examples/producer-file/acme-run.jsonl";
const FAILED: &str = "examples/producer-file/acme-failed.jsonl";

/// The only envelope's string at `pointer` holds `want`.
fn says(r: &crate::common::Run, pointer: &str, want: &str) {
    let got = r
        .one()
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("");
    assert!(
        got.contains(want),
        "{pointer}: {want:?} not in {}",
        r.stdout
    );
}

fn answer() -> Value {
    serde_json::json!({"verdict": "PASS", "confidence": 0.9, "issues": []})
}

#[test]
fn a_file_from_the_docs_reads_the_made_up_cli() {
    // Unknown without the file: `parse`, with the producer-file way out.
    let r = run(sojx().args(["extract", RUN]));
    assert_eq!(r.code, 1);
    assert_eq!(r.kind(), Some("parse"));
    says(&r, "/error/hint", "--producer-file");
    // With it: detected, the answer after the last tool call, the session's facts.
    let r = run(sojx().args([
        "extract",
        "--producer-file",
        ACME,
        "--schema",
        "examples/verdict.schema.json",
        RUN,
    ]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["producer"], "acme");
    assert_eq!(e["schema_version"], "1.2");
    assert_eq!(e["data"], answer());
    assert_eq!(e["source"]["line"], 4);
    assert_eq!(e["session"]["id"], "run-7");
    assert_eq!(e["session"]["usage"]["output_tokens"], 41);
    // Its failure is the agent's, not retryable by its own code.
    let r = run(sojx().args(["extract", "--producer-file", ACME, FAILED]));
    assert_eq!(r.kind(), Some("agent_error"));
    assert_eq!(r.one()["error"]["retryable"], false);
    assert_eq!(r.one()["error"]["details"]["code"], "invalid_api_key");
    // `--from` names it; without the file the id is unknown (usage, exit 3).
    let r = run(sojx().args(["extract", "--producer-file", ACME, "--from", "acme", RUN]));
    assert_eq!(r.code, 0);
    let r = run(sojx().args(["extract", "--from", "acme", RUN]));
    assert_eq!(r.code, 3);
    says(&r, "/error/message", "no producer has this id");
    // A forced producer that reads nothing of the input says so.
    let r = run(sojx().args([
        "extract",
        "--producer-file",
        ACME,
        "--from",
        "acme",
        "examples/claude-review.ndjson",
    ]));
    assert_eq!(r.code, 1, "{}", r.stdout);
}

#[test]
fn the_config_folder_is_read_and_a_flag_wins() {
    let dir = scratch_dir("producer-files", "config");
    let folder = dir.path().join("sojx/producers");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(ACME, folder.join("acme.toml")).unwrap();
    std::fs::write(folder.join("notes.txt"), "not a producer file").unwrap();
    let with_config = |args: &[&str]| {
        let mut c = sojx();
        c.env("XDG_CONFIG_HOME", dir.path()).args(args);
        run(&mut c)
    };
    let r = with_config(&["extract", RUN]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "acme");
    let r = with_config(&["producers"]);
    let list = r.one()["data"].as_array().unwrap().clone();
    let acme = list.iter().find(|p| p["id"] == "acme").unwrap();
    assert_eq!(acme["origin"], "config");
    assert_eq!(acme["reads"], "file");
    // The same id from a flag: the flag's file is the one.
    let other = dir.path().join("acme-flag.toml");
    std::fs::write(
        &other,
        std::fs::read_to_string(ACME)
            .unwrap()
            .replace("Acme Agent", "Acme Agent (flag)"),
    )
    .unwrap();
    let r = with_config(&["producers", "--producer-file", path_str(&other)]);
    let list = r.one()["data"].as_array().unwrap().clone();
    let acme: Vec<&Value> = list.iter().filter(|p| p["id"] == "acme").collect();
    assert_eq!(acme.len(), 1);
    assert_eq!(acme[0]["origin"], "flag");
    assert_eq!(acme[0]["name"], "Acme Agent (flag)");
    // A broken file in the folder stops every command that reads producers, naming it.
    std::fs::write(folder.join("broken.toml"), "sojx_producer = 1\nid = \n").unwrap();
    let r = with_config(&["extract", RUN]);
    assert_eq!(r.code, 3);
    let e = r.one();
    assert_eq!(e["error"]["kind"], "usage");
    assert!(
        e["error"]["target"]
            .as_str()
            .unwrap()
            .ends_with("broken.toml"),
        "{}",
        r.stdout
    );
    says(&r, "/error/message", "at line 2, column 6");
}

#[test]
fn producers_lists_every_producer_with_where_it_comes_from() {
    let r = run(sojx().args(["producers"]));
    assert_eq!(r.code, 0);
    let e = r.one();
    assert_eq!(e["command"], "producers");
    let list = e["data"].as_array().unwrap();
    let ids: Vec<&str> = list.iter().map(|p| p["id"].as_str().unwrap()).collect();
    for &p in sojx_core::producer::Producer::ALL {
        assert!(ids.contains(&p.id()), "{} is not listed", p.id());
    }
    assert!(ids.len() >= 26, "{} producers", ids.len());
    let files = list.iter().filter(|p| p["reads"] == "file").count();
    assert!(files >= 8, "{files} built-in producer files");
    for p in list {
        assert_eq!(p["origin"], "built-in", "{p}");
    }
    // How `sojx run` resumes each CLI's sessions; an API producer has no sessions to resume.
    let resume = |id: &str| list.iter().find(|p| p["id"] == id).unwrap()["resume"].clone();
    assert_eq!(resume("claude-code"), "claude -p --resume ID");
    assert_eq!(resume("anthropic"), Value::Null);
    let r = run(sojx().args(["producers", "--producer-file", ACME]));
    let acme = r.one()["data"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(acme["resume"], "acme run --resume ID", "{acme}");
    // For people: a table, one line per producer and a count.
    let r = sojx()
        .args(["producers", "--output-format", "text"])
        .output()
        .unwrap();
    let text = String::from_utf8(r.stdout).unwrap();
    assert!(text.contains("grok-cli"), "{text}");
    assert!(
        text.ends_with(&format!("{} producers\n", ids.len())),
        "{text}"
    );
}

#[test]
fn check_names_each_mistake_with_its_place() {
    let dir = scratch_dir("producer-files", "check");
    let text = std::fs::read_to_string(ACME).unwrap();
    let cases = [
        (
            text.replace("id = \"acme\"", "id = \"Acme\""),
            "x.toml",
            "at /id:",
        ),
        (
            text.replace("end = true", "end = \"yes\""),
            "x.toml",
            "at /event/3/end:",
        ),
        (
            text.replace("text = \"text\"", "text = \"/body/*\""),
            "x.toml",
            "at /event/1/text: `/body/*`: `*` (any element) is allowed in conditions and error fields only",
        ),
        (
            text.replace("end = true", "end = false"),
            "x.toml",
            "at /event: no event ends the run",
        ),
        (
            text.replace("id = \"acme\"", "id = \"codex\""),
            "x.toml",
            "is a producer sojx reads in code",
        ),
        ("{\"sojx_producer\": 1,".to_owned(), "x.json", "not JSON"),
        (
            "sojx_producer = 1\nid = \"look\"\nname = \"L\"\nreads_like = \"nobody\"\n".to_owned(),
            "x.toml",
            "at /reads_like: `nobody` is not a producer sojx reads in code",
        ),
        (
            "sojx_producer = 1\nid = \"look\"\nname = \"L\"\nevent = []\nreads_like = \"x\"\n"
                .to_owned(),
            "x.toml",
            "at /event:",
        ),
        (
            text.replace("sojx_producer = 1", "sojx_producer = 2"),
            "x.toml",
            "at /sojx_producer:",
        ),
    ];
    for (content, name, want) in cases {
        let f = dir.path().join(name);
        std::fs::write(&f, &content).unwrap();
        let r = run(sojx().args(["producers", "check", path_str(&f)]));
        assert_eq!(r.code, 3, "{want}: {}", r.stdout);
        let message = r.one()["error"]["message"].as_str().unwrap();
        assert!(message.contains(want), "{want}: {message}");
        // The same file given to extract: the same failure, before any input.
        if want != "is a producer sojx reads in code" {
            let r = run(sojx().args(["extract", "--producer-file", path_str(&f), RUN]));
            assert_eq!(r.code, 3, "{}", r.stdout);
        }
    }
    // A folder or a FIFO is not read.
    let r = run(sojx().args(["producers", "check", path_str(dir.path())]));
    assert_eq!(r.code, 3);
    assert!(r.stdout.contains("not a regular file"), "{}", r.stdout);
    // With inputs: what it extracts from each, as its producer.
    let r = run(sojx().args(["producers", "check", ACME, RUN, FAILED]));
    assert_eq!(r.code, 1);
    assert_eq!(r.envelopes.len(), 2);
    assert_eq!(r.envelopes[0]["data"], answer());
    assert_eq!(r.envelopes[0]["command"], "producers");
    assert_eq!(r.envelopes[1]["error"]["kind"], "agent_error");
}

#[test]
fn a_look_alike_is_read_by_the_producer_it_resembles_under_its_own_id() {
    let kilo = "tests/fixtures/producers/kilo/happy-7.7.7.jsonl";
    let r = run(sojx().args(["extract", kilo]));
    assert_eq!(r.one()["producer"], "opencode");
    let r = run(sojx().args(["extract", "--from", "kilo", kilo]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "kilo");
    assert_eq!(r.one()["schema_version"], "1.2");
    assert_eq!(r.one()["data"], answer());
    // On another producer's input, as for any --from: a `parse` failure naming what it is.
    let r = run(sojx().args(["extract", "--from", "kilo", "examples/claude-review.ndjson"]));
    assert_eq!(r.code, 1);
    assert_eq!(r.kind(), Some("parse"));
    // A user's look-alike: a file of four lines.
    let dir = scratch_dir("producer-files", "look-alike");
    let f = dir.path().join("fork.toml");
    std::fs::write(
        &f,
        "sojx_producer = 1\nid = \"my-fork\"\nname = \"Fork\"\nreads_like = \"opencode\"\n",
    )
    .unwrap();
    let r = run(sojx().args([
        "extract",
        "--producer-file",
        path_str(&f),
        "--from",
        "my-fork",
        kilo,
    ]));
    assert_eq!(r.one()["producer"], "my-fork");
    assert_eq!(r.one()["data"], answer());
}

#[test]
fn compare_and_run_take_producer_files() {
    let r = run(sojx().args([
        "compare",
        "--producer-file",
        ACME,
        "--items",
        ".issues[]",
        "--key",
        ".file",
        "--field",
        ".severity",
        RUN,
        RUN,
    ]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    #[cfg(unix)]
    {
        let r = run(sojx().args(["run", "--producer-file", ACME, "--", "cat", RUN]));
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.one()["producer"], "acme");
        assert_eq!(r.one()["data"], answer());
    }
}

/// A bare answer shaped like a built-in file's event stays the answer unless the event ends a
/// run or carries the run's identity (contract §4): never exit 0 with a producer's status line,
/// never a failure made of an answer.
#[test]
fn a_sole_value_is_a_producers_output_only_with_its_identity() {
    let answers = [
        r#"{"type":"error","error":"disk full"}"#,
        r#"{"type":"error","code":"E1","message":"disk full","retryable":false}"#,
        r#"{"type":"tool_result","ok":true}"#,
        r#"{"event":"init","steps":3}"#,
        r#"{"type":"turn_end","score":2}"#,
    ];
    for a in answers {
        let r = run(sojx().arg("extract").write_stdin(a));
        assert_eq!(r.code, 0, "{a}: {}", r.stdout);
        assert_eq!(r.one()["producer"], "json", "{a}");
    }
    // pi's session line alone (a run that stopped before the model answered) is pi's.
    let r = run(sojx().arg("extract").write_stdin(
        r#"{"type":"session","version":3,"id":"01a2","timestamp":"2026-11-27T16:16:28.653Z","cwd":"/w"}"#,
    ));
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "pi");
    assert_eq!(r.kind(), Some("truncated"));
}

#[test]
fn a_file_that_shares_a_producers_shapes_decides_by_its_events() {
    // Droid's stream starts with Claude Code's init line: its next line decides, and the
    // Claude Code stream of the example is still Claude Code's.
    let droid = "tests/fixtures/real/droid-0.225.2-no-auth-stream-json.stdout";
    let r = run(sojx().args(["extract", droid]));
    assert_eq!(r.one()["producer"], "droid", "{}", r.stdout);
    assert_eq!(r.kind(), Some("agent_error"));
    says(&r, "/error/message", "Authentication failed");
    let r = run(sojx().args(["extract", "examples/claude-review.ndjson"]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "claude-code");
    // A user's file for a Claude Code fork whose result carries its own member: its results
    // are its own, Claude Code's results stay Claude Code's.
    let dir = scratch_dir("producer-files", "shares-shapes");
    let f = dir.path().join("fork.toml");
    std::fs::write(
        &f,
        r#"sojx_producer = 1
id = "claude-fork"
name = "A Claude Code fork"
reads_like = "claude-code"
[[event]]
name = "result"
when = { type = "result", fork_credits = { present = true } }
text = "result"
end = true
"#,
    )
    .unwrap();
    let fork = r#"{"type":"result","subtype":"success","is_error":false,"result":"{\"ok\":true}","session_id":"s","fork_credits":2}"#;
    let r = run(sojx()
        .args(["extract", "--producer-file", path_str(&f)])
        .write_stdin(fork));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "claude-fork");
    assert_eq!(r.one()["data"], serde_json::json!({"ok": true}));
    let claude = fork.replace(r#","fork_credits":2"#, "");
    let r = run(sojx()
        .args(["extract", "--producer-file", path_str(&f)])
        .write_stdin(claude));
    assert_eq!(r.one()["producer"], "claude-code", "{}", r.stdout);
}

/// A Claude Code fork whose stream starts with Claude Code's init line (its own event too).
const FORK: &str = "tests/fixtures/producer-files/claude-fork.toml";

#[test]
fn a_held_choice_is_decided_by_the_next_line_or_past_its_bound_by_sojxs_detection() {
    let init =
        r#"{"type":"system","subtype":"init","session_id":"s","tools":[],"model":"m","pad":"PAD"}"#
            .replace("PAD", &"x".repeat(400));
    let claude_end = concat!(
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"{\"ok\":true}"}]},"session_id":"s"}"#,
        "\n",
        r#"{"type":"result","subtype":"success","is_error":false,"result":"{\"ok\":true}","session_id":"s"}"#,
        "\n"
    );
    let extract = |input: String| {
        run(sojx()
            .args(["extract", "--activity", "--producer-file", FORK])
            .write_stdin(input))
    };
    // The fork's stream: the init line held, the next line the fork's.
    let r = extract(format!(
        "{init}\n{{\"type\":\"message\",\"text\":\"{{}}\"}}\n{{\"type\":\"done\"}}\n"
    ));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "claude-fork");
    assert!(
        r.stderr.contains("sojx: <stdin>:1: producer: claude-fork"),
        "{}",
        r.stderr
    );
    // Claude Code's: its init line held, its next line Claude Code's.
    let r = extract(format!("{init}\n{claude_end}"));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "claude-code");
    // Init lines past the 1 MiB kept while the choice is held, then Claude Code's answer: read
    // whole by Claude Code's reader, nothing lost.
    let mut input = String::new();
    for _ in 0..4000 {
        input.push_str(&init);
        input.push('\n');
    }
    // The last init line names the model: it is read, not dropped past the bound.
    input.push_str(&init.replace(r#""model":"m""#, r#""model":"last""#));
    input.push('\n');
    input.push_str(claude_end);
    let lines = input.lines().count();
    let r = extract(input);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "claude-code");
    assert_eq!(r.one()["data"], serde_json::json!({"ok": true}));
    assert_eq!(r.one()["source"]["line"], lines);
    assert_eq!(r.one()["session"]["model"], "last");
}

/// pi's file shares the Anthropic stream's `message_start` (`reads_like = "anthropic"`): the
/// choice is held on it, and nothing of it is lost, however the hold ends.
#[test]
fn a_held_value_is_read_when_the_hold_ends_at_the_input_end_or_past_a_full_bound() {
    let stream = std::fs::read_to_string(
        crate::common::root()
            .join("tests/fixtures/producers/anthropic/tool-stream-bare-lines.jsonl"),
    )
    .unwrap();
    // Values no producer claims filled what is kept before the stream began.
    let mut input = String::new();
    for n in 0..60_000 {
        input.push_str(&format!("{{\"log\":\"recorder line\",\"n\":{n}}}\n"));
    }
    input.push_str(&stream);
    let r = run(sojx().args(["extract"]).write_stdin(input));
    assert_eq!(r.one()["producer"], "anthropic", "{}", r.stdout);
    assert_eq!(r.one()["session"]["id"], "msg_01", "{}", r.stdout);
    assert_eq!(r.one()["session"]["model"], "claude-sonnet-4-6");
    // The input ends while held: its `--activity` lines are still told.
    let first = stream.lines().next().unwrap();
    let r = run(sojx()
        .args(["extract", "--activity"])
        .write_stdin(format!("{first}\n")));
    assert_eq!(r.one()["producer"], "anthropic", "{}", r.stdout);
    assert!(
        r.stderr.contains("sojx: <stdin>:1: producer: anthropic"),
        "{}",
        r.stderr
    );
}

/// A user's file for a Claude Code fork written the natural way claims Claude Code's own
/// events (issue 55, item 4): sojx's own reader reads a real Claude Code stream (the accepted
/// call FAIL, not the hook-refused PASS), with a warning for a config folder's file and a
/// usage error for a `--producer-file`; `--from` reads it by the file.
#[test]
fn a_file_that_claims_what_sojxs_own_reader_reads_never_takes_the_stream() {
    const STREAM: &str = "tests/fixtures/producer-files/claude-refused-call-after-accepted.ndjson";
    const NATURAL: &str = "tests/fixtures/producer-files/claude-fork-natural.toml";
    let dir = scratch_dir("producer-files", "natural-fork");
    let folder = dir.path().join("sojx/producers");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(NATURAL, folder.join("my-fork.toml")).unwrap();
    let mut c = sojx();
    c.env("XDG_CONFIG_HOME", dir.path())
        .args(["extract", STREAM]);
    let r = run(&mut c);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["producer"], "claude-code");
    assert_eq!(e["data"]["verdict"], "FAIL");
    assert_eq!(
        e["warnings"][0]["kind"], "producer_conflict",
        "{}",
        r.stdout
    );
    assert!(
        e["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("(`my-fork`) claims line 1 too"),
        "{}",
        r.stdout
    );

    let r = run(sojx().args(["extract", "--producer-file", NATURAL, STREAM]));
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.kind(), Some("usage"));
    says(&r, "/error/message", "sojx's own claude-code reader reads");

    let r = run(sojx().args([
        "extract",
        "--producer-file",
        NATURAL,
        "--from",
        "my-fork",
        STREAM,
    ]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["producer"], "my-fork");
    assert_eq!(r.one()["data"]["verdict"], "PASS");

    // Without the file: Claude Code's, no warning.
    let r = run(sojx().args(["extract", STREAM]));
    assert_eq!(r.one()["data"]["verdict"], "FAIL");
    assert_eq!(r.one()["warnings"], serde_json::json!([]));
}

/// `run --acp` reads its own recording with the `acp` reader alone (issue 58, item 12): a file in
/// the config folder whose events claim the recording's lines (here sojx's own `initialize`, by
/// a place deeper than the `acp` reader's shown places are compared) was reported to break every
/// `run --acp` with "--from acp was given, but the input looks like …". The loaded files are not
/// asked at all now, whatever detection's rules say.
#[test]
fn a_config_folder_file_never_takes_run_acps_recording() {
    if !crate::common::have_tool("python3", "run --acp with a claiming producer file") {
        return;
    }
    let dir = scratch_dir("producer-files", "acp-claim");
    let folder = dir.join("sojx/producers");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("claims.toml"),
        "sojx_producer = 1\nid = \"claims\"\nname = \"Claims\"\n\n[[event]]\nname = \"all\"\n\
         when = { \"/message/params/clientInfo/name\" = \"sojx\" }\ntext = \"message\"\nend = true\n",
    )
    .unwrap();
    let agent = crate::common::fixture("acp/fake-agent.py");
    let r = run(sojx()
        .env("XDG_CONFIG_HOME", &dir)
        .env_remove("GEMINI_API_KEY")
        .args([
            "run",
            "--acp",
            "--prompt",
            "review",
            "--schema",
            "examples/verdict.schema.json",
        ])
        .arg("--")
        .arg(&agent)
        .args([
            "--answer",
            r#"{"verdict":"PASS","confidence":0.9,"issues":[]}"#,
        ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.one()["producer"], "acp");
    assert_eq!(r.one()["data"]["verdict"], "PASS");
}
