//! `--provider` (issue 56): an answer given under the schema lowered for a provider is checked
//! in that shape, lifted back to the user's, and validated against `--schema`.

use serde_json::{Value, json};

use crate::common::{Run, run, run_stdin, sojx, warned};

/// The issue's schema: a required enum, an optional string, an optional map of numbers.
const S: &str = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["verdict"],"properties":{"verdict":{"enum":["PASS","FAIL"]},"service":{"type":"string"},"tags":{"type":"object","additionalProperties":{"type":"number"}}}}"#;

fn extract(provider: &str, answer: &str) -> Run {
    run_stdin(&["extract", "--schema", S, "--provider", provider], answer)
}

#[test]
fn compile_carries_a_map_as_entries_and_an_optional_property_as_null() {
    let r = run(sojx().args(["compile", "--provider", "openai", S]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let tags = &r.one()["data"]["properties"]["tags"];
    assert_eq!(tags["type"], json!(["array", "null"]));
    assert_eq!(
        tags["items"]["properties"],
        json!({"key": {"type": "string"}, "value": {"type": "number"}})
    );
    assert_eq!(
        r.one()["data"]["properties"]["service"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(warned(&r, "map_as_entries").len(), 1);
    assert!(warned(&r, "additional_properties_closed").is_empty());
}

#[test]
fn the_lowered_answer_is_lifted_to_the_schemas_shape() {
    let answer = r#"{"verdict":"PASS","service":null,"tags":[{"key":"p95","value":1.5},{"key":"errors","value":0}]}"#;
    // Without --provider: today's behaviour, the null is a violation.
    let plain = run_stdin(&["extract", "--schema", S], answer);
    assert_eq!(plain.code, 1);
    let r = extract("openai", answer);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(
        e["data"],
        json!({"verdict": "PASS", "tags": {"p95": 1.5, "errors": 0}})
    );
    assert_eq!(e["validation"]["provider"], "openai");
    assert_eq!(e["validation"]["valid"], true);
    let lifted = warned(&r, "answer_lifted");
    assert_eq!(lifted.len(), 1);
    assert!(
        lifted[0].contains("/tags entries made an object"),
        "{}",
        lifted[0]
    );
    assert!(lifted[0].contains("/service null removed"), "{}", lifted[0]);
}

#[test]
fn a_non_object_root_is_unwrapped_by_extract_and_validate() {
    let s = r#"{"type":"array","items":{"type":"integer","minimum":2}}"#;
    for cmd in ["extract", "validate"] {
        for provider in ["openai", "anthropic", "claude-code"] {
            let r = run_stdin(
                &[cmd, "--schema", s, "--provider", provider],
                r#"{"value":[2,3]}"#,
            );
            assert_eq!(r.code, 0, "{cmd} {provider}: {}", r.stdout);
            assert_eq!(r.one()["data"], json!([2, 3]));
        }
        // Gemini takes any root: nothing is wrapped, nothing unwrapped.
        let r = run_stdin(&[cmd, "--schema", s, "--provider", "gemini"], "[2,3]");
        assert_eq!(r.code, 0, "{cmd} gemini: {}", r.stdout);
        assert!(warned(&r, "answer_lifted").is_empty());
    }
}

#[test]
fn a_key_given_twice_is_a_violation_naming_both() {
    let r = extract(
        "openai",
        r#"{"verdict":"PASS","service":"api","tags":[{"key":"a","value":1},{"key":"b","value":2},{"key":"a","value":3}]}"#,
    );
    assert_eq!(r.code, 1);
    let e = r.one();
    assert_eq!(e["error"]["kind"], "validation_failed");
    let d = &e["error"]["details"][0];
    assert_eq!(d["instance_location"], "/tags/2/key");
    let m = d["message"].as_str().unwrap();
    assert!(
        m.contains("/tags/0/key") && m.contains("/tags/2/key"),
        "{m}"
    );
    // The candidate is the answer as the agent gave it.
    assert!(e["candidate"]["tags"].is_array());
}

#[test]
fn an_answer_not_in_the_lowered_shape_never_passes() {
    // Valid under the user's schema, but not what a model under the lowered schema gives: the
    // map as an object, the optional properties missing.
    for answer in [
        r#"{"verdict":"PASS","service":"api","tags":{"a":1}}"#,
        r#"{"verdict":"PASS"}"#,
        r#"{"verdict":"PASS","service":null,"tags":null,"extra":1}"#,
    ] {
        let r = extract("openai", answer);
        assert_eq!(r.code, 1, "{answer}: {}", r.stdout);
        assert_eq!(r.one()["error"]["kind"], "validation_failed");
    }
}

#[test]
fn violations_after_lifting_are_named_where_the_agent_put_them() {
    // `minLength` is not in OpenAI's strict mode: the lowered schema drops it, the user's
    // schema checks it after lifting, and the place is the entry's value in the agent's answer.
    let s = r#"{"type":"object","properties":{"notes":{"type":"object","additionalProperties":{"type":"string","minLength":3}}},"required":["notes"]}"#;
    let r = run_stdin(
        &["extract", "--schema", s, "--provider", "openai"],
        r#"{"notes":[{"key":"ok","value":"fine"},{"key":"short","value":"x"}]}"#,
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    let d = &r.one()["error"]["details"][0];
    assert_eq!(d["instance_location"], "/notes/1/value");
    assert_eq!(
        d["keyword_location"],
        "/properties/notes/additionalProperties/minLength"
    );
}

/// `sojx extract --schema SCHEMA --provider openai --compat strict` of `answer`.
fn strict(schema: &str, answer: &str) -> Run {
    let args = [
        "extract",
        "--schema",
        schema,
        "--provider",
        "openai",
        "--compat",
        "strict",
    ];
    run_stdin(&args, answer)
}

#[test]
fn strict_refuses_only_what_has_no_exact_inverse() {
    // Maps, optional properties and the root have an exact inverse: strict takes them.
    let r = strict(S, r#"{"verdict":"FAIL","service":"db","tags":null}"#);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"], json!({"verdict": "FAIL", "service": "db"}));
    // An optional property that accepts null: not given and null become one answer.
    let s = r#"{"type":"object","properties":{"n":{"type":["integer","null"]}}}"#;
    let r = strict(s, r#"{"n":null}"#);
    assert_eq!(r.code, 3, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["error"]["kind"], "schema_invalid");
    assert_eq!(e["error"]["details"][0]["pointer"], "/properties/n");
    assert_eq!(e["error"]["details"][0]["rule"], "absent_as_null");
    // Lossy (the default) takes it, and a null stays a null.
    let r = run_stdin(
        &["extract", "--schema", s, "--provider", "openai"],
        r#"{"n":null}"#,
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"], json!({"n": null}));
}

#[test]
fn provider_needs_a_schema() {
    let r = run_stdin(&["extract", "--provider", "openai"], "{}");
    assert_eq!(r.code, 3, "{}", r.stderr);
    let r = run_stdin(&["extract", "--schema", S, "--compat", "strict"], "{}");
    assert_eq!(r.code, 3, "{}", r.stderr);
}

#[test]
fn recursive_definitions_lift_at_every_depth() {
    let s = r##"{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"attrs":{"type":"object","additionalProperties":{"type":"integer"}},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"$ref":"#/$defs/node"}"##;
    let given = json!({"value": {"name": "a", "attrs": [{"key": "x", "value": 1}], "kids": [
        {"name": "b", "attrs": null, "kids": [{"name": "c", "attrs": [], "kids": null}]}
    ]}});
    let r = run_stdin(
        &["extract", "--schema", s, "--provider", "openai"],
        given.to_string(),
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let want: Value = json!({"name": "a", "attrs": {"x": 1}, "kids": [
        {"name": "b", "kids": [{"name": "c", "attrs": {}}]}
    ]});
    assert_eq!(r.one()["data"], want);
}
