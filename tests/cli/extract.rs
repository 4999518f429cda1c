//! `sojx extract` end to end on Claude Code streams: precedence, failure rules, framings,
//! schemas, output modes, exit codes.

use serde_json::{Value, json};

use crate::common::{corpus_cases, fixture, path_str, run, run_stdin, shared, sojx};

const SCHEMA: &str = "examples/verdict.schema.json";

fn extract(args: &[&str], file: &str) -> crate::common::Run {
    let f = fixture(file);
    run(sojx().arg("extract").args(args).arg(&f))
}

#[test]
fn structured_output_wins_over_text() {
    let r = extract(
        &["--schema", SCHEMA],
        "claude-code/retry-then-accepted.ndjson",
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["producer"], "claude-code");
    assert_eq!(e["source"]["kind"], "structured_output");
    assert_eq!(e["source"]["line"], 7);
    assert_eq!(e["data"]["verdict"], "FAIL");
    assert_eq!(
        e["validation"],
        json!({"schema": SCHEMA, "valid": true, "draft": "2020-12"})
    );
    assert_eq!(e["warnings"], json!([]));
    assert_eq!(e["session"]["id"], "5b7f5f5e-0000-4000-8000-00000000c0de");
    assert_eq!(e["session"]["model"], "claude-sonnet-4-6");
    assert_eq!(e["session"]["turns"], 3);
    assert_eq!(e["session"]["cost_usd"], 0.04213);
    assert_eq!(e["session"]["usage"]["cache_read_input_tokens"], 20544);
}

#[test]
fn rejected_call_then_accepted_retry_is_the_tool_input() {
    let r = extract(
        &["--schema", SCHEMA],
        "claude-code/retry-no-structured-output.ndjson",
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["source"]["kind"], "tool_input");
    assert_eq!(e["source"]["tool_use_id"], "toolu_02");
    assert_eq!(e["source"]["line"], 5);
    assert_eq!(e["data"]["confidence"], 0.82);
}

#[test]
fn only_a_rejected_call_falls_through_to_the_text() {
    let r = extract(&[], "claude-code/rejected-only.ndjson");
    assert_eq!(r.kind(), Some("not_found"));
    assert_eq!(r.one()["found"], false);
    // The refusal names the failure (issue 40, item 3)…
    let message = r.one()["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("refused 1 StructuredOutput call(s)"),
        "{message}"
    );
    // …but --strict keeps its own reason, which is why the text was not taken.
    let r = extract(&["--strict"], "claude-code/rejected-only.ndjson");
    assert_eq!(r.kind(), Some("not_found"));
    assert_eq!(
        r.one()["error"]["message"],
        "the answer text is not exactly one JSON value"
    );
}

#[test]
fn cut_after_a_rejected_call_is_truncated() {
    let r = extract(
        &["--schema", SCHEMA],
        "claude-code/cut-after-rejected-call.ndjson",
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.kind(), Some("truncated"));
    assert_eq!(r.one()["error"]["retryable"], true);
}

#[test]
fn cross_check_mismatch_is_a_warning() {
    let r = extract(&[], "claude-code/cross-check-mismatch.ndjson");
    assert_eq!(r.code, 0);
    let e = r.one();
    assert_eq!(e["data"]["confidence"], 0.5);
    assert_eq!(e["warnings"][0]["kind"], "cross_check_mismatch");
}

#[test]
fn success_with_is_error_is_an_agent_error() {
    let r = extract(&["--schema", SCHEMA], "claude-code/success-is-error.ndjson");
    assert_eq!(r.code, 1);
    let e = r.one();
    assert_eq!(e["error"]["kind"], "agent_error");
    assert_eq!(e["error"]["details"]["subtype"], "success");
    assert_eq!(e["error"]["details"]["terminal_reason"], "api_error");
    assert_eq!(e["error"]["details"]["errors"], json!([]));
    assert_eq!(e["error"]["details"]["api_error_status"], 529);
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("529 Overloaded")
    );
    assert!(e.get("data").is_none());
}

