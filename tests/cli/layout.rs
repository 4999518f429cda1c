//! The invariants docs/ARCHITECTURE.md states about the source tree, checked: no source file
//! over 600 lines, no import cycle between top-level modules, the environment read only in
//! `src/cmd/`, clap and `crate::cli` known only in `src/cli/` and `src/cmd/`, and nothing
//! printed to the process's streams with the print macros.

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

/// Below the command layer nothing knows clap: `cmd/` turns what `cli/` parsed into each
/// module's settings (docs/ARCHITECTURE.md, "The settings layer"). Comments count too.
#[test]
fn only_the_command_layer_knows_the_command_line() {
    let mut found = Vec::new();
    for (rel, text, _) in code() {
        if rel.starts_with("cli/") || rel.starts_with("cmd/") || rel == "main.rs" {
            continue;
        }
        for (i, l) in text.lines().enumerate() {
            if l.contains("clap") || modules_named(l).iter().any(|m| m == "cli") {
                found.push(format!("src/{rel}:{}: {}", i + 1, l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "give the module settings of its own, built in src/cmd/, instead:\n{}",
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

/// The top-level modules a piece of code names: `crate::m` and every first segment of a grouped
/// `use crate::{a, b::c, …}` (which `../shared/tools/module_graph.py` does not see).
fn modules_named(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The group's top-level entries, up to its closing brace.
            let mut depth = 0;
            let mut entry = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => entry = true,
                    c if entry && !c.is_whitespace() => {
                        out.push(ident(&group[j..]));
                        entry = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty() && m != "self");
    out
}

/// No cycle between top-level modules, grouped imports included, judged as the shared tool
/// judges (test modules and comments left out).
#[test]
fn no_module_cycle_through_grouped_imports() {
    use std::collections::{BTreeMap, BTreeSet};
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text, _) in code() {
        let module = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_owned();
        if module == "main" || module == "lib" {
            continue;
        }
        let body = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let body: String = body
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let entry = edges.entry(module.clone()).or_default();
        entry.extend(modules_named(&body).into_iter().filter(|m| *m != module));
    }
    assert!(
        edges.len() > 15,
        "only {} modules found: {edges:?}",
        edges.len()
    );
    let names: BTreeSet<String> = edges.keys().cloned().collect();
    for e in edges.values_mut() {
        e.retain(|m| names.contains(m));
    }
    // A module that reaches itself through others is in a cycle.
    let mut cycles = Vec::new();
    for start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&String> = edges[start].iter().collect();
        while let Some(m) = stack.pop() {
            if m == start {
                cycles.push(start.clone());
                break;
            }
            if seen.insert(m) {
                stack.extend(edges[m].iter());
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "modules in an import cycle: {cycles:?}\n{edges:#?}"
    );
}

#[test]
fn the_module_scan_sees_grouped_imports() {
    assert_eq!(
        modules_named("use crate::{cli, envelope::{self, Parts}, exit::ExitStatus};"),
        ["cli", "envelope", "exit"]
    );
    assert_eq!(
        modules_named("crate::schema::load(x); crate::text"),
        ["schema", "text"]
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
