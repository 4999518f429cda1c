//! Schema tooling end to end: `sojx validate`, offline references (`$ref` to files and remote
//! URIs, `--resource`), `sojx lint` (a test per rule), `sojx compile` (a test per
//! transformation), and the example schemas under `schemas/examples/`.

use serde_json::{Value, json};

use crate::common::{Run, fixture, on_a_terminal, path_str, run, run_stdin, sojx, warned};

const ORDER: &str = "tests/fixtures/schema/order.schema.json";
const REMOTE: &str = "tests/fixtures/schema/remote.schema.json";
const REMOTE_URI: &str = "https://schemas.example.com/catalog/item.schema.json";

/// Run a command whose stdout is not envelopes (`-r`): exit code and stdout.
fn raw(args: &[&str]) -> (i32, String) {
    let out = sojx().args(args).output().expect("sojx runs");
    let code = out.status.code().expect("exit code");
    assert_ne!(code, 101, "panic: {}", String::from_utf8_lossy(&out.stderr));
    (code, String::from_utf8(out.stdout).expect("UTF-8"))
}

// ---------------------------------------------------------------------------------------------
// validate

#[test]
fn validate_json_lines_scalars_and_pretty_documents() {
    let input = "\u{feff}1\r\n\"a\"\n\n{\"n\":\n  2}\nnot json\n7\n";
    let r = run_stdin(&["validate", "--schema", r#"{"type":"integer"}"#], input);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let got: Vec<(Value, Value)> = r
        .envelopes
        .iter()
        .map(|e| (e["source"]["line"].clone(), e["error"]["kind"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (json!(1), Value::Null),
            (json!(2), json!("validation_failed")),
            (json!(4), json!("validation_failed")),
            (json!(6), json!("parse")),
            (json!(7), Value::Null),
        ]
    );
    assert_eq!(r.envelopes[0]["data"], 1);
    assert_eq!(r.envelopes[0]["command"], "validate");
    assert_eq!(r.envelopes[0]["validation"]["valid"], true);
    assert_eq!(r.envelopes[2]["candidate"], json!({"n": 2}));
    assert_eq!(r.envelopes[3]["candidate"], "not json");
    assert_eq!(r.envelopes[3]["error"]["target"], "<stdin>:6");
    assert!(
        r.envelopes[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expected")
    );
}

#[test]
fn validate_a_cut_off_line_does_not_hide_the_lines_after_it() {
    let r = run_stdin(
        &["validate", "--schema", r#"{"type":"object"}"#],
        "{\"a\":1}\n{\"b\": \"cut off\n{\"c\":3}\n{\"d\":4}\n",
    );
    let got: Vec<(Value, Value)> = r
        .envelopes
        .iter()
        .map(|e| (e["source"]["line"].clone(), e["exit_code"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (json!(1), json!(0)),
            (json!(2), json!(1)),
            (json!(3), json!(0)),
            (json!(4), json!(0))
        ]
    );
    assert_eq!(r.envelopes[1]["error"]["kind"], "parse");
}

#[test]
fn validate_several_files_in_order_with_the_extract_exit_codes() {
    let good = fixture("schema/order.valid.json");
    let bad = fixture("schema/order.invalid.json");
    let r = run(sojx()
        .args(["validate", "--schema", ORDER])
        .arg(&good)
        .arg(&bad)
        .arg("tests/fixtures/schema/missing.json")
        .arg(&good));
    // The unreadable file (3) outweighs the invalid document (1).
    assert_eq!(r.code, 3);
    let inputs: Vec<&str> = r
        .envelopes
        .iter()
        .map(|e| e["input"].as_str().unwrap())
        .collect();
    assert_eq!(
        inputs,
        [
            path_str(&good),
            path_str(&bad),
            "tests/fixtures/schema/missing.json",
            path_str(&good)
        ]
    );
    assert_eq!(r.envelopes[0]["exit_code"], 0);
    assert_eq!(r.envelopes[1]["error"]["kind"], "validation_failed");
    assert_eq!(r.envelopes[2]["error"]["kind"], "filesystem");
    assert_eq!(r.envelopes[3]["exit_code"], 0);
    let ok = run(sojx()
        .args(["validate", "--schema", ORDER])
        .arg(&good)
        .arg(&good));
    assert_eq!((ok.code, ok.envelopes.len()), (0, 2));
}

#[test]
fn validate_empty_unclosed_and_schema_errors() {
    let r = run_stdin(&["validate", "--schema", "{}"], "\n\n");
    assert_eq!((r.code, r.kind()), (1, Some("empty_input")));
    let r = run_stdin(&["validate", "--schema", "{}"], "{\"a\": [1,\n2");
    assert_eq!((r.code, r.kind()), (1, Some("parse")));
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("never closes")
    );
    let r = run_stdin(&["validate"], "1");
    assert_eq!((r.code, r.kind()), (3, Some("usage")));
    // A schema that cannot be read: an envelope per input (none is read), and one line on
    // stderr that names the schema and blames no input.
    let r = run(sojx().args(["validate", "--schema", "nope.json", "a", "b"]));
    assert_eq!(r.code, 3);
    assert_eq!(r.envelopes.len(), 2, "one envelope per input");
    for (e, input) in r.envelopes.iter().zip(["a", "b"]) {
        assert_eq!(e["input"], input);
        assert_eq!(e["error"]["kind"], "filesystem");
        assert_eq!(e["error"]["target"], "nope.json");
    }
    assert_eq!(
        r.stderr,
        "sojx: filesystem: cannot read the schema nope.json: no such file\n  \
         hint: a schema is a path, @path, or inline JSON\n"
    );
}

// ---------------------------------------------------------------------------------------------
// offline references

#[test]
fn relative_file_refs_resolve_against_the_schema_directory() {
    let schema = fixture("schema/order.schema.json");
    let tmp = std::env::temp_dir();
    for (doc, valid) in [("order.valid.json", true), ("order.invalid.json", false)] {
        // Run from elsewhere: the base is the schema's directory, not the working directory.
        let r = run(sojx()
            .current_dir(&tmp)
            .args(["validate", "--schema", path_str(&schema)])
            .arg(fixture(&format!("schema/{doc}"))));
        assert_eq!(r.code, i32::from(!valid), "{}", r.stdout);
        if !valid {
            let locs: Vec<&str> = r.one()["error"]["details"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["keyword_location"].as_str().unwrap())
                .collect();
            assert_eq!(
                locs,
                [
                    "/properties/items/items/$ref/properties/sku/pattern",
                    "/properties/items/items/$ref/properties/price/$ref/minimum"
                ]
            );
        }
    }
}

#[test]
fn remote_refs_are_never_fetched_on_any_command() {
    for args in [
        vec!["validate", "--schema", REMOTE],
        vec!["extract", "--from", "json", "--schema", REMOTE],
        vec!["compile", "--provider", "openai", REMOTE],
    ] {
        let r = run_stdin(&args, "{}");
        // compile's input is the schema: what it finds there is its input's failure, 1.
        let code = if args[0] == "compile" { 1 } else { 3 };
        assert_eq!(
            (r.code, r.kind()),
            (code, Some("schema_invalid")),
            "{args:?}"
        );
        let e = &r.one()["error"];
        assert!(e["message"].as_str().unwrap().contains(REMOTE_URI), "{e}");
        assert!(
            e["hint"]
                .as_str()
                .unwrap()
                .contains(&format!("--resource {REMOTE_URI}=FILE")),
            "{e}"
        );
    }
    let r = run(sojx().args(["lint", REMOTE]));
    assert_eq!(r.code, 1);
    let f = finding(&r, "all", "schema_compile", "");
    assert!(f["message"].as_str().unwrap().contains(REMOTE_URI));
    assert!(f["fix"].as_str().unwrap().contains("--resource"));
}

#[test]
fn resource_maps_a_file_or_a_directory_on_every_command() {
    let file = format!("{REMOTE_URI}=tests/fixtures/schema/defs/item.schema.json");
    let dir = "https://schemas.example.com/catalog/=tests/fixtures/schema/defs/";
    // The mapped directory has item.schema.json under the name the URI asks for.
    let renamed = crate::common::Scratch::new("res", "renamed");
    std::fs::copy(
        fixture("schema/defs/item.schema.json"),
        renamed.join("item.schema.json"),
    )
    .unwrap();
    let dir_map = format!(
        "https://schemas.example.com/catalog/={}/",
        path_str(&renamed)
    );
    for map in [file.as_str(), dir, dir_map.as_str()] {
        let good = r#"{"item":{"sku":"ABC-1","price":1}}"#;
        let bad = r#"{"item":{"sku":"ABC-1","price":-1}}"#;
        let r = run_stdin(
            &["validate", "--resource", map, "--schema", REMOTE],
            format!("{good}\n{bad}\n"),
        );
        assert_eq!(r.envelopes.len(), 2, "{map}: {}", r.stdout);
        assert_eq!(r.envelopes[0]["exit_code"], 0, "{map}");
        assert_eq!(r.envelopes[1]["error"]["kind"], "validation_failed");
        let r = run_stdin(
            &[
                "extract",
                "--from",
                "json",
                "--resource",
                map,
                "--schema",
                REMOTE,
            ],
            good,
        );
        assert_eq!(r.code, 0, "{map}: {}", r.stdout);
        let r = run(sojx().args(["lint", "--provider", "gemini", "--resource", map, REMOTE]));
        assert!(
            findings(&r).iter().all(|f| f["rule"] != "schema_compile"),
            "{}",
            r.stdout
        );
        let (code, out) = raw(&[
            "compile",
            "-r",
            "--provider",
            "openai",
            "--resource",
            map,
            REMOTE,
        ]);
        assert_eq!(code, 0, "{map}");
        assert!(!out.contains("$ref"), "inlined: {out}");
    }
    let r = run_stdin(
        &[
            "validate",
            "--resource",
            &format!("{REMOTE_URI}=tests/fixtures/schema/nope.json"),
            "--schema",
            REMOTE,
        ],
        "{}",
    );
    // A mapped file that is not there is the caller's, told before the schema is compiled.
    assert_eq!(r.kind(), Some("filesystem"));
    assert_eq!(
        r.one()["error"]["message"],
        "cannot read --resource tests/fixtures/schema/nope.json: no such file"
    );
    let _ = std::fs::remove_dir_all(renamed);
}

// ---------------------------------------------------------------------------------------------
// lint

fn findings(r: &Run) -> Vec<Value> {
    let e = r.one();
    let f = e
        .pointer("/data/findings")
        .or_else(|| e.pointer("/error/details/findings"))
        .unwrap_or_else(|| panic!("no findings in {e}"));
    f.as_array().unwrap().clone()
}

fn finding(r: &Run, provider: &str, rule: &str, pointer: &str) -> Value {
    findings(r)
        .into_iter()
        .find(|f| f["provider"] == provider && f["rule"] == rule && f["pointer"] == pointer)
        .unwrap_or_else(|| panic!("no {provider}/{rule} at {pointer:?} in\n{}", r.stdout))
}

fn lint(schema: &Value, provider: &str) -> Run {
    run(sojx().args(["lint", "--provider", provider, &schema.to_string()]))
}

fn obj(props: &Value) -> Value {
    let names: Vec<String> = props.as_object().unwrap().keys().cloned().collect();
    json!({"type": "object", "properties": props, "required": names, "additionalProperties": false})
}

#[test]
fn lint_rules_each_fire_where_they_should() {
    let deep = (0..11).fold(json!({"type": "string"}), |inner, _| {
        obj(&json!({"x": inner}))
    });
    let many: Vec<Value> = (0..1001).map(|i| json!(format!("v{i}"))).collect();
    #[rustfmt::skip]
    let cases: Vec<(Value, &str, &str, &str, &str, &str)> = vec![
        // (schema, --provider, finding provider, rule, pointer, severity)
        (json!({"type": 12}), "all", "all", "meta_schema", "/type", "error"),
        (obj(&json!({"a": {"type": "string", "pattern": "[z-a]"}})), "gemini", "all", "schema_compile", "/properties/a/pattern", "error"),
        (json!({}), "gemini", "all", "empty_schema", "", "warning"),
        (json!(true), "gemini", "all", "empty_schema", "", "warning"),
        (json!({"title": "t"}), "gemini", "all", "empty_schema", "", "warning"),
        (json!(false), "gemini", "all", "false_schema", "", "error"),
        (json!({"type": "object", "requried": ["a"]}), "gemini", "all", "keyword_typo", "/requried", "error"),
        (json!({"type": "string", "maxLenght": 3}), "gemini", "all", "keyword_typo", "/maxLenght", "error"),
        (json!({"type": "string", "widget": 1}), "gemini", "all", "unknown_keyword", "/widget", "warning"),
        (json!({"type": "string", "nullable": true}), "gemini", "all", "openapi_nullable", "/nullable", "warning"),
        (json!({"type": "object", "properties": {}, "required": ["a"], "additionalProperties": false}),
            "gemini", "all", "required_not_in_properties", "/required/0", "error"),
        (json!({"type": "object", "properties": {}, "required": ["a"]}),
            "gemini", "all", "required_not_in_properties", "/required/0", "warning"),
        (json!({"type": "array", "items": {"type": "string"}}), "openai", "openai", "openai_root_object", "", "error"),
        (json!({"anyOf": [obj(&json!({}))]}), "anthropic", "anthropic", "anthropic_root_object", "", "error"),
        (obj(&json!({"a": {"type": "string", "minLength": 1}})), "openai", "openai", "openai_unsupported_keyword", "/properties/a/minLength", "error"),
        (obj(&json!({"a": {"type": "number", "minimum": 1}})), "anthropic", "anthropic", "anthropic_unsupported_keyword", "/properties/a/minimum", "warning"),
        (obj(&json!({"a": {"type": "string", "pattern": "^a"}})), "gemini", "gemini", "gemini_unsupported_keyword", "/properties/a/pattern", "warning"),
        (obj(&json!({"a": {"type": "string", "format": "uri"}})), "openai", "openai", "format_ignored", "/properties/a/format", "warning"),
        (obj(&json!({"a": {"type": "string", "format": "email"}})), "gemini", "gemini", "format_ignored", "/properties/a/format", "warning"),
        (json!({"type": "object", "properties": {}, "required": []}), "openai", "openai", "openai_additional_properties", "", "error"),
        (json!({"type": "object", "properties": {}, "required": []}), "anthropic", "anthropic", "anthropic_additional_properties", "", "warning"),
        (json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": [], "additionalProperties": false}),
            "openai", "openai", "openai_required", "/properties/a", "error"),
        (obj(&json!({"a": {}})), "openai", "openai", "openai_type_missing", "/properties/a", "error"),
        (obj(&json!({"a": {"type": "array", "minItems": 2}})), "anthropic", "anthropic", "anthropic_min_items", "/properties/a/minItems", "warning"),
        (obj(&json!({"a": {"type": "string", "pattern": "^(?!x)"}})), "anthropic", "anthropic", "anthropic_pattern", "/properties/a/pattern", "warning"),
        (obj(&json!({"a": {"enum": [{"x": 1}]}})), "anthropic", "anthropic", "anthropic_complex_enum", "/properties/a/enum", "warning"),
        (obj(&json!({"kids": {"type": "array", "items": {"$ref": "#"}}})), "anthropic", "anthropic", "anthropic_recursive", "/properties/kids/items/$ref", "warning"),
        (json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}), "claude-code", "claude-code", "claude_code_schema_draft", "/$schema", "error"),
        (obj(&json!({"a": {"type": "array", "prefixItems": [{"type": "string"}]}})), "claude-code", "claude-code", "claude_code_unknown_keyword", "/properties/a/prefixItems", "error"),
        (obj(&json!({"a": {"type": "string", "x-ui": 1}})), "claude-code", "claude-code", "claude_code_unknown_keyword", "/properties/a/x-ui", "error"),
        (json!({"type": "array"}), "claude-code", "claude-code", "anthropic_root_object", "", "error"),
        (deep, "openai", "openai", "openai_limits", "", "error"),
        (obj(&json!({"a": {"type": "string", "enum": many}})), "openai", "openai", "openai_limits", "", "error"),
    ];
    for (schema, provider, fprov, rule, pointer, severity) in cases {
        let r = lint(&schema, provider);
        let f = finding(&r, fprov, rule, pointer);
        assert_eq!(f["severity"], severity, "{rule}: {f}");
        assert!(!f["message"].as_str().unwrap().is_empty());
        assert!(!f["fix"].as_str().unwrap().is_empty());
        let errors = findings(&r)
            .iter()
            .filter(|f| f["severity"] == "error")
            .count();
        assert_eq!(r.code, i32::from(errors > 0), "{rule}: {}", r.stdout);
        if errors > 0 {
            assert_eq!(r.kind(), Some("schema_invalid"));
            assert_eq!(r.one()["error"]["operation"], "lint");
            assert_eq!(r.one()["error"]["details"]["counts"]["error"], errors);
        }
    }
}

#[test]
fn lint_flags_external_refs_for_every_provider_but_resolves_them() {
    let r = run(sojx().args(["lint", "--provider", "all", ORDER]));
    assert_eq!(r.code, 1);
    for p in ["anthropic", "openai", "gemini"] {
        let f = finding(&r, p, "external_ref", "/properties/items/items/$ref");
        assert!(f["fix"].as_str().unwrap().contains("sojx compile"));
        assert_eq!(f["severity"], "error");
    }
    assert!(findings(&r).iter().all(|f| f["rule"] != "schema_compile"));
}

/// Without --provider, lint checks the schema itself: what a provider would refuse is a
/// warning, and only the schema's own problems fail it.
#[test]
fn lint_without_a_provider_fails_only_for_the_schema_itself() {
    let r = run(sojx().args(["lint", ORDER]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    for p in ["anthropic", "openai", "gemini"] {
        let f = finding(&r, p, "external_ref", "/properties/items/items/$ref");
        assert_eq!(f["severity"], "warning");
    }
    // A typo'd keyword or a broken schema is the schema's own: still an error, exit 1.
    let r = run(sojx().args([
        "lint",
        r#"{"type": "object", "properties": {"a": {"type": 12}}}"#,
    ]));
    assert_eq!(
        (r.code, r.kind()),
        (1, Some("schema_invalid")),
        "{}",
        r.stdout
    );
    // On a terminal, the short report for people instead of the envelope.
    if crate::common::have_tool("script", "the lint terminal report test") {
        let bin = assert_cmd::cargo::cargo_bin("sojx");
        let tty = on_a_terminal(&format!("{} lint {ORDER}", bin.display()));
        assert!(
            tty.starts_with("✓ tests/fixtures/schema/order.schema.json: lint"),
            "{tty}"
        );
        assert!(
            tty.contains("  - warning openai/external_ref /properties/items/items/$ref: "),
            "{tty}"
        );
        assert!(!tty.contains("\"timestamp\""), "{tty}");
        // --pretty asks for the envelope; a key with an escape sequence reaches the terminal
        // escaped.
        let evil = r#"{"properties": {"a\u001b[31mRED": {"type": "string", "maxLenght": 3}}}"#;
        for (args, envelope) in [
            (format!("--pretty {ORDER}"), true),
            (format!("'{evil}'"), false),
        ] {
            let tty = on_a_terminal(&format!("{} lint {args}", bin.display()));
            assert_eq!(tty.contains("\"timestamp\""), envelope, "{args}: {tty}");
            assert!(
                !tty.contains('\u{1b}'),
                "{args}: a raw escape reached the terminal: {tty}"
            );
        }
    }
}

/// lint's and compile's own files: an unreadable `--resource` is `filesystem`, exit 3, not a
/// finding about the schema.
#[test]
fn an_unreadable_resource_is_the_callers_file() {
    for cmd in [&["lint"][..], &["compile", "--provider", "openai"]] {
        for map in [
            "http://x/a.json=/nonexistent.json",
            "http://x/=examples/verdict.json",
        ] {
            let r = run(sojx().args(cmd).args(["--resource", map, ORDER]));
            assert_eq!(
                (r.code, r.kind()),
                (3, Some("filesystem")),
                "{cmd:?} {map}: {}",
                r.stdout
            );
        }
    }
}

#[test]
fn lint_success_envelope_provider_filter_and_raw() {
    let clean = obj(&json!({"a": {"type": "string"}}));
    let r = lint(&clean, "all");
    assert_eq!(r.code, 0);
    let e = r.one();
    assert_eq!(e["command"], "lint");
    assert_eq!(
        e["data"],
        json!({"findings": [], "counts": {"error": 0, "warning": 0, "info": 0}})
    );
    assert_eq!(
        e["validation"],
        json!({"schema": "<inline>", "valid": true, "draft": "2020-12"})
    );
    // Warnings only: success, exit 0.
    let loose = json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}, "required": ["a"]});
    let r = lint(&loose, "anthropic");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(findings(&r).iter().all(|f| f["provider"] != "openai"));
    assert_eq!(lint(&loose, "openai").code, 1);
    let (_, out) = raw(&["lint", "-r", "--provider", "anthropic", &loose.to_string()]);
    let data: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(data["counts"]["warning"], 2);
    // A draft-7 schema is meta-validated as draft 7.
    let d7 = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {}, "required": [], "additionalProperties": false, "definitions": {"x": {"type": "string"}}});
    assert_eq!(lint(&d7, "all").one()["validation"]["draft"], "7");
    let r = run(sojx().args([
        "lint",
        "--draft",
        "4",
        r#"{"type":"object","exclusiveMinimum":3}"#,
    ]));
    finding(&r, "all", "meta_schema", "/exclusiveMinimum");
}

