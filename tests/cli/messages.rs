//! Messages a new user meets (issue 42, items 4 and 6 to 13): each error said once on a
//! terminal, warnings where a schema or an answer cannot be trusted, and hints that fit what
//! was given.

use serde_json::Value;

use crate::common::{have_tool, on_a_terminal, run, sojx, warned};

/// `sojx ARGS` on a terminal (stdout and stderr both), then its exit status: what a person sees.
fn seen(args: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("sojx");
    on_a_terminal(&format!("{} {args}; echo \"rc=$?\"", bin.display())).replace('\r', "")
}

/// Item 6: on a terminal that shows stdout and stderr, a failure is said once: by its pretty
/// envelope (contract §6 keeps the envelope on stdout), not again on stderr; piped, stderr also
/// tells it, for the person reading a job's log.
#[test]
fn a_failure_on_a_terminal_is_said_once() {
    if !have_tool("script", "the told-once test") {
        return;
    }
    let tty = seen("extract no-such-file.ndjson");
    assert!(tty.starts_with("{\n  \"timestamp\""), "{tty}");
    assert!(tty.ends_with("}\nrc=3\n"), "{tty}");
    assert_eq!(tty.matches("no such file").count(), 1, "{tty}");
    assert!(
        !tty.contains("sojx: no-such-file.ndjson: filesystem"),
        "{tty}"
    );
    let tty = seen("extract --shema x.json f");
    assert_eq!(tty.matches("unexpected argument").count(), 1, "{tty}");
    assert!(
        !tty.contains("Usage:"),
        "clap's text is not repeated: {tty}"
    );
    assert!(tty.contains("\"kind\": \"usage\""), "{tty}");
    assert!(tty.ends_with("rc=3\n"), "{tty}");
    // A failure among successes: each its own envelope, the failure said once.
    let tty = seen("extract no-such-file.ndjson examples/verdict.json");
    assert_eq!(tty.matches("\"command\": \"extract\"").count(), 2, "{tty}");
    assert_eq!(tty.matches("no such file").count(), 1, "{tty}");
    // Asked for a format, stderr tells it too (as for a program).
    for flags in ["--pretty", "--output-format json"] {
        let tty = seen(&format!("extract {flags} no-such-file.ndjson"));
        assert!(tty.contains("\"kind\": \"filesystem\""), "{flags}: {tty}");
        assert!(
            tty.contains("sojx: no-such-file.ndjson: filesystem"),
            "{flags}: {tty}"
        );
    }
    // With -q nothing is on stdout: stderr says it.
    let tty = seen("extract -q no-such-file.ndjson");
    assert!(
        tty.starts_with("sojx: no-such-file.ndjson: filesystem"),
        "{tty}"
    );
    // Piped, the envelope, and stderr tells it.
    let r = run(sojx().args(["extract", "no-such-file.ndjson"]));
    assert_eq!((r.code, r.kind()), (3, Some("filesystem")));
    assert!(r.stderr.contains("filesystem: cannot open"), "{}", r.stderr);
}

