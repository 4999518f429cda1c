//! Framing: turn input lines into JSON items, whatever the framing (NDJSON, one compact or
//! pretty-printed document, a JSON array, Server-Sent Events, bare event lines), detected from
//! the content of each line, never from a file name or the first line alone.
//!
//! Lines that are not JSON (recorder echoes, prose) are counted and kept in the raw text while
//! the producer is unknown, so that plain-text inputs can still be read as `text`.

mod glued;
mod scan;
mod sse;
#[cfg(test)]
mod tests;

use serde_json::Value;

pub use crate::json::fix_lone_surrogates;
pub use glued::{Glued, MAX_GLUED};
pub use scan::{DepthScan, is_too_deep, parse, trim};

use scan::parse_counted;
use sse::{SsePending, sse_field};

/// One framed item.
#[derive(Debug, Clone)]
pub enum Item {
    /// A JSON value that started on input line `line` (1-based).
    Value { line: u64, value: Value },
    /// SSE `data: [DONE]`: the OpenAI stream terminator.
    Done { line: u64 },
    /// A non-blank line that is neither JSON nor an SSE field (prose, a recorder's echo).
    Junk { line: u64 },
}

impl Item {
    /// The input line the item came from (where it started).
    pub fn line(&self) -> u64 {
        match self {
            Self::Value { line, .. } | Self::Done { line } | Self::Junk { line } => *line,
        }
    }
}

/// Counters over the whole input.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub lines: u64,
    pub blank: u64,
    pub values: u64,
    pub sse_lines: u64,
    /// Non-blank lines that are neither JSON nor SSE fields.
    pub text_lines: u64,
    pub too_long: u64,
    pub invalid_utf8: u64,
    /// JSON values that nest deeper than [`MAX_DEPTH`] (read as text instead).
    pub too_deep: u64,
    /// Bytes of input that parsed into values (bounds what is kept before detection).
    pub value_bytes: u64,
    /// Lines (where their value starts; the first few) whose value held lone UTF-16 surrogate
    /// escapes, read as U+FFFD.
    pub surrogate_lines: Vec<u64>,
    /// The input's first line is UTF-16, not UTF-8: how it looks (see [`utf16`]).
    pub utf16: Option<&'static str>,
}

/// How a first line shows that its input is UTF-16 (PowerShell's `>` writes it): an ASCII
/// character with a NUL byte after it (little-endian) or before it (big-endian), after a byte
/// order mark or not; a pretty-printed document's first line is just `{` and its NUL. `None`
/// for UTF-8 (a NUL is never part of JSON text or of a line of prose), and for binary that
/// merely starts with the mark's bytes.
pub fn utf16(first: &[u8]) -> Option<&'static str> {
    match first {
        [0xFF, 0xFE] | [0xFF, 0xFE, _, 0, ..] => Some("UTF-16LE with a byte order mark"),
        [0xFE, 0xFF] | [0xFE, 0xFF, 0, _, ..] => Some("UTF-16BE with a byte order mark"),
        [a, 0, ..] if a.is_ascii() && *a != 0 => Some("UTF-16LE"),
        [0, a, ..] if a.is_ascii() && *a != 0 => Some("UTF-16BE"),
        _ => None,
    }
}

/// Deepest nesting of a JSON value sojx reads (arrays and objects, 127 levels): serde_json's
/// recursion limit (it refuses the 128th level), which keeps parsing, validating and printing
/// off the end of the stack. Fixed, not configurable.
pub const MAX_DEPTH: usize = 127;

#[derive(Debug)]
enum State {
    Normal,
    /// Inside a multi-line JSON document that started on `start`.
    Doc {
        start: u64,
        buf: Vec<u8>,
        scan: DepthScan,
    },
}

/// Line-by-line framer. Feed it lines; it calls back with items.
#[derive(Debug)]
pub struct Framer {
    state: State,
    sse_pending: Option<SsePending>,
    text: Option<Vec<u8>>,
    text_overflow: bool,
    max_doc: usize,
    /// A JSON document still open at the end of the input (a cut-off document): its start line
    /// and bytes.
    pub cut: Option<(u64, Vec<u8>)>,
    pub stats: Stats,
    /// Which values may be taken out of a line that has other text glued to it ([`Framer::salvage`]).
    salvage: Option<fn(&Value) -> bool>,
    /// The text dropped around salvaged values: the first [`MAX_GLUED`] lines and their text.
    pub glued: Vec<Glued>,
    /// How many lines had text dropped around a salvaged value.
    pub glued_lines: u64,
    /// The marker of the Markdown fenced block the lines are in, if any.
    fence: Option<&'static str>,
    /// Fences are read as text while the input may be text (no producer known yet).
    fences: bool,
}

