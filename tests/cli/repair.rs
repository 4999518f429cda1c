//! `--repair` reads what models write (issue 59): comments, raw control characters in strings,
//! single quotes, identifier keys, Python's literals; each change on record in
//! `source.repairs`, a warning per kind. Without `--repair`, the same failures as before.

use serde_json::{Value, json};

use crate::common::run_stdin;

/// Issue 59's five inputs: the value each was meant as, the kinds of change, and the failure
/// each is without `--repair`.
fn five() -> Vec<(&'static str, Value, Vec<&'static str>, &'static str)> {
    vec![
        (
            "{\"reason\": \"all good\", \"score\": 1.0 // perfect score\n}\n",
            json!({"reason": "all good", "score": 1.0}),
            vec!["comment_removed"],
            "json_invalid",
        ),
        (
            "{\n  \"reason\": \"The test passed\",\n  \"score\": 1.0 # The score is perfect because all criteria were met\n}\n",
            json!({"reason": "The test passed", "score": 1.0}),
            vec!["comment_removed"],
            "json_invalid",
        ),
        (
            "{\"summary\": \"line one\nline two\", \"score\": 0.75}\n",
            json!({"summary": "line one\nline two", "score": 0.75}),
            vec!["control_character_escaped"],
            "json_invalid",
        ),
        (
            "{'name': 'x', 'ok': True, 'v': None}\n",
            json!({"name": "x", "ok": true, "v": null}),
            vec![
                "single_quoted_string",
                "single_quoted_string",
                "single_quoted_string",
                "python_literal",
                "single_quoted_string",
                "python_literal",
            ],
            "not_found",
        ),
        (
            "{unquoted: \"value\", \"quoted\": \"v\"}\n",
            json!({"unquoted": "value", "quoted": "v"}),
            vec!["unquoted_key"],
            "not_found",
        ),
    ]
}

fn kinds(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect()
}

#[test]
fn the_five_inputs_read_with_repair_and_fail_as_before_without() {
    for (input, want, changes, without) in five() {
        let r = run_stdin(&["extract", "--repair"], input);
        assert_eq!(r.code, 0, "{input}: {}", r.stdout);
        let e = r.one();
        assert_eq!(e["data"], want, "{input}");
        assert_eq!(e["source"]["repaired"], true);
        assert_eq!(kinds(&e["source"]["repairs"]), changes, "{input}");
        // Each change is where it says, and quotes what was there.
        for c in e["source"]["repairs"].as_array().unwrap() {
            let at = usize::try_from(c["offset"].as_u64().unwrap()).unwrap();
            assert!(input[at..].starts_with(c["from"].as_str().unwrap()), "{c}");
        }
        // One warning per kind of change, said on stderr too.
        let mut per_kind = changes.clone();
        per_kind.sort_unstable();
        per_kind.dedup();
        let mut warned: Vec<&str> = kinds(&e["warnings"])
            .into_iter()
            .filter(|k| *k != "unchecked_answer")
            .collect();
        warned.sort_unstable();
        assert_eq!(warned, per_kind, "{input}");
        for k in &per_kind {
            assert!(
                r.stderr.contains(&format!("warning: {k}: ")),
                "{}",
                r.stderr
            );
        }

        let r = run_stdin(&["extract"], input);
        assert_eq!((r.code, r.kind()), (1, Some(without)), "{input}");
        assert!(r.one()["source"].get("repairs").is_none());
    }
}

/// In an agent's answer text (a Claude Code result with no structured output), offsets are
/// the answer text's, and the schema holds the repaired value.
#[test]
fn an_answer_text_in_a_stream_is_repaired_and_validated() {
    let text = "Here you go:\n```json\n{'verdict': 'PASS', # checked\n 'blockers': []}\n```";
    let stream = format!(
        "{}\n{}\n",
        json!({"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": []}),
        json!({"type": "result", "subtype": "success", "is_error": false, "result": text, "session_id": "s", "num_turns": 1})
    );
    let schema = r#"{"type":"object","required":["verdict","blockers"],"properties":{"verdict":{"enum":["PASS","FAIL"]},"blockers":{"type":"array"}}}"#;
    let r = run_stdin(&["extract", "--repair", "--schema", schema], stream.clone());
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["producer"], "claude-code");
    assert_eq!(e["data"], json!({"verdict": "PASS", "blockers": []}));
    assert_eq!(e["source"]["kind"], "code_fence");
    for c in e["source"]["repairs"].as_array().unwrap() {
        let at = usize::try_from(c["offset"].as_u64().unwrap()).unwrap();
        assert!(text[at..].starts_with(c["from"].as_str().unwrap()), "{c}");
    }
    assert_eq!(
        kinds(&e["source"]["repairs"]),
        [
            "single_quoted_string",
            "single_quoted_string",
            "comment_removed",
            "single_quoted_string"
        ]
    );
    // Repaired, then held to the schema like any answer.
    let strict =
        r#"{"type":"object","required":["verdict"],"properties":{"verdict":{"const":"FAIL"}}}"#;
    let r = run_stdin(&["extract", "--repair", "--schema", strict], stream);
    assert_eq!(r.kind(), Some("validation_failed"));
    assert_eq!(r.one()["source"]["repaired"], true);
}

