//! The layers of each crate: which top-level module may import which ([`CORE_LAYERS`],
//! [`CLI_LAYERS`]), the rules the tables keep, and every `crate::` path checked against them.

use super::{module_code, modules_named_at};

/// Which top-level modules of the engine (crates/sojx-core/src) each one may import,
/// `module: imports…` (`crate::m`, grouped imports included; test modules and comments left
/// out). Derived from the imports when it was written; a new import across modules is a decision
/// about layers: add it here, and the rules of [`the_layer_tables_keep_their_rules`] say which
/// ones are never right.
const CORE_LAYERS: &[&str] = &[
    // The small shared types: nothing but each other.
    "details: warning",
    "error: details names",
    "exit: error names",
    "names:",
    "pointer:",
    "warning: names",
    // Leaves and small helpers.
    "brackets:",
    // What the engine reads files through: given by its caller.
    "files:",
    "json:",
    "provider:",
    // `--coerce`'s record and its conversion of a string (the schema decides where).
    "coerce: brackets json",
    "budget: pointer",
    "framing: brackets json",
    "repair: brackets json warning",
    // The read loop knows lines, not what they mean.
    "input: error",
    // Inputs on all cores, jq, schemas.
    "batch: input",
    "jq: details error json",
    "schema: budget coerce details envelope error files input json pointer warning",
    // Producers and what is built from their verdicts.
    "producer: brackets details error files framing input json names provider warning",
    "activity: producer",
    "text: brackets json producer",
    "markers: error files input jq text warning",
    "envelope: coerce error exit framing names producer repair warning",
    // The commands' work.
    "extract: activity coerce details envelope error framing input jq json markers names producer repair \
        schema text warning",
    "validate: batch details envelope error framing input json names schema warning",
    "compare: details envelope error exit extract input jq json names warning",
    "lint: details envelope error names pointer provider schema warning",
    "lower: details envelope error lint names pointer provider schema warning",
    // What a failed attempt tells the agent.
    "feedback: coerce details envelope error producer warning",
    // The public API, on top of everything.
    "api: budget details envelope error extract feedback input json lint lower producer provider \
        schema warning",
];

/// Which top-level modules of the command line (src) each one may import, besides every module
/// of the engine (which it names through `src/lib.rs`'s re-exports, as `crate::m`).
const CLI_LAYERS: &[&str] = &[
    // Terminal text: sanitized, coloured.
    "sanitize:",
    "color:",
    // The disk: the command line's inputs, `--tee`'s and `--envelope-file`'s files, and the
    // engine's `files::Files`.
    "disk:",
    // The ACP client: the wire and the calls, read through the engine's read loop.
    "acp:",
    // Envelopes for people and for GitHub, and `--activity`'s lines.
    "github:",
    "render: github sanitize",
    "activity: render sanitize",
    // Agent processes: start, supervise, resume.
    "agent: activity",
    // The command line's definition (clap), with the types its flags parse into.
    "cli: acp agent color render",
    // The command layer: everything below it, and nothing imports it.
    "cmd: acp activity agent cli color disk github render sanitize",
];

/// The engine's modules (the rows of [`CORE_LAYERS`]).
fn core_modules() -> Vec<&'static str> {
    layers(CORE_LAYERS).into_iter().map(|(m, _)| m).collect()
}

/// The small shared types, which import nothing but each other.
const SHARED_TYPES: [&str; 6] = ["names", "error", "details", "warning", "exit", "pointer"];

/// A table read: each module with what it may import.
fn layers(table: &[&'static str]) -> Vec<(&'static str, Vec<&'static str>)> {
    table
        .iter()
        .map(|row| {
            let (module, imports) = row.split_once(':').expect("`module: imports…`");
            (module, imports.split_whitespace().collect())
        })
        .collect()
}

/// What `krate`'s table allows `module` to import (in the command line, the engine's modules
/// too).
fn allowed(krate: &str, module: &str) -> Option<Vec<&'static str>> {
    let table = if krate == "sojx-core" {
        CORE_LAYERS
    } else {
        CLI_LAYERS
    };
    let mut imports = layers(table)
        .into_iter()
        .find(|(m, _)| *m == module)
        .map(|(_, imports)| imports)?;
    if krate == "sojx" {
        imports.extend(core_modules());
    }
    Some(imports)
}

/// The tables themselves keep the layers: the read loop uses only the small shared types,
/// neither it nor `validate` knows producers or extraction, the small shared types import
/// nothing but each other; in the command line, nothing imports the command layer and only it
/// reads `cli`; and no module is in both crates.
#[test]
fn the_layer_tables_keep_their_rules() {
    let mut broken = Vec::new();
    for (krate, table) in [("sojx-core", CORE_LAYERS), ("sojx", CLI_LAYERS)] {
        let layers = layers(table);
        for (module, imports) in &layers {
            for &i in imports {
                let rule = match (*module, i) {
                    (_, "cmd") => "nothing imports the command layer",
                    (m, "cli") if m != "cmd" => {
                        "only cmd/ reads cli/, the command line's definition"
                    }
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
                    (_, i) if !layers.iter().any(|(m, _)| *m == i) => {
                        "a module without a row in its crate's table"
                    }
                    _ => continue,
                };
                broken.push(format!("{krate}: {module} → {i}: {rule}"));
            }
        }
        let mut names: Vec<&str> = layers.iter().map(|(m, _)| *m).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), table.len(), "{krate}: a module has two rows");
    }
    // `activity` is in both: the engine's events, and the command line's writer of them.
    for (m, _) in layers(CLI_LAYERS) {
        if m != "activity" && core_modules().contains(&m) {
            broken.push(format!("{m}: a module of both crates"));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Every top-level module imports only what its crate's table allows it, and every one has a
/// row.
#[test]
fn modules_import_only_the_layers_below_them() {
    let mut found = Vec::new();
    let code = module_code();
    // What `crate::x` names that is no module (the engine's `#[macro_export]`ed macros, at its
    // root) is not a layer; every module has a row (checked below).
    let modules: Vec<&str> = code.iter().map(|m| m.module.as_str()).collect();
    for m in &code {
        let Some(allowed) = allowed(m.krate, &m.module) else {
            found.push(format!(
                "{}: the module `{}` has no row in its crate's table",
                m.path, m.module
            ));
            continue;
        };
        for (at, n) in modules_named_at(&m.body) {
            if n == m.module || allowed.contains(&n.as_str()) || !modules.contains(&n.as_str()) {
                continue;
            }
            let no = m.body[..at].matches('\n').count();
            let line = m.body.lines().nth(no).unwrap_or_default().trim();
            found.push(format!(
                "{}:{}: {} imports {n}: {line}",
                m.path,
                no + 1,
                m.module
            ));
        }
    }
    assert!(
        found.is_empty(),
        "imports that the tables of tests/cli/layout.rs do not allow:\n{}",
        found.join("\n")
    );
}
