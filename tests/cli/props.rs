//! Property tests: any bytes give exactly one envelope that validates against
//! `schemas/envelope.schema.json`, with the exit code it names; how the bytes are split across
//! reads changes nothing. Random bytes, and generated Claude-like and NDJSON streams.
//!
//! The in-process properties run many cases; the one that spawns the binary runs a few dozen.

use proptest::prelude::*;
use serde_json::{Value, json};
use sojx_core::extract::{Options, decide, read};

use crate::common::{check_envelope, run_stdin};

const SCHEMA: &str =
    r#"{"type":"object","properties":{"verdict":{"enum":["PASS","FAIL"]}},"required":["verdict"]}"#;

fn schema() -> &'static sojx_core::schema::Schema {
    static S: std::sync::OnceLock<sojx_core::schema::Schema> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let settings = sojx_core::schema::Settings {
            schema: Some(SCHEMA.to_owned()),
            ..sojx_core::schema::Settings::default()
        };
        sojx_core::schema::load(&settings).unwrap().unwrap()
    })
}

pub(crate) fn options(with_schema: bool, repair: bool) -> Options<'static> {
    Options {
        repair,
        max_line_bytes: 1 << 20,
        max_candidates: 1000,
        schema: with_schema.then(schema),
        ..Options::default()
    }
}

/// The envelope of `chunks` read in order, checked, without its timestamp.
pub(crate) fn envelope(opts: &Options<'_>, chunks: &[&[u8]]) -> Value {
    let reads = sojx_core::input::Pieces::new(chunks.iter().copied());
    let (outcome, warnings) = read(reads, opts).expect("reading from memory succeeds");
    let env = decide("<stdin>", outcome, warnings, opts);
    let code = env.exit_status().code();
    let mut v = env.into_value();
    check_envelope(&v);
    assert_eq!(v["exit_code"], code);
    assert_eq!(code == 0, v.get("data").is_some());
    v.as_object_mut().unwrap().remove("timestamp");
    v
}

/// Cut `bytes` at the given points (taken modulo its length, sorted).
fn split<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut prev = 0;
    for a in at {
        out.push(&bytes[prev..a]);
        prev = a;
    }
    out.push(&bytes[prev..]);
    out
}

fn same_when_split(bytes: &[u8], cuts: &[usize], with_schema: bool, repair: bool) {
    let opts = options(with_schema, repair);
    let whole = envelope(&opts, &[bytes]);
    let pieces = split(bytes, cuts);
    assert_eq!(whole, envelope(&opts, &pieces), "split into {pieces:?}");
    let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
    if bytes.len() < 600 {
        assert_eq!(whole, envelope(&opts, &bytewise), "one byte per read");
    }
}

/// A JSON value of modest size.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z0-9 {}\\[\\]\":,\\\\\n]{0,12}".prop_map(Value::from),
        prop_oneof![Just("PASS"), Just("FAIL")].prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec(("(verdict|a|b|type|result)", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// One event of a Claude Code stream-json run, or noise a recorder adds.
fn claude_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#"{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-6","tools":["StructuredOutput"]}"#.to_owned()),
        "[a-zA-Z {}\\[\\]\":,]{0,40}".prop_map(|t| json!({"type":"assistant","message":{"content":[{"type":"text","text":t}]}}).to_string()),
        json_value().prop_map(|input| json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"StructuredOutput","input":input}]}}).to_string()),
        any::<bool>().prop_map(|err| json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"checked","is_error":err}]}}).to_string()),
        (prop_oneof![Just("success"), Just("error_max_turns"), Just("error_during_execution")], any::<bool>(), json_value(), "[a-zA-Z {}\":]{0,30}")
            .prop_map(|(subtype, is_error, so, text)| json!({"type":"result","subtype":subtype,"is_error":is_error,"result":text,"structured_output":so,"num_turns":2,"total_cost_usd":0.01}).to_string()),
        "[ -~]{0,30}".prop_map(|noise| format!(">>> {noise}")),
        Just(String::new()),
    ]
}

/// A Claude-like stream: lines joined by `\n` or `\r\n`, maybe cut short.
fn claude_stream() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(claude_line(), 0..10),
        any::<bool>(),
        any::<bool>(),
        any::<usize>(),
    )
        .prop_map(|(lines, crlf, cut, at)| {
            let sep = if crlf { "\r\n" } else { "\n" };
            let mut s = lines.join(sep).into_bytes();
            if cut && !s.is_empty() {
                s.truncate(at % s.len());
            }
            s
        })
}

