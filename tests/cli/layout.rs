//! The invariants docs/ARCHITECTURE.md states about the source tree, checked in both crates of
//! the workspace (`sojx-core`, the engine, in crates/sojx-core/src; `sojx`, the command line, in
//! src): no source file over 600 lines and no function over 100 (`functions.rs` finds them), no
//! import cycle between a crate's top-level modules (nor between the files of `src/agent/`),
//! each module importing only the layers its row of its crate's table allows (`layers.rs`; that
//! the engine never imports the command line, the compiler holds: the crates), the environment
//! read only in `src/cmd/`, clap and `crate::cli` known only in `src/cli/` and `src/cmd/`, and
//! nothing printed to the process's streams with the print macros.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::{root, shared};

mod functions;
mod layers;

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

/// The workspace's crates: each one's name and its source directory under the root.
const CRATES: [(&str, &str); 2] = [("sojx-core", "crates/sojx-core/src"), ("sojx", "src")];

/// Each source file of both crates with its path from the root (`src/cmd/run/mod.rs`,
/// `crates/sojx-core/src/json.rs`), its crate, its path under that crate's `src/`, its text, and
/// its lines that are not comments.
struct File {
    path: String,
    krate: &'static str,
    rel: String,
    text: String,
    code: Vec<String>,
}

fn code() -> Vec<File> {
    let mut out = Vec::new();
    for (krate, dir) in CRATES {
        let src = root().join(dir);
        let mut files = Vec::new();
        sources(&src, &mut files);
        assert!(files.len() > 5, "{dir}: only {} source files", files.len());
        files.sort();
        for p in files {
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
            out.push(File {
                path: format!("{dir}/{rel}"),
                krate,
                rel,
                text,
                code,
            });
        }
    }
    out
}

/// In the command line's crate, `src/cmd/` or `main.rs`.
fn command_layer(f: &File) -> bool {
    f.krate == "sojx" && (f.rel.starts_with("cmd/") || f.rel == "main.rs")
}

#[test]
fn no_source_file_is_over_600_lines() {
    let long: Vec<String> = code()
        .into_iter()
        .filter(|f| f.text.lines().count() > MAX_LINES)
        .map(|f| format!("{}: {} lines", f.path, f.text.lines().count()))
        .collect();
    assert!(long.is_empty(), "split these files:\n{}", long.join("\n"));
}

/// Longest function, in lines from its `fn` to its closing brace (issue 57).
const MAX_FN_LINES: usize = 100;

#[test]
fn no_function_is_over_100_lines() {
    let mut long = Vec::new();
    for file in code() {
        let rel = file.path;
        for f in functions::functions(&file.text) {
            if f.lines <= MAX_FN_LINES {
                continue;
            }
            long.push(format!("{rel}:{} {} {}", f.line, f.name, f.lines));
        }
    }
    assert!(
        long.is_empty(),
        "split these functions (path:line name lines):\n{}",
        long.join("\n")
    );
}

/// The function counter sees past brackets in strings, raw strings, byte and character
/// literals and comments, and is not fooled by lifetimes: a scanner that miscounts would let
/// a long function pass unseen.
#[test]
fn the_function_counter_reads_past_literals_and_comments() {
    let text = r##"impl<'a> S<'a> {
    fn tricky<'b>(&'b self, x: &'a str) -> usize where 'a: 'b {
        let s = "}\"}";
        let c = '{';
        let b = b'}';
        let q = '\'';
        let u = '\u{7B}';
        let e = 'é';
        let d = '"'; // "{ a quote in a comment opens no string
        let r = r#"}"# ;
        let br = br"{{";
        // }
        /* } /* nested { */ } */
        'outer: loop { break 'outer; }
        x.len() + [0u8; 2].len()
    }

    fn declared(&self) -> [u8; 4];

    fn after() -> fn(u8) -> u8 { |b| b }
}
"##;
    let found = functions::functions(text);
    let got: Vec<(usize, &str, usize)> = found
        .iter()
        .map(|f| (f.line, f.name.as_str(), f.lines))
        .collect();
    assert_eq!(got, [(2, "tricky", 15), (20, "after", 1)]);
}

