//! The text miner on whole texts.

use super::*;
use serde_json::json;

fn values(m: &Mined) -> Vec<(SourceKind, Value)> {
    m.candidates
        .iter()
        .map(|c| (c.kind, c.value.clone()))
        .collect()
}

#[test]
fn whole_text_any_json_value() {
    assert_eq!(whole("\n\n4"), Some(json!(4)));
    assert_eq!(whole(" {\"a\":1} "), Some(json!({"a":1})));
    assert_eq!(whole("2 + 2 = 4"), None);
}

#[test]
fn fences_and_embedded_in_order() {
    let t = "First {\"a\":1} then\n```json\n{\"b\":2}\n```\nand [\"c\"] end";
    let m = mine(t, 100, false);
    assert_eq!(
        values(&m),
        [
            (SourceKind::Embedded, json!({"a":1})),
            (SourceKind::CodeFence, json!({"b":2})),
            (SourceKind::Embedded, json!(["c"])),
        ]
    );
    assert!(m.broken.is_empty());
}

#[test]
fn nested_values_are_part_of_the_outer_one() {
    let m = mine(
        "# stdout: {\"s\":\"...\",\"o\":{\"answer\":\"4\"}}",
        100,
        false,
    );
    assert_eq!(
        values(&m),
        [(SourceKind::Embedded, json!({"s":"...","o":{"answer":"4"}}))]
    );
}

#[test]
fn braces_inside_strings_do_not_count() {
    let m = mine("x {\"a\":\"}{][\"} y", 100, false);
    assert_eq!(values(&m), [(SourceKind::Embedded, json!({"a":"}{]["}))]);
}

#[test]
fn prose_braces_and_citations_are_not_candidates() {
    let m = mine("Use {curly} braces, see [1] and [0, 10].", 100, false);
    assert!(m.candidates.is_empty());
    assert!(m.broken.is_empty());
}

#[test]
fn broken_json_is_reported_not_repaired() {
    let m = mine("Here: {\"a\": 1,}", 100, false);
    assert!(m.candidates.is_empty());
    assert_eq!(m.broken.len(), 1);
    let m = mine("Answer: {\"a\": [1, 2", 100, false);
    assert_eq!(m.broken[0].text, "{\"a\": [1, 2");
    let m = mine("Answer: {\"a\": [\"x\", \"cut", 100, false);
    assert_eq!(m.broken[0].text, "{\"a\": [\"x\", \"cut");
    assert!(m.candidates.is_empty());
}

