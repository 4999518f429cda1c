//! `validate` reads serde_json's private number key as a key and lone UTF-16 surrogates as
//! U+FFFD (issue 39, items 6 and 10), as `extract` does (the wrong-data corpus's `numbers`
//! topic pins `extract`).

use serde_json::{Value, json};

use crate::common::{run_stdin, sojx};

const INTEGER_X: &str =
    r#"{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}"#;

fn key(v: Value) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("$serde_json::private::Number".into(), v);
    Value::Object(m)
}

#[test]
fn validate_reads_the_private_number_key_as_a_key() {
    for (doc, spelled) in [
        (r#"{"x":{"$serde_json::private::Number":"5"}}"#, "raw"),
        (
            r#"{"x":{"\u0024serde_json::private::Number":"5"}}"#,
            "escaped",
        ),
        (
            "{\"x\":{\n\"$serde_json::private::Numbe\\u0072\":\"5\"}\n}",
            "pretty, escaped",
        ),
    ] {
        let r = run_stdin(&["validate", "--schema", INTEGER_X], doc);
        assert_eq!(r.code, 1, "{spelled}: {}", r.stdout);
        assert_eq!(r.kind(), Some("validation_failed"), "{spelled}");
        assert_eq!(r.one()["candidate"]["x"], key(json!("5")), "{spelled}");
    }
    // Any value under the key is JSON, and the document is the object it is.
    for value in ["null", "\"x\"", "{}", "[1]", "5"] {
        let doc = format!(r#"{{"$serde_json::private::Number":{value}}}"#);
        let r = run_stdin(
            &["validate", "--schema", r#"{"type":"object"}"#],
            doc.clone(),
        );
        assert_eq!(r.code, 0, "{doc}: {}", r.stdout);
        let v: Value = sojx_core::json::from_str(value).unwrap();
        assert_eq!(r.one()["data"], key(v), "{doc}");
        let r = run_stdin(
            &["validate", "--schema", r#"{"type":"number"}"#],
            doc.clone(),
        );
        assert_eq!(r.kind(), Some("validation_failed"), "{doc}");
    }
    // The bytes printed are the document's.
    let doc = r#"{"$serde_json::private::Number":null,"b":[1.50]}"#;
    let out = sojx()
        .args(["validate", "--schema", "{}", "-r"])
        .write_stdin(doc)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), doc);
}

#[test]
fn validate_reads_lone_surrogates_as_replacement_characters() {
    for doc in [r#"{"a":"\ud83d x"}"#, "{\n\"a\": \"x \\udc00\"\n}"] {
        let r = run_stdin(&["validate", "--schema", r#"{"type":"object"}"#], doc);
        assert_eq!(r.code, 0, "{doc}: {}", r.stdout);
        let e = r.one();
        assert!(
            e["data"]["a"].as_str().unwrap().contains('\u{fffd}'),
            "{doc}"
        );
        assert_eq!(e["warnings"][0]["kind"], "lone_surrogate", "{doc}");
        assert!(
            e["warnings"][0]["message"]
                .as_str()
                .unwrap()
                .starts_with("line 1 "),
            "{doc}"
        );
        // Invalid: the warning stays with the failure.
        let r = run_stdin(&["validate", "--schema", r#"{"type":"array"}"#], doc);
        assert_eq!(r.kind(), Some("validation_failed"), "{doc}");
        assert_eq!(r.one()["warnings"][0]["kind"], "lone_surrogate", "{doc}");
    }
    // A pair is one character, and no warning.
    let r = run_stdin(&["validate", "--schema", "{}"], r#"{"a":"\ud83d\ude00"}"#);
    assert_eq!(r.one()["data"]["a"], "😀");
    assert_eq!(r.one()["warnings"], json!([]));
}