#[test]
fn lint_unreadable_or_non_json_schema() {
    let r = run(sojx().args(["lint", "no/such/schema.json"]));
    assert_eq!((r.code, r.kind()), (3, Some("filesystem")));
    assert_eq!(r.one()["command"], "lint");
    let r = run(sojx().args(["lint", "{nope"]));
    assert_eq!((r.code, r.kind()), (1, Some("schema_invalid")));
}

// ---------------------------------------------------------------------------------------------
// compile

fn compile(schema: &Value, provider: &str, extra: &[&str]) -> Run {
    run(sojx()
        .args(["compile", "--provider", provider])
        .args(extra)
        .arg(schema.to_string()))
}

/// Validate `doc` against `schema` with `sojx validate`.
fn valid(schema: &Value, doc: &Value) -> bool {
    let r = run_stdin(
        &["validate", "--schema", &schema.to_string()],
        doc.to_string(),
    );
    r.code == 0
}

#[test]
fn compile_wraps_a_non_object_root_and_keeps_references_working() {
    let s = json!({
        "$defs": {"s": {"type": "string"}},
        "type": "array",
        "items": {"anyOf": [{"$ref": "#/$defs/s"}, {"$ref": "#"}]}
    });
    for p in ["openai", "anthropic"] {
        let r = compile(&s, p, &[]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        let out = &r.one()["data"];
        assert_eq!(out["type"], "object");
        assert_eq!(out["required"], json!(["value"]));
        assert_eq!(out["$defs"], json!({"s": {"type": "string"}}));
        assert_eq!(
            out.pointer("/properties/value/items/anyOf/1/$ref").unwrap(),
            "#/properties/value"
        );
        let w = warned(&r, "root_wrapped");
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("/properties/value") && w[0].contains(".value"));
        assert!(valid(out, &json!({"value": ["a", ["b", []]]})));
        assert!(!valid(out, &json!({"value": ["a", [1]]})));
    }
    // Gemini takes any root.
    let r = compile(&s, "gemini", &[]);
    assert_eq!(r.one()["data"]["type"], "array");
    assert!(warned(&r, "root_wrapped").is_empty());
}