#[test]
fn only_the_command_layer_reads_the_environment() {
    let mut found = Vec::new();
    for f in code() {
        if command_layer(&f) {
            continue;
        }
        for l in &f.code {
            if ["env::var(", "env::var_os(", "env::vars("]
                .iter()
                .any(|p| l.contains(p))
            {
                found.push(format!("{}: {}", f.path, l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "read it in cmd::Env::capture and pass it down:\n{}",
        found.join("\n")
    );
}

/// The engine starts no process, ends none, and knows no terminal: no `std::process` but its
/// exit status type's conversion, no `is_terminal`, no colour (docs/ARCHITECTURE.md, "The
/// workspace").
#[test]
fn the_engine_starts_and_ends_no_process_and_knows_no_terminal() {
    let mut found = Vec::new();
    for f in code().iter().filter(|f| f.krate == "sojx-core") {
        for l in &f.code {
            let process = l.contains("process::")
                && !l.contains("impl From<ExitStatus> for std::process::ExitCode")
                && !l.contains("std::process::id()");
            if process || l.contains("is_terminal") || l.contains("owo_colors") {
                found.push(format!("{}: {}", f.path, l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "leave processes and the terminal to the command line (src/):\n{}",
        found.join("\n")
    );
}

/// The engine opens no file and reads no standard stream (issue 57): every input is opened by
/// its caller (`input::Source`), every other file read through the `files::Files` it is given,
/// `--tee` written through the writer it is given. Test code is left out (test modules and
/// `tests.rs` files).
#[test]
fn the_engine_opens_no_file_and_reads_no_standard_stream() {
    const IO: [&str; 8] = [
        "std::fs",
        "fs::",
        "File::",
        "OpenOptions",
        "io::stdin",
        "io::stdout",
        "io::stderr",
        "canonicalize(",
    ];
    let files = code();
    // A file its parent declares `#[cfg(test)] mod name;` (`lower/roundtrip.rs`) is test code.
    let test_file = |path: &str| {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let decl = format!("#[cfg(test)]\nmod {};", name.trim_end_matches(".rs"));
        files.iter().any(|p| {
            (p.path == format!("{dir}/mod.rs") || p.path == format!("{dir}.rs"))
                && p.text.contains(&decl)
        })
    };
    let mut found = Vec::new();
    for f in module_code().iter().filter(|f| f.krate == "sojx-core") {
        if test_file(&f.path) || f.path.contains("/tests/") {
            continue;
        }
        for (i, l) in f.body.lines().enumerate() {
            if IO.iter().any(|p| l.contains(p)) {
                found.push(format!("{}:{}: {}", f.path, i + 1, l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "open files in the command line (src/disk/) and hand the engine a Read, a Write or its \
         Files:\n{}",
        found.join("\n")
    );
}

/// Below the command layer nothing knows clap: `cmd/` turns what `cli/` parsed into each
/// module's settings (docs/ARCHITECTURE.md, "The settings layer"). Comments count too.
#[test]
fn only_the_command_layer_knows_the_command_line() {
    let mut found = Vec::new();
    for f in code() {
        if command_layer(&f) || (f.krate == "sojx" && f.rel.starts_with("cli/")) {
            continue;
        }
        for (i, l) in f.text.lines().enumerate() {
            if l.contains("clap") || modules_named(l).iter().any(|m| m == "cli") {
                found.push(format!("{}:{}: {}", f.path, i + 1, l.trim()));
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
    for f in code() {
        for l in &f.code {
            if ["println!(", "print!(", "eprintln!(", "eprint!(", "dbg!("]
                .iter()
                .any(|p| l.contains(p))
            {
                found.push(format!("{}: {}", f.path, l.trim()));
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
    modules_named_at(code).into_iter().map(|(_, m)| m).collect()
}

/// [`modules_named`], each with where in `code` it is named.
fn modules_named_at(code: &str) -> Vec<(usize, String)> {
    named_after(code, "crate::")
}

/// The first segment of every path that starts with `prefix` (`crate::`, `super::`), grouped
/// imports' entries each, with where in `code` it is named; not where `prefix` continues a path
/// (`super::super::`).
fn named_after(code: &str, prefix: &str) -> Vec<(usize, String)> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        if code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let at = i + prefix.len();
        let rest = &code[at..];
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
                        out.push((at + 1 + j, ident(&group[j..])));
                        entry = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push((at, ident(rest)));
        }
    }
    out.retain(|(_, m)| !m.is_empty() && m != "self");
    out
}

/// A source file below its crate's root (`main.rs` and `lib.rs` left out), as the module scan
/// reads it.
struct ModuleCode {
    path: String,
    krate: &'static str,
    /// Its top-level module.
    module: String,
    /// Its code: the test module cut off, comment lines blanked (so that line numbers stay the
    /// file's).
    body: String,
}

fn module_code() -> Vec<ModuleCode> {
    code()
        .into_iter()
        .filter_map(|f| {
            let module = f.rel.split('/').next()?.trim_end_matches(".rs").to_owned();
            if module == "main" || module == "lib" {
                return None;
            }
            let body = [
                "#[cfg(test)]\nmod tests",
                "#[cfg(test)]\npub(crate) mod tests",
            ]
            .iter()
            .filter_map(|m| f.text.find(m))
            .min()
            .map_or(f.text.as_str(), |at| &f.text[..at]);
            let body: Vec<&str> = body
                .lines()
                .map(|l| {
                    if l.trim_start().starts_with("//") {
                        ""
                    } else {
                        l
                    }
                })
                .collect();
            Some(ModuleCode {
                path: f.path,
                krate: f.krate,
                module,
                body: body.join("\n"),
            })
        })
        .collect()
}

/// No cycle between a crate's top-level modules, grouped imports included, judged as the shared
/// tool judges (test modules and comments left out).
#[test]
fn no_module_cycle_through_grouped_imports() {
    let code = module_code();
    for (krate, _) in CRATES {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for m in code.iter().filter(|m| m.krate == krate) {
            let entry = edges.entry(m.module.clone()).or_default();
            entry.extend(
                modules_named(&m.body)
                    .into_iter()
                    .filter(|n| *n != m.module),
            );
        }
        assert!(
            edges.len() > 5,
            "{krate}: only {} modules found: {edges:?}",
            edges.len()
        );
        // Only the crate's own modules: the command line names the engine's through re-exports.
        let names: BTreeSet<String> = edges.keys().cloned().collect();
        for e in edges.values_mut() {
            e.retain(|m| names.contains(m));
        }
        let cycles = in_cycles(&edges);
        assert!(
            cycles.is_empty(),
            "{krate}: modules in an import cycle: {cycles:?}\n{edges:#?}"
        );
    }
}

/// The nodes of `edges` that reach themselves through others: those in a cycle.
fn in_cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
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
                stack.extend(edges.get(m).into_iter().flatten());
            }
        }
    }
    cycles
}

/// No import cycle between the files of `src/agent/` (issue 57: `pipes.rs` → `trampoline.rs` →
/// `signals.rs` → `pipes.rs` was one), each file a node and a subfolder (`resume/`) one node
/// with its files; test modules and `tests.rs` files left out. `mod.rs` is the folder's face,
/// not a node: it declares the files, and its own items (`Event`, `Agent`, `Report`) are what
/// they share; a name it re-exports is its file's.
#[test]
fn no_import_cycle_between_the_files_of_agent() {
    let files: Vec<(String, String)> = module_code()
        .into_iter()
        .filter(|m| m.krate == "sojx" && !m.path.ends_with("/tests.rs"))
        .filter_map(|m| Some((m.path.strip_prefix("src/agent/")?.to_owned(), m.body)))
        .collect();
    let edges = folder_imports(&files);
    assert!(
        edges.len() > 8,
        "only {} files of src/agent/: {edges:?}",
        edges.len()
    );
    let cycles = in_cycles(&edges);
    assert!(
        cycles.is_empty(),
        "src/agent/: files in an import cycle: {cycles:?}\n{edges:#?}"
    );
}

/// The imports between the files of a folder of the command line's crate (`agent`), given as
/// `(path under the folder, code)`: `super::x` and `crate::agent::x` in a file of the folder,
/// `super::super::x` and `crate::agent::x` in a file of a subfolder but its `mod.rs` (whose
/// `super::x` is the folder's), grouped imports included; `x` a file, or a name `mod.rs`
/// re-exports from one (`pub(crate) use x::{a, b as c}`).
fn folder_imports(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let node = |rel: &str| {
        rel.split('/')
            .next()
            .unwrap_or(rel)
            .trim_end_matches(".rs")
            .to_owned()
    };
    let mut exported = BTreeMap::new();
    let face = files.iter().find(|(rel, _)| rel == "mod.rs");
    for stmt in face.map_or("", |(_, c)| c.as_str()).split(';') {
        let Some((_, used)) = stmt.split_once("pub(crate) use ") else {
            continue;
        };
        let (from, names) = used.split_once("::").unwrap_or_default();
        for name in names.trim_matches(['{', '}']).split(',') {
            let name = name.rsplit([' ', ':']).next().unwrap_or_default();
            exported.insert(name.trim().to_owned(), from.trim().to_owned());
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, code) in files.iter().filter(|(rel, _)| rel != "mod.rs") {
        let from = node(rel);
        let up = if rel.contains('/') && !rel.ends_with("/mod.rs") {
            "super::super::"
        } else {
            "super::"
        };
        let named = named_after(code, up).into_iter();
        let to = edges.entry(from.clone()).or_default();
        for (_, n) in named.chain(named_after(code, "crate::agent::")) {
            let file = files.iter().any(|(r, _)| node(r) == n && r != "mod.rs");
            let n = if file { Some(&n) } else { exported.get(&n) };
            to.extend(n.filter(|n| **n != from).cloned());
        }
    }
    edges
}

/// The check of the files of `src/agent/` sees the circle issue 57 found, and no edge through a
/// type of `mod.rs` or through sojx's root (`super::super::`).
#[test]
fn the_folder_scan_sees_the_circle_of_agent() {
    let files = |pipes: &str| -> Vec<(String, String)> {
        [
            (
                "mod.rs",
                "pub(crate) use signals::{Interrupts, CAUGHT as C};\npub(crate) struct Event;",
            ),
            ("pipes.rs", pipes),
            ("trampoline.rs", "for sig in super::C {}"),
            (
                "signals.rs",
                "use super::{Event, pipes::Stopper};\nuse super::super::trampoline;",
            ),
        ]
        .map(|(r, c)| (r.to_owned(), c.to_owned()))
        .into()
    };
    let edges = folder_imports(&files("super::trampoline::read_record(bytes, nonce)"));
    assert_eq!(
        in_cycles(&edges),
        ["pipes", "signals", "trampoline"],
        "{edges:?}"
    );
    let edges = folder_imports(&files("use crate::agent::Event;"));
    assert!(in_cycles(&edges).is_empty(), "{edges:?}");
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
    // Where each is named, for the layer check to show the line.
    let code = "use crate::{cli,\n    exit::ExitStatus};\nlet x = crate::json::parse(y);";
    let at: Vec<&str> = modules_named_at(code)
        .iter()
        .map(|(i, m)| &code[*i..*i + m.len()])
        .collect();
    assert_eq!(at, ["cli", "exit", "json"]);
}

#[test]
fn no_two_modules_reach_each_other() {
    let Some(shared) = shared() else { return };
    for (krate, dir) in CRATES {
        let out = std::process::Command::new("python3")
            .arg(shared.join("tools/module_graph.py"))
            .arg(root().join(dir))
            .output()
            .expect("python3 runs ../shared/tools/module_graph.py");
        assert!(
            out.status.success(),
            "{krate}: import cycles between modules:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