impl Framer {
    pub fn new(max_doc: usize) -> Self {
        Self {
            state: State::Normal,
            sse_pending: None,
            text: Some(Vec::new()),
            text_overflow: false,
            max_doc,
            cut: None,
            stats: Stats::default(),
            salvage: None,
            glued: Vec::new(),
            glued_lines: 0,
            fence: None,
            fences: true,
        }
    }

    /// Read a line that holds one JSON value with other text glued before or after it (a
    /// warning printed on the same line, an unterminated line of another writer) as that value,
    /// when `accept` says the value is worth it (extract: a known producer's event). The text
    /// is dropped and recorded in [`Framer::glued`]. Off by default: for `validate`, such a
    /// line is not a JSON document.
    #[must_use]
    pub fn salvage(mut self, accept: fn(&Value) -> bool) -> Self {
        self.salvage = Some(accept);
        self
    }

    /// Stop keeping the raw text (once a producer is known, it is not needed).
    pub fn drop_text(&mut self) {
        self.text = None;
        // The input is a producer's stream: a stray fence line in it is a junk line like any
        // other, and the lines after it are still read (contract §3).
        self.fences = false;
        self.fence = None;
    }

    /// The raw text kept so far, or `None` when it went past the size limit.
    pub fn take_text(&mut self) -> Option<Vec<u8>> {
        if self.text_overflow {
            None
        } else {
            Some(self.text.take().unwrap_or_default())
        }
    }

    pub fn keeps_text(&self) -> bool {
        self.text.is_some()
    }

    fn keep(&mut self, line: &[u8]) {
        if let Some(t) = &mut self.text {
            if t.len() + line.len() + 1 > self.max_doc {
                self.text = None;
                self.text_overflow = true;
            } else {
                t.extend_from_slice(line);
                t.push(b'\n');
            }
        }
    }

    /// A line that went past the line limit. A multi-line document it falls inside is lost
    /// with it: its other lines would close without it into a different value (a pretty-printed
    /// `{"verdict": …}` whose long lines were skipped is not `{}`).
    pub fn too_long(&mut self, _line: u64) {
        self.stats.lines += 1;
        self.stats.too_long += 1;
        self.text_overflow = true;
        self.text = None;
        self.state = State::Normal;
    }

    /// Whether the next line would be read on its own (not inside a multi-line document or a
    /// fenced block), so that a caller may decide from its raw bytes that it need not be
    /// parsed.
    pub fn between_items(&self) -> bool {
        matches!(self.state, State::Normal) && self.fence.is_none()
    }

    /// Whether `line` opens, closes or is inside a Markdown fenced block (```` ``` ```` or
    /// `~~~`, up to three spaces of indent; a block closes at its own marker alone on a line,
    /// as in `text.rs`). A one-line span (```` ```{…}``` ````) is a fence line that opens
    /// nothing.
    fn fence(&mut self, line: &[u8]) -> bool {
        let marker = crate::brackets::fence_marker(line);
        let rest = |indent: usize| &line[indent + 3..];
        match (self.fence, marker) {
            (Some(open), Some((m, indent))) if open == m && trim(rest(indent)).is_empty() => {
                self.fence = None;
                true
            }
            (Some(_), _) => true,
            (None, Some((m, indent))) => {
                if !rest(indent).windows(3).any(|w| w == m.as_bytes()) {
                    self.fence = Some(m);
                }
                true
            }
            (None, None) => false,
        }
    }

    /// Account for a line the caller decided not to parse (the fast path): a one-line JSON
    /// value, counted as [`Framer::line`] would have counted it. `utf8`: whether the line is
    /// valid UTF-8, when that is already known.
    pub fn skipped(&mut self, bytes: &[u8], utf8: Option<bool>) {
        self.stats.lines += 1;
        self.stats.values += 1;
        self.keep(bytes);
        let valid = utf8.unwrap_or_else(|| utf8_ok(bytes));
        if !valid {
            self.stats.invalid_utf8 += 1;
        }
    }

