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

// ---------------------------------------------------------------------------------------------
// `run --schema` gives the agent its schema (issue 56, item 3)

/// A scratch folder with `program` linked to the fake agent `script`, and its log.
fn agent(program: &str, script: &str) -> (crate::common::Scratch, String, std::path::PathBuf) {
    let dir = crate::common::Scratch::new("lift", program);
    let link = dir.join(program);
    std::os::unix::fs::symlink(crate::common::fixture(&format!("agents/{script}")), &link).unwrap();
    let log = dir.join("log");
    (dir, crate::common::path_str(&link).to_owned(), log)
}

/// The value that follows `flag` in each attempt's argv the fake agent logged.
fn flag_values(log: &std::path::Path, flag: &str) -> Vec<Option<String>> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.split("==\n")
        .filter(|a| !a.trim().is_empty())
        .map(|a| {
            let lines: Vec<&str> = a.lines().collect();
            let at = lines.iter().position(|l| *l == flag)?;
            lines.get(at + 1).map(|v| (*v).to_owned())
        })
        .collect()
}

/// [`S`] as a file in `dir`: its path.
fn schema_file(dir: &std::path::Path) -> String {
    let s = dir.join("s.json");
    std::fs::write(&s, S).unwrap();
    crate::common::path_str(&s).to_owned()
}

/// `sojx`, with the fake agent logging to `log` and answering `answer`.
fn fake(log: &std::path::Path, answer: &str) -> assert_cmd::Command {
    let mut c = sojx();
    c.env("FAKE_AGENT_LOG", log)
        .env("FAKE_AGENT_ANSWER", answer);
    c
}

fn compiled(provider: &str, schema: &str) -> Value {
    let r = run(sojx().args(["compile", "--provider", provider, schema]));
    r.one()["data"].clone()
}

#[test]
fn claude_is_given_the_schema_lowered_for_it_on_every_attempt() {
    let (_dir, claude, log) = agent("claude", "fake-claude.sh");
    let verdict = crate::common::root().join("examples/verdict.schema.json");
    let verdict = crate::common::path_str(&verdict).to_owned();
    let first = [
        "-p",
        "review",
        "--output-format",
        "stream-json",
        "--verbose",
    ];
    let r = run(sojx()
        .env("FAKE_AGENT_LOG", &log)
        .args([
            "run",
            "--schema",
            &verdict,
            "--max-attempts",
            "2",
            "--",
            &claude,
        ])
        .args(first));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let given = flag_values(&log, "--json-schema");
    assert_eq!(given.len(), 2, "two attempts: {given:?}");
    // A 2020-12 schema in Claude Code's terms (draft-07), on the first attempt and the resume.
    let want = compiled("claude-code", &verdict);
    for g in &given {
        let g: Value = serde_json::from_str(g.as_deref().expect("the flag")).unwrap();
        assert_eq!(g, want);
    }
    assert_eq!(r.one()["validation"]["provider"], "claude-code");
    assert_eq!(r.one()["warnings"], json!([]));
    // --no-agent-schema: COMMAND as given.
    std::fs::remove_file(&log).unwrap();
    let r = run(sojx()
        .env("FAKE_AGENT_LOG", &log)
        .args([
            "run",
            "--schema",
            &verdict,
            "--no-agent-schema",
            "--",
            &claude,
        ])
        .args(first));
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stderr);
    assert_eq!(flag_values(&log, "--json-schema"), [None]);
    assert!(r.one()["validation"].get("provider").is_none());
}

#[test]
fn codex_is_given_a_file_of_the_lowering_and_its_answer_is_lifted() {
    let (dir, codex, log) = agent("codex", "fake-codex.sh");
    let s = schema_file(&dir);
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let answer = r#"{"verdict":"PASS","service":null,"tags":[{"key":"p95_ms","value":180}]}"#;
    let r = run(fake(&log, answer).env("TMPDIR", &tmp).args([
        "run", "--schema", &s, "--", &codex, "exec", "--json", "review",
    ]));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.one()["data"],
        json!({"verdict": "PASS", "tags": {"p95_ms": 180}})
    );
    assert_eq!(r.one()["validation"]["provider"], "openai");
    // The flag went after `exec`, and the file held strict mode's schema.
    let text = std::fs::read_to_string(&log).unwrap();
    let args: Vec<&str> = text.lines().take(3).collect();
    assert_eq!(args[..2], ["exec", "--output-schema"], "{text}");
    let file = text
        .split("## schema\n")
        .nth(1)
        .unwrap()
        .trim_end_matches("\n==\n");
    let file: Value = serde_json::from_str(file).unwrap();
    assert_eq!(file, compiled("openai", &s));
    // The file is gone with the run.
    assert!(
        !std::path::Path::new(args[2]).exists(),
        "{} is left",
        args[2]
    );
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn an_agent_given_the_lowering_already_is_lifted_and_not_warned_of() {
    let (dir, codex, log) = agent("codex", "fake-codex.sh");
    let s = schema_file(&dir);
    let lowered = dir.join("lowered.json");
    std::fs::write(&lowered, compiled("openai", &s).to_string()).unwrap();
    let lowered = crate::common::path_str(&lowered).to_owned();
    // `sojx run --schema S -- codex exec --output-schema GIVEN go`.
    let given = |given: &str| {
        run(
            fake(&log, r#"{"verdict":"FAIL","service":"db","tags":null}"#).args([
                "run",
                "--schema",
                &s,
                "--",
                &codex,
                "exec",
                "--output-schema",
                given,
                "go",
            ]),
        )
    };
    let r = given(&lowered);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"], json!({"verdict": "FAIL", "service": "db"}));
    assert!(warned(&r, "schema_mismatch").is_empty(), "{}", r.stdout);
    assert_eq!(warned(&r, "answer_lifted").len(), 1);
    // Only the one flag the user gave.
    assert_eq!(flag_values(&log, "--output-schema"), [Some(lowered)]);
    // Another schema: a mismatch, and no lifting.
    let r = given(r#"{"type":"object"}"#);
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stdout);
    assert_eq!(warned(&r, "schema_mismatch").len(), 1);
}

