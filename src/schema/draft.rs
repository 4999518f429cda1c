//! JSON Schema drafts: `--draft`'s values and the names the envelope gives them.

use jsonschema::Draft;

use crate::cli;

/// The draft's name in `validation.draft` (`"2020-12"`).
pub fn draft_name(d: Draft) -> &'static str {
    match d {
        Draft::Draft4 => "4",
        Draft::Draft6 => "6",
        Draft::Draft7 => "7",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
    }
}

/// The draft `--draft` names.
pub fn to_draft(d: cli::Draft) -> Draft {
    match d {
        cli::Draft::Draft4 => Draft::Draft4,
        cli::Draft::Draft6 => Draft::Draft6,
        cli::Draft::Draft7 => Draft::Draft7,
        cli::Draft::Draft201909 => Draft::Draft201909,
        cli::Draft::Draft202012 => Draft::Draft202012,
    }
}
