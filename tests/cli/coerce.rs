//! `--coerce`: a string where the schema asks for a boolean, an integer or a number, and that
//! is exactly one, converted before validation and listed in `source.coercions`; in `run`, a
//! type slip costs no retry, and the feedback of a retry says what was repaired or coerced.

use serde_json::{Value, json};

use crate::common::{Scratch, path_str, run, run_stdin, sojx, warned};

/// A boolean `ok` and an integer `n` (the issue's example).
const SCHEMA: &str =
    r#"{"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer"}}}"#;

fn extract(flags: &[&str], input: &str) -> crate::common::Run {
    let mut args = vec!["extract", "--schema", SCHEMA];
    args.extend(flags);
    run_stdin(&args, input)
}

#[test]
fn type_slips_are_converted_and_listed() {
    let r = extract(&["--coerce"], r#"{"ok":"true","n":"3"}"#);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = r.one();
    assert_eq!(e["data"], json!({"ok": true, "n": 3}));
    assert_eq!(
        e["source"]["coercions"],
        json!([
            {"pointer": "/ok", "from": "true", "to": true},
            {"pointer": "/n", "from": "3", "to": 3}
        ])
    );
    assert_eq!(e["validation"]["valid"], true);
    assert_eq!(
        warned(&r, "coerced"),
        ["--coerce converted 2 string(s) to the type the schema asks for: /ok, /n"]
    );
    // Without --coerce, a violation as before.
    let r = extract(&[], r#"{"ok":"true","n":"3"}"#);
    assert_eq!(r.code, 1);
    let e = r.one();
    assert_eq!(e["error"]["kind"], "validation_failed");
    assert_eq!(e["candidate"], json!({"ok": "true", "n": "3"}));
    assert!(e["source"].get("coercions").is_none());
    assert!(warned(&r, "coerced").is_empty());
    // Under --strict too: it is about types, not text.
    let r = extract(&["--coerce", "--strict"], r#"{"ok":"false","n":"-7"}"#);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.one()["data"], json!({"ok": false, "n": -7}));
}

#[test]
fn under_a_provider_by_the_lowered_schema_at_the_places_as_given() {
    // OpenAI needs an object root: the integer was asked for as `{"value": …}`.
    let r = run_stdin(
        &[
            "extract",
            "--coerce",
            "--provider",
            "openai",
            "--schema",
            r#"{"type":"integer"}"#,
        ],
        r#"{"value":"3"}"#,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = r.one();
    assert_eq!(e["data"], json!(3));
    assert_eq!(
        e["source"]["coercions"],
        json!([{"pointer": "/value", "from": "3", "to": 3}])
    );
}

#[test]
fn what_is_not_exactly_the_type_is_refused() {
    for given in [
        json!({"ok": "yes", "n": 3}),
        json!({"ok": "1", "n": 3}),
        json!({"ok": true, "n": "1.0"}),
        json!({"ok": true, "n": " 3"}),
        json!({"ok": true, "n": "03"}),
        json!({"ok": true, "n": "1e3"}),
    ] {
        let r = extract(&["--coerce"], &given.to_string());
        assert_eq!(r.code, 1, "{given}");
        let e = r.one();
        assert_eq!(e["error"]["kind"], "validation_failed", "{given}");
        assert_eq!(e["candidate"], given, "the candidate as given");
        assert!(e["source"].get("coercions").is_none(), "{given}");
        assert!(warned(&r, "coerced").is_empty());
    }
    // What could be converted is, and stays listed; the candidate is the converted value.
    let r = extract(&["--coerce"], r#"{"ok":"yes","n":"3"}"#);
    assert_eq!(r.code, 1);
    let e = r.one();
    assert_eq!(e["error"]["details"][0]["instance_location"], "/ok");
    assert_eq!(e["candidate"], json!({"ok": "yes", "n": 3}));
    assert_eq!(
        e["source"]["coercions"],
        json!([{"pointer": "/n", "from": "3", "to": 3}])
    );
}

#[test]
fn a_place_that_allows_a_string_is_left_alone() {
    let schema = r#"{"properties":{"a":{"type":["string","number"]},"b":{"anyOf":[{"type":"string"},{"type":"integer"}]},"c":{"type":"number"}}}"#;
    let r = run_stdin(
        &["extract", "--coerce", "--schema", schema],
        r#"{"a":"5","b":"6","c":"1e400"}"#,
    );
    assert_eq!(r.code, 1, "1e400 is not a double: left a string");
    let e = r.one();
    assert_eq!(e["candidate"], json!({"a": "5", "b": "6", "c": "1e400"}));
    assert!(e["source"].get("coercions").is_none());
    let r = run_stdin(
        &["extract", "--coerce", "--schema", schema],
        r#"{"a":"5","b":"6","c":"-2.5"}"#,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.one()["data"], json!({"a": "5", "b": "6", "c": -2.5}));
}

#[test]
fn nested_places_are_json_pointers() {
    let schema = r#"{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":{"type":"boolean"}}}}}"#;
    let answer = r#"{"items":[{"n":"1","a/b":"true"},{"n":2,"c~d":"false"}]}"#;
    let r = run_stdin(&["extract", "--coerce", "--schema", schema], answer);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = r.one();
    assert_eq!(
        e["data"],
        json!({"items": [{"n": 1, "a/b": true}, {"n": 2, "c~d": false}]})
    );
    let pointers: Vec<&str> = e["source"]["coercions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(pointers, ["/items/0/n", "/items/0/a~1b", "/items/1/c~0d"]);
}

#[test]
fn coerce_needs_a_schema() {
    for args in [
        vec!["extract", "--coerce"],
        vec![
            "compare", "--items", ".", "--key", ".", "--field", ".", "--coerce",
        ],
    ] {
        let r = run_stdin(&args, r#"{"ok":"true"}"#);
        assert_eq!(r.code, 3, "{args:?}: {}", r.stderr);
        assert_eq!(r.kind(), Some("usage"));
        let message = r.one()["error"]["message"].as_str().unwrap();
        assert!(message.contains("--coerce") && message.contains("no schema"));
    }
}

#[test]
fn compare_reads_each_input_with_its_type_slips_converted() {
    let dir = Scratch::new("coerce", "compare");
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    std::fs::write(&a, r#"{"ok":"true","n":"3"}"#).unwrap();
    std::fs::write(&b, r#"{"ok":false,"n":3}"#).unwrap();
    let compare = |coerce: &[&str]| {
        let mut c = sojx();
        c.args(["compare", "--items", ".", "--key", ".n", "--field", ".ok"])
            .args(coerce)
            .args(["--schema", SCHEMA])
            .args([&a, &b]);
        run(&mut c)
    };
    // Converted, a.json says true where b.json says false for the same n: a contradiction.
    let r = compare(&["--coerce"]);
    let e = r.one();
    assert_eq!(e["error"]["kind"], "assertion_failed", "{}", r.stdout);
    assert_eq!(
        e["error"]["details"]["contradictions"][0]["values"],
        json!([true, false])
    );
    // Without --coerce, a.json fails its validation and is left out.
    let r = compare(&[]);
    let message = r.one()["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("1 of 2 input(s) could not be compared"),
        "{message}"
    );
}

/// An agent that prints `FIRST` on its first attempt and a valid answer after, logging the
/// feedback of each attempt (`SOJX_FEEDBACK`) to `LOG`, each ended by a line `==`.
const AGENT: &str = r#"printf '%s\n==\n' "$SOJX_FEEDBACK" >> "$LOG"
if [ "$SOJX_ATTEMPT" = 1 ]; then printf '%s\n' "$FIRST"; else printf '%s\n' '{"ok": true, "n": 3}'; fi
"#;

/// `sojx run FLAGS --schema S --max-attempts 2 -- sh agent`, whose first answer is `first`:
/// the envelope, and the feedback of each attempt.
fn run_agent(name: &str, flags: &[&str], first: &str) -> (Value, Vec<String>) {
    let dir = Scratch::new("coerce", name);
    let script = dir.join("agent.sh");
    std::fs::write(&script, AGENT).unwrap();
    let log = dir.join("log");
    let schema = r#"{"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer","minimum":0}}}"#;
    let r = run(sojx()
        .env("LOG", &log)
        .env("FIRST", first)
        .arg("run")
        .args(flags)
        .args(["--schema", schema, "--max-attempts", "2", "--", "sh"])
        .arg(path_str(&script)));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let log = std::fs::read_to_string(&log).unwrap();
    let feedback = log.split("\n==\n").map(str::to_owned).collect();
    (r.one().clone(), feedback)
}

#[test]
fn run_takes_a_type_slip_without_a_retry() {
    let (e, fed) = run_agent("no-retry", &["--coerce"], r#"{"ok":"true","n":"3"}"#);
    assert_eq!(e["data"], json!({"ok": true, "n": 3}));
    assert_eq!(e["attempts"].as_array().unwrap().len(), 1);
    assert_eq!(e["source"]["coercions"][1]["pointer"], "/n");
    assert_eq!(fed, ["", ""], "one attempt, no feedback");
    // Without --coerce the slip costs an attempt.
    let (e, fed) = run_agent("retry", &[], r#"{"ok":"true","n":"3"}"#);
    assert_eq!(e["attempts"].as_array().unwrap().len(), 2);
    assert!(fed[1].contains("- /ok: \"true\" is not of type \"boolean\""));
    assert!(!fed[1].contains("were read as"));
}

#[test]
fn the_feedback_says_what_was_repaired_and_coerced() {
    let (e, fed) = run_agent(
        "feedback",
        &["--coerce", "--repair"],
        r#"{"ok":"true","n":"-3",}"#,
    );
    assert_eq!(e["attempts"][0]["error_kind"], "validation_failed");
    assert_eq!(e["data"], json!({"ok": true, "n": 3}));
    let feedback = &fed[1];
    assert!(
        feedback.starts_with(
            "The previous output was invalid:\n\
             - /n: -3 is less than the minimum of 0\n\
             - Your answer needed repair: removed 1 trailing comma(s) (trailing_comma); write plain JSON.\n\
             - The strings at /ok, /n were read as the boolean/integer the schema asks for; give them as JSON booleans and numbers, not strings.\n"
        ),
        "{feedback}"
    );
    assert!(feedback.ends_with("The previous output:\n{\"ok\":true,\"n\":-3}"));
}

/// Found by review: a conversion that flips an `if` so that its place no longer asks for a
/// number is undone (the string stays, and the answer is valid as the agent meant it).
#[test]
fn a_conversion_the_schema_no_longer_asks_for_is_undone() {
    let schema = r#"{"properties":{"a":{"type":"boolean"}},"if":{"properties":{"a":{"const":true}}},"then":{"properties":{"b":{"type":"string"}}},"else":{"properties":{"b":{"type":"integer"}}}}"#;
    let r = run_stdin(
        &["extract", "--from", "json", "--coerce", "--schema", schema],
        r#"{"a":"true","b":"5"}"#,
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["data"], json!({"a": true, "b": "5"}));
    assert_eq!(
        e["source"]["coercions"],
        json!([{"pointer": "/a", "from": "true", "to": true}])
    );
    // `then` asks nothing of `b`: "5" stays a string.
    let open = schema.replace(r#"{"type":"string"}"#, "{}");
    let r = run_stdin(
        &["extract", "--from", "json", "--coerce", "--schema", &open],
        r#"{"a":"true","b":"5"}"#,
    );
    assert_eq!(r.one()["data"], json!({"a": true, "b": "5"}));
}

/// Found by review: the answer is the last candidate that validates once converted, not an
/// earlier draft valid as written (fenced blocks, and a turn's tool calls alike).
#[test]
fn the_last_answer_valid_once_converted_wins_over_an_earlier_draft() {
    let schema = r#"{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}"#;
    let text = "Draft:\n```json\n{\"n\": 1}\n```\nFinal answer:\n```json\n{\"n\": \"2\"}\n```\n";
    let r = run_stdin(
        &["extract", "--from", "text", "--coerce", "--schema", schema],
        text,
    );
    assert_eq!(r.one()["data"], json!({"n": 2}), "{}", r.stdout);
    assert_eq!(r.one()["source"]["candidate"], 2);
    // Without --coerce, the draft, as before.
    let r = run_stdin(&["extract", "--from", "text", "--schema", schema], text);
    assert_eq!(r.one()["data"], json!({"n": 1}));
    // An integer asked for by `number` and `integer` together is converted.
    let both = r#"{"properties":{"v":{"allOf":[{"type":"number"},{"type":"integer"}]}}}"#;
    let r = run_stdin(&["extract", "--coerce", "--schema", both], r#"{"v":"3"}"#);
    assert_eq!(r.one()["data"], json!({"v": 3}));
}
