//! The ```console transcripts of `README.md` and `docs/*.md` run as tests through trycmd (the
//! clap maintainers' transcript tester), so every `sojx` command a user copies from the docs
//! prints what the docs say.
//!
//! trycmd's format: a line `$ CMD` runs CMD (split like a shell would, `NAME=VALUE` words first
//! set variables) in the project root, without a shell; an optional `? N` line after it is the
//! exit status (default 0); the lines up to the next `$ ` or the fence are its standard output
//! and standard error as one stream, in the order they were written. `[..]` matches any text
//! within a line, a line `...` any number of lines; a backslash in the output is compared as a
//! slash (trycmd's path normalization), so escapes are shown in sh-session blocks. Fix a transcript after a meant change with
//! `TRYCMD=overwrite cargo test --test cli docs`. Pipelines need a shell and are ```sh-session
//! blocks, run by `tests/cli/pipelines.rs`.

use std::path::PathBuf;

use crate::common::documents;

/// The program of each `$ ` line that trycmd runs: in a fence of three or more backticks whose
/// info string is empty or starts with `console` or `trycmd`, without the `ignore` attribute
/// (trycmd's own rule).
fn programs(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // The open fence's backticks, and whether trycmd runs the block.
    let mut open: Option<(String, bool)> = None;
    for (i, line) in markdown.lines().enumerate() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        match &open {
            None if ticks >= 3 => {
                let mut info = line[ticks..].trim().split(',');
                let lang = info.next().unwrap_or_default();
                let runs = lang.is_empty()
                    || (matches!(lang, "console" | "trycmd") && !info.any(|a| a == "ignore"));
                open = Some((line[..ticks].to_owned(), runs));
            }
            None => {}
            Some((fence, _)) if line.starts_with(fence.as_str()) => open = None,
            Some((_, true)) => {
                if let Some(cmd) = line.strip_prefix("$ ") {
                    let program = cmd.split_whitespace().next().unwrap_or_default();
                    out.push((i + 1, program.to_owned()));
                }
            }
            Some((_, false)) => {}
        }
    }
    out
}

/// trycmd skips, without failing, a command whose program is not registered, and its own
/// variables (below) override those a command sets: so every command it runs is a plain `sojx`
/// command, and there must be enough of them.
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
                "{}:{line}: a console block runs only `sojx ...` (no variables, no pipes); \
                 anything else goes in a sh-session block",
                file.display()
            );
        }
    }
    assert!(count >= 10, "only {count} console commands in the docs");
}

#[test]
fn console_transcripts_run() {
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("sojx", PathBuf::from(env!("CARGO_BIN_EXE_sojx")))
        // The caller's color and width settings do not reach the transcripts (empty, or `0`,
        // means unset to sojx).
        .env("NO_COLOR", "")
        .env("CLICOLOR", "")
        .env("CLICOLOR_FORCE", "0")
        .env("FORCE_COLOR", "")
        .env("COLUMNS", "100")
        // No producer files of the developer's config folder.
        .env("XDG_CONFIG_HOME", crate::common::NO_CONFIG)
        .timeout(std::time::Duration::from_secs(60));
    for file in documents() {
        cases.case(file);
    }
}

#[test]
fn the_program_of_each_console_command() {
    let md = "```console\n$ NO_COLOR=1 sojx a\nout\n$ sojx b\n```\n```sh-session\n$ cat x\n```\n\
              ```\n$ jq .\n```\n````trycmd\n$ ls\n````\n```console,ignore\n$ rm\n```\n";
    assert_eq!(
        programs(md),
        [
            (2, "NO_COLOR=1".to_owned()),
            (4, "sojx".to_owned()),
            (10, "jq".to_owned()),
            (13, "ls".to_owned())
        ]
    );
}