/// A part of a broken value is never a candidate (issue 39, item 11): the broken span is
/// reported whole, and nothing inside it or chained to it is a value.
#[test]
fn a_part_of_a_broken_value_is_never_a_candidate() {
    for (t, broken) in [
        (r#"{"a": ["x"}, "b": ["y"]}"#, r#"{"a": ["x"}, "b": ["y"]}"#),
        (
            r#"Here: {"ok": true, "list": [1, 2}, "tags": ["p"]} ok"#,
            r#"{"ok": true, "list": [1, 2}, "tags": ["p"]}"#,
        ),
        (
            r#"[{"key":"value"}},{"key":"value"}]"#,
            r#"[{"key":"value"}},{"key":"value"}]"#,
        ),
        (
            r#"Answer: {"a": "x"}, "b": "y"}."#,
            r#"{"a": "x"}, "b": "y"}"#,
        ),
        (
            "{\"a\": 1,\n \"b\": [true, null]}, 2]",
            "{\"a\": 1,\n \"b\": [true, null]}, 2]",
        ),
        (r#"x {"a": 1}}"#, r#"{"a": 1}}"#),
        // The opening bracket broken: the rest is members, not values in prose.
        (
            r#"Here: {]verdict":"FAIL","tags":["a"],"meta":{"by":"x"}} ok"#,
            r#"{]verdict":"FAIL","tags":["a"],"meta":{"by":"x"}}"#,
        ),
    ] {
        let m = mine(t, 100, false);
        assert!(m.candidates.is_empty(), "{t}: {:?}", m.candidates);
        let texts: Vec<&str> = m.broken.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, [broken], "{t}");
    }
}

/// Values in prose joined by commas and words stay values; brackets of prose close their
/// own kind without breaking a value inside them.
#[test]
fn values_in_prose_stay_values() {
    for (t, n) in [
        (r#"Use {"a":1}, or {"b":2}."#, 2),
        (r#"(see [the result: {"ok":true}]) and [note]"#, 1),
        (r#"- {"a":1}\n- {"b":2}\n"#, 2),
        (r#"{"a":1}, {"b":2}, and that is all"#, 2),
        (r#"[x] done: {"a": 1}] oops"#, 0),
    ] {
        let m = mine(t, 100, false);
        assert_eq!(m.candidates.len(), n, "{t}: {m:?}");
    }
}

/// A quote of prose after a value does not carry the scan into the next value, where a
/// value nested in it would become a candidate (a review found it).
#[test]
fn a_prose_quote_does_not_jump_into_a_value() {
    let t = r#"{"v":"FAIL"} "see {"evidence":{"v":"PASS"}} as quoted}"#;
    let m = mine(t, 100, false);
    let got: Vec<&Value> = m.candidates.iter().map(|c| &c.value).collect();
    assert_eq!(
        got,
        [
            &serde_json::json!({"v": "FAIL"}),
            &serde_json::json!({"evidence": {"v": "PASS"}})
        ]
    );
}

#[test]
fn unmatched_closers_after_many_openers_are_linear() {
    let t = "[a".repeat(200_000) + &"}".repeat(200_000);
    let started = std::time::Instant::now();
    let m = mine(&t, 100, false);
    assert!(m.candidates.is_empty());
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn stray_open_brace_does_not_hide_a_later_value() {
    let m = mine("type { to start. Result: {\"ok\": true}", 100, false);
    assert_eq!(values(&m), [(SourceKind::Embedded, json!({"ok":true}))]);
}

#[test]
fn unlabeled_and_unclosed_fences() {
    let m = mine("```\n[{\"a\":1}]\n```", 100, false);
    assert_eq!(values(&m), [(SourceKind::CodeFence, json!([{"a":1}]))]);
    let m = mine("```json\n{\"a\": 1", 100, false);
    assert_eq!(m.broken.len(), 1);
    assert_eq!(m.broken[0].kind, SourceKind::CodeFence);
}

#[test]
fn prose_brackets_and_bare_code_fences_are_not_answers() {
    for t in [
        "([site](https://example.com/docs))",
        "See [\"site\"](https://example.com) and [1](https://a.b).",
        "Run this:\n```\nnpm test\n```\n",
        "```\nhello\n```",
    ] {
        let m = mine(t, 100, false);
        assert!(
            m.candidates.is_empty() && m.broken.is_empty(),
            "{t:?}: {m:?}"
        );
    }
    // A real value after a bare code fence still wins.
    let m = mine("```\nnpm test\n```\nThen: {\"ok\": true}", 100, false);
    assert_eq!(m.candidates.len(), 1);
    assert_eq!(m.candidates[0].value, serde_json::json!({"ok": true}));
    // A bare fence with prose before its JSON: the scan finds the value.
    let m = mine("```\nResult:\n{\"a\": 1}\n```", 100, false);
    assert_eq!(m.candidates.len(), 1);
    // A bare fence that does look like JSON is still a broken answer.
    assert_eq!(mine("```\n{\"a\": 1,}\n```", 100, false).broken.len(), 1);
    // Prose that opens with a complete value is not a broken document.
    assert!(!looks_like_json("[1](https://example.com/a) says so"));
    assert!(looks_like_json("{\"a\": 1,"));
}

#[test]
fn other_language_fences_are_skipped() {
    let m = mine("```python\nprint({'a': 1})\n```", 100, false);
    assert!(m.candidates.is_empty() && m.broken.is_empty());
}

#[test]
fn deep_nesting_is_linear_and_safe() {
    let t = "[".repeat(100_000) + &"]".repeat(100_000);
    let m = mine(&t, 100, false);
    assert!(m.candidates.is_empty());
}

#[test]
fn many_candidates_after_long_prose_are_linear() {
    // Line numbers used to be counted from the start for every candidate: quadratic.
    let t = "x".repeat(2_000_000) + "\n" + &" {\"a\":1}".repeat(10_000);
    let started = std::time::Instant::now();
    let m = mine(&t, 20_000, false);
    assert_eq!(m.candidates.len(), 10_000);
    assert_eq!(m.candidates[9_999].line, 1);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn fences_count_toward_the_candidate_limit() {
    // Each fenced block tried as JSON is a candidate: past the limit the rest of the blocks,
    // and the prose scan, are not tried (issue 44, item 5: a million blocks were all tried).
    let t = "```json\n{\"n\":1}\n```\n".repeat(5) + "and {\"prose\": 1}";
    let m = mine(&t, 3, false);
    assert_eq!(m.capped, Some(SourceKind::CodeFence));
    assert_eq!(m.candidates.len(), 3);
    assert!(m.candidates.iter().all(|c| c.kind == SourceKind::CodeFence));
    // Within the limit, the blocks and the scan share it.
    let m = mine(&t, 6, false);
    assert_eq!(m.capped, None);
    assert_eq!(m.candidates.len(), 6);
    let m = mine(&t, 5, false);
    assert_eq!(m.capped, Some(SourceKind::Embedded));
    assert_eq!(m.candidates.len(), 5);
    // A broken block counts too; a block of another language or of no JSON does not.
    let t = "```json\n{\"n\":\n```\n```sh\nls\n```\n```\nnpm test\n```\n```json\n{\"n\":2}\n```";
    let m = mine(t, 2, false);
    assert_eq!(m.capped, None);
    assert_eq!((m.candidates.len(), m.broken.len()), (1, 1));
    let m = mine(t, 1, false);
    assert_eq!(m.capped, Some(SourceKind::CodeFence));
    assert_eq!((m.candidates.len(), m.broken.len()), (0, 1));
}
