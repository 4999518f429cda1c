//! Scanning and parsing one JSON value's bytes: nesting depth, lone surrogates, serde_json's
//! recursion limit.

use serde_json::Value;
use serde_json::error::Category;

use super::{MAX_DEPTH, Stats};
use crate::json;

/// Whether serde_json refused `bytes` at its recursion limit: a syntax error on a `[` or `{`
/// that opens a value (after `[`, `,`, `:` or at the start) with which more than
/// [`MAX_DEPTH`] arrays and objects are open. Decided from where the error is (serde_json's
/// `Category` cannot tell this syntax error from the others), not from its message. (One
/// syntax error looks the same: a `{` where an object's key is expected, right after a `,`, at
/// depth 127 exactly.)
pub fn is_too_deep(e: &serde_json::Error, bytes: &[u8]) -> bool {
    if e.classify() != Category::Syntax {
        return false;
    }
    // serde_json's position is just past the byte it stopped at.
    let Some(at) = offset_of(bytes, e.line(), e.column()) else {
        return false;
    };
    let Some((&opened, before)) = bytes[..at].split_last() else {
        return false;
    };
    let opens_a_value = matches!(opened, b'[' | b'{')
        && matches!(
            before.trim_ascii_end().last(),
            None | Some(b'[' | b',' | b':')
        );
    if !opens_a_value {
        return false;
    }
    let mut scan = DepthScan::default();
    let _ = scan.balanced_after(&bytes[..at]);
    scan.depth() > MAX_DEPTH
}

/// The byte offset just past the 1-based `line` and `column` (in bytes) of serde_json's
/// errors, within `bytes`.
fn offset_of(bytes: &[u8], line: usize, column: usize) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        memchr::memchr_iter(b'\n', bytes).nth(line - 2)? + 1
    };
    Some((start + column).min(bytes.len()))
}

pub fn trim(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

/// Parse one JSON value exactly ([`crate::json::from_slice`]: serde_json's private number key
/// is a key; serde_json's recursion limit guards the stack).
pub fn parse(bytes: &[u8]) -> Option<Value> {
    json::from_slice(bytes).ok()
}

/// [`parse`], counting values that went past [`MAX_DEPTH`](super::MAX_DEPTH). A value that holds lone UTF-16
/// surrogate escapes (`"\ud83d"` with no low half: Node's `JSON.stringify` writes them when a
/// string is cut inside an emoji, and Claude Code, Gemini CLI and Qwen Code are Node programs)
/// is read with U+FFFD in their place ([`json::from_slice_lenient`]), and its line `line` is
/// recorded.
pub(super) fn parse_counted(stats: &mut Stats, line: u64, bytes: &[u8]) -> Option<Value> {
    match json::from_slice_lenient(bytes) {
        Ok(read) => {
            stats.value_bytes += bytes.len() as u64;
            if read.lone_surrogates && stats.surrogate_lines.len() < MAX_SURROGATE_LINES {
                stats.surrogate_lines.push(line);
            }
            Some(read.value)
        }
        Err(e) => {
            // The error is the text's own (a lone surrogate does not change its depth).
            if is_too_deep(&e, bytes) {
                stats.too_deep += 1;
            }
            None
        }
    }
}

/// Lines with lone surrogates that are remembered (for the warning on the answer's line).
pub(super) const MAX_SURROGATE_LINES: usize = 64;

/// String-aware bracket depth over successive lines.
#[derive(Debug, Default)]
pub struct DepthScan {
    depth: usize,
    in_str: bool,
    esc: bool,
}

impl DepthScan {
    /// Brackets still open.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Feed bytes; true when the depth returned to zero (the document closed) in them.
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        self.close_in(bytes).is_some()
    }

    /// Feed bytes up to the one that returns the depth to zero (the document closed), and
    /// return its index; `None` when the document is still open after all of them.
    pub fn close_in(&mut self, bytes: &[u8]) -> Option<usize> {
        bytes.iter().position(|&b| self.step(b))
    }

    /// Feed all of `bytes`; true when, after them, no bracket and no string is open.
    pub(super) fn balanced_after(&mut self, bytes: &[u8]) -> bool {
        for &b in bytes {
            self.step(b);
        }
        self.depth == 0 && !self.in_str
    }

    /// One byte; true when it closed the outermost bracket.
    fn step(&mut self, b: u8) -> bool {
        if self.in_str {
            if self.esc {
                self.esc = false;
            } else if b == b'\\' {
                self.esc = true;
            } else if b == b'"' {
                self.in_str = false;
            }
            return false;
        }
        match b {
            b'"' => self.in_str = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }
}