#[test]
fn an_agent_without_a_schema_flag_is_said_to_be_checked_by_sojx_alone() {
    let (_dir, gemini, _log) = agent("gemini", "fake-codex.sh");
    let r = run(sojx()
        .env("FAKE_AGENT_ANSWER", r#"{"verdict":"PASS"}"#)
        .args([
            "run", "--from", "codex", "--schema", S, "--", &gemini, "-p", "go",
        ]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    let w = warned(&r, "schema_checked_by_sojx");
    assert_eq!(w.len(), 1, "{}", r.stdout);
    assert!(w[0].contains("by sojx alone"), "{}", w[0]);
}

#[test]
fn the_feedback_names_each_violation_where_the_agent_put_it() {
    // `minLength` is dropped for OpenAI and checked after lifting; the resumed Codex session is
    // told the place in its own answer (the entry's value), and given the schema it has.
    let (dir, codex, log) = agent("codex", "fake-codex.sh");
    let s = dir.join("notes.json");
    std::fs::write(
        &s,
        r#"{"type":"object","required":["notes"],"properties":{"notes":{"type":"object","additionalProperties":{"type":"string","minLength":3}}}}"#,
    )
    .unwrap();
    let s = crate::common::path_str(&s).to_owned();
    let r = run(fake(
        &log,
        r#"{"notes":[{"key":"ok","value":"fine"},{"key":"short","value":"x"}]}"#,
    )
    .args([
        "run",
        "--schema",
        &s,
        "--max-attempts",
        "2",
        "--",
        &codex,
        "exec",
        "--json",
        "go",
    ]));
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stdout);
    let text = std::fs::read_to_string(&log).unwrap();
    let second = text.split("==\n").nth(1).expect("a second attempt");
    assert!(
        second.lines().any(|l| l == "resume"),
        "not resumed: {second}"
    );
    assert!(
        second.contains("- /notes/1/value: \"x\" is shorter than 3 characters"),
        "{second}"
    );
    // The resumed session keeps the lowered schema it was given.
    assert!(second.contains("--output-schema"), "{second}");
}

#[test]
fn a_producer_file_says_how_its_cli_takes_a_schema() {
    let (dir, acme, log) = agent("acme", "fake-codex.sh");
    let file = dir.join("acme.toml");
    std::fs::write(
        &file,
        r#"sojx_producer = 1
id = "acme"
name = "Acme"
reads_like = "codex"

[schema_flag]
flag = "--output-schema"
form = "file"
provider = "openai"
after = "exec"
programs = ["acme"]
"#,
    )
    .unwrap();
    let file = crate::common::path_str(&file).to_owned();
    let s = schema_file(&dir);
    let answer = r#"{"verdict":"PASS","service":null,"tags":[{"key":"a","value":1}]}"#;
    let r = run(fake(&log, answer)
        .args(["run", "--producer-file", &file, "--schema", &s])
        .args(["--", &acme, "exec", "--json", "go"]));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.one()["data"],
        json!({"verdict": "PASS", "tags": {"a": 1}})
    );
    assert_eq!(r.one()["validation"]["provider"], "openai");
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        text.lines().take(2).collect::<Vec<_>>(),
        ["exec", "--output-schema"]
    );
    // A form the format does not know: the file is refused, naming the place.
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&file)
            .unwrap()
            .replace("\"file\"", "\"pipe\""),
    )
    .unwrap();
    let r = run(sojx()
        .args([
            "run",
            "--producer-file",
            crate::common::path_str(&bad),
            "--schema",
            &s,
        ])
        .args(["--", &acme, "exec", "go"]));
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/schema_flag/form"),
        "{}",
        r.stdout
    );
}
