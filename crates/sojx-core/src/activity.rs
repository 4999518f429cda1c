//! `--activity`'s events, as extraction reports them while it reads (the `sojx` binary writes
//! them, one human line each, on stderr).

use crate::producer::EventKind;

/// One `--activity` event: the input line it came from and a short description (model text
/// inside is not sanitized yet: the writer does that).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    pub line: u64,
    pub kind: EventKind,
    pub text: String,
}
