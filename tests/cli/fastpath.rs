//! The fast path (lines skipped before parsing, `FastPath::fast`) gives byte-identical
//! envelopes to the full parse (`SOJX_NO_FAST_PATH=1`), timestamps aside, whichever way the
//! input is read: in the pipeline's thread (`SOJX_READ_AHEAD=0`), or split and pre-scanned on a
//! second thread for every line (`SOJX_READ_AHEAD=1`) or shared between the threads (the
//! default for pipes and large files). Checked on every case of the shared corpus, on the
//! project's fixtures, on large streams, and on generated streams that mix inert events with
//! traps (other key orders, duplicate keys, escapes, nested `type`s, cut-off lines, multi-line
//! documents, dialect hints).

use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use crate::common::{fixture, root, shared, sojx};

/// How sojx reads the input.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Every line parsed.
    Full,
    /// The fast path, in the pipeline's thread.
    Inline,
    /// The fast path, every line pre-scanned on the reading thread.
    Ahead,
    /// The fast path as it runs by default (stdin is a pipe here: read ahead, balanced).
    Default,
}

const FAST: [Mode; 3] = [Mode::Inline, Mode::Ahead, Mode::Default];

/// `sojx ARGS` run in `dir` in `mode`, reading `stdin`.
fn command(dir: &Path, args: &[&str], stdin: &[u8], mode: Mode) -> assert_cmd::Command {
    let mut cmd = sojx();
    cmd.current_dir(dir)
        .args(args)
        .write_stdin(stdin.to_vec())
        .env_remove("SOJX_NO_FAST_PATH")
        .env_remove("SOJX_READ_AHEAD");
    match mode {
        Mode::Full => cmd.env("SOJX_NO_FAST_PATH", "1"),
        Mode::Inline => cmd.env("SOJX_READ_AHEAD", "0"),
        Mode::Ahead => cmd.env("SOJX_READ_AHEAD", "1"),
        Mode::Default => &mut cmd,
    };
    cmd
}

