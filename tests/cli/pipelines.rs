//! The shell pipelines of the docs as tested examples: every ```sh-session block of `README.md`
//! and `docs/*.md` is run with bash, one shell per block (a variable set by one command is seen
//! by the next), and each `$` command's stdout must equal the lines that follow it exactly.
//! `docs/recipes.md` runs in one copy of `tests/fixtures/recipes/` (in document order, so a
//! file written by one block is read by a later one), the other files in the project root.
//!
//! These are the transcripts that need a shell (pipes, redirections, `$?`, jq): trycmd, which
//! runs the ```console blocks (`tests/cli/docs.rs`), starts one program without a shell.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{UNSET, have_tool, root};

/// One `$ command` and the stdout it must print.
#[derive(Debug)]
struct Step {
    line: usize,
    command: String,
    expected: String,
}

/// The ```sh-session blocks of a Markdown file: each a list of steps.
fn shell_blocks(markdown: &str) -> Vec<Vec<Step>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Step>> = None;
    for (i, line) in markdown.lines().enumerate() {
        match &mut current {
            None if line.trim_end() == "```sh-session" => current = Some(Vec::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.push(current.take().unwrap()),
            Some(steps) => {
                if let Some(cmd) = line.strip_prefix("$ ") {
                    steps.push(Step {
                        line: i + 1,
                        command: cmd.to_owned(),
                        expected: String::new(),
                    });
                } else {
                    let step = steps
                        .last_mut()
                        .unwrap_or_else(|| panic!("line {}: output before any `$`", i + 1));
                    if step.command.ends_with('\\') && step.expected.is_empty() {
                        step.command.push('\n');
                        step.command.push_str(line);
                    } else {
                        step.expected.push_str(line);
                        step.expected.push('\n');
                    }
                }
            }
        }
    }
    assert!(current.is_none(), "an unclosed ```sh-session block");
    blocks
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// Run one block in one bash: each command's stdout is followed by a separator line.
fn run_block(steps: &[Step], dir: &Path, path: &str, home: &Path) -> Vec<String> {
    const SEP: &str = "__sojx_recipe_step_end__";
    let mut script = String::from("set +e\n");
    for s in steps {
        script.push_str(&s.command);
        script.push_str(&format!("\nprintf '%s\\n' {SEP}\n"));
    }
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(&script)
        .current_dir(dir)
        .env("PATH", path)
        // What a block installs under `~` (completions, the man page) lands in a scratch home,
        // and what it writes under `${TMPDIR:-/tmp}` in a scratch folder in it, not in /tmp.
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .env_remove("MANPATH")
        .env_remove("SOJX_NO_FAST_PATH")
        .env_remove("SOJX_READ_AHEAD");
    for k in UNSET {
        cmd.env_remove(k);
    }
    let out = cmd.output().expect("bash runs");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 stdout");
    let mut chunks: Vec<String> = stdout
        .split(&format!("{SEP}\n"))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        chunks.pop().as_deref(),
        Some(""),
        "output after the last step:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    chunks
}

/// The Markdown files whose shell blocks run, each with the directory it runs in.
fn documents(scratch: &Path) -> Vec<(PathBuf, PathBuf)> {
    crate::common::documents()
        .into_iter()
        .map(|f| {
            let dir = if f.ends_with("docs/recipes.md") {
                scratch.to_path_buf()
            } else {
                root()
            };
            (f, dir)
        })
        .collect()
}

#[test]
fn shell_transcripts_run_as_documented() {
    let what = "the docs' shell transcripts";
    // `man`: docs/cli.md checks that the man page is installed where man looks.
    if !have_tool("bash", what) || !have_tool("jq", what) || !have_tool("man", what) {
        return;
    }
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_sojx"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("recipes");
    let _ = std::fs::remove_dir_all(&scratch);
    copy_dir(&root().join("tests/fixtures/recipes"), &scratch);
    let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("transcript-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(home.join("tmp")).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for (file, dir) in documents(&scratch) {
        let doc = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        let blocks = shell_blocks(&doc);
        if name == "docs/recipes.md" {
            assert!(blocks.len() >= 5, "docs/recipes.md lost its transcripts");
        }
        for (b, steps) in blocks.iter().enumerate() {
            let got = run_block(steps, &dir, &path, &home);
            assert_eq!(got.len(), steps.len(), "{name} block {b}: {got:?}");
            for (s, g) in steps.iter().zip(&got) {
                count += 1;
                if *g != s.expected {
                    failures.push(format!(
                        "{name}:{}: $ {}\n--- expected\n{}--- got\n{}",
                        s.line, s.command, s.expected, g
                    ));
                }
            }
        }
    }
    assert!(count >= 30, "only {count} shell transcript commands found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_transcript_parser_reads_commands_and_outputs() {
    let md =
        "text\n```sh-session\n$ echo a \\\n  b\na b\n$ true\n```\n```console\n$ not run\n```\n";
    let blocks = shell_blocks(md);
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0][0].command, "echo a \\\n  b");
    assert_eq!(blocks[0][0].expected, "a b\n");
    assert_eq!(blocks[0][1].expected, "");
}
