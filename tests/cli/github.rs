//! `--output-format github`: workflow commands on stdout, the job summary table in
//! `GITHUB_STEP_SUMMARY`.

use std::path::PathBuf;

use crate::common::{fixture, sojx};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn github(args: &[&str], summary: Option<&PathBuf>) -> Out {
    let mut cmd = sojx();
    cmd.args(["extract", "--output-format", "github"])
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY");
    if let Some(s) = summary {
        cmd.env("GITHUB_STEP_SUMMARY", s);
    }
    let out = cmd.output().unwrap();
    Out {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn an_annotation_per_violation_warning_and_failure() {
    let keys = r#"{"required": ["summary", "risk"]}"#;
    let mismatch = fixture("claude-code/cross-check-mismatch.ndjson");
    let truncated = fixture("claude-code/truncated.ndjson");
    let o = github(
        &[
            "--schema",
            keys,
            "examples/claude-review.ndjson",
            mismatch.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.code, 1);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(
        lines[..2],
        [
            r#"::error file=examples/claude-review.ndjson,line=7,title=sojx validation_failed at /::"summary" is a required property (/required)"#,
            r#"::error file=examples/claude-review.ndjson,line=7,title=sojx validation_failed at /::"risk" is a required property (/required)"#,
        ]
    );
    assert!(
        lines[2].starts_with("::warning file=")
            && lines[2]
                .contains(",title=sojx cross_check_mismatch::result.structured_output differs"),
        "{}",
        lines[2]
    );
    assert_eq!(lines.len(), 5, "{}", o.stdout);
    // stderr does not say it again; it keeps the batch summary.
    assert_eq!(o.stderr, "sojx: 2 inputs, 0 ok, 2 validation_failed\n");
    // A failure without violations carries its hint; a success is a notice.
    let o = github(
        &["examples/claude-review.ndjson", truncated.to_str().unwrap()],
        None,
    );
    assert_eq!(o.code, 1);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "::notice file=examples/claude-review.ndjson,line=7,title=sojx ok::claude-code, structured_output"
    );
    assert!(
        lines[1].contains(",title=sojx truncated::the stream ended"),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains("%0Ahint: "), "{}", lines[1]);
    // lint: a finding is an annotation at its severity, with its fix.
    let out = sojx()
        .args([
            "lint",
            "--output-format",
            "github",
            "--provider",
            "all",
            "examples/verdict.schema.json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("::error file=examples/verdict.schema.json,title=sojx lint openai/openai_required at /properties/issues/items/properties/line::property `line` is optional; strict mode needs every property in required%0Afix: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("::warning file=examples/verdict.schema.json,title=sojx lint anthropic/")
    );
}

/// A message or a file name cannot end a command early or forge one: `%`, CR and LF in the
/// message, and `:` and `,` too in a property, are escaped as the runner reads them.
#[test]
fn model_text_and_file_names_cannot_forge_a_command() {
    let d = scratch("github-forge");
    let file = d.join("a,b:c.json");
    std::fs::write(&file, r#"{"note": "x"}"#).unwrap();
    // An --assert expression is quoted raw in its failure's message, newline and all.
    let assert = ".note ==\n\"50%\\n::error::forged\"";
    let o = github(&["--assert", assert, file.to_str().unwrap()], None);
    assert_eq!(o.code, 1);
    assert_eq!(o.stdout.lines().count(), 1, "{}", o.stdout);
    let line = o.stdout.trim_end();
    assert!(line.contains("a%2Cb%3Ac.json,line=1,"), "{line}");
    assert!(line.contains("==%0A\"50%25\\n::error::forged\""), "{line}");
    // Stdin has no file to point at.
    let mut cmd = sojx();
    let out = cmd
        .args(["extract", "--output-format", "github"])
        .write_stdin("no answer here")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("::error title=sojx not_found::"),
        "{stdout}"
    );
    // Nor does a schema given inline (lint and compile name it as their input).
    let out = sojx()
        .args([
            "compile",
            "--output-format",
            "github",
            "--provider",
            "openai",
            r#"{"type":12}"#,
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("::error title=sojx schema_invalid::"),
        "{stdout}"
    );
}

/// A failure before any input (a broken schema, a usage error) is one annotation that blames
/// no input file, however many inputs were named.
#[test]
fn a_setup_failure_is_one_annotation() {
    let o = github(&["--schema", "nope.json", "a.ndjson", "b.ndjson"], None);
    assert_eq!(o.code, 3);
    assert_eq!(
        o.stdout,
        "::error title=sojx filesystem::cannot read the schema nope.json: no such file%0Ahint: a schema is a path, @path, or inline JSON\n"
    );
    let o = github(&["--shema", "x.json"], None);
    assert_eq!(o.code, 3);
    assert!(
        o.stdout
            .starts_with("::error title=sojx usage::unexpected argument '--shema' found"),
        "{}",
        o.stdout
    );
}

#[test]
fn the_job_summary_is_a_table_appended_once_per_run() {
    let d = scratch("github-summary");
    let summary = d.join("summary.md");
    std::fs::write(&summary, "before\n").unwrap();
    let truncated = fixture("claude-code/truncated.ndjson");
    let o = github(
        &["examples/claude-review.ndjson", truncated.to_str().unwrap()],
        Some(&summary),
    );
    assert_eq!(o.code, 1);
    let t = std::fs::read_to_string(&summary).unwrap();
    let want_rows = [
        "| `examples/claude-review.ndjson` | claude-code | ✅ ok |  |  | $0.0421 | 3 |".to_owned(),
        format!(
            "| `{}` | claude-code | ❌ failed | truncated | `the stream ended without its terminal marker (a 'result' message)` |  |  |",
            truncated.display()
        ),
    ];
    assert!(
        t.starts_with("before\n\n### sojx extract\n\n| input |"),
        "{t}"
    );
    for row in &want_rows {
        assert!(t.contains(row.as_str()), "{row}\n{t}");
    }
    // More inputs than rows: the rest are counted.
    let many: Vec<&str> = vec!["examples/claude-review.ndjson"; 102];
    std::fs::write(&summary, "").unwrap();
    let o = github(&many, Some(&summary));
    assert_eq!(o.code, 0);
    let t = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(t.matches("| ✅ ok |").count(), 100);
    assert!(t.contains("… and 2 more"), "{t}");
    // JSON stays the default, in a GitHub job too: no table without --output-format github.
    std::fs::write(&summary, "").unwrap();
    let out = sojx()
        .args(["extract", "examples/claude-review.ndjson"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_ACTIONS", "true")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("{\"timestamp\""));
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), "");
    // A summary file that cannot be written is the caller's: exit 3, said on stderr.
    let o = github(
        &["examples/claude-review.ndjson"],
        Some(&d.join("no/such/dir.md")),
    );
    assert_eq!(o.code, 3);
    assert!(
        o.stderr
            .contains("sojx: io: cannot append the job summary to"),
        "{}",
        o.stderr
    );
}

/// The envelopes of `--envelope-file` (JSON Lines), each checked against the envelope schema.
fn kept(file: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| {
            let e: serde_json::Value = serde_json::from_str(l).unwrap();
            crate::common::check_envelope(&e);
            e
        })
        .collect()
}

/// The envelope without its timestamp, which differs from run to run.
fn timeless(mut e: serde_json::Value) -> serde_json::Value {
    e.as_object_mut().unwrap().remove("timestamp");
    e
}

#[test]
fn envelope_file_keeps_the_json_envelopes_whatever_stdout_shows() {
    let dir = scratch("envelope-file");
    let file = dir.join("envelopes.jsonl");
    let failing = dir.join("failing.ndjson");
    std::fs::write(
        &failing,
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"no JSON\"}\n",
    )
    .unwrap();
    let good = fixture("claude-code/retry-then-accepted.ndjson");
    let inputs = [good.to_str().unwrap(), failing.to_str().unwrap()];
    let schema = ["--schema", "examples/verdict.schema.json"];
    let args: Vec<&str> = schema
        .iter()
        .copied()
        .chain(["--envelope-file", file.to_str().unwrap()])
        .chain(inputs)
        .collect();
    // The annotations on stdout, the same envelopes as the JSON mode prints in the file.
    let out = github(&args, None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains("::notice") && out.stdout.contains("::error"));
    let json = sojx()
        .arg("extract")
        .args(schema)
        .args(inputs)
        .output()
        .unwrap();
    let printed: Vec<serde_json::Value> = String::from_utf8(json.stdout)
        .unwrap()
        .lines()
        .map(|l| timeless(serde_json::from_str(l).unwrap()))
        .collect();
    let envs: Vec<serde_json::Value> = kept(&file).into_iter().map(timeless).collect();
    assert_eq!(envs, printed);
    assert_eq!(envs[0]["data"]["verdict"], "FAIL");
    assert_eq!(envs[1]["exit_code"], 1);

    // With -q stdout is empty and the file still has the envelope; `run` keeps its own.
    let out = sojx()
        .args(["run", "-q", "--envelope-file", file.to_str().unwrap()])
        .args(schema)
        .args(["--", "cat", good.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let envs = kept(&file);
    assert_eq!(envs.len(), 1);
    assert_eq!(envs[0]["command"], "run");
    assert_eq!(envs[0]["agent"]["exit_status"], 0);

    // A file sojx reads is refused before it is truncated: an input, the schema, the tee.
    let before = std::fs::read(&failing).unwrap();
    for (args, what) in [
        (
            vec![
                "--envelope-file",
                failing.to_str().unwrap(),
                failing.to_str().unwrap(),
            ],
            "also an input",
        ),
        (
            vec![
                "--envelope-file",
                "examples/verdict.schema.json",
                failing.to_str().unwrap(),
            ],
            "the --schema file",
        ),
        (
            vec![
                "--tee",
                file.to_str().unwrap(),
                "--envelope-file",
                file.to_str().unwrap(),
                failing.to_str().unwrap(),
            ],
            "the --tee file",
        ),
    ] {
        let out = sojx()
            .arg("extract")
            .args(schema)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains(&format!("is {what}")), "{stdout}");
        assert!(stdout.contains("\"kind\":\"usage\""), "{stdout}");
    }
    assert_eq!(std::fs::read(&failing).unwrap(), before);
    // A new file named by both --tee and --envelope-file is refused, not written twice.
    let both = dir.join("both.out");
    let out = sojx()
        .arg("extract")
        .args([
            "--tee",
            both.to_str().unwrap(),
            "--envelope-file",
            both.to_str().unwrap(),
        ])
        .arg(good.to_str().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("is the --envelope-file file"));
    // With annotations, a failure before any input is read still writes one envelope per
    // input to the file.
    let out = github(
        &[
            "--schema",
            "missing.schema.json",
            "--envelope-file",
            file.to_str().unwrap(),
            good.to_str().unwrap(),
            failing.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.code, 3);
    let envs = kept(&file);
    assert_eq!(envs.len(), 2);
    assert_eq!(envs[1]["input"], failing.to_str().unwrap());
    assert!(
        !std::fs::read("examples/verdict.schema.json")
            .unwrap()
            .is_empty()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A value a model wrote is shown in the job summary as written: no image, link or HTML of its
/// renders (issue 44 item 8), and a file name or pointer cannot break out of its code span.
#[test]
fn model_text_in_the_job_summary_renders_as_text() {
    let d = scratch("github-summary-markdown");
    let summary = d.join("summary.md");
    let attack = "![x](https://attacker.example/x.png) [Click to approve](https://attacker.example/phish) <img src=x>";
    let answer = d.join("a|b`c.json");
    std::fs::write(
        &answer,
        serde_json::json!({ "verdict": attack }).to_string(),
    )
    .unwrap();
    let schema = r#"{"type":"object","properties":{"verdict":{"enum":["PASS","FAIL"]}}}"#;
    let o = github(
        &["--schema", schema, answer.to_str().unwrap()],
        Some(&summary),
    );
    assert_eq!(o.code, 1, "{}", o.stdout);
    let t = std::fs::read_to_string(&summary).unwrap();
    let row = t.lines().rfind(|l| !l.is_empty()).unwrap();
    let name = answer
        .display()
        .to_string()
        .replace('|', "\\|")
        .replace('`', "'");
    assert!(row.starts_with(&format!("| `{name}` |")), "{row}");
    // The violation: its pointer and its message, each one code span (nothing renders there).
    let message = format!("\"{attack}\" is not one of \"PASS\" or \"FAIL\"");
    assert!(
        row.contains(&format!("| `/verdict`: `{message}` |")),
        "{row}"
    );
    assert_eq!(row.matches('`').count(), 6, "{row}");
    // Seven cells and no more: no pipe of the value or the file name ended one.
    assert_eq!(row.replace("\\|", "").matches('|').count(), 8, "{row}");
}

/// `-r` and `-q` keep stdout for the data, or nothing: the annotations of a failure (before any
/// input, on an input, a usage error) and the stderr line still say it, on stderr, which the
/// Actions runner reads for workflow commands too. Before issue 44 `-r --output-format github`
/// with a missing schema printed nothing at all.
#[test]
fn raw_and_quiet_keep_the_annotation_on_stderr() {
    let keys = r#"{"required": ["summary", "risk"]}"#;
    // A failure before any input, on an input, and of usage: the schema flag, its value, the
    // exit code, and what stderr must hold.
    let cases: [(&str, &str, i32, &[&str]); 3] = [
        (
            "--schema",
            "no/such/schema.json",
            3,
            &[
                "::error title=sojx filesystem::cannot read the schema",
                "sojx: filesystem: cannot read the schema",
            ],
        ),
        (
            "--schema",
            keys,
            1,
            &[
                r#"::error file=examples/claude-review.ndjson,line=7,title=sojx validation_failed at /::"summary" is a required property (/required)"#,
                "sojx: examples/claude-review.ndjson: validation_failed:",
            ],
        ),
        (
            "--shema",
            keys,
            3,
            &["::error title=sojx usage::unexpected argument '--shema' found"],
        ),
    ];
    for flag in ["-r", "-q"] {
        for (option, schema, code, said) in cases {
            let o = github(
                &[flag, option, schema, "examples/claude-review.ndjson"],
                None,
            );
            assert_eq!(o.code, code, "{flag} {option} {schema}: {}", o.stderr);
            assert_eq!(o.stdout, "", "{flag} {option} {schema}");
            for line in said {
                assert!(o.stderr.contains(line), "{flag}: {}", o.stderr);
            }
        }
    }
    // On success `-r` prints the data alone: no workflow command mixes into it.
    let o = github(
        &["-r", "--schema", "{}", "examples/claude-review.ndjson"],
        None,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stdout.contains("::"), "{}", o.stdout);
    serde_json::from_str::<serde_json::Value>(&o.stdout).unwrap();
}