    /// Feed one line (without its newline).
    pub fn line(&mut self, no: u64, bytes: &[u8], out: &mut dyn FnMut(Item)) {
        self.stats.lines += 1;
        if no == 1 {
            self.stats.utf16 = utf16(bytes);
        }
        self.keep(bytes);
        if std::str::from_utf8(bytes).is_err() {
            self.stats.invalid_utf8 += 1;
        }

        if let State::Doc { buf, scan, .. } = &mut self.state {
            let before = buf.len();
            buf.extend_from_slice(bytes);
            buf.push(b'\n');
            let closed = scan.close_in(bytes).map(|end| before + end + 1);
            if closed.is_some() || buf.len() > self.max_doc {
                self.end_doc(no, closed, out);
            }
            return;
        }

        let t = trim(bytes);
        if t.is_empty() {
            self.stats.blank += 1;
            self.flush_sse(out);
            return;
        }
        // A Markdown fence and what it holds are text: a JSON value shown in a fenced block
        // of prose is never an event (`text.rs` reads the block when the input is text).
        if self.fences && self.fence(bytes) {
            self.stats.text_lines += 1;
            out(Item::Junk { line: no });
            return;
        }
        if let Some(payload) = sse_field(t, b"data") {
            self.stats.sse_lines += 1;
            self.sse_data(no, payload, out);
            return;
        }
        if t[0] == b':'
            || sse_field(t, b"event").is_some()
            || sse_field(t, b"id").is_some()
            || sse_field(t, b"retry").is_some()
        {
            self.stats.sse_lines += 1;
            return;
        }
        if t[0] == b'{' || t[0] == b'[' {
            if let Some(value) = parse_counted(&mut self.stats, no, t) {
                self.stats.values += 1;
                out(Item::Value { line: no, value });
                return;
            }
            if self.open_doc(no, t) {
                return;
            }
        }
        // Text glued to an event (`{…}Ripgrep is not available.`, `[dotenv@17] …{…}`), or
        // events glued to each other.
        if self.glued_line(no, t, out) {
            return;
        }
        self.stats.text_lines += 1;
        out(Item::Junk { line: no });
    }

    /// Whether line `no` (trimmed: `t`), a value that did not parse, opens a multi-line
    /// document: its brackets stay open at its end. If so, the document is read from it on.
    fn open_doc(&mut self, no: u64, t: &[u8]) -> bool {
        let mut scan = DepthScan::default();
        match scan.close_in(t) {
            None if scan.depth() > 0 => {
                let mut buf = Vec::with_capacity(t.len() + 1);
                buf.extend_from_slice(t);
                buf.push(b'\n');
                self.state = State::Doc {
                    start: no,
                    buf,
                    scan,
                };
                true
            }
            _ => false,
        }
    }

    /// The multi-line document ended on line `no`: closed (`closed`: where, in its bytes) or
    /// past the size limit. Its value, the value with text glued after it, or a junk item.
    fn end_doc(&mut self, no: u64, closed: Option<usize>, out: &mut dyn FnMut(Item)) {
        let State::Doc { start, buf, .. } = std::mem::replace(&mut self.state, State::Normal)
        else {
            unreachable!("called with a document open")
        };
        let parsed = if closed.is_some() {
            parse_counted(&mut self.stats, start, &buf)
        } else {
            None
        };
        if let Some(value) = parsed {
            self.stats.values += 1;
            out(Item::Value { line: start, value });
            return;
        }
        // Text glued after the closing bracket (`}Ripgrep is not available…`).
        let glued = closed.is_some_and(|end| {
            let after = trim(&buf[end..]);
            !after.is_empty()
                && crate::json::from_slice(&buf[..end]).is_ok_and(|value| {
                    self.glued_value((start, no), &buf[..end], value, b"", after, out)
                })
        });
        if !glued {
            self.stats.text_lines += 1;
            out(Item::Junk { line: start });
        }
    }

    /// End of input.
    pub fn finish(&mut self) {
        self.finish_items(&mut |_| {});
    }

    /// End of input, handing out what was still open as [`Item::Junk`] (so that `validate`
    /// reports a cut-off last document instead of dropping it).
    pub fn finish_items(&mut self, out: &mut dyn FnMut(Item)) {
        self.flush_sse(out);
        if let State::Doc { start, buf, .. } = std::mem::replace(&mut self.state, State::Normal) {
            // A document that never closed (a cut-off answer or result object): its lines are
            // text, and the caller may look at what it was.
            self.stats.text_lines += 1;
            self.cut = Some((start, buf));
            out(Item::Junk { line: start });
        }
    }
}

/// Whether `bytes` are valid UTF-8 (ASCII checked first: most lines are).
pub fn utf8_ok(bytes: &[u8]) -> bool {
    bytes.is_ascii() || std::str::from_utf8(bytes).is_ok()
}
