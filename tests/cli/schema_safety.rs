//! Schemas cannot reach the network, hang validation, or loop: remote `$ref`s are never
//! fetched, catastrophic regexes stop at a backtrack limit, and self-references terminate.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::common::{run, run_stdin, sojx};

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
            assert_eq!(r.code, 1, "{}", r.stdout);
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
    let dir = std::env::temp_dir().join(format!("sojx-ref-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("verdict.json");
    std::fs::write(&file, r#"{"enum":["PASS","FAIL"]}"#).unwrap();
    let schema =
        r#"{"type":"object","properties":{"verdict":{"$ref":"http://127.0.0.1:9/v.json"}}}"#;
    let resource = format!("http://127.0.0.1:9/v.json={}", file.display());
    let r = run(sojx()
        .args(["extract", "--schema", schema, "--resource", &resource])
        .write_stdin(r#"{"verdict":"MAYBE"}"#));
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
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
        started.elapsed() < Duration::from_secs(20),
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
        assert!(started.elapsed() < Duration::from_secs(20), "{schema}");
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
    assert!(started.elapsed() < Duration::from_secs(30));
}
