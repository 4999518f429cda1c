//! JSON Schema drafts: `--draft`'s values and the names the envelope gives them.

use jsonschema::Draft;

/// The drafts a schema can be forced to (`--draft`), oldest first.
pub const DRAFTS: [Draft; 5] = [
    Draft::Draft4,
    Draft::Draft6,
    Draft::Draft7,
    Draft::Draft201909,
    Draft::Draft202012,
];

/// The draft's name in `validation.draft` (`"2020-12"`), and `--draft`'s.
pub fn draft_name(d: Draft) -> &'static str {
    match d {
        Draft::Draft4 => "4",
        Draft::Draft6 => "6",
        Draft::Draft7 => "7",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
    }
}