#[test]
fn error_subtypes_are_agent_errors_with_details() {
    let r = extract(&[], "claude-code/max-structured-retries.ndjson");
    let e = r.one();
    assert_eq!(e["error"]["kind"], "agent_error");
    assert_eq!(
        e["error"]["details"]["subtype"],
        "error_max_structured_output_retries"
    );
    assert_eq!(
        e["error"]["details"]["terminal_reason"],
        "structured_output_retry_exhausted"
    );
    assert_eq!(
        e["error"]["details"]["errors"][0],
        "Failed to provide valid structured output after 5 attempts"
    );
}

#[test]
fn structured_output_on_a_failed_run_is_not_an_answer() {
    let r = extract(&[], "claude-code/error-with-structured-output.ndjson");
    assert_eq!(r.kind(), Some("agent_error"));
}

#[test]
fn no_result_line_is_truncated() {
    let r = extract(&[], "claude-code/truncated.ndjson");
    assert_eq!(r.kind(), Some("truncated"));
    assert_eq!(r.one()["producer"], "claude-code");
}

#[test]
fn several_json_values_in_text_last_valid_wins() {
    // The text holds two fences and, after them, an object in prose. `code_fence` comes before
    // `embedded` in the precedence, so the fences decide; among them, with a schema, the last
    // one that validates.
    let r = extract(
        &["--schema", SCHEMA],
        "claude-code/several-json-in-result.ndjson",
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["source"]["kind"], "code_fence");
    assert_eq!(e["source"]["candidate"], 2);
    assert_eq!(e["source"]["candidates"], 2);
    assert_eq!(e["data"]["verdict"], "FAIL");
    // A schema only the first fence satisfies: the first fence wins.
    let first_only = r#"{"type":"object","properties":{"confidence":{"type":"string"}},"required":["confidence"]}"#;
    let r = extract(
        &["--schema", first_only],
        "claude-code/several-json-in-result.ndjson",
    );
    assert_eq!(r.one()["source"]["candidate"], 1);
    assert_eq!(r.one()["data"]["verdict"], "PASS");
    // Without a schema: the last fence, not the aside in prose.
    let r = extract(&[], "claude-code/several-json-in-result.ndjson");
    assert_eq!(r.one()["source"]["kind"], "code_fence");
    assert_eq!(r.one()["data"]["verdict"], "FAIL");
    // In prose only (no fences): the last embedded value.
    let r = run_stdin(
        &["extract", "--from", "text"],
        "draft {\"v\": 1} then final {\"v\": 2}.",
    );
    assert_eq!(r.one()["source"]["kind"], "embedded");
    assert_eq!(r.one()["data"], json!({"v": 2}));
    // A cut-off value after the chosen one: the answer is broken, not the earlier value.
    let r = run_stdin(
        &["extract", "--from", "text"],
        "draft {\"v\": 1} then final {\"v\": 2",
    );
    assert_eq!(r.kind(), Some("json_invalid"));
    let r = run_stdin(
        &["extract", "--from", "text", "--repair"],
        "draft {\"v\": 1} then final {\"v\": 2, \"ok\": true",
    );
    assert_eq!(r.one()["data"], json!({"v": 2, "ok": true}));
    assert_eq!(r.one()["source"]["repaired"], true);
    // --repair never completes a cut-off member (`2` may have been `20`), and never falls
    // back to the earlier value: nothing complete is left, so the answer stays broken.
    let r = run_stdin(
        &["extract", "--from", "text", "--repair"],
        "draft {\"v\": 1} then final {\"v\": 2",
    );
    assert_eq!(r.kind(), Some("json_invalid"));
    // --strict refuses JSON dug out of prose.
    let r = extract(&["--strict"], "claude-code/several-json-in-result.ndjson");
    assert_eq!(r.kind(), Some("not_found"));
}

#[test]
fn partial_messages_stream() {
    let r = extract(&["--schema", SCHEMA], "claude-code/partial-messages.ndjson");
    // `issues` is required by the example schema and absent: the value fails validation, and
    // sojx does not fall back to the text.
    assert_eq!(r.kind(), Some("validation_failed"));
    let e = r.one();
    assert_eq!(
        e["candidate"],
        json!({"verdict": "PASS", "confidence": 0.97})
    );
    assert_eq!(e["error"]["details"][0]["keyword_location"], "/required");
    let r = extract(&[], "claude-code/partial-messages.ndjson");
    assert_eq!(r.one()["source"]["kind"], "structured_output");
    assert_eq!(r.one()["session"]["duration_ms"], 5100);
}