/// Stdout and exit code of `sojx ARGS` run in `dir` in `mode`, with each envelope's
/// `timestamp` removed.
fn envelopes(dir: &Path, args: &[&str], stdin: &[u8], mode: Mode) -> (i32, Vec<Value>) {
    let out = command(dir, args, stdin, mode).output().expect("sojx runs");
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
    let full = envelopes(dir, args, stdin, Mode::Full);
    for mode in FAST {
        let fast = envelopes(dir, args, stdin, mode);
        assert_eq!(
            fast, full,
            "{mode:?} differs from the full parse: sojx {args:?}"
        );
    }
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
    assert!(
        files.len() > 10,
        "the Claude Code fixtures are gone: {files:?}"
    );
    if let Some(shared) = shared() {
        let before = files.len();
        for e in std::fs::read_dir(shared.join("corpus/claude-code")).unwrap() {
            files.push(e.unwrap().path());
        }
        assert!(
            files.len() - before > 10,
            "../shared/corpus/claude-code is empty"
        );
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
    let (code, long) = envelopes(&root(), &args, input.as_bytes(), Mode::Default);
    let (_, short) = envelopes(&root(), &args, example.as_bytes(), Mode::Default);
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
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"x"}]},"request_id":"req_1"}"#
        ),
        Just(r#"{"type":"result","subtype":"success","result":"cursor's","request_id":"r1"}"#),
        Just(r#"{"type":"user","message":{"role":"user","content":"true?"},"isReplay":true}"#),
        Just(
            r#"{"type":"user","message":{"content":"x","content":[{"type":"tool_result","tool_use_id":"t9","is_error":true}]}}"#
        ),
        Just(r#"{"type":"system","subtype":"init","model":"m-late"}"#),
        Just(r#"{"type":"system","subtype":"session_start"}"#),
        Just(r#"{"type":"stream_event","event":{"a":"}"#),
        Just(r#"{"type":"stream_event","event":["#),
        Just(r#"{"type":"stream_event","x":tru}"#),
        Just(r#"{"type":"stream_event"} {"type":"result","subtype":"success","result":"two"}"#),
        // Invalid lines with an event nested in them (issue 39, item 2): junk to the full
        // parse, never skipped as inert, and never a source of the nested event.
        Just(
            r#"{"type":"stream_event","ttft":NaN,"event":{"type":"result","subtype":"success","is_error":false,"result":"x","structured_output":{"verdict":"PASS","confidence":1,"issues":[]},"session_id":"s1"}}"#
        ),
        Just(
            r#"{"type":"rate_limit_event","x":[1,2},"event":{"type":"result","subtype":"success","is_error":false,"result":"{"verdict":"PASS","confidence":1,"issues":[]}"}}"#
        ),
        Just(
            r#"{"type":"weird_new_event","nested":{"type":"result","subtype":"success","is_error":false,"structured_output":{"verdict":"PASS","confidence":1,"issues":[]}}}"#
        ),
        Just(r#"{"type":"keep_alive","n":Infinity}"#),
        Just(r#"{"type":"stream_event","event":{"type":"x",}}"#),
        Just(r#"{"type":"stream_event","event":{"text":"tab	in a string"}}"#),
        // Nested past serde_json's recursion limit: junk to the full parse, never skipped.
        Just(concat!(
            r#"{"type":"stream_event","event":"#,
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
            "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
            "}"
        )),
        // Lines the lean path reads, and look-alikes it must leave to the full parse.
        Just(
            r#"{"type":"assistant","message":{"model":"m-lean","content":[{"type":"text","text":"{\"verdict\":\"PASS\","},{"type":"tool_use","id":"b1","name":"Bash","input":{}},{"type":"text","text":"\"confidence\":0.2,\"issues\":[]}"}]}}"#
        ),
        Just(
            r#"{"type":"assistant","error":"authentication_failed","message":{"model":"<synthetic>","content":[{"type":"text","text":"Not logged in"}]}}"#
        ),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"a","text":"{\"verdict\":\"PASS\",\"confidence\":0.4,\"issues\":[]}"}]}}"#
        ),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"{\"verdict\":\"FAIL\",\"confidence\":0.6,\"issues\":[]}"}],"x":"\ud800"}}"#
        ),
        Just(
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"{\"verdict\":\"FAIL\",\"confidence\":0.7,\"issues\":[]}"}],"n":01}}"#
        ),
        Just(
            r#"{"type":"assistant","session_id":"T-9","message":{"content":[{"type":"text","text":"amp says"}]}}"#
        ),
        Just(
            r#"{"type":"assistant","usage":{"outputTokens":1},"message":{"content":[{"type":"text","text":"cursor says"}]}}"#
        ),
        Just(
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"ctl\u{1}\"}]}}"
        ),
        Just(
            r#"{"type":"system","subtype":"init","qwen_code_version":"0.2","model":"qm","session_id":"q1"}"#
        ),
        Just(r#"{"type":"system","subtype":"init","model":null,"session_id":7}"#),
        Just(
            r#"{"type":"system","subtype":"init","model":"m-dup","subtype":"api_retry","attempt":2,"max_retries":10,"error":"unknown"}"#
        ),
        Just(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":false,"is_error":true,"content":"true"}]}}"#
        ),
        Just(
            r#"{"type":"user","message":{"content":[{"tool_use_id":"t9","type":"tool_result","is_error":true,"content":[{"type":"text","text":"is true"}]}]}}"#
        ),
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
        let full = envelopes(&root(), &args, input.as_bytes(), Mode::Full);
        for mode in [Mode::Inline, Mode::Ahead] {
            let fast = envelopes(&root(), &args, input.as_bytes(), mode);
            prop_assert_eq!(&fast, &full, "{:?}, input:\n{}", mode, input);
        }
    }
}

/// The example run with `line(0)`, `line(1)`, … after its first line until the input holds
/// `min` bytes.
fn example_around(min: usize, line: impl Fn(usize) -> String) -> String {
    let example = std::fs::read_to_string(root().join("examples/claude-review.ndjson")).unwrap();
    let (first, rest) = example.split_once('\n').unwrap();
    let mut input = format!("{first}\n");
    let mut i = 0;
    while input.len() < min {
        input.push_str(&line(i));
        input.push('\n');
        i += 1;
    }
    input.push_str(rest);
    input
}

