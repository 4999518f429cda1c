//! The ```console transcripts of `README.md` and `docs/*.md` run as tests through trycmd (the
//! clap maintainers' transcript tester), so every `sojx` command a user copies from the docs
//! prints what the docs say.
//!
//! trycmd's format: a line `$ CMD` runs CMD (split like a shell would, `NAME=VALUE` words first
//! set variables) in the project root, without a shell; an optional `? N` line after it is the
//! exit status (default 0); the lines up to the next `$ ` or the fence are its standard output
//! and standard error as one stream, in the order they were written. `[..]` matches any text
//! within a line, a line `...` any number of lines. Fix a transcript after a meant change with
//! `TRYCMD=overwrite cargo test --test cli docs`. Pipelines need a shell and are ```sh-session
//! blocks, run by `tests/cli/pipelines.rs`.

use std::path::PathBuf;

use crate::common::documents;

/// The program each `$ ` line of a console block runs (after its `NAME=VALUE` words).
fn programs(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_console = false;
    for (i, line) in markdown.lines().enumerate() {
        if line.starts_with("```") {
            in_console = !in_console && line.trim_end() == "```console";
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ").filter(|_| in_console) {
            let program = cmd
                .split_whitespace()
                .find(|w| !w.contains('='))
                .unwrap_or_default();
            out.push((i + 1, program.to_owned()));
        }
    }
    out
}

/// trycmd skips, without failing, a command whose program is not registered: so every console
/// command must run `sojx`, and there must be enough of them.
#[test]
fn console_transcripts_only_run_sojx() {
    let mut count = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("readable doc");
        for (line, program) in programs(&text) {
            count += 1;
            assert_eq!(
                program,
                "sojx",
                "{}:{line}: a console block runs only sojx; a pipeline goes in a sh-session block",
                file.display()
            );
        }
    }
    assert!(count >= 15, "only {count} console commands in the docs");
}

#[test]
fn console_transcripts_run() {
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("sojx", PathBuf::from(env!("CARGO_BIN_EXE_sojx")))
        // Colors only where a transcript asks for them (the flag or its own variables).
        .env("CLICOLOR_FORCE", "0")
        .env("COLUMNS", "100");
    for file in documents() {
        cases.case(file);
    }
}

#[test]
fn the_program_of_each_console_command() {
    let md = "```console\n$ NO_COLOR=1 sojx a\nout\n$ jq .\n```\n```sh-session\n$ cat x\n```\n";
    assert_eq!(programs(md), [(2, "sojx".to_owned()), (4, "jq".to_owned())]);
}
