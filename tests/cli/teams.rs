//! What the teams need on top of extraction, end to end: `--markers`/`--handoff`, `--assert`,
//! `sojx compare`, and parallel batches printed in order.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Run, fixture, path_str, root, run, run_stdin, sojx};

const OPS_SCHEMA: &str = "tests/fixtures/recipes/ops/escalation.schema.json";
const REVIEW_SCHEMA: &str = "tests/fixtures/recipes/review/review.schema.json";
const BLOCKERS: &str =
    r#".counts.blocker == ([.findings[] | select(.severity == "blocker")] | length)"#;

fn recipe(rel: &str) -> String {
    path_str(&fixture(&format!("recipes/{rel}"))).to_owned()
}

fn extract(args: &[&str]) -> Run {
    run(sojx().arg("extract").args(args))
}

fn warning_kinds(e: &Value) -> Vec<&str> {
    e["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect()
}

/// A one-envelope failure of `kind` whose message mentions `needle`.
fn failed_with(r: &Run, kind: &str, needle: &str) {
    // The caller's kinds exit 3, the answer's 1.
    let code = if matches!(kind, "usage" | "filesystem") {
        3
    } else {
        1
    };
    assert_eq!(r.code, code, "{}", r.stdout);
    assert_eq!(r.kind(), Some(kind), "{}", r.stdout);
    let msg = r.one()["error"]["message"].as_str().unwrap();
    assert!(msg.contains(needle), "{msg}");
}

/// A fresh directory under the target dir, for files a test writes.
fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

// --- --markers / --handoff ---------------------------------------------------------------------

#[test]
fn markers_are_read_when_the_run_has_no_structured_output() {
    let (legacy, handoff) = (recipe("ops/legacy.ndjson"), recipe("ops/handoff.json"));
    let r = extract(&[
        "--schema",
        OPS_SCHEMA,
        "--markers",
        "--handoff",
        &handoff,
        &legacy,
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["producer"], "claude-code");
    assert_eq!(e["source"]["kind"], "markers");
    assert_eq!(e["source"]["markers"], 3);
    assert_eq!(e["validation"]["valid"], true);
    assert_eq!(
        e["data"],
        json!({
            "events": [
                {"level": "critical", "service": "payments", "message": "p99 latency above 4s for 12 minutes"},
                {"level": "info", "service": "payments", "message": "restarted worker pool, no effect"}
            ],
            "memories": [
                {"key": "payments:runbook", "value": "restarting workers does not clear the queue backlog"}
            ],
            "escalation": {"needed": true, "tier": "senior", "reason": "queue backlog persists after restart"}
        })
    );
    assert_eq!(warning_kinds(e), ["legacy_markers", "marker_invalid"]);
    let legacy_msg = e["warnings"][0]["message"].as_str().unwrap();
    assert!(legacy_msg.contains("legacy path"), "{legacy_msg}");
    let invalid = e["warnings"][1]["message"].as_str().unwrap();
    assert!(
        invalid.contains("line 5") && invalid.contains("`urgent`"),
        "{invalid}"
    );
}

#[test]
fn structured_output_wins_over_markers_without_duplicates() {
    let r = extract(&[
        "--markers",
        "--handoff",
        &recipe("ops/handoff.json"),
        &recipe("ops/structured.ndjson"),
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["source"]["kind"], "structured_output");
    // Exactly the structured output: one event, not the three markers of the result text.
    assert_eq!(e["data"]["events"].as_array().unwrap().len(), 1);
    assert_eq!(
        e["data"]["escalation"]["reason"],
        "queue backlog persists after restart"
    );
    assert_eq!(e["warnings"], json!([]));
}

#[test]
fn json_in_the_answer_text_wins_over_markers() {
    let text = "[EVENT:critical:db] disk full\nResult: {\"ok\": true}\n";
    let r = run_stdin(&["extract", "--from", "text", "--markers"], text);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["source"]["kind"], "embedded");
    assert_eq!(r.one()["data"], json!({"ok": true}));
}

#[test]
fn a_failed_run_stays_a_failure_with_markers() {
    let r = extract(&["--markers", &recipe("ops/failed.ndjson")]);
    assert_eq!(r.code, 1);
    assert_eq!(r.kind(), Some("agent_error"));
}

#[test]
fn markers_are_ignored_without_the_flag() {
    let r = extract(&[&recipe("ops/legacy.ndjson")]);
    assert_eq!(r.kind(), Some("not_found"));
}

#[test]
fn marker_data_is_validated_against_the_schema() {
    let schema = r#"{"type":"object","required":["escalation"]}"#;
    let r = extract(&[
        "--markers",
        "--schema",
        schema,
        &recipe("ops/legacy.ndjson"),
    ]);
    assert_eq!(r.kind(), Some("validation_failed"));
    let e = r.one();
    assert_eq!(e["source"]["kind"], "markers");
    assert_eq!(e["candidate"]["events"].as_array().unwrap().len(), 2);
}

#[test]
fn text_without_markers_is_still_not_found() {
    let r = run_stdin(
        &["extract", "--from", "text", "--markers"],
        "All quiet, nothing to report.\n",
    );
    failed_with(&r, "not_found", "markers");
}

#[test]
fn a_text_handoff_file_is_kept_as_text() {
    let d = scratch("handoff-text");
    let h = d.join("ESCALATE.txt");
    std::fs::write(&h, "escalate: yes\nwho: senior tier\n").unwrap();
    let r = run(sojx()
        .args(["extract", "--from", "text", "--markers", "--handoff"])
        .arg(&h)
        .write_stdin("[MEMORY:note] the cache was cold\n"));
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["data"]["escalation"], "escalate: yes\nwho: senior tier");
    assert_eq!(
        e["data"]["memories"],
        json!([{"key": "note", "value": "the cache was cold"}])
    );
}

#[test]
fn a_missing_handoff_file_fails_before_any_input() {
    let r = extract(&[
        "--markers",
        "--handoff",
        "no/such/handoff.json",
        "no/such/input.ndjson",
    ]);
    failed_with(&r, "filesystem", "handoff");
}

#[test]
fn strict_refuses_markers_and_handoff_needs_markers() {
    for args in [
        &["--strict", "--markers", "x.ndjson"][..],
        &["--handoff", "h.json", "x.ndjson"][..],
    ] {
        let r = extract(args);
        assert_eq!(r.code, 3);
        assert_eq!(r.kind(), Some("usage"), "{args:?}");
    }
}

// --- --assert ----------------------------------------------------------------------------------

#[test]
fn a_true_assertion_passes() {
    let r = extract(&[
        "--schema",
        REVIEW_SCHEMA,
        "--assert",
        BLOCKERS,
        "--assert",
        r#".verdict == "FAIL""#,
        &recipe("review/security.ndjson"),
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"]["counts"]["blocker"], 1);
}

#[test]
fn a_false_assertion_is_assertion_failed_with_the_values_it_saw() {
    let r = extract(&[
        "--schema",
        REVIEW_SCHEMA,
        "--assert",
        BLOCKERS,
        &recipe("review/perf.json"),
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(r.kind(), Some("assertion_failed"));
    let e = r.one();
    assert_eq!(e["producer"], "ollama");
    assert_eq!(e["validation"]["valid"], true);
    assert_eq!(
        e["error"]["details"],
        json!({"assertions": [{"expression": BLOCKERS, "values": [false]}]})
    );
    assert!(e["error"]["message"].as_str().unwrap().contains(BLOCKERS));
    assert_eq!(e["candidate"]["counts"]["blocker"], 1);
    assert!(e.get("data").is_none());
}

#[test]
fn null_empty_and_erroring_assertions_fail_and_are_all_listed() {
    let r = run_stdin(
        &[
            "extract",
            "--assert",
            ".missing",
            "--assert",
            "empty",
            "--assert",
            ".n | ascii_downcase",
            "--assert",
            ".n > 1",
        ],
        r#"{"n": 3}"#,
    );
    assert_eq!(r.kind(), Some("assertion_failed"));
    let d = &r.one()["error"]["details"]["assertions"];
    assert_eq!(d.as_array().unwrap().len(), 3, "{d}");
    assert_eq!(d[0], json!({"expression": ".missing", "values": [null]}));
    assert_eq!(d[1], json!({"expression": "empty", "values": []}));
    assert_eq!(d[2]["expression"], ".n | ascii_downcase");
    assert!(d[2]["error"].is_string(), "{d}");
    let msg = r.one()["error"]["message"].as_str().unwrap();
    assert!(msg.starts_with("3 of 4 assertions failed"), "{msg}");
}

#[test]
fn several_values_must_all_hold() {
    let r = run_stdin(
        &["extract", "--assert", ".xs[] > 0"],
        r#"{"xs": [1, 0, 2]}"#,
    );
    assert_eq!(r.kind(), Some("assertion_failed"));
    assert_eq!(
        r.one()["error"]["details"]["assertions"][0]["values"],
        json!([true, false, true])
    );
    let ok = run_stdin(&["extract", "--assert", ".xs[] > 0"], r#"{"xs": [1, 2]}"#);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
}

#[test]
fn a_bad_expression_is_a_usage_error_before_any_input_is_read() {
    let r = extract(&["--assert", ".a ==", "--assert", ".b", "no/such/file.ndjson"]);
    assert_eq!(r.code, 3);
    assert_eq!(r.kind(), Some("usage"));
    let e = r.one();
    assert_eq!(e["error"]["operation"], "compile_expression");
    assert!(e["error"]["message"].as_str().unwrap().contains("`.a ==`"));
    let undefined = extract(&["--assert", "nosuchfn(1)", "no/such/file.ndjson"]);
    assert_eq!(undefined.kind(), Some("usage"));
}

#[test]
fn schema_validation_runs_before_assertions() {
    let r = run_stdin(
        &[
            "extract",
            "--schema",
            r#"{"type":"object","required":["n"]}"#,
            "--assert",
            "false",
        ],
        r#"{"m": 1}"#,
    );
    assert_eq!(r.kind(), Some("validation_failed"));
}

// --- sojx compare ------------------------------------------------------------------------------

fn compare(files: &[&str]) -> Run {
    run(sojx()
        .current_dir(root())
        .args([
            "compare",
            "--items",
            ".findings[]",
            "--key",
            "[.file, .line]",
            "--field",
            ".severity",
        ])
        .args(files))
}

#[test]
fn contradictions_between_producers_are_reported() {
    // Relative to the project root, where `compare` runs: the joined paths stay under the
    // 200 characters past which `input` is `<3 inputs>` (docs/teams.md), wherever the tree is.
    let files = [
        "tests/fixtures/recipes/review/security.ndjson",
        "tests/fixtures/recipes/review/style.json",
        "tests/fixtures/recipes/review/perf.json",
    ];
    let r = compare(&files);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(r.kind(), Some("assertion_failed"));
    let e = r.one();
    assert_eq!(e["command"], "compare");
    assert_eq!(e["input"], files.join(", "));
    let d = &e["error"]["details"];
    assert_eq!(
        d["contradictions"],
        json!([{
            "key": ["src/auth.rs", 42],
            "values": ["blocker", "minor"],
            "sources": [
                {"input": files[0], "index": 0, "value": "blocker"},
                {"input": files[1], "index": 0, "value": "minor"}
            ]
        }])
    );
    assert_eq!(d["items"], 3);
    assert_eq!(d["keys"], 2);
    assert_eq!(d["failed_inputs"], json!([]));
}

#[test]
fn agreeing_inputs_exit_zero() {
    let files = [recipe("review/security.ndjson"), recipe("review/perf.json")];
    let r = compare(&[&files[0], &files[1]]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let d = &r.one()["data"];
    assert_eq!(d["contradictions"], json!([]));
    assert_eq!(
        d["inputs"],
        json!([{"input": files[0], "items": 1}, {"input": files[1], "items": 1}])
    );
}

#[test]
fn printed_envelopes_are_compared_by_their_data() {
    let d = scratch("compare-envelopes");
    let out = sojx()
        .arg("extract")
        .args([
            recipe("review/security.ndjson"),
            recipe("review/style.json"),
        ])
        .output()
        .unwrap();
    let lines = d.join("verdicts.jsonl");
    std::fs::write(&lines, &out.stdout).unwrap();
    let r = compare(&[path_str(&lines)]);
    assert_eq!(r.kind(), Some("assertion_failed"), "{}", r.stdout);
    let sources = &r.one()["error"]["details"]["contradictions"][0]["sources"];
    let l = path_str(&lines);
    assert_eq!(sources[0]["input"], format!("{l}:1"));
    assert_eq!(sources[1]["input"], format!("{l}:2"));
    // Saved on Windows: a byte order mark, CRLF line ends, a blank line between (line numbers
    // are the file's).
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let crlf = format!("\u{feff}{}", text.trim_end().replace('\n', "\r\n\r\n"));
    let windows = d.join("verdicts-crlf.jsonl");
    std::fs::write(&windows, crlf).unwrap();
    let r = compare(&[path_str(&windows)]);
    assert_eq!(r.kind(), Some("assertion_failed"), "{}", r.stdout);
    let sources = &r.one()["error"]["details"]["contradictions"][0]["sources"];
    let w = path_str(&windows);
    assert_eq!(sources[0]["input"], format!("{w}:1"));
    assert_eq!(sources[1]["input"], format!("{w}:3"));
    // One pretty-printed envelope per file works too.
    let pretty = sojx()
        .args(["extract", "--pretty"])
        .arg(recipe("review/style.json"))
        .output()
        .unwrap();
    let p = d.join("style.envelope.json");
    std::fs::write(&p, &pretty.stdout).unwrap();
    let r = compare(&[&recipe("review/security.ndjson"), path_str(&p)]);
    assert_eq!(r.kind(), Some("assertion_failed"));
    assert_eq!(
        r.one()["error"]["details"]["contradictions"][0]["sources"][1]["input"],
        path_str(&p)
    );
}

#[test]
fn failed_inputs_are_reported_and_fail_the_comparison() {
    let (sec, perf, failed) = (
        recipe("review/security.ndjson"),
        recipe("review/perf.json"),
        recipe("ops/failed.ndjson"),
    );
    let r = compare(&[&sec, &failed, &perf]);
    assert_eq!(r.code, 1);
    assert_eq!(r.kind(), Some("agent_error"), "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["error"]["target"], failed.as_str());
    assert_eq!(warning_kinds(e), ["input_failed"]);
    // With a contradiction as well, the contradiction decides the kind.
    let style = recipe("review/style.json");
    let r = compare(&[&sec, &failed, &style]);
    assert_eq!(r.kind(), Some("assertion_failed"));
    let d = &r.one()["error"]["details"];
    assert_eq!(d["failed_inputs"][0]["input"], failed.as_str());
    assert_eq!(d["failed_inputs"][0]["error"]["kind"], "agent_error");
}

/// `sojx compare` of `.findings[]` items keyed by `.k`, field `.v`.
fn compare_kv() -> assert_cmd::Command {
    let mut c = sojx();
    c.args([
        "compare",
        "--items",
        ".findings[]",
        "--key",
        ".k",
        "--field",
        ".v",
    ]);
    c
}

#[test]
fn an_items_expression_that_fails_on_an_input_fails_that_input() {
    let r = run(compare_kv().write_stdin(r#"{"no_findings": true}"#));
    assert_eq!(r.kind(), Some("assertion_failed"));
    let d = &r.one()["error"]["details"]["assertions"][0];
    assert_eq!(d["expression"], ".findings[]");
    assert!(d["error"].is_string());
}

#[test]
fn compare_expressions_are_checked_before_input() {
    let r = run(sojx().args([
        "compare",
        "--items",
        ".findings[",
        "--key",
        ".k",
        "--field",
        ".v",
        "a.ndjson",
        "b.ndjson",
    ]));
    assert_eq!(r.kind(), Some("usage"));
    assert_eq!(r.one()["input"], "a.ndjson, b.ndjson");
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--items")
    );
}

#[test]
fn many_inputs_are_summarized_in_the_input_field() {
    let d = scratch("compare-many");
    let mut files = Vec::new();
    for i in 0..30 {
        let f = d.join(format!("specialist-number-{i:02}.json"));
        std::fs::write(&f, format!(r#"{{"findings":[{{"k":1,"v":{}}}]}}"#, i % 2)).unwrap();
        files.push(f);
    }
    let r = run(compare_kv().args(&files));
    assert_eq!(r.one()["input"], "<30 inputs>");
    let c = &r.one()["error"]["details"]["contradictions"][0];
    assert_eq!(c["values"], json!([0, 1]));
    assert_eq!(c["sources"].as_array().unwrap().len(), 30);
}

// --- batches -----------------------------------------------------------------------------------

/// Copies of fixtures with known outcomes, alternating success and failure.
fn batch_files(dir: &Path, n: usize) -> Vec<(PathBuf, Option<&'static str>)> {
    let kinds: [(&str, Option<&str>); 4] = [
        ("claude-code/retry-then-accepted.ndjson", None),
        ("claude-code/truncated.ndjson", Some("truncated")),
        ("recipes/review/style.json", None),
        ("claude-code/rejected-only.ndjson", Some("not_found")),
    ];
    (0..n)
        .map(|i| {
            let (src, kind) = kinds[i % kinds.len()];
            let dst = dir.join(format!("run-{i:03}.in"));
            std::fs::copy(fixture(src), &dst).unwrap();
            (dst, kind)
        })
        .collect()
}

#[test]
fn a_batch_prints_envelopes_in_argument_order() {
    let d = scratch("batch-order");
    let files = batch_files(&d, 60);
    // Reverse order of names, so that order cannot come from sorting.
    let args: Vec<&PathBuf> = files.iter().rev().map(|(p, _)| p).collect();
    let r = run(sojx().arg("extract").args(&args));
    assert_eq!(r.code, 1);
    assert_eq!(r.envelopes.len(), 60);
    for (e, (p, kind)) in r.envelopes.iter().zip(files.iter().rev()) {
        assert_eq!(e["input"], path_str(p));
        assert_eq!(e["error"]["kind"].as_str(), *kind, "{e}");
    }
    // Not a terminal: the summary line all the same.
    assert!(
        r.stderr
            .ends_with("sojx: 60 inputs, 30 ok, 15 not_found, 15 truncated\n"),
        "{}",
        r.stderr
    );
}

/// The reader goes away after one line: the batch still ends quietly, with the status of all
/// its inputs (it holds failures: 1), not 0.
#[test]
fn a_closed_stdout_ends_a_batch_quietly_with_its_status() {
    let d = scratch("batch-pipe");
    let files = batch_files(&d, 200);
    let list: Vec<String> = files.iter().map(|(p, _)| path_str(p).to_owned()).collect();
    let bin = assert_cmd::cargo::cargo_bin("sojx");
    let script = format!(
        "{} extract {} | head -n 1 >/dev/null; echo ${{PIPESTATUS[0]}}",
        bin.display(),
        list.join(" ")
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("io:"));
}

/// A batch ends with one summary line on stderr, terminal or not (a CI log shows it): the
/// count, ok, then each kind that occurred.
#[test]
fn a_batch_ends_with_a_summary_line_on_stderr() {
    let d = scratch("batch-summary");
    let files = batch_files(&d, 8);
    let r = run(sojx().arg("extract").args(files.iter().map(|(p, _)| p)));
    assert_eq!(
        r.stderr.lines().last(),
        Some("sojx: 8 inputs, 4 ok, 2 not_found, 2 truncated"),
        "{}",
        r.stderr
    );
    // One input: no summary.
    let r = run(sojx().arg("extract").arg(&files[0].0));
    assert!(!r.stderr.contains(" inputs, "), "{}", r.stderr);
    // validate counts documents, of JSON Lines too.
    let r = run_stdin(
        &["validate", "--schema", r#"{"type":"integer"}"#],
        "1\n\"x\"\n2\n",
    );
    assert_eq!(
        r.stderr.lines().last(),
        Some("sojx: 3 documents, 2 ok, 1 validation_failed"),
        "{}",
        r.stderr
    );
}

#[test]
fn stdin_named_twice_is_read_in_order() {
    let r = run_stdin(&["extract", "-", "-"], r#"{"a": 1}"#);
    assert_eq!(r.envelopes.len(), 2);
    assert_eq!(r.envelopes[0]["data"], json!({"a": 1}));
    assert_eq!(r.envelopes[1]["error"]["kind"], "empty_input");
}

#[test]
fn markers_work_for_any_producer_with_a_final_answer_text() {
    let codex = concat!(
        r#"{"type":"thread.started","thread_id":"t-1"}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"[EVENT:warning:queue] backlog at 12k\n[MEMORY:capacity:queue] doubles on Mondays"}}"#,
        "\n",
        r#"{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":5}}"#,
        "\n"
    );
    let r = run_stdin(&["extract", "--markers"], codex);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["producer"], "codex");
    assert_eq!(e["source"]["kind"], "markers");
    assert_eq!(
        e["data"],
        json!({
            "events": [{"level": "warning", "service": "queue", "message": "backlog at 12k"}],
            "memories": [{"key": "queue:capacity", "value": "doubles on Mondays"}]
        })
    );
    // Cut off before turn.completed: truncated, markers or not.
    let cut: String = codex.lines().take(3).map(|l| format!("{l}\n")).collect();
    let r = run_stdin(&["extract", "--markers"], cut);
    assert_eq!(r.kind(), Some("truncated"));
}

/// compare's exit status is its worst failed input's, whatever the order of the arguments: an
/// unreadable file (3) outweighs an input with no answer (1).
#[test]
fn compare_fails_with_the_worst_input_in_any_order() {
    let d = scratch("compare-worst");
    let prose = d.join("prose.txt");
    std::fs::write(&prose, "no answer here").unwrap();
    let prose = path_str(&prose).to_owned();
    let ok = path_str(&fixture("recipes/review/style.json")).to_owned();
    for files in [
        [prose.as_str(), "/nonexistent.ndjson", ok.as_str()],
        ["/nonexistent.ndjson", prose.as_str(), ok.as_str()],
    ] {
        let r = compare(&files);
        assert_eq!(
            (r.code, r.kind()),
            (3, Some("filesystem")),
            "{files:?}: {}",
            r.stdout
        );
    }
}

/// One key with as many values as items: the values are told apart in linear time (a list
/// searched per item took 55 s on two files of 64,000 items, in a release build), and the message
/// names the first ten items, not all of them. The timeout is a guard against that quadratic
/// search coming back, not a speed measurement (`scripts/bench.py` measures).
#[test]
fn one_key_with_many_values_is_compared_in_linear_time() {
    let dir = scratch("compare-many-values");
    let files: Vec<String> = (0..2)
        .map(|n| {
            let items: Vec<Value> = (0..64_000)
                .map(|i| json!({"k": "same", "v": i * 2 + n}))
                .collect();
            let path = dir.join(format!("{n}.json"));
            std::fs::write(&path, json!({ "findings": items }).to_string()).unwrap();
            path_str(&path).to_owned()
        })
        .collect();
    let r = run(compare_kv()
        .args(&files)
        .timeout(std::time::Duration::from_secs(120)));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let e = r.one();
    let c = &e["error"]["details"]["contradictions"];
    assert_eq!(c.as_array().unwrap().len(), 1);
    assert_eq!(c[0]["values"].as_array().unwrap().len(), 128_000);
    assert_eq!(c[0]["sources"].as_array().unwrap().len(), 128_000);
    assert_eq!(c[0]["sources"][64_000]["value"], 1);
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(
        msg.ends_with(&format!(
            "16 in {}, 18 in {}, and 127990 more)",
            files[0], files[0]
        )),
        "{msg}"
    );
}

/// The message names each value of the first contradiction once, so that items repeating one
/// value cannot push the other out of it.
#[test]
fn the_contradiction_message_names_every_value_before_repeats() {
    let mut items: Vec<Value> = (0..11).map(|_| json!({"k": 1, "v": "a"})).collect();
    items.push(json!({"k": 1, "v": "b"}));
    let r = run(compare_kv().write_stdin(json!({ "findings": items }).to_string()));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let msg = r.one()["error"]["message"].as_str().unwrap();
    assert!(
        msg.ends_with(r#"(first: key 1: "a" in <stdin>, "b" in <stdin>, and 10 more)"#),
        "{msg}"
    );
}
