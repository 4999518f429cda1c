//! The fast path (lines skipped before parsing, `Extractor::wants`) gives byte-identical
//! envelopes to the full parse (`SOJX_NO_FAST_PATH=1`), timestamps aside: on every case of the
//! shared corpus, on the project's fixtures, on large streams, and on generated streams that
//! mix inert events with traps (other key orders, duplicate keys, escapes, nested `type`s,
//! cut-off lines, multi-line documents, dialect hints).

use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use crate::common::{fixture, root, shared, sojx};

/// Stdout and exit code of `sojx ARGS` run in `dir`, with or without the fast path, and with
/// each envelope's `timestamp` removed.
fn envelopes(dir: &Path, args: &[&str], stdin: &[u8], fast: bool) -> (i32, Vec<Value>) {
    let mut cmd = sojx();
    cmd.current_dir(dir).args(args).write_stdin(stdin.to_vec());
    if fast {
        cmd.env_remove("SOJX_NO_FAST_PATH");
    } else {
        cmd.env("SOJX_NO_FAST_PATH", "1");
    }
    let out = cmd.output().expect("sojx runs");
    let code = out.status.code().expect("no signal");
    assert_ne!(code, 101, "panic: {}", String::from_utf8_lossy(&out.stderr));
    let docs = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).expect("an envelope");
            v.as_object_mut().expect("object").remove("timestamp");
            v
        })
        .collect();
    (code, docs)
}

fn same(dir: &Path, args: &[&str], stdin: &[u8]) {
    let fast = envelopes(dir, args, stdin, true);
    let full = envelopes(dir, args, stdin, false);
    assert_eq!(
        fast, full,
        "fast path differs from the full parse: sojx {args:?}"
    );
}

#[test]
fn every_corpus_case_is_identical() {
    let Some(shared) = shared() else { return };
    let corpus = shared.join("corpus");
    let text = std::fs::read_to_string(corpus.join("EXPECTED.json")).expect("EXPECTED.json");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    assert!(cases.len() > 100);
    for case in &cases {
        let mut args: Vec<&str> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        args.push(case["file"].as_str().unwrap());
        same(&corpus, &args, b"");
    }
}

#[test]
fn every_claude_fixture_and_example_is_identical() {
    let mut files = vec![root().join("examples/claude-review.ndjson")];
    for e in std::fs::read_dir(fixture("claude-code")).unwrap() {
        files.push(e.unwrap().path());
    }
    if let Some(shared) = shared() {
        for e in std::fs::read_dir(shared.join("corpus/claude-code")).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    let schema = root().join("examples/verdict.schema.json");
    for f in &files {
        let f = f.to_str().unwrap();
        same(&root(), &["extract", f], b"");
        same(&root(), &["extract", "--from", "claude-code", f], b"");
        same(
            &root(),
            &["extract", "--schema", schema.to_str().unwrap(), f],
            b"",
        );
    }
}

/// The example run with thousands of inert events in the middle: still identical, and the same
/// answer as the example alone.
#[test]
fn a_long_stream_is_identical_and_keeps_the_answer() {
    let example = std::fs::read_to_string(root().join("examples/claude-review.ndjson")).unwrap();
    let (first, rest) = example.split_once('\n').unwrap();
    let mut input = format!("{first}\n");
    for i in 0..5000 {
        input.push_str(&inert_line(i));
        input.push('\n');
    }
    input.push_str(rest);
    let args = ["extract", "--schema", "examples/verdict.schema.json"];
    same(&root(), &args, input.as_bytes());
    let (code, long) = envelopes(&root(), &args, input.as_bytes(), true);
    let (_, short) = envelopes(&root(), &args, example.as_bytes(), true);
    assert_eq!(code, 0, "the example's answer is valid: {long:?}");
    for key in ["data", "validation", "session", "warnings"] {
        assert_eq!(long[0][key], short[0][key], "{key}");
    }
}

fn inert_line(i: usize) -> String {
    match i % 3 {
        0 => format!(
            r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":{i},"delta":{{"type":"text_delta","text":"tok {i} \"}}"}}}},"session_id":"s","uuid":"u{i}"}}"#
        ),
        1 => format!(
            r#"{{"session_id":"s","subtype":"hook_progress","type":"system","hook_id":"h{i}","output":"[ok]"}}"#
        ),
        _ => format!(
            r#"{{"uuid":"r{i}","rate_limit_info":{{"status":"allowed"}},"type":"rate_limit_event"}}"#
        ),
    }
}

