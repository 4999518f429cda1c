//! Schemas cannot reach the network, read files they were not given, hang validation, or loop:
//! remote `$ref`s are never fetched, a `$ref` reads a local file only inside the schema's own
//! directory (or as `--resource` maps it), catastrophic regexes stop at a backtrack limit, and
//! self-references terminate. Side files (`--handoff`, referenced files) are bounded regular
//! files.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{Run, path_str, patience, run, run_stdin, sojx};

#[test]
fn a_remote_ref_is_never_fetched() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let uri = format!("http://127.0.0.1:{port}/x.json");
    for schema in [
        format!(r#"{{"$ref":"{uri}"}}"#),
        format!(r#"{{"type":"object","properties":{{"a":{{"$ref":"{uri}#/$defs/a"}}}}}}"#),
        format!(r#"{{"$schema":"{uri}"}}"#),
    ] {
        for command in ["extract", "validate"] {
            let r = run_stdin(&[command, "--schema", &schema], r#"{"a": 1}"#);
            assert_eq!(r.code, 3, "{}", r.stdout);
            let e = r.one();
            assert_eq!(e["error"]["kind"], "schema_invalid", "{schema}: {e}");
            assert_eq!(e["error"]["operation"], "compile_schema");
            if !schema.starts_with(r#"{"$schema""#) {
                let hint = e["error"]["hint"].as_str().unwrap_or_default();
                assert!(hint.contains("--resource http://127.0.0.1:"), "{e}");
            }
        }
    }
    match listener.accept() {
        Ok((_, peer)) => panic!("sojx connected to the $ref host (from {peer})"),
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
    }
}

#[test]
fn a_mapped_remote_ref_is_read_from_the_file() {
    let dir = crate::common::Scratch::new("ref", "mapped");
    let file = dir.join("verdict.json");
    std::fs::write(&file, r#"{"enum":["PASS","FAIL"]}"#).unwrap();
    let schema =
        r#"{"type":"object","properties":{"verdict":{"$ref":"http://127.0.0.1:9/v.json"}}}"#;
    let resource = format!("http://127.0.0.1:9/v.json={}", file.display());
    let r = run(sojx()
        .args(["extract", "--schema", schema, "--resource", &resource])
        .write_stdin(r#"{"verdict":"MAYBE"}"#));
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stdout);
}

#[test]
fn a_catastrophic_pattern_cannot_hang_validation() {
    // `^(a+)+$` and a backreference pattern against 5,000 `a`s and a `!`: exponential with a
    // naive backtracking engine.
    let long = "a".repeat(5_000) + "!";
    let input = format!(r#"{{"a":"{long}","b":"{long}"}}"#);
    let schema = r#"{"properties":{"a":{"pattern":"^(a+)+$"},"b":{"pattern":"^(a|aa)+\\1$"}}}"#;
    let started = Instant::now();
    for command in ["extract", "validate"] {
        let r = run_stdin(&[command, "--schema", schema], input.clone());
        assert_eq!(r.code, 1, "{}", r.stdout);
        assert_eq!(r.kind(), Some("validation_failed"));
    }
    assert!(
        started.elapsed() < patience(Duration::from_secs(20)),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn self_referencing_schemas_terminate() {
    let deep = "[".repeat(100) + "1" + &"]".repeat(100);
    for schema in [
        r##"{"$ref":"#"}"##,
        r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
        r##"{"$defs":{"t":{"items":{"$ref":"#/$defs/t"},"additionalProperties":{"$ref":"#"}}},"$ref":"#/$defs/t"}"##,
        r##"{"anyOf":[{"$ref":"#"},{"type":"array"}]}"##,
    ] {
        let started = Instant::now();
        let r = run_stdin(&["extract", "--schema", schema], deep.clone());
        assert!(r.code == 0 || r.code == 1, "{schema}: {}", r.stdout);
        assert!(
            r.code == 0 || r.kind() == Some("schema_invalid"),
            "{schema}: {}",
            r.stdout
        );
        assert!(
            started.elapsed() < patience(Duration::from_secs(20)),
            "{schema}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_endless_schema_file_is_refused_not_read_forever() {
    let started = Instant::now();
    let r = run_stdin(&["extract", "--schema", "/dev/zero"], "{}");
    assert_eq!(r.kind(), Some("filesystem"), "{}", r.stdout);
    assert!(r.stdout.contains("larger than 64 MiB"), "{}", r.stdout);
    let r = run_stdin(
        &[
            "validate",
            "--schema",
            r#"{"$ref":"http://127.0.0.1:9/z.json"}"#,
            "--resource",
            "http://127.0.0.1:9/z.json=/dev/zero",
        ],
        "{}",
    );
    assert_eq!(r.kind(), Some("schema_invalid"), "{}", r.stdout);
    assert!(started.elapsed() < patience(Duration::from_secs(30)));
}

/// A fresh scratch directory under the system temp dir, unique to this test and process,
/// removed when dropped.
fn scratch(name: &str) -> crate::common::Scratch {
    crate::common::Scratch::new("schema", name)
}

/// A scratch directory holding `secret.json`, a schema whose `const` is a unique "credential"
/// that must never appear in sojx's output; and that credential.
fn with_secret(name: &str) -> (crate::common::Scratch, String) {
    let tmp = scratch(name);
    let secret = format!("SECRET-{}-{name}", std::process::id());
    std::fs::write(
        tmp.join("secret.json"),
        format!(r#"{{"const":"{secret}"}}"#),
    )
    .unwrap();
    (tmp, secret)
}

/// `sojx ARGS` with `stdin`, killed (and so failing the test) if it runs past 20 s: a FIFO or
/// `/dev/zero` must be refused, not waited on or read.
fn run_bounded(args: &[&str], stdin: &str) -> Run {
    run(sojx()
        .args(args)
        .write_stdin(stdin.to_owned())
        .timeout(patience(Duration::from_secs(20))))
}

/// Create a FIFO at `path`; `false` (with a notice) when `mkfifo` is not available.
fn mkfifo(path: &Path) -> bool {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        crate::common::missing("`mkfifo`", "the FIFO case");
    }
    ok
}

/// Run `command` on `schema` as each command that loads a schema does: `extract`, `validate`
/// (with an input), `lint` and `compile`.
fn every_command(schema: &str, extra: &[&str]) -> Vec<(&'static str, Run)> {
    ["extract", "validate", "lint", "compile"]
        .into_iter()
        .map(|command| {
            let mut args: Vec<&str> = vec![command];
            match command {
                "lint" => args.push(schema),
                "compile" => args.extend([schema, "--provider", "openai"]),
                _ => args.extend(["--schema", schema]),
            }
            args.extend(extra);
            (command, run_bounded(&args, r#"{"a": 1}"#))
        })
        .collect()
}

/// The refusal of a reference: `schema_invalid`, exit 3 (1 for `lint` and `compile`, whose
/// input is the schema), a `--resource` hint, and `secret` nowhere in the output.
fn assert_refused(command: &str, what: &str, r: &Run, secret: &str) {
    let code = if matches!(command, "lint" | "compile") {
        1
    } else {
        3
    };
    assert_eq!(r.code, code, "{command} {what}: {}", r.stdout);
    assert_eq!(
        r.kind(),
        Some("schema_invalid"),
        "{command} {what}: {}",
        r.stdout
    );
    assert!(
        r.stdout.contains("--resource"),
        "{command} {what}: no --resource hint: {}",
        r.stdout
    );
    assert!(
        !r.stdout.contains(secret) && !r.stderr.contains(secret),
        "{command} {what}: the referenced file's content leaked:\n{}\n{}",
        r.stdout,
        r.stderr
    );
}

/// `schema` with `--resource resource` compiles: `valid` passes and `invalid` fails validation.
fn assert_resolves(schema: &str, resource: &str, valid: &str, invalid: &str) {
    let args = ["validate", "--schema", schema, "--resource", resource];
    let r = run_stdin(&args, valid);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = run_stdin(&args, invalid);
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stdout);
}

#[test]
fn a_ref_reads_no_file_outside_the_schema_directory() {
    // tmp/secret.json holds a "credential"; tmp/schemas/ is the schema's directory.
    let (tmp, secret) = with_secret("ref-outside");
    let dir = tmp.join("schemas");
    std::fs::create_dir(&dir).unwrap();
    let outside = format!("file://{}", path_str(&tmp.join("secret.json")));
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.join("secret.json"), dir.join("link.json")).unwrap();
    let mut cases = vec![
        ("absolute", format!(r#"{{"$ref":"{outside}"}}"#)),
        ("relative", r#"{"$ref":"../secret.json"}"#.to_owned()),
        (
            "property",
            r#"{"type":"object","properties":{"a":{"$ref":"../secret.json#"}}}"#.to_owned(),
        ),
        (
            "$id",
            format!(
                r#"{{"$id":"file://{}/","$ref":"secret.json"}}"#,
                path_str(&tmp)
            ),
        ),
        ("system", r#"{"$ref":"file:///etc/passwd"}"#.to_owned()),
    ];
    if cfg!(unix) {
        cases.push(("symlink", r#"{"$ref":"link.json"}"#.to_owned()));
    }
    for (what, text) in &cases {
        let schema = dir.join(format!("{}.schema.json", what.trim_start_matches('$')));
        std::fs::write(&schema, text).unwrap();
        for (command, r) in every_command(path_str(&schema), &[]) {
            assert_refused(command, what, &r, &secret);
            assert!(
                !r.stdout.contains("root:x:0"),
                "{command} {what}: {}",
                r.stdout
            );
        }
    }
    // An inline schema has no directory: it reads no file at all.
    for command in ["extract", "validate"] {
        let inline = format!(r#"{{"$ref":"{outside}"}}"#);
        let r = run_bounded(&[command, "--schema", &inline], "{}");
        assert_refused(command, "inline", &r, &secret);
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn a_ref_inside_the_schema_directory_or_mapped_still_resolves() {
    let tmp = scratch("ref-inside");
    let dir = tmp.join("schemas");
    std::fs::create_dir_all(dir.join("defs")).unwrap();
    std::fs::write(dir.join("defs/verdict.json"), r#"{"enum":["PASS","FAIL"]}"#).unwrap();
    std::fs::write(tmp.join("shared.json"), r#"{"type":"integer"}"#).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("defs/verdict.json"), dir.join("alias.json")).unwrap();
    let alias = if cfg!(unix) {
        "alias.json"
    } else {
        "defs/verdict.json"
    };
    let schema = dir.join("s.json");
    std::fs::write(
        &schema,
        format!(
            r#"{{"type":"object","properties":{{"v":{{"$ref":"defs/verdict.json"}},"w":{{"$ref":"{alias}"}}}}}}"#
        ),
    )
    .unwrap();
    let s = path_str(&schema);
    let r = run_stdin(&["validate", "--schema", s], r#"{"v":"PASS","w":"FAIL"}"#);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = run_stdin(&["validate", "--schema", s], r#"{"v":"MAYBE"}"#);
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stdout);
    let r = run_stdin(&["compile", s, "--provider", "openai"], "");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains(r#""PASS","FAIL""#), "{}", r.stdout);
    // A file outside the directory is read when --resource maps its URI.
    let outside = format!("file://{}", path_str(&tmp.join("shared.json")));
    let mapped = dir.join("mapped.json");
    std::fs::write(&mapped, format!(r#"{{"$ref":"{outside}"}}"#)).unwrap();
    let resource = format!("{outside}={}", path_str(&tmp.join("shared.json")));
    assert_resolves(path_str(&mapped), &resource, "12", "\"x\"");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn a_resource_directory_cannot_be_escaped() {
    let (tmp, secret) = with_secret("resource-escape");
    let dir = tmp.join("vendor");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/ok.json"), r#"{"type":"integer"}"#).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(tmp.join("secret.json"), dir.join("link.json")).unwrap();
    let resource = format!("http://x/={}/", path_str(&dir));
    let mut refs = vec![
        format!("http://x/{}", path_str(&tmp.join("secret.json"))),
        "http://x//etc/passwd".to_owned(),
        "http://x/../secret.json".to_owned(),
        "http://x/%2e%2e/secret.json".to_owned(),
        "http://x/..%2fsecret.json".to_owned(),
        "http://x/%2e%2e%2fsecret.json".to_owned(),
        "http://x/sub/..%2f..%2fsecret.json".to_owned(),
        format!(
            "http://x/%2f{}",
            path_str(&tmp.join("secret.json")).trim_start_matches('/')
        ),
        "http://x/..%5csecret.json".to_owned(),
    ];
    if cfg!(unix) {
        refs.push("http://x/link.json".to_owned());
    }
    for r in &refs {
        let schema = format!(r#"{{"$ref":"{r}"}}"#);
        for command in ["extract", "validate"] {
            let out = run_bounded(
                &[command, "--schema", &schema, "--resource", &resource],
                "1",
            );
            assert_eq!(out.code, 3, "{r}: {}", out.stdout);
            assert_eq!(out.kind(), Some("schema_invalid"), "{r}: {}", out.stdout);
            assert!(
                !out.stdout.contains(&secret) && !out.stdout.contains("root:x:0"),
                "{r}: {}",
                out.stdout
            );
        }
    }
    // A plain relative path inside the directory still resolves.
    let ok = r#"{"$ref":"http://x/sub/ok.json"}"#;
    assert_resolves(ok, &resource, "1", "\"a\"");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn a_referenced_file_must_be_a_regular_file() {
    let tmp = scratch("ref-special");
    let schema = tmp.join("s.json");
    std::fs::create_dir(tmp.join("dir.json")).unwrap();
    let mut refs = vec!["dir.json"];
    if cfg!(unix) && mkfifo(&tmp.join("fifo.json")) {
        refs.push("fifo.json");
    }
    for r in refs {
        std::fs::write(&schema, format!(r#"{{"$ref":"{r}"}}"#)).unwrap();
        let started = Instant::now();
        let out = run_bounded(&["validate", "--schema", path_str(&schema)], "1");
        assert_eq!(out.kind(), Some("schema_invalid"), "{r}: {}", out.stdout);
        assert!(
            out.stdout.contains("not a regular file"),
            "{r}: {}",
            out.stdout
        );
        assert!(started.elapsed() < patience(Duration::from_secs(10)), "{r}");
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn the_handoff_file_is_a_bounded_regular_file() {
    let tmp = scratch("handoff");
    let input = tmp.join("run.txt");
    std::fs::write(&input, "[EVENT:critical:db] disk full\n").unwrap();
    let big = tmp.join("big.txt");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    let mut cases = vec![
        (tmp.to_path_buf(), "a directory"),
        (big, "larger than 64 MiB"),
    ];
    if cfg!(target_os = "linux") {
        cases.push((PathBuf::from("/dev/zero"), "a device"));
    }
    if cfg!(unix) && mkfifo(&tmp.join("fifo")) {
        cases.push((tmp.join("fifo"), "a FIFO"));
    }
    for (handoff, why) in &cases {
        let started = Instant::now();
        let r = run_bounded(
            &[
                "extract",
                "--markers",
                "--handoff",
                path_str(handoff),
                path_str(&input),
            ],
            "",
        );
        assert_eq!(r.code, 3, "{why}: {}", r.stdout);
        assert_eq!(r.kind(), Some("filesystem"), "{why}: {}", r.stdout);
        assert!(r.stdout.contains(why), "{why}: {}", r.stdout);
        assert!(
            started.elapsed() < patience(Duration::from_secs(10)),
            "{why}"
        );
    }
    // A regular handoff file is still read.
    let handoff = tmp.join("handoff.json");
    std::fs::write(&handoff, r#"{"reason":"disk"}"#).unwrap();
    let r = run_stdin(
        &[
            "extract",
            "--markers",
            "--handoff",
            path_str(&handoff),
            path_str(&input),
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        r.one()["data"]["escalation"]["reason"],
        "disk",
        "{}",
        r.stdout
    );
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// `sojx ARGS` on `stdin`, killed after 60 s so that a hang fails the test instead of blocking
/// it; the run must end well before that.
fn bounded(args: &[&str], stdin: String, within: Duration) -> Run {
    let started = Instant::now();
    let r = run(sojx()
        .args(args)
        .write_stdin(stdin)
        .timeout(patience(Duration::from_secs(60))));
    assert!(
        started.elapsed() < patience(within),
        "took {:?}: {}",
        started.elapsed(),
        r.stderr
    );
    r
}

/// `levels` definitions, each an `anyOf` of two branches that `$ref` the next level
/// (`wrap` puts the `$ref` in each branch), the last one `{"type":"string"}`.
fn doubling(levels: usize, wrap: fn(String) -> serde_json::Value) -> String {
    let mut defs = serde_json::Map::new();
    for n in 0..levels {
        let next = format!("#/$defs/L{}", n + 1);
        defs.insert(
            format!("L{n}"),
            serde_json::json!({"anyOf": [wrap(next.clone()), wrap(next)]}),
        );
    }
    defs.insert(format!("L{levels}"), serde_json::json!({"type": "string"}));
    serde_json::json!({"$defs": defs, "$ref": "#/$defs/L0"}).to_string()
}

fn assert_over_budget(r: &Run) {
    let e = r.one();
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(e["exit_code"], 3);
    assert_eq!(e["error"]["kind"], "schema_invalid", "{e}");
    assert_eq!(e["error"]["operation"], "validate");
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("validation budget") && msg.contains("200,000"),
        "{msg}"
    );
}

#[test]
fn anyof_branches_that_ref_the_next_level_are_bounded() {
    // Before: 22 levels took 27 s and 6.4 GB on an invalid value, 24 aborted with no envelope.
    let plain = doubling(24, |r| serde_json::json!({"$ref": r}));
    for command in ["extract", "validate"] {
        let r = bounded(
            &[command, "--schema", &plain],
            "5".into(),
            Duration::from_secs(20),
        );
        assert_over_budget(&r);
    }
    // The same through `properties`, on a value nested as deep as the levels.
    let nested = doubling(
        24,
        |r| serde_json::json!({"properties": {"a": {"$ref": r}}, "required": ["a"]}),
    );
    let value = format!("{}5{}", r#"{"a":"#.repeat(24), "}".repeat(24));
    let r = bounded(
        &["validate", "--schema", &nested],
        value,
        Duration::from_secs(20),
    );
    assert_over_budget(&r);
    // Recursive: one definition whose two branches both refer back to it, on a deep value.
    let recursive = r##"{"anyOf":[{"properties":{"a":{"$ref":"#"}},"required":["a"]},{"properties":{"a":{"$ref":"#"}},"required":["a"]}]}"##;
    let value = format!("{}5{}", r#"{"a":"#.repeat(60), "}".repeat(60));
    let r = bounded(
        &["validate", "--schema", recursive],
        value,
        Duration::from_secs(20),
    );
    assert_over_budget(&r);
}

#[test]
fn every_line_gets_an_envelope_past_the_validation_budget() {
    let schema = doubling(24, |r| serde_json::json!({"$ref": r}));
    let r = bounded(
        &["validate", "--schema", &schema],
        "5\n\"ok\"\n6\n".into(),
        Duration::from_secs(30),
    );
    assert_eq!(r.envelopes.len(), 3, "{}", r.stdout);
    assert_eq!(r.envelopes[0]["error"]["kind"], "schema_invalid");
    // A valid value is counted the same way: the schema is refused, not half-checked.
    assert_eq!(r.envelopes[1]["error"]["kind"], "schema_invalid");
    assert_eq!(r.envelopes[2]["error"]["kind"], "schema_invalid");
    assert_eq!(r.code, 3);
}

#[test]
fn a_normal_recursive_schema_is_validated_exactly() {
    // A binary tree: two `$ref`s per node, but each to a different member, so the work is
    // linear in the value and the result exact, far past the flat budget's worth of nodes.
    let schema = r##"{"type":"object","properties":{"v":{"type":"integer"},"l":{"$ref":"#"},"r":{"$ref":"#"}},"required":["v"]}"##;
    fn tree(depth: u32, bad: bool) -> serde_json::Value {
        if depth == 0 {
            return serde_json::json!({"v": if bad { serde_json::json!("x") } else { serde_json::json!(1) }});
        }
        serde_json::json!({"v": 1, "l": tree(depth - 1, false), "r": tree(depth - 1, bad)})
    }
    let good = bounded(
        &["validate", "--schema", schema],
        tree(14, false).to_string(),
        Duration::from_secs(30),
    );
    assert_eq!(good.code, 0, "{}", good.stdout);
    let bad = bounded(
        &["validate", "--schema", schema],
        tree(14, true).to_string(),
        Duration::from_secs(30),
    );
    let e = bad.one();
    assert_eq!(e["error"]["kind"], "validation_failed", "{e}");
    let d = &e["error"]["details"];
    assert_eq!(d.as_array().unwrap().len(), 1, "{d}");
    assert_eq!(d[0]["instance_location"], format!("{}/v", "/r".repeat(14)));
}

/// 20,000 keys `aaa…ab<n>` (about 700 KB).
fn many_keys() -> String {
    let m: serde_json::Map<String, serde_json::Value> = (0..20_000)
        .map(|i| (format!("{}b{i}", "a".repeat(30)), serde_json::json!(1)))
        .collect();
    serde_json::Value::Object(m).to_string()
}

#[test]
fn a_catastrophic_pattern_costs_a_bounded_total_over_many_keys() {
    // Before: the backtracking limit once per key, 52 s (release) for 20,000 keys.
    let keys = many_keys();
    for (schema, keyword) in [
        (
            r#"{"type":"object","patternProperties":{"^(a+(?!x))+$":{"type":"integer"}}}"#,
            "/patternProperties/",
        ),
        (
            r#"{"propertyNames":{"not":{"pattern":"^(a+(?!x))+$"}}}"#,
            "/propertyNames/not/pattern",
        ),
    ] {
        let r = bounded(
            &["validate", "--schema", schema],
            keys.clone(),
            Duration::from_secs(20),
        );
        assert_eq!(r.code, 1, "{}", r.stdout);
        let e = r.one();
        assert_eq!(e["error"]["kind"], "validation_failed", "{e}");
        let v = &e["error"]["details"][0];
        assert!(
            v["keyword_location"].as_str().unwrap().starts_with(keyword),
            "{v}"
        );
        let msg = v["message"].as_str().unwrap();
        assert!(
            msg.contains("Max limit for backtracking count exceeded")
                && msg.contains("100 backtracking steps per match")
                && msg.contains("1,000,000 per value"),
            "{msg}"
        );
    }
}

/// The `(instance_location, keyword_location, message)` of every violation in `r`'s envelope.
fn violations(r: &Run) -> Vec<(String, String, String)> {
    let e = r.one();
    e["error"]["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details: {e}"))
        .iter()
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            (s("instance_location"), s("keyword_location"), s("message"))
        })
        .collect()
}

#[test]
fn an_undecided_pattern_is_reported_beside_other_violations() {
    // The crate validates again under both outcomes of a match it could not finish and keeps
    // only the errors both share: with `/b` wrong too, the undecided `/a` used to vanish.
    let long = "a".repeat(30) + "b";
    let schema = r##"{"$defs":{"p":{"pattern":"^(a+(?!x))+$"}},"properties":{"a":{"pattern":"^(a+(?!x))+$"},"r":{"$ref":"#/$defs/p"},"b":{"type":"integer"},"k":{"patternProperties":{"^(a+(?!x))+$":true}}}}"##;
    for (input, expected) in [
        (
            format!(r#"{{"a":"{long}","b":"x"}}"#),
            vec![
                ("/b", "/properties/b/type"),
                ("/a", "/properties/a/pattern"),
            ],
        ),
        (
            // The first key's match finishes, the second's does not: same place, still named.
            format!(r#"{{"r":"{long}","b":"x","k":{{"aaa":1,"{long}":2}}}}"#),
            vec![
                ("/b", "/properties/b/type"),
                ("/r", "/properties/r/$ref/pattern"),
                ("/k", "/properties/k/patternProperties/^(a+(?!x))+$"),
            ],
        ),
        // Alone, the crate reports it itself; it is not repeated.
        (
            format!(r#"{{"a":"{long}"}}"#),
            vec![("/a", "/properties/a/pattern")],
        ),
        // A pattern that finishes is not a violation.
        (
            r#"{"a":"aaa","b":"x"}"#.to_owned(),
            vec![("/b", "/properties/b/type")],
        ),
    ] {
        let r = run_bounded(&["validate", "--schema", schema], &input);
        assert_eq!(r.code, 1, "{}", r.stdout);
        let got = violations(&r);
        let located: Vec<(&str, &str)> = got
            .iter()
            .map(|(i, k, _)| (i.as_str(), k.as_str()))
            .collect();
        assert_eq!(located, expected, "{input}");
        for (_, keyword, message) in &got {
            if keyword.contains("pattern") {
                assert!(
                    message.contains("Max limit for backtracking count exceeded")
                        && message.contains("sojx's regex limit for this value"),
                    "{message}"
                );
            }
        }
    }
}

#[test]
fn every_undecided_match_is_reported_once() {
    // Past 64 combinations of outcomes the crate reports only the first match it could not
    // finish; the other strings' matches are named too, each once.
    let long = serde_json::json!("a".repeat(30) + "b");
    let value = serde_json::json!({"l": vec![long; 50], "k": serde_json::from_str::<serde_json::Value>(&many_keys()).unwrap()});
    let schema = r#"{"properties":{"l":{"items":{"pattern":"^(a+(?!x))+$"}},"k":{"patternProperties":{"^(a+(?!x))+$":{"type":"integer"}}}}}"#;
    let r = bounded(
        &["validate", "--schema", schema],
        value.to_string(),
        Duration::from_secs(20),
    );
    let got = violations(&r);
    let mut located: Vec<(&str, &str)> = got
        .iter()
        .map(|(i, k, _)| (i.as_str(), k.as_str()))
        .collect();
    located.sort_unstable();
    let items: Vec<String> = (0..50).map(|i| format!("/l/{i}")).collect();
    let mut expected: Vec<(&str, &str)> = items
        .iter()
        .map(|i| (i.as_str(), "/properties/l/items/pattern"))
        .collect();
    expected.push(("/k", "/properties/k/patternProperties/^(a+(?!x))+$"));
    expected.sort_unstable();
    assert_eq!(located, expected);
    assert!(
        got.iter()
            .all(|(_, _, m)| m.contains("Max limit for backtracking count exceeded")),
        "{got:?}"
    );
}

#[test]
fn lookaround_patterns_stay_exact_over_many_keys() {
    // Each key is matched within the smaller per-match share of the budget.
    let m: serde_json::Map<String, serde_json::Value> = (0..20_000)
        .map(|i| (format!("k{i}"), serde_json::json!(i)))
        .collect();
    let mut value = serde_json::Value::Object(m);
    let schema = r#"{"type":"object","patternProperties":{"^(?!x)k[0-9]+$":{"type":"integer"}},"additionalProperties":false}"#;
    let r = bounded(
        &["validate", "--schema", schema],
        value.to_string(),
        Duration::from_secs(20),
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    value["k77"] = serde_json::json!("x");
    let r = bounded(
        &["validate", "--schema", schema],
        value.to_string(),
        Duration::from_secs(20),
    );
    let e = r.one();
    assert_eq!(e["error"]["kind"], "validation_failed", "{e}");
    assert_eq!(e["error"]["details"][0]["instance_location"], "/k77");
}

/// Each way a schema fails to compile gets the hint for its cause, told by the error's type
/// (the retriever's own error, the referencing error), not by jsonschema's wording.
#[test]
fn a_schema_that_does_not_compile_gets_the_hint_for_its_cause() {
    let dir = scratch("hints");
    std::fs::write(dir.join("a.json"), r#"{"$ref":"missing.json"}"#).unwrap();
    let file = dir.join("a.json");
    for (schema, hint) in [
        (r#"{"$ref":"other.json"}"#, "a relative $ref needs a base"),
        (
            r#"{"$schema":"http://example.com/nope","type":"object"}"#,
            "use a standard $schema",
        ),
        (path_str(&file), "check the file that the $ref"),
    ] {
        let r = run_stdin(&["validate", "--schema", schema], "{}");
        let e = r.one();
        assert_eq!(e["error"]["kind"], "schema_invalid", "{schema}: {e}");
        let got = e["error"]["hint"].as_str().unwrap_or("");
        assert!(got.starts_with(hint), "{schema}: {got}");
    }
    // A referenced file that is there but is not JSON: no hint about a base URI.
    std::fs::write(dir.join("bad.json"), "not json").unwrap();
    std::fs::write(dir.join("b.json"), r#"{"$ref":"bad.json"}"#).unwrap();
    let r = run_stdin(
        &["validate", "--schema", path_str(&dir.join("b.json"))],
        "{}",
    );
    let e = r.one();
    assert_eq!(e["error"]["kind"], "schema_invalid", "{e}");
    assert!(e["error"].get("hint").is_none(), "{e}");
}

/// `n` definitions in a chain, each a `$ref` to the next, the last `last`: `{"$ref":
/// "#/$defs/d0", "$defs": {"d0": {"$ref": "#/$defs/d1"}, …}}`. With `back`, the last one's
/// member `x` refers to the first again (a recursive schema that descends the value).
fn ref_chain(n: usize, back: bool) -> String {
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        defs.insert(
            format!("d{i}"),
            serde_json::json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    let last = if back {
        serde_json::json!({"type": ["object", "null"], "properties": {"x": {"$ref": "#/$defs/d0"}}})
    } else {
        serde_json::json!({"type": "object"})
    };
    defs.insert(format!("d{n}"), last);
    serde_json::json!({"$ref": "#/$defs/d0", "$defs": defs}).to_string()
}

/// A chain of 20,000 `$ref`s overflowed sojx's stack (an abort, no envelope; 3,000 in a debug
/// build), and the crate compiles a long chain in time that grows with its square (80,000: 11 s
/// in a release build). It is refused before compiling, naming the bound; a chain within it
/// validates as before.
#[test]
fn a_long_ref_chain_is_refused_before_compiling() {
    let dir = crate::common::Scratch::new("ref", "chain");
    let long = dir.join("long.json");
    std::fs::write(&long, ref_chain(20_000, false)).unwrap();
    for command in ["extract", "validate"] {
        let r = bounded(
            &[command, "--schema", path_str(&long)],
            r#"{"a": 1}"#.into(),
            Duration::from_secs(20),
        );
        assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
        let e = r.one();
        crate::common::check_envelope(e);
        assert_eq!(e["error"]["kind"], "schema_invalid", "{e}");
        assert_eq!(e["error"]["operation"], "compile_schema", "{e}");
        let msg = e["error"]["message"].as_str().unwrap();
        assert!(msg.contains("more than 2000 levels deep"), "{msg}");
    }
    let short = dir.join("short.json");
    std::fs::write(&short, ref_chain(200, false)).unwrap();
    let r = run_stdin(&["validate", "--schema", path_str(&short)], r#"{"a": 1}"#);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let r = run_stdin(&["validate", "--schema", path_str(&short)], "[1]");
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stdout);
}

/// A recursive schema whose loop is a chain of 40 `$ref`s, on a value 120 levels deep: the walk
/// and the validator recurse 40 levels per level of the value, which overflowed the stack of a
/// debug build (200 in a release build). The value gets a typed error; a loop of 6 passes.
#[test]
fn a_ref_loop_down_a_deep_value_is_bounded() {
    let dir = crate::common::Scratch::new("ref", "loop");
    let mut value = serde_json::Value::Null;
    for _ in 0..120 {
        value = serde_json::json!({ "x": value });
    }
    let lines = format!("{value}\n").repeat(8);
    for (n, ok) in [(39, false), (5, true)] {
        let schema = dir.join(format!("loop{n}.json"));
        std::fs::write(&schema, ref_chain(n, true)).unwrap();
        for (command, input) in [("extract", format!("{value}")), ("validate", lines.clone())] {
            let r = bounded(
                &[command, "--schema", path_str(&schema)],
                input,
                Duration::from_secs(20),
            );
            if ok {
                assert_eq!(r.code, 0, "{command} {n}: {}{}", r.stdout, r.stderr);
                continue;
            }
            assert_eq!(r.code, 3, "{command} {n}: {}{}", r.stdout, r.stderr);
            for e in &r.envelopes {
                crate::common::check_envelope(e);
                assert_eq!(e["error"]["kind"], "schema_invalid", "{e}");
                assert_eq!(e["error"]["operation"], "validate", "{e}");
                let msg = e["error"]["message"].as_str().unwrap();
                assert!(msg.contains("more than 1,000 levels deep"), "{msg}");
            }
        }
    }
}
