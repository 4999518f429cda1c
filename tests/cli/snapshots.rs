//! Snapshots (insta) of what people read: the `--output-format text` summary for a success, a
//! validation failure with pointers, and an agent error. Regenerate with
//! `INSTA_UPDATE=always cargo test --test cli snapshots` and review the diff.

use crate::common::sojx;

fn text(args: &[&str]) -> String {
    let out = sojx()
        .args(["extract", "--output-format", "text", "--color", "never"])
        .args(args)
        .output()
        .unwrap();
    format!(
        "exit_code: {}\n----- stdout -----\n{}",
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap()
    )
}

#[test]
fn text_summary_success() {
    insta::assert_snapshot!(text(&[
        "--schema",
        "examples/verdict.schema.json",
        "examples/claude-review.ndjson"
    ]));
}

#[test]
fn text_summary_validation_failed() {
    let schema =
        r#"{"type":"object","required":["summary"],"properties":{"confidence":{"maximum":0.5}}}"#;
    insta::assert_snapshot!(text(&["--schema", schema, "examples/claude-review.ndjson"]));
}

#[test]
fn text_summary_agent_error() {
    insta::assert_snapshot!(text(&[
        "tests/fixtures/claude-code/success-is-error.ndjson"
    ]));
}