#[test]
fn compile_normalizes_closes_and_makes_optionals_nullable_for_openai() {
    let s = json!({"type": "object", "properties": {
        "a": {"type": "string"},
        "b": {"type": "integer", "enum": [1, 2]},
        "c": {"$ref": "#/$defs/c"},
        "d": {"type": "object"}
    }, "required": ["a"], "$defs": {"c": {"type": "boolean"}}});
    let r = compile(&s, "openai", &[]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let out = &r.one()["data"];
    assert_eq!(out["required"], json!(["a", "b", "c", "d"]));
    assert_eq!(out["additionalProperties"], false);
    assert_eq!(out["properties"]["a"], json!({"type": "string"}));
    assert_eq!(
        out["properties"]["b"],
        json!({"type": ["integer", "null"], "enum": [1, 2, null]})
    );
    assert_eq!(
        out["properties"]["c"],
        json!({"anyOf": [{"$ref": "#/$defs/c"}, {"type": "null"}]})
    );
    assert_eq!(
        out["properties"]["d"],
        json!({"type": ["object", "null"], "properties": {}, "required": [], "additionalProperties": false})
    );
    assert_eq!(warned(&r, "optional_made_nullable").len(), 3);
    assert!(valid(
        out,
        &json!({"a": "x", "b": null, "c": null, "d": null})
    ));
    assert!(!valid(out, &json!({"a": "x", "b": 1, "c": true})));
    // Anthropic: closed and normalized, optionals stay optional; Gemini: only normalized.
    let r = compile(&s, "anthropic", &[]);
    let out = &r.one()["data"];
    assert_eq!(out["required"], json!(["a"]));
    assert_eq!(out["properties"]["d"]["additionalProperties"], false);
    let r = compile(&s, "gemini", &[]);
    let out = &r.one()["data"];
    assert_eq!(
        out["properties"]["d"],
        json!({"type": "object", "properties": {}, "required": []})
    );
    assert!(r.one()["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn compile_drops_or_refuses_what_the_provider_lacks() {
    let s = obj(&json!({
        "name": {"type": "string", "minLength": 1, "format": "uri"},
        "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        "extra": {"type": "object", "properties": {}, "required": [], "additionalProperties": true},
        "any": {}
    }));
    #[rustfmt::skip]
    let cases: Vec<(&str, &str, &str)> = vec![
        ("openai", "keyword_dropped", "/properties/name/minLength"),
        ("openai", "format_dropped", "/properties/name/format"),
        ("openai", "one_of_as_any_of", "/properties/kind/oneOf"),
        ("openai", "additional_properties_closed", "/properties/extra/additionalProperties"),
        ("openai", "untyped_schema", "/properties/any"),
        ("anthropic", "keyword_dropped", "/properties/name/minLength"),
        ("anthropic", "min_items_lowered", "/properties/tags/minItems"),
        ("anthropic", "additional_properties_closed", "/properties/extra/additionalProperties"),
        ("gemini", "format_dropped", "/properties/name/format"),
        ("gemini", "one_of_as_any_of", "/properties/kind/oneOf"),
    ];
    for (p, kind, pointer) in &cases {
        let r = compile(&s, p, &[]);
        assert_eq!(r.code, 0, "{p}: {}", r.stdout);
        assert!(
            warned(&r, kind).iter().any(|m| m.contains(pointer)),
            "{p} {kind} {pointer}: {}",
            r.stdout
        );
        let strict = compile(&s, p, &["--compat", "strict"]);
        assert_eq!(
            (strict.code, strict.kind()),
            (1, Some("schema_invalid")),
            "{p}"
        );
        let e = &strict.one()["error"];
        assert_eq!(e["operation"], "compile");
        assert!(
            e["details"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["rule"] == *kind && d["pointer"] == *pointer),
            "{p} strict {kind}: {e}"
        );
        let out = raw(&[
            "compile",
            "-r",
            "--compat",
            "strict",
            "--provider",
            p,
            &s.to_string(),
        ]);
        assert_eq!(out, (1, String::new()));
    }
    let out = compile(&s, "openai", &[]).one()["data"].clone();
    assert!(out.pointer("/properties/name/minLength").is_none());
    assert!(out.pointer("/properties/kind/anyOf/1/const").is_some());
    assert!(out.pointer("/properties/kind/oneOf").is_none());
    assert_eq!(
        compile(&s, "anthropic", &[]).one()["data"].pointer("/properties/tags/minItems"),
        Some(&json!(1))
    );
    // Pointers are in the input's terms, even under an optional (now nullable) property.
    let opt = json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}});
    let r = compile(&opt, "openai", &["--compat", "strict"]);
    assert_eq!(
        r.one()["error"]["details"][0]["pointer"],
        "/properties/a/minLength"
    );
    // An object node known only by its properties gets its type said.
    let r = compile(
        &json!({"properties": {"x": {"type": "string"}}}),
        "gemini",
        &[],
    );
    assert_eq!(r.one()["data"]["type"], "object");
    // Gemini has no const: a one-value enum says the same, without loss or warning.
    let g = compile(
        &obj(&json!({"k": {"const": "a"}})),
        "gemini",
        &["--compat", "strict"],
    );
    assert_eq!(g.code, 0);
    assert_eq!(g.one()["data"]["properties"]["k"], json!({"enum": ["a"]}));
}

