//! The framer on whole inputs.

use super::*;

fn frame(input: &str) -> (Vec<(u64, String)>, Stats) {
    let mut f = Framer::new(1 << 20);
    let mut items = Vec::new();
    for (i, line) in input.split('\n').enumerate() {
        f.line(i as u64 + 1, line.as_bytes(), &mut |it| {
            items.push(match it {
                Item::Value { line, value } => (line, value.to_string()),
                Item::Done { line } => (line, "[DONE]".to_owned()),
                Item::Junk { .. } => return,
            });
        });
    }
    f.finish();
    (items, f.stats)
}

/// [`frame`] with salvage on for objects that have a `type` (a stand-in for detection).
fn frame_salvaging(input: &str) -> (Vec<(u64, String)>, Framer) {
    let mut f = Framer::new(1 << 20).salvage(|v| v.get("type").is_some());
    let mut items = Vec::new();
    for (i, line) in input.split('\n').enumerate() {
        f.line(i as u64 + 1, line.as_bytes(), &mut |it| {
            if let Item::Value { line, value } = it {
                items.push((line, value.to_string()));
            }
        });
    }
    f.finish();
    (items, f)
}

#[test]
fn text_glued_to_an_event_is_dropped_and_recorded() {
    let (items, f) = frame_salvaging(concat!(
        "MCP issues detected.{\"type\":\"init\"}\n",
        "{\"type\":\"a\"}Ripgrep is not available.\n",
        "note {x} then {\"type\":\"b\"}\n",
        "{\n \"type\": \"doc\"\n}trailing\n",
    ));
    assert_eq!(
        items,
        [
            (1, r#"{"type":"init"}"#.into()),
            (2, r#"{"type":"a"}"#.into()),
            (3, r#"{"type":"b"}"#.into()),
            (4, r#"{"type":"doc"}"#.into()),
        ]
    );
    assert_eq!(f.stats.text_lines, 0);
    assert_eq!(f.glued_lines, 4);
    // Text that starts with a bracket.
    let (items, f2) = frame_salvaging("[dotenv@17.2.1] injecting env {\"type\":\"result\"}\n");
    assert_eq!(items, [(1, r#"{"type":"result"}"#.into())]);
    assert_eq!(f2.glued_lines, 1);
    let g = |line: u64, before: &str, after: &str| Glued {
        line,
        before: before.into(),
        after: after.into(),
    };
    assert_eq!(
        f.glued,
        [
            g(1, "MCP issues detected.", ""),
            g(2, "", "Ripgrep is not available."),
            g(3, "note {x} then", ""),
        ]
    );
}

/// Issue 39, item 1: an event quoted inside another value, in a sentence, or in a fenced
/// block is text; events glued to each other are each read.
#[test]
fn quoted_nested_and_fenced_events_are_text() {
    let (items, f) = frame_salvaging(concat!(
        // Nested in the answer, with text after it and before it.
        "{\"verdict\":\"FAIL\",\"evidence\":{\"type\":\"result\"}} -- end\n",
        "Verdict: {\"verdict\":\"FAIL\",\"evidence\":{\"type\":\"result\"}}\n",
        // Quoted in a sentence: text on both sides.
        "The log said {\"type\":\"result\"} yesterday.\n",
        // Two values among text, one of them an event.
        "note {\"a\":1} {\"type\":\"init\"}\n",
        // Inside a broken span.
        "x {\"a\": [{\"type\":\"result\"}}\n",
        // A fenced block, then a value after it.
        "```json\n",
        "{\"type\":\"result\"}\n",
        "```\n",
        "~~~\n",
        "{\"type\":\"result\"}\n",
        "```\n",
        "~~~\n",
        "{\"type\":\"after\"}\n",
    ));
    assert_eq!(items, [(13, r#"{"type":"after"}"#.into())]);
    assert_eq!((f.stats.text_lines, f.glued_lines), (12, 0));
    // A one-line fenced span opens nothing.
    let (items, _) = frame_salvaging("```{\"type\":\"a\"}```\n{\"type\":\"b\"}\n");
    assert_eq!(items, [(2, r#"{"type":"b"}"#.into())]);
}

/// Once the input is a producer's stream, a stray fence line is junk and the lines after it
/// are read (a review found an unclosed one swallowing the rest of a Codex stream).
#[test]
fn a_fence_line_in_a_known_stream_is_junk() {
    let mut f = Framer::new(1 << 20).salvage(|v| v.get("type").is_some());
    let mut items = Vec::new();
    for (i, line) in ["{\"type\":\"a\"}", "```", "{\"type\":\"b\"}"]
        .iter()
        .enumerate()
    {
        f.line(i as u64 + 1, line.as_bytes(), &mut |it| {
            if let Item::Value { line, .. } = it {
                items.push(line);
            }
        });
        // The router drops the text once a producer is known.
        f.drop_text();
    }
    assert_eq!(items, [1, 3]);
}

#[test]
fn events_glued_to_each_other_are_each_read() {
    let (items, f) = frame_salvaging("{\"type\":\"a\"}{\"type\":\"b\"} {\"type\":\"c\"}\n");
    assert_eq!(
        items,
        [
            (1, r#"{"type":"a"}"#.into()),
            (1, r#"{"type":"b"}"#.into()),
            (1, r#"{"type":"c"}"#.into())
        ]
    );
    assert_eq!((f.stats.values, f.stats.text_lines), (3, 0));
    // One of them refused, or text among them: the line is text.
    for line in [
        "{\"type\":\"a\"}{\"b\":1}\n",
        "{\"type\":\"a\"} and {\"type\":\"b\"}\n",
        "{\"type\":\"a\"}{\"type\":\"b\"} tail\n",
    ] {
        let (items, f) = frame_salvaging(line);
        assert!(items.is_empty(), "{line}");
        assert_eq!(f.stats.text_lines, 1);
    }
}

#[test]
fn glued_values_the_rule_refuses_stay_text() {
    // Prose around a value no producer claims, and salvage off (validate): text.
    let (items, f) = frame_salvaging("The answer is {\"ok\": true}.\n{\"ok\":1} tail\n");
    assert!(items.is_empty());
    assert_eq!((f.stats.text_lines, f.glued_lines), (2, 0));
    let (items, stats) = frame("x {\"type\":\"a\"}\n{\"type\":\"a\"} y\n");
    assert!(items.is_empty());
    assert_eq!(stats.text_lines, 2);
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    let fix = |s: &str| fix_lone_surrogates(s.as_bytes()).map(|b| String::from_utf8(b).unwrap());
    assert_eq!(fix(r#""ok \ud83d""#).as_deref(), Some(r#""ok \ufffd""#));
    assert_eq!(
        fix(r#""\ude00 x \uD83D""#).as_deref(),
        Some(r#""\ufffd x \ufffd""#)
    );
    assert_eq!(fix(r#""\ud83d\ude00""#), None, "a pair is kept");
    assert_eq!(fix(r#""\\ud83d""#), None, "an escaped backslash is text");
    assert_eq!(
        fix(r#""\ud83d\u0041""#).as_deref(),
        Some(r#""\ufffd\u0041""#)
    );
    assert_eq!(fix(r#""\u00e9 \n""#), None);
    assert_eq!(fix("\\"), None, "a backslash at the end");
    assert_eq!(fix("x\\u"), None);
    assert_eq!(
        fix("\\ud83d"),
        Some(b"\\ufffd".to_vec()).map(|b| String::from_utf8(b).unwrap())
    );
    let (items, stats) = frame("{\"a\":\"x\\ud83d\"}\n{\"b\":1}\n");
    assert_eq!(
        items,
        [(1, "{\"a\":\"x\u{fffd}\"}".into()), (2, "{\"b\":1}".into())]
    );
    assert_eq!(stats.surrogate_lines, [1]);
}

proptest::proptest! {
    /// A JSON string made of valid escapes, text and lone or paired surrogate escapes
    /// always parses once the lone ones are replaced, and pairs survive.
    #[test]
    fn any_string_with_surrogate_escapes_parses_after_the_fix(
        pieces in proptest::collection::vec(proptest::sample::select(vec![
            "a", "é", "\\\\", "\\n", "\\\"", "\\u0041", "\\ud83d", "\\ude00",
            "\\ud83d\\ude00", "\\\\ud83d", "\\uDBFF", "\\uDC00",
        ]), 0..12)
    ) {
        let json = format!("\"{}\"", pieces.concat());
        let fixed = fix_lone_surrogates(json.as_bytes());
        let bytes = fixed.as_deref().unwrap_or(json.as_bytes());
        let v: Value = serde_json::from_slice(bytes).expect("parses after the fix");
        let pairs = pieces.iter().filter(|p| **p == "\\ud83d\\ude00").count();
        let emoji = v.as_str().unwrap().matches('\u{1f600}').count();
        proptest::prop_assert!(emoji >= pairs);
    }
}

#[test]
fn ndjson_with_noise() {
    let (items, stats) = frame(">>> {\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\r");
    assert_eq!(items, [(2, "{\"b\":2}".into()), (4, "{\"c\":3}".into())]);
    assert_eq!(stats.text_lines, 1);
}

#[test]
fn pretty_document() {
    let (items, _) = frame("{\n  \"a\": [1,\n 2],\n  \"s\": \"}\"\n}\n");
    assert_eq!(items, [(1, "{\"a\":[1,2],\"s\":\"}\"}".into())]);
}

#[test]
fn utf16_is_told_by_its_bom_or_its_nul_bytes() {
    assert_eq!(
        utf16(b"\xFF\xFE{\0"),
        Some("UTF-16LE with a byte order mark")
    );
    assert_eq!(
        utf16(b"\xFE\xFF\0{"),
        Some("UTF-16BE with a byte order mark")
    );
    assert_eq!(utf16(b"{\0\"\0a\0"), Some("UTF-16LE"));
    assert_eq!(utf16(b"\0{\0\""), Some("UTF-16BE"));
    let binary = b"\xff\xfe not utf-8";
    for utf8 in [
        &b"{\"a\": 1}"[..],
        b"",
        b"{",
        b"\xEF\xBB\xBF{}",
        "héllo".as_bytes(),
        binary,
    ] {
        assert_eq!(utf16(utf8), None, "{utf8:?}");
    }
}

#[test]
fn a_document_loses_its_long_line_and_itself() {
    // Line 2 went past the limit: lines 1 and 3 must not close into `{}`.
    let mut f = Framer::new(1 << 20);
    let mut items = Vec::new();
    let mut push = |it: Item| {
        if let Item::Value { line, value } = it {
            items.push((line, value.to_string()));
        }
    };
    f.line(1, b"{", &mut push);
    f.too_long(2);
    f.line(3, b"}", &mut push);
    f.line(4, br#"{"next": 1}"#, &mut push);
    f.finish();
    assert_eq!(items, [(4, r#"{"next":1}"#.to_owned())]);
    assert_eq!(f.stats.too_long, 1);
}

#[test]
fn sse_with_comments_and_done() {
    let (items, stats) = frame(": ping\nevent: x\ndata: {\"a\":1}\n\ndata: [DONE]\n");
    assert_eq!(items, [(3, "{\"a\":1}".into()), (5, "[DONE]".into())]);
    assert_eq!(stats.sse_lines, 4);
}

#[test]
fn sse_data_split_over_lines() {
    let (items, _) = frame("data: {\"a\":\ndata: 1}\n\n");
    assert_eq!(items, [(1, "{\"a\":1}".into())]);
}

#[test]
fn sse_event_that_never_forms_json_is_linear() {
    // Every `data:` line used to re-parse the growing buffer: quadratic.
    let input = "data: [\n".to_owned() + &"data: 1,\n".repeat(200_000) + "\ndata: {\"a\":1}\n";
    let started = std::time::Instant::now();
    let (items, stats) = frame(&input);
    assert_eq!(items, [(200_003, "{\"a\":1}".into())]);
    assert_eq!(stats.text_lines, 1);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn sse_data_that_is_balanced_and_not_json_is_dropped_at_once() {
    let (items, stats) = frame("data: hello {x}\ndata: {\"a\":1}\n\ndata: {\"b\":2}\n");
    assert_eq!(items, [(4, "{\"b\":2}".into())]);
    assert_eq!(stats.text_lines, 1);
}

#[test]
fn values_past_the_depth_limit_are_counted() {
    let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    let (items, stats) = frame(&format!("{deep}\n{ok}\n"));
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].0, 2);
    assert_eq!(stats.too_deep, 1);
}

#[test]
fn too_deep_is_told_by_where_serde_json_stopped_not_by_its_message() {
    use super::{MAX_DEPTH, is_too_deep};
    let err = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap_err();
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(serde_json::from_str::<serde_json::Value>(&nested(MAX_DEPTH)).is_ok());
    let deep = nested(MAX_DEPTH + 1);
    assert!(is_too_deep(&err(&deep), deep.as_bytes()));
    // Deep over several lines, and past the limit inside objects.
    let lines = "[\n".repeat(300);
    assert!(is_too_deep(&err(&lines), lines.as_bytes()));
    let objects = "{\"a\":".repeat(200);
    assert!(is_too_deep(&err(&objects), objects.as_bytes()));
    // Other syntax errors, shallow or just under the limit, and brackets inside strings.
    for s in [
        "[1,]".to_owned(),
        format!("[x{}", "[".repeat(300)),
        format!("{}x", "[".repeat(MAX_DEPTH)),
        format!("[\"{}\" x]", "[".repeat(300)),
        "{\"a\" 1}".to_owned(),
        // A `[` or `{` that is the syntax error itself, at depth 127.
        format!("{}1[", "[".repeat(MAX_DEPTH)),
        format!("{}{{\"a\"[", "[".repeat(MAX_DEPTH - 1)),
    ] {
        assert!(!is_too_deep(&err(&s), s.as_bytes()), "{s:.40}");
    }
}