#[test]
fn verbose_array_and_single_result_object() {
    for f in [
        "claude-code/verbose-array.json",
        "claude-code/single-result.json",
    ] {
        let r = extract(&["--schema", SCHEMA], f);
        assert_eq!(r.code, 0, "{f}: {}", r.stdout);
        assert_eq!(r.one()["producer"], "claude-code");
        assert_eq!(r.one()["source"]["kind"], "structured_output");
    }
}

#[test]
fn noise_crlf_bom_and_blank_lines_are_tolerated() {
    let r = extract(&["--schema", SCHEMA], "claude-code/noisy.ndjson");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"]["verdict"], "FAIL");
}

#[test]
fn numbers_keep_their_digits() {
    let r = extract(&[], "claude-code/exact-numbers.ndjson");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout.contains("\"id\":123456789012345678901234567890"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("\"ratio\":0.1000000000000000055511151231257827"),
        "{}",
        r.stdout
    );
    // serde_json spells the exponent with a sign; the value is the same.
    assert!(r.stdout.contains("\"n\":1e+400"), "{}", r.stdout);
}

#[test]
fn schema_forms_path_at_path_inline_and_wrapper() {
    let inline = r#"{"type":"object","required":["verdict"]}"#;
    let wrapper =
        r#"{"name":"verdict","strict":true,"schema":{"type":"object","required":["verdict"]}}"#;
    for s in [
        SCHEMA.to_owned(),
        format!("@{SCHEMA}"),
        inline.to_owned(),
        wrapper.to_owned(),
    ] {
        let r = extract(&["--schema", &s], "claude-code/retry-then-accepted.ndjson");
        assert_eq!(r.code, 0, "{s}: {}", r.stdout);
    }
}

#[test]
fn invalid_schema_fails_before_reading_input() {
    // stdin is never read: the command would otherwise wait on it.
    let r = run(sojx().args([
        "extract",
        "--schema",
        r#"{"type": 12}"#,
        "does-not-exist.ndjson",
    ]));
    assert_eq!(r.code, 3);
    assert_eq!(r.kind(), Some("schema_invalid"));
    assert_eq!(r.one()["error"]["operation"], "compile_schema");
    let r = run(sojx().args(["extract", "--schema", "no/such/schema.json", "x"]));
    assert_eq!(r.kind(), Some("filesystem"));
}

#[test]
fn a_broken_schema_is_told_once_naming_the_schema_and_where() {
    let dir = crate::common::Scratch::new("broken-schema", "told-once");
    let schema = dir.join("verdict.schema.json");
    std::fs::write(
        &schema,
        r#"{"properties": {"confidence": {"minimum": "high"}}}"#,
    )
    .unwrap();
    let r = run(sojx().args(["extract", "--schema"]).arg(&schema).args([
        "examples/claude-review.ndjson",
        "examples/verdict.json",
        "-",
    ]));
    assert_eq!(r.code, 3);
    // stdout keeps one envelope per input (none is read: stdin would hang)...
    let inputs: Vec<&str> = r
        .envelopes
        .iter()
        .map(|e| e["input"].as_str().unwrap())
        .collect();
    assert_eq!(
        inputs,
        [
            "examples/claude-review.ndjson",
            "examples/verdict.json",
            "<stdin>"
        ]
    );
    let want = format!(
        "the schema {} is not a valid JSON Schema: at /properties/confidence/minimum: \"high\" is not of type \"number\"",
        path_str(&schema)
    );
    for e in &r.envelopes {
        assert_eq!(e["error"]["target"], path_str(&schema));
        assert_eq!(e["error"]["message"], want.as_str());
    }
    // ...and stderr tells it once, blaming no input.
    assert_eq!(r.stderr, format!("sojx: schema_invalid: {want}\n"));
    // A byte order mark before the schema is not an error (as before an input).
    std::fs::write(&schema, b"\xEF\xBB\xBF{\"required\": [\"verdict\"]}").unwrap();
    let r = run(sojx()
        .args(["extract", "--schema"])
        .arg(&schema)
        .arg("examples/claude-review.ndjson"));
    assert_eq!(r.code, 0, "{}", r.stdout);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn formats_are_asserted_unless_ignored() {
    let schema =
        r#"{"type":"object","properties":{"when":{"type":"string","format":"date-time"}}}"#;
    let input = r#"{"type":"result","subtype":"success","is_error":false,"structured_output":{"when":"yesterday"}}"#;
    let r = run_stdin(&["extract", "--schema", schema], input);
    assert_eq!(r.kind(), Some("validation_failed"));
    let r = run_stdin(&["extract", "--ignore-formats", "--schema", schema], input);
    assert_eq!(r.code, 0);
}

#[test]
fn draft_comes_from_dollar_schema_or_the_flag() {
    let input =
        r#"{"type":"result","subtype":"success","is_error":false,"structured_output":{"a":1}}"#;
    let d7 = r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}"#;
    let r = run_stdin(&["extract", "--schema", d7], input);
    assert_eq!(r.one()["validation"]["draft"], "7");
    let r = run_stdin(
        &[
            "extract",
            "--draft",
            "4",
            "--schema",
            r#"{"type":"object"}"#,
        ],
        input,
    );
    assert_eq!(r.one()["validation"]["draft"], "4");
}