/// JSON Lines of arbitrary values, maybe pretty-printed or as SSE `data:` lines.
fn ndjson_stream() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(json_value(), 0..6), 0..3u8).prop_map(|(values, framing)| {
        let mut out = String::new();
        for v in values {
            match framing {
                0 => out.push_str(&v.to_string()),
                1 => out.push_str(&serde_json::to_string_pretty(&v).unwrap()),
                _ => out.push_str(&format!("data: {v}\n")),
            }
            out.push('\n');
        }
        out.into_bytes()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_split_anywhere(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        with_schema: bool,
        repair: bool,
    ) {
        same_when_split(&bytes, &cuts, with_schema, repair);
    }

    #[test]
    fn json_like_text_split_anywhere(
        text in "[ \n\r{}\\[\\]\":,a0-9\\\\`ejsonrutfl.-]{0,300}",
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        with_schema: bool,
        repair: bool,
    ) {
        same_when_split(text.as_bytes(), &cuts, with_schema, repair);
    }

    #[test]
    fn claude_streams_split_anywhere(
        stream in claude_stream(),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        with_schema: bool,
    ) {
        same_when_split(&stream, &cuts, with_schema, false);
    }

    /// Text glued to an event is noise: the outcome is the clean stream's, plus one
    /// `glued_text` warning per glued line (up to three, then one for the rest).
    #[test]
    fn text_glued_to_events_changes_only_the_warnings(
        (clean, glued, n) in glued_stream(),
        with_schema: bool,
    ) {
        let opts = options(with_schema, false);
        let mut a = envelope(&opts, &[clean.as_bytes()]);
        let mut b = envelope(&opts, &[glued.as_bytes()]);
        let warnings = b["warnings"].as_array().cloned().unwrap_or_default();
        let glued_warnings = warnings.iter().filter(|w| w["kind"] == "glued_text").count();
        prop_assert_eq!(glued_warnings, n.min(3) + usize::from(n > 3));
        for v in [&mut a, &mut b] {
            let w = v["warnings"].as_array_mut().unwrap();
            w.retain(|w| w["kind"] != "glued_text");
        }
        prop_assert_eq!(a, b);
    }

    #[test]
    fn ndjson_streams_split_anywhere(
        stream in ndjson_stream(),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        with_schema: bool,
        repair: bool,
    ) {
        same_when_split(&stream, &cuts, with_schema, repair);
    }
}

/// A Claude-like stream (not cut, every event with its `session_id`, as Claude Code writes
/// them), and the same stream with text glued before or after some of its JSON lines:
/// `(clean, glued, lines glued)`.
fn glued_stream() -> impl Strategy<Value = (String, String, usize)> {
    let noise = "[A-Za-z][A-Za-z .!]{0,20}";
    let lines = prop::collection::vec((claude_line(), 0..3u8, noise), 1..8);
    (lines, any::<prop::sample::Index>()).prop_map(|(mut lines, at)| {
        // One event of the stream's on a line of its own, anywhere: the input is the
        // producer's stream by structure, so text glued to its other events is noise (an
        // input whose every event has prose glued to it among other text is text that quotes
        // them: `tests/cli/invariance.rs`).
        let own = json!({"type": "rate_limit_event", "session_id": "s"}).to_string();
        lines.insert(at.index(lines.len() + 1), (own, 0, String::new()));
        let (mut clean, mut glued, mut n) = (Vec::new(), Vec::new(), 0);
        for (line, how, noise) in lines {
            let line = match serde_json::from_str::<Value>(&line) {
                Ok(Value::Object(mut o)) => {
                    o.insert("session_id".into(), "s".into());
                    Value::Object(o).to_string()
                }
                _ => line,
            };
            let g = match how {
                1 if line.starts_with('{') => format!("{noise}{line}"),
                2 if line.starts_with('{') => format!("{line}{noise}"),
                _ => line.clone(),
            };
            n += usize::from(g != line);
            clean.push(line);
            glued.push(g);
        }
        (clean.join("\n"), glued.join("\n"), n)
    })
}

/// Input for the binary: random bytes, or a generated stream.
fn any_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..2000),
        claude_stream(),
        ndjson_stream(),
    ]
}

proptest! {
    // Each case spawns the binary: keep the count modest.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_binary_prints_one_valid_envelope_with_its_exit_code(
        input in any_input(),
        with_schema: bool,
        strict: bool,
    ) {
        let mut args = vec!["extract"];
        if with_schema {
            args.extend(["--schema", SCHEMA]);
        }
        if strict {
            args.push("--strict");
        }
        // run_stdin validates every envelope against the envelope schema and rejects exit 101.
        let r = run_stdin(&args, input);
        let e = r.one();
        prop_assert_eq!(&e["exit_code"], &json!(r.code));
        prop_assert!(r.code == 0 || r.code == 1, "exit {}", r.code);
        prop_assert_eq!(r.code == 0, e.get("data").is_some());
    }
}
