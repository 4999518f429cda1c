//! Text glued to a JSON value on one line (`MCP issues detected.{"type":"init",…}`): the
//! value salvaged, the text dropped and remembered for the warning.

use super::{Framer, Item, trim};

/// Text dropped from a line because it was glued to a salvaged JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glued {
    pub line: u64,
    /// The text before the value, then the text after it (either may be empty), lossy UTF-8,
    /// at most `MAX_GLUED_TEXT` (200) characters each.
    pub before: String,
    pub after: String,
}

/// Lines whose dropped text is kept for the warning.
pub const MAX_GLUED: usize = 3;
/// Characters of dropped text kept per side.
const MAX_GLUED_TEXT: usize = 200;
/// `{` positions tried in a line that does not start with JSON.
const GLUED_STARTS: usize = 4;

impl Framer {
    /// A line that starts with text and holds a JSON value after it (`MCP issues detected. Run
    /// /mcp list for status.{"type":"init",…}`): the first value the salvage rule accepts that
    /// parses from one of the line's first [`GLUED_STARTS`] `{` (after its first byte), with
    /// whatever follows it as text too.
    pub(super) fn glued_after_text(
        &mut self,
        no: u64,
        t: &[u8],
        out: &mut dyn FnMut(Item),
    ) -> bool {
        let starts = t
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'{')
            .map(|(i, _)| i)
            .take(GLUED_STARTS);
        for start in starts.filter(|&s| s > 0) {
            let rest = &t[start..];
            if let Some((Ok(_), len)) = crate::json::first_value(rest) {
                let end = start + len;
                if self.glued_value((no, no), &t[start..end], &t[..start], &t[end..], out) {
                    return true;
                }
            }
        }
        false
    }

    /// Hand out `json` as a value when it parses and the salvage rule accepts it, recording the
    /// text `before` and `after` it as dropped. `lines`: where the value starts, and the line
    /// that holds the dropped text.
    pub(super) fn glued_value(
        &mut self,
        (start, no): (u64, u64),
        json: &[u8],
        before: &[u8],
        after: &[u8],
        out: &mut dyn FnMut(Item),
    ) -> bool {
        let Some(accept) = self.salvage else {
            return false;
        };
        let Ok(value) = crate::json::from_slice(json) else {
            return false;
        };
        if !accept(&value) {
            return false;
        }
        self.stats.values += 1;
        self.stats.value_bytes += json.len() as u64;
        self.glued_lines += 1;
        if self.glued.len() < MAX_GLUED {
            let text = |b: &[u8]| {
                String::from_utf8_lossy(trim(b))
                    .chars()
                    .take(MAX_GLUED_TEXT)
                    .collect()
            };
            self.glued.push(Glued {
                line: no,
                before: text(before),
                after: text(after),
            });
        }
        out(Item::Value { line: start, value });
        true
    }
}
