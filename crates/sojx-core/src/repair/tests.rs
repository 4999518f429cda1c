use super::*;
use serde_json::json;

fn names(r: &Repaired) -> Vec<&'static str> {
    r.warnings.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn trailing_commas() {
    let r = repair(r#"{"a": [1, 2,], }"#).unwrap();
    assert_eq!(r.value, json!({"a": [1, 2]}));
    assert_eq!(names(&r), ["trailing_comma"]);
}

#[test]
fn cut_off_members_are_dropped_never_completed() {
    let cases = [
        // A container never closed is not `[]` nor a shorter list.
        (
            r#"{"verdict": "FAIL", "blockers": ["#,
            json!({"verdict": "FAIL"}),
        ),
        (r#"{"a": 1, "b": ["x", "y"#, json!({"a": 1})),
        (
            r#"{"a": 1, "b": {"c": 2}, "d": {"e": 3"#,
            json!({"a": 1, "b": {"c": 2}}),
        ),
        // A number at the cut may have lost digits; a cut string or literal is incomplete.
        (r#"{"ok": true, "count": 12"#, json!({"ok": true})),
        (r#"{"a": 1, "b": tr"#, json!({"a": 1})),
        (r#"{"a": 1, "s": "x\u00"#, json!({"a": 1})),
        (r#"{"a": 1, "s": "all tests pa"#, json!({"a": 1})),
        (r#"[{"a": 1}, {"b": 2"#, json!([{"a": 1}])),
        // A complete last member is kept.
        (r#"{"a": 1, "s": "done""#, json!({"a": 1, "s": "done"})),
        (r#"{"a": 1, "b": [1, 2]"#, json!({"a": 1, "b": [1, 2]})),
        (r#"{"a": 1, "ok": false,"#, json!({"a": 1, "ok": false})),
        (r#"{"a": 1, "ok": true"#, json!({"a": 1, "ok": true})),
        (r#"{"a": 1, "n": null"#, json!({"a": 1, "n": null})),
        (r#"{"a": 1, "x": 1e5"#, json!({"a": 1})),
        (r#"{"a": 1, "x": -"#, json!({"a": 1})),
    ];
    for (text, want) in cases {
        let r = repair(text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(r.value, want, "{text}");
        assert!(names(&r).contains(&"unclosed_brackets"), "{text}");
    }
    let r = repair(r#"{"verdict": "FAIL", "blockers": ["#).unwrap();
    assert_eq!(
        names(&r),
        ["dropped_incomplete_member", "unclosed_brackets"]
    );
    assert!(
        r.warnings[0].1.contains(r#"member "blockers""#),
        "{:?}",
        r.warnings
    );
    // Nothing complete left: no repair (an empty answer would be invented).
    assert_eq!(repair(r#"{"verdict": "FA"#), None);
    assert_eq!(repair(r#"[{"a": 1"#), None);
    assert_eq!(repair("Answer: {"), None);
    assert_eq!(repair("[ "), None);
}

/// Only a real cut-off end is completed: a break in the middle stays broken.
#[test]
fn a_break_in_the_middle_is_not_a_cut_off_end() {
    for text in [
        // A quote missing mid-answer: the complete `"c": 2` would be lost.
        r#"{"a": 1, "b": "x, "c": 2}"#,
        r#"{"a": 1, "b": "x, "c": 2"#,
        // An object closed before its members end.
        r#"{"a": "x"}, "b": "y"}"#,
        r#"{"a": "x"} , "b": "y""#,
        r#"[{"key":"value"}},{"key":"value"}]"#,
        r#"{"a": ["x"}, "b": ["y"]}"#,
        r#"{"a": 1 "b": 2"#,
    ] {
        assert_eq!(repair(text), None, "{text}");
    }
}

#[test]
fn stray_prefix_and_suffix() {
    let r = repair("json\n{\"a\": 1}\nHope this helps").unwrap();
    assert_eq!(r.value, json!({"a": 1}));
    assert_eq!(names(&r), ["stray_prefix", "stray_suffix"]);
}

#[test]
fn never_touches_string_contents_or_prose() {
    let r = repair(r#"{"path": "C:\\Users\\x", "t": "a,}",}"#).unwrap();
    assert_eq!(r.value, json!({"path": "C:\\Users\\x", "t": "a,}"}));
    assert_eq!(repair("no json here"), None);
    assert_eq!(repair("{ see below }"), None);
    // Valid JSON needs no repair.
    assert_eq!(repair(r#"{"a":1}"#), None);
}

/// The changes of a repair: kind, offset, from, to.
fn changes(r: &Repaired) -> Vec<(&'static str, usize, &str, &str)> {
    r.changes
        .iter()
        .map(|c| (c.kind.as_str(), c.offset, c.from.as_str(), c.to.as_str()))
        .collect()
}

/// Issue 59's five inputs: what models write, each with one reading.
#[test]
fn what_models_write() {
    let cases = [
        (
            "{\"reason\": \"all good\", \"score\": 1.0 // perfect score\n}",
            json!({"reason": "all good", "score": 1.0}),
            vec![("comment_removed", 36, "// perfect score", "")],
        ),
        (
            "{\n  \"reason\": \"The test passed\",\n  \"score\": 1.0 # The score is perfect\n}",
            json!({"reason": "The test passed", "score": 1.0}),
            vec![("comment_removed", 48, "# The score is perfect", "")],
        ),
        (
            "{\"summary\": \"line one\nline two\", \"score\": 0.75}",
            json!({"summary": "line one\nline two", "score": 0.75}),
            vec![("control_character_escaped", 21, "\n", "\\n")],
        ),
        (
            "{'name': 'x', 'ok': True, 'v': None}",
            json!({"name": "x", "ok": true, "v": null}),
            vec![
                ("single_quoted_string", 1, "'name'", "\"name\""),
                ("single_quoted_string", 9, "'x'", "\"x\""),
                ("single_quoted_string", 14, "'ok'", "\"ok\""),
                ("python_literal", 20, "True", "true"),
                ("single_quoted_string", 26, "'v'", "\"v\""),
                ("python_literal", 31, "None", "null"),
            ],
        ),
        (
            "{unquoted: \"value\", \"quoted\": \"v\"}",
            json!({"unquoted": "value", "quoted": "v"}),
            vec![("unquoted_key", 1, "unquoted", "\"unquoted\"")],
        ),
    ];
    for (text, want, want_changes) in cases {
        let r = repair(text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(r.value, want, "{text}");
        assert_eq!(changes(&r), want_changes, "{text}");
        // Each change's offset is where its text was.
        for c in &r.changes {
            assert!(text[c.offset..].starts_with(&c.from), "{text}: {c:?}");
        }
    }
}

#[test]
fn each_reading_in_its_places() {
    let cases = [
        // Block comments, several kinds at once, a comment before the first key.
        (
            "{ /* a } */ \"a\": 1, // b ]\n 'b': [True, False,], c_1: 'it\\'s \"x\"'}",
            json!({"a": 1, "b": [true, false], "c_1": "it's \"x\""}),
        ),
        ("[ # list\n 'a', None ]", json!(["a", null])),
        // A tab and a CR LF inside strings; a `#` and `//` inside strings are text.
        (
            "{\"a\": \"x\ty\r\nz\", \"b\": \"# not // a comment\"}",
            json!({"a": "x\ty\r\nz", "b": "# not // a comment"}),
        ),
        // A word in a number is the number's (`1e5`, `1E+3`).
        (
            "{n: 1e5, m: -1.5E+3, t: True}",
            serde_json::from_str(r#"{"n": 1e5, "m": -1.5E+3, "t": true}"#).unwrap(),
        ),
        ("{$id: 1, _x: 2}", json!({"$id": 1, "_x": 2})),
    ];
    for (text, want) in cases {
        let r = repair(text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(r.value, want, "{text}");
    }
}

/// Where a reading is not the only one, nothing is read: the answer stays a failure.
#[test]
fn what_has_more_than_one_reading_is_refused() {
    for text in [
        // An apostrophe in a single-quoted string: where does it end?
        "{'msg': 'it's fine'}",
        // Python's literals as keys (a bool key, or the word?), JSON's too.
        "{True: 1}",
        "{None: 1, \"a\": 2}",
        "{null: 1}",
        // Words that are not literals nor keys.
        "{\"a\": yes}",
        "{\"a\": undefined}",
        "{\"a\": NaN}",
        "{key with spaces: 1}",
        "{my-key: 1}",
        // A `//` or `#` glued to a word is not a comment.
        "{\"url\": http://x.y}",
        "{\"a\": 1#2}",
        // A block comment never closed.
        "{\"a\": 1 /* note",
        // A line continuation is not a newline.
        "{\"a\": \"x\\\ny\"}",
        // Python's escapes are not JSON's.
        "{'a': '\\x41'}",
    ] {
        assert!(repair(text).is_none(), "{text}: {:?}", repair(text));
    }
}

/// Without the lenient readings (the cut-document check), only JSON's own repairs apply.
#[test]
fn json_rules_alone_read_no_comment() {
    let json_only = Rules {
        lenient: false,
        cut: true,
    };
    assert_eq!(repair_with("{\"a\": 1 // c\n}", json_only), None);
    assert_eq!(repair_with("{'a': 1}", json_only), None);
    assert!(repair_with("{\"a\": 1,}", json_only).is_some());
}

/// A value still open is completed only when the text is cut off at its end.
#[test]
fn only_a_text_cut_at_its_end_is_completed() {
    let closed_span = Rules {
        lenient: true,
        cut: false,
    };
    assert_eq!(repair_with("{\"a\": 1, \"s\": \"x\n}", closed_span), None);
    assert!(repair_with("{\"a\": 1, \"b\": 2", Rules::ALL).is_some());
    assert_eq!(repair_with("{\"a\": 1, \"b\": 2", closed_span), None);
}

/// What was read in a member that a cut drops is dropped with it.
#[test]
fn changes_in_a_dropped_member_go_with_it() {
    let r = repair("{'a': 1, 'b': 'cut of").unwrap();
    assert_eq!(r.value, json!({"a": 1}));
    assert_eq!(
        changes(&r),
        [
            ("single_quoted_string", 1, "'a'", "\"a\""),
            ("dropped_incomplete_member", 9, "'b': 'cut of", ""),
            ("unclosed_brackets", 21, "", "}"),
        ]
    );
    assert_eq!(
        names(&r),
        [
            "single_quoted_string",
            "dropped_incomplete_member",
            "unclosed_brackets"
        ]
    );
}

#[test]
fn long_text_is_quoted_short() {
    let prose = "x".repeat(200);
    let r = repair(&format!("{prose}\n{{\"a\": 1}}")).unwrap();
    assert_eq!(r.changes[0].from.len(), MAX_QUOTED + "…".len());
    let r = repair(&format!("{{\"a\": 1 // {}é\n}}", "y".repeat(76))).unwrap();
    assert!(r.changes[0].from.ends_with('…'), "{:?}", r.changes);
}

/// Found by review: what looks cut off only because a line comment swallowed the closing
/// bracket, or a quote is missing before a line's end, is a break on the page, not a cut.
#[test]
fn a_swallowed_closer_or_a_missing_quote_is_not_a_cut() {
    for text in [
        "{\"a\": 1, \"b\": 2 # ok}",
        "[1, 2, 3 # nums]",
        "{\"a\": 1, \"b\": 2 // }\n",
        "{\"a\": 1, \"b\": [1 /* ] */",
        "{\"a\": 1, \"b\": \"x\n}\nThanks",
        "{\"a\": 1, 'b': 'x\n}",
    ] {
        assert_eq!(repair(text), None, "{text}");
    }
    // A comment before the cut, then more of the value: still a cut.
    let r = repair("{\"a\": 1, // note\n \"b\": [").unwrap();
    assert_eq!(r.value, json!({"a": 1}));
}