/// Where a reading is not the only one, `--repair` reads nothing: the answer stays a failure,
/// never another value.
#[test]
fn what_has_more_than_one_reading_stays_a_failure() {
    for input in [
        "{'msg': 'it's fine'}",
        "{True: 1}",
        "{\"a\": yes}",
        "{\"url\": http://x.y}",
        "{\"a\": 1 /* note",
    ] {
        let r = run_stdin(&["extract", "--repair"], input);
        assert_eq!(r.code, 1, "{input}: {}", r.stdout);
        assert!(r.one().get("data").is_none());
    }
}

/// A value inside a value `--repair` reads is part of it, never the answer on its own; prose
/// that only looks like such a value (`{a: b c}`) is not one, and the answer after it stands.
#[test]
fn a_value_inside_a_repaired_one_is_part_of_it() {
    let r = run_stdin(&["extract", "--repair"], "{'a': {\"b\": 1}, c: [True]}");
    assert_eq!(r.one()["data"], json!({"a": {"b": 1}, "c": [true]}));
    let r = run_stdin(
        &["extract", "--repair"],
        "Notes {a: b c}. Answer: {\"x\": 1}",
    );
    assert_eq!(r.one()["data"], json!({"x": 1}));
    assert!(r.one()["source"].get("repairs").is_none());
}

/// Found by review: a comment that may have swallowed the closing bracket, a quote missing
/// before a line's end, a comment alone after a bracket (`[# 42]`, Jinja's `{# … #}`), an
/// empty list of prose, and a value inside a broken one are never an answer, with or without
/// `--repair`; what JSON's reading took before stays.
#[test]
fn breaks_on_the_page_are_not_cuts_and_prose_stays_prose() {
    let failures = [
        "{\"a\": 1, \"b\": 2 # ok}",
        "[1, 2, 3 # nums]",
        "{\"a\": 1, \"color\": #fff, \"b\": 2}",
        "```json\n{\"verdict\": \"FAIL\", \"score\": 3 # out of 10}\n```",
        "```json\n{\"a\": \"x\", \"tags\": [\"p\", \"q\" // last]}\n```\nDone.",
        "{\"a\": 1, \"b\": \"x\n}\nThanks",
        "Answer: {\"verdict\": \"PASS\"}\nCorrection: {note: 1, \"final\": {\"verdict\": \"FAIL\", \"why\": [see log]}}",
        "Answer: {\"verdict\": \"PASS\"}\nCorrection: ['x', {\"verdict\": \"FAIL\", \"why\": see}]",
    ];
    for input in failures {
        for args in [&["extract"][..], &["extract", "--repair"]] {
            let r = run_stdin(args, input);
            assert_eq!(
                r.kind(),
                Some("json_invalid"),
                "{args:?} {input}: {}",
                r.stdout
            );
        }
    }
    let answers = [
        (
            "Fixed in [#42].\n{\"status\": \"ok\"}",
            json!({"status": "ok"}),
        ),
        ("Use {# comment #} in Jinja.\n{\"a\": 1}", json!({"a": 1})),
        ("Answer: {\"b\": 2}\n[ # todo\n]", json!({"b": 2})),
    ];
    for (input, want) in answers {
        for args in [&["extract"][..], &["extract", "--repair"]] {
            let r = run_stdin(args, input);
            assert_eq!(r.one()["data"], want, "{args:?} {input}: {}", r.stdout);
        }
    }
}

/// A value inside one only `--repair` reads is a part of it, not the answer, even without
/// `--repair` (where it was taken before issue 59: `{"b": 1}`, exit 0).
#[test]
fn a_value_inside_a_python_dict_is_never_the_answer() {
    let input = "{'verdict': 'PASS', 'details': {\"x\": 1}}";
    let r = run_stdin(&["extract"], input);
    assert_eq!(r.kind(), Some("json_invalid"), "{}", r.stdout);
    let r = run_stdin(&["extract", "--repair"], input);
    assert_eq!(
        r.one()["data"],
        json!({"verdict": "PASS", "details": {"x": 1}})
    );
}