#[test]
fn every_violation_is_reported_with_pointers() {
    let schema = r#"{"type":"object","properties":{"verdict":{"enum":["PASS"]},"confidence":{"maximum":0.5}},"required":["verdict","confidence","missing"]}"#;
    let r = extract(
        &["--schema", schema],
        "claude-code/retry-then-accepted.ndjson",
    );
    let e = r.one();
    assert_eq!(e["error"]["kind"], "validation_failed");
    let details = e["error"]["details"].as_array().unwrap();
    assert_eq!(details.len(), 3, "{details:?}");
    let locs: Vec<&str> = details
        .iter()
        .map(|d| d["instance_location"].as_str().unwrap())
        .collect();
    assert!(locs.contains(&"/verdict") && locs.contains(&"/confidence") && locs.contains(&""));
    assert_eq!(e["candidate"]["verdict"], "FAIL");
    assert_eq!(e["validation"]["valid"], false);
}

#[test]
fn several_inputs_give_json_lines_in_order_and_the_worst_exit_code() {
    let ok = fixture("claude-code/retry-then-accepted.ndjson");
    let bad = fixture("claude-code/truncated.ndjson");
    let r = run(sojx().arg("extract").arg(&ok).arg(&bad).arg(&ok));
    assert_eq!(r.code, 1);
    assert_eq!(r.envelopes.len(), 3);
    assert_eq!(r.envelopes[0]["input"], path_str(&ok));
    assert_eq!(r.envelopes[1]["error"]["kind"], "truncated");
    assert_eq!(r.envelopes[2]["exit_code"], 0);
}

#[test]
fn stdin_and_dash() {
    let input = std::fs::read(fixture("claude-code/retry-then-accepted.ndjson")).unwrap();
    let r = run_stdin(&["extract"], input.clone());
    assert_eq!(r.one()["input"], "<stdin>");
    let r = run_stdin(&["extract", "-"], input);
    assert_eq!(r.one()["input"], "<stdin>");
    assert_eq!(r.code, 0);
}