/// Lines a generated stream is built from: the events that matter, inert ones in other key
/// orders, and traps that look inert to a careless scan but change the outcome.
fn piece() -> impl Strategy<Value = String> {
    let fixed = prop_oneof![
        // Events that matter.
        Just(r#"{"type":"system","subtype":"init","model":"m-init","session_id":"s1"}"#),
        Just(
            r#"{"type":"assistant","message":{"model":"m","content":[{"type":"text","text":"{\"verdict\":\"PASS\"}"}]}}"#
        ),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"StructuredOutput","input":{"verdict":"FAIL","confidence":0.5,"issues":[]}}]}}"#
        ),
        Just(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"no"}]}}"#
        ),
        Just(
            r#"{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s1","num_turns":2}"#
        ),
        Just(
            r#"{"is_error":false,"structured_output":{"verdict":"PASS","confidence":1,"issues":[]},"subtype":"success","type":"result"}"#
        ),
        Just(
            r#"{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["max turns"]}"#
        ),
        // Inert, in several key orders and spacings.
        Just(r#"{"type":"stream_event","event":{"type":"message_start"}}"#),
        Just(
            r#"{"event":{"type":"result","subtype":"success","structured_output":{"verdict":"PASS"}},"type":"stream_event"}"#
        ),
        Just(r#" { "uuid" : "x" , "type" : "keep_alive" } "#),
        Just(
            r#"{"hook_name":"SessionStart","type":"system","session_id":"s1","subtype":"hook_started"}"#
        ),
        Just(r#"{"subtype":"status","status":"requesting","type":"system"}"#),
        Just(
            r#"{"type":"assistant","message":{"model":"m-think","content":[{"type":"thinking","thinking":"hmm"}]}}"#
        ),
        Just(
            r#"{"message":{"content":[{"tool_use_id":"t1","type":"tool_result","content":"ok"}]},"type":"user"}"#
        ),
        // Traps.
        Just(r#"{"type":"stream_event","type":"result","subtype":"success","result":"dup wins"}"#),
        Just(r#"{"type":"result","subtype":"success","result":"dup first","type":"stream_event"}"#),
        Just(
            r#"{"t\u0079pe":"result","subtype":"success","result":"escaped key","note":"stream_event"}"#
        ),
        Just(r#"{"type":"stream\u005fevent","x":1}"#),
        Just(r#"{"type":"assistant","message":{"content":"{\"verdict\":\"FAIL\"}"}}"#),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"t\u0065xt","t\u0065xt":"{\"verdict\":\"PASS\",\"confidence\":0,\"issues\":[]}"}]}}"#
        ),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"tool\u005fuse","id":"t8","name":"Structured\u004futput","input":{"verdict":"FAIL","confidence":0.3,"issues":[]}}]}}"#
        ),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"t\u0065xt","text":"{\"verdict\":\"PASS\",\"confidence\":0,\"issues\":[]}"}]}}"#
        ),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t9","name":"Structured\u004futput","input":{"verdict":"PASS","confidence":0.1,"issues":[]}}]}}"#
        ),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"x"}]},"message":{"content":"late text"}}"#
        ),
        Just(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t9","is_error":true}]}}"#
        ),
        Just(r#"{"type":"system","subtype":"hook_started","session_id":"T-123"}"#),
        Just(r#"{"type":"system","subtype":"status","qwen_code_version":"0.1"}"#),
        Just(r#"{"type":"system","subtype":"status","usage":{"inputTokens":3}}"#),
        Just(r#"{"type":"system","subtype":"init","model":"m-late"}"#),
        Just(r#"{"type":"system","subtype":"session_start"}"#),
        Just(r#"{"type":"stream_event","event":{"a":"}"#),
        Just(r#"{"type":"stream_event","event":["#),
        Just(r#"{"type":"stream_event","x":tru}"#),
        Just(r#"{"type":"stream_event"} {"type":"result","subtype":"success","result":"two"}"#),
        Just("  \"result\": \"inside a document\", \"type\": \"result\","),
        Just("}"),
        Just("not json at all"),
        Just(""),
        Just("data: {\"type\":\"stream_event\"}"),
    ];
    prop_oneof![
        8 => fixed.prop_map(str::to_owned),
        2 => (0usize..100).prop_map(inert_line),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn generated_streams_are_identical(lines in prop::collection::vec(piece(), 0..40), forced in any::<bool>()) {
        let input = lines.join("\n");
        let mut args = vec!["extract", "--schema", "examples/verdict.schema.json"];
        if forced {
            args.extend(["--from", "claude-code"]);
        }
        let fast = envelopes(&root(), &args, input.as_bytes(), true);
        let full = envelopes(&root(), &args, input.as_bytes(), false);
        prop_assert_eq!(fast, full, "input:\n{}", input);
    }
}
