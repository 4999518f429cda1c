//! The invariants docs/ARCHITECTURE.md states about the source tree, checked: no source file
//! over 600 lines, no import cycle between top-level modules, the environment read only in
//! `src/cmd/`, and nothing printed to the process's streams with the print macros.

use std::path::{Path, PathBuf};

use crate::common::{root, shared};

/// Longest source file, in lines (issue 26: a file a reader can hold in their head).
const MAX_LINES: usize = 600;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src is readable") {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Each source file with its path under `src/` and its lines that are not comments.
fn code() -> Vec<(String, String, Vec<String>)> {
    let src = root().join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a UTF-8 source file");
            let rel = p
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let code = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .map(str::to_owned)
                .collect();
            (rel, text, code)
        })
        .collect()
}

#[test]
fn no_source_file_is_over_600_lines() {
    let long: Vec<String> = code()
        .into_iter()
        .filter(|(_, text, _)| text.lines().count() > MAX_LINES)
        .map(|(rel, text, _)| format!("src/{rel}: {} lines", text.lines().count()))
        .collect();
    assert!(long.is_empty(), "split these files:\n{}", long.join("\n"));
}

#[test]
fn only_the_command_layer_reads_the_environment() {
    let mut found = Vec::new();
    for (rel, _, lines) in code() {
        if rel.starts_with("cmd/") || rel == "main.rs" {
            continue;
        }
        for l in &lines {
            if ["env::var(", "env::var_os(", "env::vars("]
                .iter()
                .any(|p| l.contains(p))
            {
                found.push(format!("src/{rel}: {}", l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "read it in cmd::Env::capture and pass it down:\n{}",
        found.join("\n")
    );
}

#[test]
fn nothing_prints_around_the_command_layer() {
    let mut found = Vec::new();
    for (rel, _, lines) in code() {
        for l in &lines {
            if ["println!(", "print!(", "eprintln!(", "eprint!(", "dbg!("]
                .iter()
                .any(|p| l.contains(p))
            {
                found.push(format!("src/{rel}: {}", l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "write to cmd::Io's streams instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_two_modules_reach_each_other() {
    let Some(shared) = shared() else { return };
    let out = std::process::Command::new("python3")
        .arg(shared.join("tools/module_graph.py"))
        .arg(root().join("src"))
        .output()
        .expect("python3 runs ../shared/tools/module_graph.py");
    assert!(
        out.status.success(),
        "import cycles between modules:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