#[test]
fn compiled_schemas_lint_clean_for_their_provider() {
    let nasty = json!({
        "type": "array",
        "items": obj(&json!({
            "id": {"type": "integer", "minimum": 0, "multipleOf": 1},
            "name": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$", "format": "uri"},
            "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "uniqueItems": true},
            "meta": {"type": "object", "additionalProperties": {"type": "string"}, "patternProperties": {"^x": {}}}
        }))
    });
    let mut schemas = vec![nasty.to_string(), ORDER.to_owned()];
    schemas.extend(examples());
    for s in &schemas {
        for p in ["openai", "anthropic", "gemini", "claude-code"] {
            let (code, out) = raw(&["compile", "-r", "--provider", p, s]);
            assert_eq!(code, 0, "{p} {s}");
            let l = run(sojx().args(["lint", "--provider", p, out.trim()]));
            assert_eq!(
                findings(&l).iter().filter(|f| f["provider"] == p).count(),
                0,
                "{p}: compiled {s} still has findings:\n{}",
                l.stdout
            );
        }
    }
}

#[test]
fn compile_inlines_external_refs_and_refuses_invalid_schemas() {
    let r = run(sojx().args(["compile", "--provider", "openai", ORDER]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!warned(&r, "external_ref_inlined").is_empty());
    let out = r.one()["data"].clone();
    assert!(!out.to_string().contains("item.schema.json"));
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("schema/order.valid.json")).unwrap())
            .unwrap();
    assert!(valid(&out, &doc));
    let r = compile(&json!({"type": 12}), "gemini", &[]);
    assert_eq!((r.code, r.kind()), (1, Some("schema_invalid")));
    let r = compile(&json!({}), "gemini", &[]);
    assert_eq!(warned(&r, "empty_schema").len(), 1);
    // -r prints the bare schema.
    let (code, out) = raw(&[
        "compile",
        "-r",
        "--provider",
        "gemini",
        r#"{"type":"string"}"#,
    ]);
    assert_eq!((code, out.trim()), (0, r#"{"type":"string"}"#));
}

// ---------------------------------------------------------------------------------------------
// example schemas

fn examples() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(crate::common::root().join("schemas/examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| path_str(&p).to_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn example_schemas_lint_clean_for_every_provider() {
    let ex = examples();
    assert_eq!(ex.len(), 5, "{ex:?}");
    for s in &ex {
        let r = run(sojx().args(["lint", "--provider", "all", s]));
        assert_eq!(r.code, 0, "{s}: {}", r.stdout);
        assert_eq!(findings(&r), Vec::<Value>::new(), "{s}");
        for p in ["openai", "anthropic", "gemini", "claude-code"] {
            // Already in each provider's subset: compiling changes nothing.
            let c = run(sojx().args(["compile", "--provider", p, s]));
            assert_eq!(c.one()["warnings"], json!([]), "{p} {s}");
        }
    }
}

#[test]
fn ops_session_example_accepts_a_real_answer() {
    let schema = "schemas/examples/ops-session.schema.json";
    let answer = json!({
        "summary": "Checkout latency is back to normal after the cache restart; payments is degraded.",
        "events": [
            {"level": "critical", "service": "payments", "message": "5xx rate 7% for 12 minutes"},
            {"level": "info", "service": null, "message": "nightly backup finished"}
        ],
        "memories": [{"key": "cache.restart.fixes_latency", "value": "restarting redis-cache cleared p99 spikes twice"}],
        "escalation": {"needed": true, "reason": "payments errors above SLO", "context": "started after deploy 4812", "failed_checks": ["payments-5xx"]},
        "services_checked": ["checkout", "payments", "redis-cache"]
    });
    let r = run_stdin(&["validate", "--schema", schema], answer.to_string());
    assert_eq!(r.code, 0, "{}", r.stdout);
    let mut bad = answer.clone();
    bad["events"][0]["level"] = json!("urgent");
    bad["escalation"].as_object_mut().unwrap().remove("context");
    let r = run_stdin(&["validate", "--schema", schema], bad.to_string());
    assert_eq!(r.one()["error"]["details"].as_array().unwrap().len(), 2);
}

#[test]
fn lint_text_output_lists_each_finding_with_its_fix() {
    let out = sojx()
        .args(["lint", "--output-format", "text", "--provider", "openai"])
        .arg(r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("- error openai/openai_additional_properties /: ")
            && text.contains("fix: add \"additionalProperties\": false"),
        "{text}"
    );
}

/// Claude Code checks `--json-schema` with Ajv's draft-07 default in strict mode: 2.1.332
/// refuses any `$schema` but draft-07's and every keyword Ajv does not know (2020-12's
/// `prefixItems`, `unevaluatedProperties`, `dependentRequired`, `minContains`, `$anchor`, …,
/// and `x-` extensions), and keeps `$defs`, `nullable` and unknown formats (docs/schema-tools.md,
/// tried with the real CLI). lint names each; compile gives a schema it keeps.
#[test]
fn claude_code_gets_a_draft_07_schema_it_keeps() {
    let verdict = "examples/verdict.schema.json";
    let r = run(sojx().args(["lint", "--provider", "claude-code", verdict]));
    assert_eq!(r.code, 1, "{}", r.stdout);
    let f = finding(&r, "claude-code", "claude_code_schema_draft", "/$schema");
    assert!(
        f["message"].as_str().unwrap().contains("draft-07")
            && f["fix"]
                .as_str()
                .unwrap()
                .contains("sojx compile -r --provider claude-code"),
        "{f}"
    );
    // Without --provider it is a warning: the schema itself is fine.
    assert_eq!(run(sojx().args(["lint", verdict])).code, 0);
    // compile: draft-07, and nothing else changed.
    let c = run(sojx().args(["compile", "--provider", "claude-code", verdict]));
    assert_eq!(c.code, 0, "{}", c.stdout);
    let data = c.one()["data"].clone();
    let mut want: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::common::root().join(verdict)).unwrap(),
    )
    .unwrap();
    want["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    assert_eq!(data, want);
    assert_eq!(warned(&c, "schema_draft_changed").len(), 1, "{}", c.stdout);

    // 2020-12 keywords with a draft-07 form are rewritten to it; the rest are dropped (lossy)
    // or refused (strict); annotations Ajv does not know are dropped either way.
    let s = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
            "tags": {"type": "array", "items": {"type": "string"}, "minContains": 1, "contains": {"const": "a"}},
            "a": {"type": "string", "x-ui": "wide", "nullable": true},
            "b": {"$ref": "#/$defs/b"}
        },
        "dependentRequired": {"a": ["b"]},
        "dependentSchemas": {"b": {"required": ["pair"]}},
        "unevaluatedProperties": false,
        "$defs": {"b": {"type": "integer"}}
    });
    let c = compile(&s, "claude-code", &[]);
    assert_eq!(c.code, 0, "{}", c.stdout);
    let out = c.one()["data"].clone();
    assert_eq!(out["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(
        out["properties"]["pair"],
        json!({"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false})
    );
    assert_eq!(
        out["dependencies"],
        json!({"a": ["b"], "b": {"required": ["pair"]}})
    );
    assert_eq!(
        out["properties"]["a"],
        json!({"type": "string", "nullable": true})
    );
    assert_eq!(out["properties"]["b"], json!({"$ref": "#/$defs/b"}));
    for gone in [
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
    ] {
        assert!(out.get(gone).is_none(), "{gone}: {out}");
    }
    assert!(
        out["properties"]["tags"].get("minContains").is_none(),
        "{out}"
    );
    assert_eq!(warned(&c, "keyword_dropped").len(), 2, "{}", c.stdout);
    assert_eq!(
        warned(&c, "unknown_keyword_dropped").len(),
        1,
        "{}",
        c.stdout
    );
    // The compiled schema lints clean for Claude Code and means the same to sojx.
    let l = run(sojx().args(["lint", "--provider", "claude-code", &out.to_string()]));
    assert_eq!(l.code, 0, "{}", l.stdout);
    let good = json!({"pair": ["x", 1], "a": "s", "b": 2});
    assert!(valid(&s, &good) && valid(&out, &good));
    for bad in [
        json!({"pair": ["x", 1, 2]}),
        json!({"pair": [1]}),
        json!({"a": "s"}),
        json!({"b": 1}),
        json!({"pair": ["x", 1], "b": "x"}),
    ] {
        assert!(!valid(&s, &bad) && !valid(&out, &bad), "{bad}");
    }
    let c = compile(&s, "claude-code", &["--compat", "strict"]);
    assert_eq!(
        (c.code, c.kind()),
        (1, Some("schema_invalid")),
        "{}",
        c.stdout
    );
    let refused: Vec<Value> = c.one()["error"]["details"].as_array().unwrap().clone();
    assert_eq!(refused.len(), 2, "{refused:?}");
}

/// Draft-04's boolean exclusive bounds are numbers in draft-07: compiled for Claude Code they
/// become the bound itself (Ajv refuses a boolean there), and mean the same.
#[test]
fn claude_code_gets_draft_04_exclusive_bounds_as_numbers() {
    let s = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "n": {"type": "number", "maximum": 5, "exclusiveMaximum": true, "minimum": 0, "exclusiveMinimum": false},
            "m": {"type": "integer", "minimum": 1, "exclusiveMinimum": true}
        }
    });
    let c = compile(&s, "claude-code", &[]);
    assert_eq!(c.code, 0, "{}", c.stdout);
    let out = c.one()["data"].clone();
    assert_eq!(out["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(
        out["properties"]["n"],
        json!({"type": "number", "exclusiveMaximum": 5, "minimum": 0})
    );
    assert_eq!(
        out["properties"]["m"],
        json!({"type": "integer", "exclusiveMinimum": 1})
    );
    let lint = run(sojx().args([
        "lint",
        "--provider",
        "claude-code",
        &serde_json::to_string(&out).unwrap(),
    ]));
    assert_eq!(lint.code, 0, "{}", lint.stdout);
}
