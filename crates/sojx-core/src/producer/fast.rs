//! The fast path, which an extractor may offer
//! ([`Extractor::fast_path`](super::Extractor::fast_path)): raw input lines
//! taken without being parsed into a value, either skipped (they cannot matter) or read lean
//! (from their bytes, into borrowed fields). Only the Claude Code family has one today; its
//! raw-byte scan is also the pre-scan that `extract` hands the read loop ([`LineFacts::of`]),
//! run ahead on the reading thread.

use super::claude::LineClass;

/// An extractor's fast path. Its answer must be the one the full parse gives: for any key
/// order, any line the framer would read as one item, with or without the `facts` computed
/// ahead.
pub trait FastPath {
    /// How the caller may take the raw input line (one line that starts a JSON object)
    /// instead of parsing it into a value, from its bytes or from `facts` computed ahead on
    /// another thread. [`Fast::Skip`] only when `feed` is certain to recognize the line
    /// without changing the outcome or `describe`'s output. When in doubt, [`Fast::Parse`].
    fn fast(&self, raw: &[u8], facts: Option<LineFacts>) -> Fast;
    /// [`Fast::Lean`]: take the line from its bytes, exactly as `feed` would take its parsed
    /// value, without building the value; `false` (and nothing changed) when it cannot, and
    /// the line is then parsed. Only for valid UTF-8 lines, and never with `--activity`.
    fn feed_lean(&mut self, line: u64, raw: &[u8]) -> bool;
}

/// How the fast path takes a raw line ([`FastPath::fast`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fast {
    /// The line cannot matter: count it as a recognized value without reading it.
    Skip,
    /// Offer it to [`FastPath::feed_lean`] first.
    Lean,
    /// Parse it.
    Parse,
}

/// What a line's raw bytes alone say for the fast path: `extract`'s pre-scan, computed by the
/// read loop's reading thread while the pipeline works on earlier lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineFacts {
    /// The Claude Code family's class of the line.
    pub(super) claude: LineClass,
    /// Whether the line is valid UTF-8; computed only when the line may be skipped.
    pub utf8: Option<bool>,
}

impl LineFacts {
    pub fn of(raw: &[u8]) -> Self {
        let claude = LineClass::of(raw);
        let utf8 = (!claude.always_parsed()).then(|| crate::framing::utf8_ok(raw));
        Self { claude, utf8 }
    }
}