/// An inert event carrying `text`.
fn long_delta(text: &str) -> String {
    format!(
        r#"{{"type":"stream_event","event":{{"type":"content_block_delta","delta":{{"text":"{text}"}}}}}}"#
    )
}

/// An inert hook response of about `n` bytes.
fn long_hook_response(n: usize) -> String {
    format!(
        r#"{{"type":"system","subtype":"hook_response","output":"{}"}}"#,
        "y".repeat(n)
    )
}

/// A file of several MiB (read ahead by default, in reads that cut lines) with lines longer
/// than a read and lines past `--max-line-bytes`: every way of reading gives the same envelope,
/// and the too-long lines are reported.
#[test]
fn a_large_file_with_long_lines_is_identical_every_way() {
    let long_text = "x".repeat(300 * 1024);
    let input = example_around(3 << 20, |i| match i % 40 {
        0 => long_delta(&long_text),
        7 => long_hook_response(600 * 1024),
        _ => inert_line(i),
    });
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fastpath");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("large-run.ndjson");
    std::fs::write(&file, &input).unwrap();
    let file = file.to_str().unwrap();
    let schema = root().join("examples/verdict.schema.json");
    let schema = schema.to_str().unwrap();
    let args = [
        "extract",
        "--schema",
        schema,
        "--max-line-bytes",
        "500000",
        file,
    ];
    same(&root(), &args, b"");
    let (code, env) = envelopes(&root(), &args, b"", Mode::Default);
    assert_eq!(code, 0, "{env:?}");
    let warnings = env[0]["warnings"].to_string();
    assert!(warnings.contains("line_too_long"), "{warnings}");
}

/// `--activity` describes the same events whichever way the input is read, the last line
/// included when it has no newline (its events come after the input ends).
#[test]
fn activity_is_the_same_every_way_including_a_last_line_without_newline() {
    let example = std::fs::read_to_string(root().join("examples/claude-review.ndjson")).unwrap();
    let input = example.trim_end().as_bytes().to_vec();
    let stderr_of = |mode: Mode| {
        let args = ["extract", "--activity", "--color", "never"];
        let out = command(&root(), &args, &input, mode).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stderr).unwrap()
    };
    let full = stderr_of(Mode::Full);
    assert!(full.contains("result: success"), "{full}");
    for mode in FAST {
        assert_eq!(stderr_of(mode), full, "{mode:?}");
    }
}

/// A file under 1 MiB is read in place in 16 KiB reads (`input::chunk_for`), so lines longer
/// than a read and lines cut by reads are the rule there: the file gives the envelope of the
/// same bytes piped (read ahead, in 64 KiB reads), in every mode, the too-long line included.
#[test]
fn a_small_file_read_in_small_reads_is_identical_to_the_same_bytes_piped() {
    let input = example_around(600 * 1024, |i| match i % 25 {
        3 => long_delta(&"x".repeat(40 * 1024 + i)),
        11 => long_hook_response(70 * 1024),
        _ => inert_line(i),
    });
    assert!(input.len() < 1 << 20, "read in place, in small reads");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fastpath");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("small-reads.ndjson");
    std::fs::write(&file, &input).unwrap();
    let schema = root().join("examples/verdict.schema.json");
    let flags = [
        "extract",
        "--schema",
        schema.to_str().unwrap(),
        "--max-line-bytes",
        "60000",
    ];
    let mut from_file = flags.to_vec();
    from_file.push(file.to_str().unwrap());
    same(&root(), &from_file, b"");
    let (code, mut by_file) = envelopes(&root(), &from_file, b"", Mode::Default);
    let (_, mut piped) = envelopes(&root(), &flags, input.as_bytes(), Mode::Default);
    assert_eq!(code, 0, "{by_file:?}");
    assert!(
        by_file[0]["warnings"].to_string().contains("line_too_long"),
        "{by_file:?}"
    );
    // The input's name is the only difference.
    by_file[0].as_object_mut().unwrap().remove("input");
    piped[0].as_object_mut().unwrap().remove("input");
    assert_eq!(by_file, piped);
}
