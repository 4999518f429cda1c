//! The shell transcripts in `README.md` and `docs/*.md` run as tests, so every example a user
//! copies works.
//!
//! A transcript is a code block fenced as ```` ```console ````. A line starting with `$ ` is a
//! command, run with `sh -c` in the project root with the freshly built `sojx` first on `PATH`
//! and no color variables set. An optional `? N` line right after it is the expected exit status
//! (default 0). The lines up to the next command or the end of the block are the expected
//! stdout (stderr is not compared; redirect it with `2>&1` to show it). In expected lines,
//! `[..]` matches any text within a line, and a line `...` matches any number of lines.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{UNSET, root};

/// One `$ ` command of a transcript.
#[derive(Debug)]
struct Step {
    file: PathBuf,
    line: usize,
    command: String,
    status: i32,
    expected: Vec<String>,
}

/// The files whose transcripts run: README.md and docs/*.md, except docs/recipes.md, whose
/// transcripts run in a copy of their fixtures (tests/cli/recipes.rs).
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    if let Ok(dir) = std::fs::read_dir(root().join("docs")) {
        let mut docs: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .filter(|p| !p.ends_with("docs/recipes.md"))
            .collect();
        docs.sort();
        files.extend(docs);
    }
    files.retain(|f| f.is_file());
    files
}

fn steps(file: &Path, text: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut in_console = false;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        if !in_console {
            in_console = fence && line.trim() == "```console";
            continue;
        }
        if fence {
            in_console = false;
        } else if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Step {
                file: file.to_path_buf(),
                line: i + 1,
                command: cmd.to_owned(),
                status: 0,
                expected: Vec::new(),
            });
        } else if let Some(step) = out.last_mut() {
            match line.strip_prefix("? ").map(str::parse::<i32>) {
                Some(Ok(code)) if step.expected.is_empty() => step.status = code,
                _ => step.expected.push(line.to_owned()),
            }
        } else {
            panic!(
                "{}:{}: output before any `$ ` command",
                file.display(),
                i + 1
            );
        }
    }
    assert!(!in_console, "{}: unclosed ```console block", file.display());
    out
}

/// Does `actual` match the pattern line (`[..]` matches any text)?
fn line_matches(pattern: &str, actual: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for p in middle {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Do the actual lines match the expected ones (`...` matches any number of lines)?
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => {
            (0..=actual.len()).any(|k| lines_match(rest, &actual[k..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(e, a) && lines_match(rest, more)),
    }
}

fn run_step(step: &Step, path: &std::ffi::OsStr) -> Result<(), String> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(&step.command)
        .current_dir(root())
        .env("PATH", path);
    for k in UNSET {
        cmd.env_remove(k);
    }
    let out = cmd.output().map_err(|e| format!("cannot run sh: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let actual: Vec<&str> = stdout.lines().collect();
    let status = out.status.code().unwrap_or(-1);
    if status == step.status && lines_match(&step.expected, &actual) {
        return Ok(());
    }
    Err(format!(
        "{}:{}: $ {}\n--- expected (status {})\n{}\n--- actual (status {status})\n{}\n--- stderr\n{}",
        step.file.display(),
        step.line,
        step.command,
        step.status,
        step.expected.join("\n"),
        stdout.trim_end(),
        String::from_utf8_lossy(&out.stderr).trim_end()
    ))
}

#[test]
fn documented_transcripts_run() {
    let bin = assert_cmd::cargo::cargo_bin("sojx");
    let dir = bin.parent().expect("binary directory").to_path_buf();
    let mut paths = vec![dir];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(paths).expect("PATH");
    let mut failures = Vec::new();
    let mut count = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("readable doc");
        for step in steps(&file, &text) {
            count += 1;
            if let Err(e) = run_step(&step, &path) {
                failures.push(e);
            }
        }
    }
    assert!(count >= 10, "only {count} transcript commands found");
    assert!(
        failures.is_empty(),
        "{} of {count} transcript(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn transcript_matching_rules() {
    assert!(line_matches("a [..] c", "a b c"));
    assert!(line_matches("[..]", ""));
    assert!(line_matches("x[..]", "x"));
    assert!(!line_matches("x[..]y", "xy-"));
    assert!(!line_matches("a", "ab"));
    assert!(line_matches("a[..]b[..]a", "aXbYa"));
    assert!(!line_matches("ab[..]ba", "aba"));
    let e = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert!(lines_match(&e(&["1", "...", "4"]), &["1", "2", "3", "4"]));
    assert!(lines_match(&e(&["1", "..."]), &["1"]));
    assert!(!lines_match(&e(&["1", "...", "4"]), &["1", "2"]));
    assert!(!lines_match(&e(&["1"]), &["1", "2"]));
    let doc = "text\n```console\n$ echo hi\nhi\n$ false\n? 1\n```\n```sh\n$ not run\n```\n";
    let s = steps(Path::new("x.md"), doc);
    assert_eq!(s.len(), 2);
    assert_eq!(
        (s[0].line, s[0].status, s[0].expected.clone()),
        (3, 0, e(&["hi"]))
    );
    assert_eq!((s[1].command.as_str(), s[1].status), ("false", 1));
}