/// Item 4: a usage error's envelope is on one line unless stdout is a terminal or `--pretty`
/// is given, as every envelope; item 6: its message is clap's sentence, its tip is in the hint.
#[test]
fn a_usage_envelope_is_pretty_where_every_envelope_is() {
    let r = run(sojx().args(["extract", "--shema", "x.json"]));
    let e = r.one();
    assert_eq!(e["error"]["message"], "unexpected argument '--shema' found");
    assert_eq!(
        e["error"]["hint"],
        "a similar argument exists: '--schema'; run `sojx extract --help`"
    );
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    let out = sojx()
        .args(["extract", "--pretty", "--shema", "x.json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.lines().count() > 10, "{stdout}");
    let e: Value = serde_json::from_str(&stdout).unwrap();
    crate::common::check_envelope(&e);
    assert_eq!(e["error"]["kind"], "usage");
    if !have_tool("script", "the usage-envelope-on-a-terminal test") {
        return;
    }
    // Stdout a terminal (stderr elsewhere): pretty.
    let tty = seen("extract --shema x.json 2>/dev/null");
    assert!(tty.starts_with("{\n  \"timestamp\""), "{tty}");
}

/// Item 10: `sojx run claude -p …` without `--`: the tip says where the command goes.
#[test]
fn run_without_dash_dash_says_where_the_command_goes() {
    let r = run(sojx().args(["run", "claude", "-p", "hi"]));
    let tip = "the agent's command goes after `--`: `sojx run [OPTIONS] -- claude [ARGS]...`";
    assert_eq!(r.code, 3);
    assert!(r.stderr.contains(&format!("tip: {tip}")), "{}", r.stderr);
    assert_eq!(
        r.one()["error"]["hint"],
        format!("{tip}; run `sojx run --help`").as_str()
    );
    // An unknown option is not a command.
    let r = run(sojx().args(["run", "--nope", "--", "claude"]));
    assert!(!r.stderr.contains("goes after `--`"), "{}", r.stderr);
}

/// Item 7: a schema keyword typo is a `keyword_typo` warning wherever the schema is compiled
/// (`extract`, `validate`, `run`), not only in `lint`; said once per input on stderr.
#[test]
fn a_schema_keyword_typo_is_warned_of_wherever_the_schema_is_compiled() {
    let schema = r#"{"type":"object","properties":{"s":{"maxLenght":3}},"requird":["summary"]}"#;
    let answer = "examples/verdict.json";
    let expected = [
        "the schema at /requird: unknown keyword `requird` is ignored, so this constraint is not enforced; rename it to `required` (`sojx lint` checks the whole schema)",
        "the schema at /properties/s/maxLenght: unknown keyword `maxLenght` is ignored, so this constraint is not enforced; rename it to `maxLength` (`sojx lint` checks the whole schema)",
    ];
    for args in [
        vec!["extract", "--schema", schema, answer],
        vec!["validate", "--schema", schema, answer],
        vec!["run", "--schema", schema, "--", "cat", answer],
        vec![
            "compare",
            "--items",
            ".issues[]",
            "--key",
            ".",
            "--field",
            ".",
            "--schema",
            schema,
            answer,
        ],
    ] {
        let r = run(sojx().args(&args));
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert_eq!(warned(&r, "keyword_typo"), expected, "{args:?}");
        assert_eq!(
            r.stderr.matches("warning: keyword_typo").count(),
            2,
            "{args:?}: {}",
            r.stderr
        );
    }
    // Many documents of one input: the warning is on each envelope, said once on stderr.
    for shown in ["--pretty", "--output-format=json"] {
        let out = sojx()
            .args(["validate", "--schema", schema, shown])
            .write_stdin("{}\n{}\n{}\n")
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(stdout.matches("\"keyword_typo\"").count(), 6, "{stdout}");
        assert_eq!(
            stderr.matches("warning: keyword_typo").count(),
            2,
            "{stderr}"
        );
    }
    // A schema without a typo warns of nothing.
    let r = run(sojx().args([
        "extract",
        "--schema",
        "examples/verdict.schema.json",
        answer,
    ]));
    assert!(warned(&r, "keyword_typo").is_empty());
}

/// Item 8: an answer dug out of prose with no schema to check it is taken with a warning that
/// says how to check it; with `--schema`, or from a value the producer gave, no warning.
#[test]
fn an_answer_from_prose_without_a_schema_is_warned_of() {
    let unchecked = |r: &crate::common::Run| warned(r, "unchecked_answer");
    let prose = "I looked at the build; the features are [\"iterator\"] as usual.\n";
    let r = run(sojx().arg("extract").write_stdin(prose));
    assert_eq!(
        (r.code, r.one()["source"]["kind"].as_str()),
        (0, Some("embedded"))
    );
    assert_eq!(
        unchecked(&r),
        [
            "the answer is JSON found inside prose, and no schema checked that it is the answer; give --schema S to hold it to the answer's shape"
        ]
    );
    assert!(
        r.stderr.contains("warning: unchecked_answer: "),
        "{}",
        r.stderr
    );
    let fenced = "Here it is:\n```json\n{\"verdict\": \"PASS\"}\n```\n";
    let r = run(sojx().arg("extract").write_stdin(fenced));
    assert_eq!(r.one()["source"]["kind"], "code_fence");
    assert_eq!(unchecked(&r).len(), 1);
    assert!(unchecked(&r)[0].contains("in a fenced code block"));
    // A schema checked it, or the answer was the producer's own value: no warning.
    let r = run(sojx()
        .args(["extract", "--schema", r#"{"required":["verdict"]}"#])
        .write_stdin(fenced));
    assert_eq!(r.code, 0);
    assert!(unchecked(&r).is_empty());
    let r = run(sojx().args(["extract", "examples/claude-review.ndjson"]));
    assert!(unchecked(&r).is_empty());
}

/// Item 11: a binary file is `parse` (contract §6: the input is not an agent's output), not a
/// retryable `json_invalid` with a `--repair` hint.
#[test]
fn a_binary_input_is_a_parse_failure_that_no_rerun_fixes() {
    let mut elf = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00".to_vec();
    elf.extend_from_slice(b"\x00\x00usage: ls [0-9] {-a} \xff\xfe\x00\x00[\"x\",\n\x00\x01\x02");
    for args in [&["extract"][..], &["extract", "--repair"]] {
        let r = run(sojx().args(args).write_stdin(elf.clone()));
        let e = r.one();
        assert_eq!(
            (r.code, r.kind()),
            (1, Some("parse")),
            "{args:?}: {}",
            r.stdout
        );
        assert_eq!(e["error"]["retryable"], false);
        assert_eq!(
            e["error"]["message"],
            "the input is binary (it holds NUL bytes and no answer), not an agent's output or text"
        );
        assert_eq!(
            e["error"]["hint"],
            "give sojx what the agent printed: its stdout, or a file it was written to"
        );
    }
    // NUL bytes around an answer do not hide it.
    let r = run(sojx()
        .arg("extract")
        .write_stdin(&b"\0\0answer: {\"ok\": true}\0\n"[..]));
    assert_eq!((r.code, &r.one()["data"]["ok"]), (0, &Value::Bool(true)));
    // Text with a broken value is still json_invalid, with the --repair hint.
    let r = run(sojx()
        .arg("extract")
        .write_stdin("the answer: {\"a\": [1, 2"));
    assert_eq!(r.kind(), Some("json_invalid"));
}

/// Item 12: a schema that is not JSON names the place of the JSON error (a file's as
/// `FILE:LINE:COLUMN`); a `type` naming no type names the types there are.
#[test]
fn a_broken_schema_names_the_place_and_the_allowed_types() {
    let dir = crate::common::scratch_dir("msgs", "schema-comma");
    let file = dir.join("s.json");
    std::fs::write(&file, "{\n  \"type\": \"object\",\n}\n").unwrap();
    let path = crate::common::path_str(&file);
    let r = run(sojx().args(["extract", "--schema", path, "examples/verdict.json"]));
    let e = &r.one()["error"];
    assert_eq!((r.code, e["kind"].as_str()), (3, Some("schema_invalid")));
    assert_eq!(e["hint"], format!("fix the JSON at {path}:3:1").as_str());
    let r = run(sojx().args([
        "validate",
        "--schema",
        r#"{"type":"object",}"#,
        "examples/verdict.json",
    ]));
    assert_eq!(
        r.one()["error"]["hint"],
        "fix the inline JSON at line 1, column 18 (a schema is a path, @path, or inline JSON)"
    );
    let types = "a type is one of array, boolean, integer, null, number, object, string";
    for (schema, said) in [
        (
            r#"{"type":"objekt"}"#,
            format!("at /type: \"objekt\" is no JSON Schema type; {types}"),
        ),
        (
            r#"{"properties":{"a":{"type":["strng","null","int"]}}}"#,
            format!("at /properties/a/type: \"strng\", \"int\" are no JSON Schema type; {types}"),
        ),
    ] {
        let r = run(sojx().args(["extract", "--schema", schema, "examples/verdict.json"]));
        let message = r.one()["error"]["message"].as_str().unwrap().to_owned();
        assert_eq!(
            message,
            format!("the inline schema is not a valid JSON Schema: {said}")
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 13: every `--help` example is printed on whole lines, at 80 columns as at 100: a
/// line is a command, or continues the one before it, which ends with ` \`; copied, it runs.
#[test]
fn help_examples_are_whole_lines() {
    let commands = ["sojx", "claude", "codex", "timeout", "cat"];
    for sub in ["extract", "run", "validate", "lint", "compile", "compare"] {
        let examples = |columns: &str| -> Vec<String> {
            let out = sojx()
                .args([sub, "--help"])
                .env("COLUMNS", columns)
                .output()
                .unwrap();
            String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .skip_while(|l| *l != "Examples:")
                .skip(1)
                .take_while(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        };
        let lines = examples("80");
        assert!(!lines.is_empty(), "{sub}: no examples");
        assert_eq!(lines, examples("100"), "{sub}: wrapped at 80 columns");
        let mut continued = false;
        for l in &lines {
            assert!(l.chars().count() <= 80, "{sub}: too long: {l}");
            if continued {
                assert!(l.starts_with("      "), "{sub}: {l}");
            } else {
                let first = l.strip_prefix("  ").and_then(|c| c.split(' ').next());
                assert!(
                    first.is_some_and(|w| commands.contains(&w)),
                    "{sub}: not a whole command: {l}"
                );
            }
            continued = l.ends_with(" \\");
        }
        assert!(!continued, "{sub}: the last example continues");
    }
}

/// Item 9: `validate` given an agent's stream by mistake: each failure names its line, and the
/// hint (said once) says it looks like an agent's stream and points to `extract`, not "feed
/// error.details back to the model".
#[test]
fn validate_on_an_agent_stream_points_to_extract() {
    let schema = "examples/verdict.schema.json";
    let r = run(sojx().args([
        "validate",
        "--schema",
        schema,
        "examples/claude-review.ndjson",
    ]));
    assert_eq!(r.code, 1);
    let hint = "this looks like an agent's stream (claude-code events), not answers: `sojx extract --schema S FILE` finds the answer in it";
    for (i, e) in r.envelopes.iter().enumerate() {
        assert_eq!(e["error"]["hint"], hint, "{e}");
        let line = i + 1;
        assert!(
            r.stderr.contains(&format!(
                "sojx: examples/claude-review.ndjson:{line}: validation_failed: "
            )),
            "{}",
            r.stderr
        );
    }
    assert_eq!(r.stderr.matches("hint: ").count(), 1, "{}", r.stderr);
    assert!(!r.stderr.contains("feed error.details"), "{}", r.stderr);
    // Answers that fail are still answers: the hint to feed them back stays.
    let r = run(sojx()
        .args(["validate", "--schema", schema])
        .write_stdin("{\"verdict\": \"MAYBE\"}\n"));
    assert!(
        r.stderr.contains("sojx: <stdin>:1: validation_failed: "),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.one()["error"]["hint"],
        "feed error.details and candidate back to the model, or fix the schema"
    );
}
