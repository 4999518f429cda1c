//! The invariants docs/ARCHITECTURE.md states about the source tree, checked: no source file
//! over 600 lines, no import cycle between top-level modules, each module importing only the
//! layers its row of [`LAYERS`] allows, the environment read only in `src/cmd/`, clap and
//! `crate::cli` known only in `src/cli/` and `src/cmd/`, and nothing
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
    modules_named_at(code).into_iter().map(|(_, m)| m).collect()
}

/// [`modules_named`], each with where in `code` it is named.
fn modules_named_at(code: &str) -> Vec<(usize, String)> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let at = i + "crate::".len();
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

/// Each source file below the crate root (`main.rs` and `lib.rs` left out): its path under
/// `src/`, its top-level module, and its code as the module scan reads it: the test module cut
/// off, comment lines blanked (so that line numbers stay the file's).
fn module_code() -> Vec<(String, String, String)> {
    code()
        .into_iter()
        .filter_map(|(rel, text, _)| {
            let module = rel.split('/').next()?.trim_end_matches(".rs").to_owned();
            if module == "main" || module == "lib" {
                return None;
            }
            let body = text.split("#[cfg(test)]\nmod tests").next()?;
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
            Some((rel, module, body.join("\n")))
        })
        .collect()
}

/// No cycle between top-level modules, grouped imports included, judged as the shared tool
/// judges (test modules and comments left out).
#[test]
fn no_module_cycle_through_grouped_imports() {
    use std::collections::{BTreeMap, BTreeSet};
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, module, body) in module_code() {
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

/// Which top-level modules of `src/` each one may import, `module: imports…` (`crate::m`,
/// grouped imports included; test modules and comments left out). Derived from the imports when
/// it was written; a new import across modules is a decision about layers: add it here, and the
/// rules of [`the_layer_table_keeps_its_rules`] say which ones are never right.
const LAYERS: &[&str] = &[
    // The small shared types: nothing but each other.
    "details: warning",
    "error: details names",
    "exit: error names",
    "names:",
    "pointer:",
    "warning: names",
    // Leaves and small helpers.
    "brackets:",
    "json:",
    "sanitize:",
    "color:",
    "provider:",
    "budget: pointer",
    "framing: brackets json",
    "repair: json warning",
    // The read loop knows lines, not what they mean.
    "input: error",
    // The ACP client: the wire and the calls, read through the read loop's helpers.
    "acp: input json",
    // Shared work: inputs on all cores, jq, schemas.
    "batch: input",
    "jq: details error json",
    "schema: budget details envelope error input json pointer warning",
    // Producers and what is built from their verdicts.
    "producer: acp brackets details error framing input json names provider warning",
    "text: brackets json producer",
    "markers: error input jq text warning",
    "envelope: error exit framing names producer warning",
    "github: details envelope error names producer",
    "render: details envelope error github names producer sanitize",
    "activity: envelope producer render sanitize",
    // The commands' work.
    "extract: activity details envelope error framing input jq json markers names producer repair \
        schema text warning",
    "validate: batch details envelope error framing input json names schema warning",
    "compare: details envelope error exit extract input jq json names warning",
    "lint: details envelope error names pointer provider schema warning",
    "lower: details envelope error lint names pointer provider schema warning",
    "agent: activity details envelope error input names producer provider warning",
    // The command line's definition (clap), with the engine's types its flags parse into.
    "cli: acp agent color producer provider render schema",
    // The command layer: everything below it, and nothing imports it.
    "cmd: acp activity agent batch cli color compare details envelope error exit extract github input \
        jq lint lower markers names producer provider render sanitize schema validate warning",
];

/// The small shared types, which import nothing but each other.
const SHARED_TYPES: [&str; 6] = ["names", "error", "details", "warning", "exit", "pointer"];

/// [`LAYERS`] read: each module with what it may import.
fn layers() -> Vec<(&'static str, Vec<&'static str>)> {
    LAYERS
        .iter()
        .map(|row| {
            let (module, imports) = row.split_once(':').expect("`module: imports…`");
            (module, imports.split_whitespace().collect())
        })
        .collect()
}

/// What [`LAYERS`] allows `module` to import.
fn allowed(module: &str) -> Option<Vec<&'static str>> {
    layers()
        .into_iter()
        .find(|(m, _)| *m == module)
        .map(|(_, imports)| imports)
}

/// The table itself keeps the layers: the read loop uses only the small shared types, neither it
/// nor `validate` knows producers or extraction, nothing imports the command layer and only it
/// reads `cli`, and the small shared types import nothing but each other.
#[test]
fn the_layer_table_keeps_its_rules() {
    let mut broken = Vec::new();
    let layers = layers();
    for (module, imports) in &layers {
        for &i in imports {
            let rule = match (*module, i) {
                (_, "cmd") => "nothing imports the command layer",
                (m, "cli") if m != "cmd" => "only cmd/ reads cli/, the command line's definition",
                ("input" | "validate", "producer" | "extract") => {
                    "the read loop and validate name no producer"
                }
                ("input", i) if !SHARED_TYPES.contains(&i) => {
                    "the read loop knows lines, and uses only the small shared types"
                }
                (m, i) if SHARED_TYPES.contains(&m) && !SHARED_TYPES.contains(&i) => {
                    "the small shared types import nothing but each other"
                }
                (m, i) if m == i => "a module does not import itself",
                (_, i) if allowed(i).is_none() => "a module without a row",
                _ => continue,
            };
            broken.push(format!("{module} → {i}: {rule}"));
        }
    }
    let mut names: Vec<&str> = layers.iter().map(|(m, _)| *m).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), LAYERS.len(), "a module has two rows");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Every top-level module imports only what [`LAYERS`] allows it, and every one has a row.
#[test]
fn modules_import_only_the_layers_below_them() {
    let mut found = Vec::new();
    for (rel, module, body) in module_code() {
        let Some(allowed) = allowed(&module) else {
            found.push(format!(
                "src/{rel}: the module `{module}` has no row in LAYERS"
            ));
            continue;
        };
        for (at, m) in modules_named_at(&body) {
            if m == module || allowed.contains(&m.as_str()) {
                continue;
            }
            let no = body[..at].matches('\n').count();
            let line = body.lines().nth(no).unwrap_or_default().trim();
            found.push(format!(
                "src/{rel}:{}: {module} imports {m}: {line}",
                no + 1
            ));
        }
    }
    assert!(
        found.is_empty(),
        "imports that LAYERS (tests/cli/layout.rs) does not allow:\n{}",
        found.join("\n")
    );
}