#[test]
fn raw_prints_only_data_and_nothing_on_failure() {
    let out = sojx()
        .args(["extract", "-r"])
        .arg(fixture("claude-code/retry-then-accepted.ndjson"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let data: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(data["verdict"], "FAIL");
    assert_eq!(stdout.lines().count(), 1);
    let out = sojx()
        .args(["extract", "-r", "--from", "json"])
        .write_stdin("\"plain\"\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"plain\n");
    let out = sojx()
        .args(["extract", "-r"])
        .arg(fixture("claude-code/truncated.ndjson"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

#[test]
fn pretty_output_is_the_same_envelope() {
    let out = sojx()
        .args(["extract", "--pretty"])
        .arg(fixture("claude-code/retry-then-accepted.ndjson"))
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.lines().count() > 5);
    let v: Value = serde_json::from_str(&s).unwrap();
    crate::common::check_envelope(&v);
}

#[test]
fn text_output_is_a_human_summary() {
    let out = sojx()
        .args(["extract", "--output-format", "text", "--schema", SCHEMA])
        .arg(fixture("claude-code/retry-then-accepted.ndjson"))
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.starts_with("✓ "), "{s}");
    assert!(s.contains("structured_output"));
    assert!(!s.contains('\x1b'), "no color when not a terminal: {s}");
}

#[test]
fn empty_input_and_only_whitespace() {
    assert_eq!(run_stdin(&["extract"], "").kind(), Some("empty_input"));
    assert_eq!(
        run_stdin(&["extract"], " \n\r\n\t\n").kind(),
        Some("empty_input")
    );
}

#[test]
fn from_forces_a_producer_and_names_a_mismatch() {
    let r = run(sojx()
        .args(["extract", "--from", "codex"])
        .arg(fixture("claude-code/retry-then-accepted.ndjson")));
    assert_eq!(r.kind(), Some("parse"));
    let msg = r.one()["error"]["message"].as_str().unwrap();
    assert!(msg.contains("claude-code"), "{msg}");
}

#[test]
fn usage_errors_are_envelopes_with_exit_3() {
    let r = run(sojx().args(["extract", "--no-such-flag"]));
    assert_eq!(r.code, 3);
    assert_eq!(r.kind(), Some("usage"));
    assert!(r.stderr.contains("--no-such-flag"));
}

/// `-r` prints the data or nothing: on any failure stdout stays empty, usage errors included,
/// so `sojx extract -r … | jq .verdict` cannot print `null` for a typo.
#[test]
fn raw_prints_nothing_on_any_failure() {
    let cases: &[(&[&str], i32)] = &[
        (
            &[
                "extract",
                "-r",
                "--shema",
                "x.json",
                "examples/claude-review.ndjson",
            ],
            3,
        ),
        (&["extract", "--raw", "--no-such-flag"], 3),
        (&["extract", "-rq", "--no-such-flag"], 3),
        (&["extract", "-r", "--tee", "-", "x"], 3),
        (
            &[
                "extract",
                "-r",
                "--schema",
                "nope.json",
                "examples/claude-review.ndjson",
            ],
            3,
        ),
        (
            &[
                "extract",
                "-r",
                "--schema",
                r#"{"type":"string"}"#,
                "examples/claude-review.ndjson",
            ],
            1,
        ),
        (
            &[
                "validate",
                "-r",
                "--schema",
                r#"{"type":"string"}"#,
                "examples/verdict.json",
            ],
            1,
        ),
        (
            &["compile", "-r", "--provider", "openai", r#"{"type":12}"#],
            1,
        ),
        (&["lint", "-r", r#"{"type":12}"#], 1),
        (
            &[
                "compare", "-r", "--items", ".", "--key", ".", "--field", ".", "nope",
            ],
            3,
        ),
    ];
    for (args, code) in cases {
        let out = sojx().args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(*code), "{args:?}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(!out.stderr.is_empty(), "{args:?}: stderr says why");
    }
    // Without -r, the same usage error is an envelope.
    let r = run(sojx().args(["extract", "--shema", "x.json"]));
    assert_eq!((r.code, r.kind()), (3, Some("usage")));
}

/// In JSON mode stderr is the CI log: every warning on a line, every violation (up to 20, then
/// how many more), and a hint once per run, however many inputs earn it.
#[test]
fn stderr_tells_violations_warnings_and_each_hint_once() {
    let keys: Vec<String> = (0..25).map(|i| format!("k{i:02}")).collect();
    let schema = json!({"required": keys}).to_string();
    let r = run(sojx().args(["extract", "--schema", &schema]).args([
        "examples/claude-review.ndjson",
        "examples/claude-review.ndjson",
    ]));
    assert_eq!(r.code, 1);
    let lines: Vec<&str> = r.stderr.lines().collect();
    let listed = |from: usize| -> Vec<&str> {
        lines[from..]
            .iter()
            .copied()
            .take_while(|l| l.starts_with("  - "))
            .collect()
    };
    assert!(lines[0].starts_with("sojx: examples/claude-review.ndjson: validation_failed: "));
    let first = listed(1);
    assert_eq!(first.len(), 20, "{}", r.stderr);
    assert_eq!(
        first[0],
        r#"  - /: "k00" is a required property (/required)"#
    );
    assert_eq!(lines[21], "  and 5 more (error.details lists every one)");
    assert!(
        lines[22].starts_with("  hint: feed error.details"),
        "{}",
        r.stderr
    );
    // The second input: the same violations, no second hint.
    assert!(lines[23].starts_with("sojx: examples/claude-review.ndjson: validation_failed: "));
    assert_eq!(listed(24).len(), 20);
    assert_eq!(lines[45], "sojx: 2 inputs, 0 ok, 2 validation_failed");
    assert_eq!(lines.len(), 46, "{}", r.stderr);
    assert_eq!(r.stderr.matches("hint:").count(), 1);
    // A warning reaches stderr in JSON mode, one line, and in -r mode too.
    for raw in [false, true] {
        let mut cmd = sojx();
        cmd.arg("extract")
            .args(raw.then_some("-r"))
            .arg(fixture("claude-code/cross-check-mismatch.ndjson"));
        let r = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(": warning: cross_check_mismatch: result.structured_output differs"),
            "{err}"
        );
    }
}

/// A line past --max-line-bytes is named as such, and never leaves a document assembled from
/// the lines around it: a pretty-printed verdict whose long lines were skipped is not `{}`.
#[test]
fn too_long_lines_are_named_and_never_make_a_smaller_document() {
    let r = run(sojx().args([
        "extract",
        "--max-line-bytes",
        "100",
        "examples/claude-review.ndjson",
    ]));
    assert_eq!((r.code, r.kind()), (1, Some("parse")));
    assert_eq!(
        r.one()["error"]["message"],
        "every line of the input (7) is longer than --max-line-bytes 100; none was read"
    );
    for args in [
        &["extract", "--max-line-bytes", "10"][..],
        &["extract", "--from", "json", "--max-line-bytes", "10"],
        &["validate", "--schema", "{}", "--max-line-bytes", "10"],
    ] {
        let r = run(sojx().args(args).arg("examples/verdict.json"));
        assert_eq!(r.code, 1, "{args:?}");
        assert!(
            r.envelopes.iter().all(|e| e.get("data").is_none()),
            "{args:?}: {}",
            r.stdout
        );
    }
    // SSE whose `data:` lines are all too long, beside short `event:` lines: the limit is named.
    let sse = fixture("producers/anthropic/tool-stream.sse");
    let r = run(sojx().args(["extract", "--max-line-bytes", "40"]).arg(&sse));
    assert_eq!((r.code, r.kind()), (1, Some("parse")), "{}", r.stdout);
    let msg = r.one()["error"]["message"].as_str().unwrap();
    assert!(msg.contains("longer than --max-line-bytes 40"), "{msg}");
    assert!(
        !msg.contains("Server-Sent Events stream without data"),
        "{msg}"
    );
    // Only the long `result` line skipped: not a retryable `truncated`, the limit is named.
    let r = run(sojx().args([
        "extract",
        "--max-line-bytes",
        "500",
        "examples/claude-review.ndjson",
    ]));
    assert_eq!((r.code, r.kind()), (1, Some("parse")), "{}", r.stdout);
    let e = &r.one()["error"];
    assert_eq!(e["retryable"], false);
    assert!(
        e["message"].as_str().unwrap().ends_with(
            "1 line(s) longer than --max-line-bytes 500 were skipped, and may have held it"
        ),
        "{e}"
    );
    let r = run(sojx()
        .args(["validate", "--schema", "{}", "--max-line-bytes", "10"])
        .arg("examples/verdict.json"));
    assert_eq!(
        r.envelopes[0]["error"]["message"],
        "line 1 is not JSON: the document starting here runs through line 2, longer than --max-line-bytes 10"
    );
}

/// UTF-16 (PowerShell's `>` writes it) is a `parse` failure that says so and how to convert,
/// not "no answer" with a retry hint.
#[test]
fn utf16_input_is_named_with_a_way_to_convert_it() {
    let json = r#"{"verdict":"PASS"}"#;
    let le: Vec<u8> = json.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = json.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let cases = [
        (
            [&[0xFF, 0xFE][..], &le].concat(),
            "UTF-16LE with a byte order mark",
        ),
        (le.clone(), "UTF-16LE"),
        (be, "UTF-16BE"),
    ];
    for (bytes, how) in cases {
        let r = run(sojx().arg("extract").write_stdin(bytes.clone()));
        assert_eq!((r.code, r.kind()), (1, Some("parse")), "{how}");
        let e = &r.one()["error"];
        assert_eq!(
            e["message"],
            format!("the input is {how}; sojx reads UTF-8").as_str()
        );
        assert_eq!(e["retryable"], false);
        assert!(
            e["hint"]
                .as_str()
                .unwrap()
                .contains("iconv -f UTF-16 -t UTF-8")
        );
        let r = run(sojx()
            .args(["validate", "--schema", "{}"])
            .write_stdin(bytes));
        assert_eq!((r.code, r.kind()), (1, Some("parse")), "{how}");
        assert!(r.one()["error"]["message"].as_str().unwrap().contains(how));
    }
    // A pretty-printed document without a BOM (its first line is `{` and a NUL), and with
    // --from: still named.
    let pretty = std::fs::read_to_string("examples/verdict.json").unwrap();
    let le: Vec<u8> = pretty.encode_utf16().flat_map(u16::to_le_bytes).collect();
    for args in [
        &["extract"][..],
        &["extract", "--from", "claude-code"],
        &["validate", "--schema", "{}"],
    ] {
        let r = run(sojx().args(args).write_stdin(le.clone()));
        assert_eq!(
            (r.code, r.kind()),
            (1, Some("parse")),
            "{args:?}: {}",
            r.stdout
        );
        assert!(
            r.envelopes[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("the input is UTF-16LE"),
            "{args:?}: {}",
            r.stdout
        );
    }
}

/// `-q` prints nothing on stdout, success or failure, like `grep -q`; the exit status decides
/// and stderr still tells a failure, in every output format.
#[test]
fn quiet_prints_nothing_and_the_status_decides() {
    let bad = r#"{"type":"string"}"#;
    let review = "examples/claude-review.ndjson";
    let cases: &[(&[&str], i32, bool)] = &[
        (&["extract", "-q", review], 0, false),
        (&["extract", "--quiet", "--schema", bad, review], 1, true),
        (
            &[
                "extract",
                "-q",
                "--output-format",
                "text",
                "--schema",
                bad,
                review,
            ],
            1,
            true,
        ),
        (&["extract", "-q", "--pretty", review, review], 0, true),
        (
            &["validate", "-q", "--schema", bad, "examples/verdict.json"],
            1,
            true,
        ),
        (
            &["lint", "-q", "schemas/examples/code-review.schema.json"],
            0,
            false,
        ),
        (
            &[
                "lint",
                "-q",
                "--provider",
                "openai",
                "examples/verdict.schema.json",
            ],
            1,
            true,
        ),
        (&["extract", "-q", "--shema", "x.json", review], 3, true),
        (
            &[
                "extract",
                "-q",
                "--output-format",
                "github",
                "--schema",
                bad,
                review,
            ],
            1,
            true,
        ),
    ];
    for (args, code, told) in cases {
        let out = sojx().args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {err}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(!err.is_empty(), *told, "{args:?}: {err}");
    }
}

/// `--schema` is the first option of extract's help; validate's help offers only what validate
/// uses.
#[test]
fn help_puts_the_schema_first_and_validate_lists_only_its_own() {
    let help = |cmd: &str| {
        let out = sojx().args([cmd, "--help"]).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let extract = help("extract");
    let first = extract
        .lines()
        .skip_while(|l| *l != "Options:")
        .nth(1)
        .unwrap();
    assert_eq!(first.trim(), "-s, --schema <SCHEMA>", "{extract}");
    let validate = help("validate");
    for ignored in [
        "--max-candidates",
        "--max-answer-bytes",
        "--from <",
        "--repair",
    ] {
        assert!(!validate.contains(ignored), "{ignored}: {validate}");
    }
    assert!(validate.contains("--max-line-bytes <SIZE>"));
}

#[test]
fn help_and_version_read_nothing() {
    let out = sojx().args(["extract", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Examples:"));
    let out = sojx().arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("sojx {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn missing_file_is_filesystem() {
    let r = run(sojx().args(["extract", "no-such-file.ndjson"]));
    assert_eq!(r.kind(), Some("filesystem"));
    assert_eq!(r.one()["input"], "no-such-file.ndjson");
}

#[test]
fn validate_documents_and_json_lines() {
    let dir = crate::common::Scratch::new("validate", "documents");
    let doc = dir.join("doc.json");
    std::fs::write(
        &doc,
        "{\n  \"verdict\": \"PASS\",\n  \"confidence\": 1,\n  \"issues\": []\n}\n",
    )
    .unwrap();
    let r = run(sojx().args(["validate", "--schema", SCHEMA]).arg(&doc));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["command"], "validate");
    let lines = dir.join("lines.jsonl");
    std::fs::write(&lines, "{\"verdict\":\"PASS\",\"confidence\":1,\"issues\":[]}\n{\"verdict\":\"MAYBE\"}\nnot json\n").unwrap();
    let r = run(sojx().args(["validate", "--schema", SCHEMA]).arg(&lines));
    assert_eq!(r.code, 1);
    assert_eq!(r.envelopes.len(), 3);
    assert_eq!(r.envelopes[1]["error"]["kind"], "validation_failed");
    assert_eq!(r.envelopes[1]["source"]["line"], 2);
    assert_eq!(r.envelopes[2]["error"]["kind"], "parse");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn shared_corpus_envelopes_match_the_envelope_schema() {
    let Some(shared) = shared() else { return };
    let corpus = shared.join("corpus");
    for (c, args) in corpus_cases(&corpus) {
        let r = run(sojx()
            .current_dir(&corpus)
            .args(&args)
            .arg(c["file"].as_str().unwrap()));
        // EXPECTED.json keeps schema_version 1.0's codes; 1.1 moves the caller's kinds to 3,
        // as the acceptance tool does.
        let mut want = i32::try_from(c["expect"]["exit_code"].as_i64().unwrap()).unwrap();
        let kinds = match &c["expect"]["error_kind"] {
            Value::Array(a) => a.clone(),
            k => vec![k.clone()],
        };
        let caller = [
            "usage",
            "schema_invalid",
            "filesystem",
            "io",
            "spawn",
            "internal",
        ];
        if want == 1
            && kinds
                .iter()
                .any(|k| caller.contains(&k.as_str().unwrap_or("")))
        {
            want = 3;
        }
        assert_eq!(r.code, want, "{}", c["name"]);
    }
}

#[test]
fn unknown_event_streams_are_parse_errors_not_guesses() {
    let vercel = "data: {\"type\":\"start\"}\n\ndata: {\"type\":\"text-delta\",\"id\":\"0\",\"delta\":\"{}\"}\n\ndata: {\"type\":\"finish\"}\n\ndata: [DONE]\n\n";
    let r = run_stdin(&["extract"], vercel);
    assert_eq!(r.kind(), Some("parse"));
    let r = run_stdin(&["extract"], "event: ping\n\nevent: ping\n\n");
    assert_eq!(r.kind(), Some("parse"));
    // Named as text, the same bytes are searched.
    let r = run_stdin(&["extract", "--from", "text"], vercel);
    assert_eq!(r.code, 0);
    assert_eq!(r.one()["producer"], "text");
}

#[test]
fn usage_messages_name_the_missing_argument() {
    let r = run(sojx().args(["compile", "--provider", "openai"]));
    assert_eq!(r.kind(), Some("usage"));
    let msg = r.one()["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("not provided") && msg.contains("SCHEMA"),
        "{msg}"
    );
}

#[test]
fn runaway_assertions_fail_instead_of_hanging() {
    let input =
        r#"{"type":"result","subtype":"success","is_error":false,"structured_output":{"a":1}}"#;
    for expr in ["last(range(1e12))", "[repeat(1)] | length > 0", "repeat(1)"] {
        let started = std::time::Instant::now();
        let r = run_stdin(&["extract", "--assert", expr], input);
        assert_eq!(r.kind(), Some("assertion_failed"), "{expr}: {}", r.stdout);
        assert!(
            started.elapsed() < crate::common::patience(std::time::Duration::from_secs(15)),
            "{expr}"
        );
    }
}
