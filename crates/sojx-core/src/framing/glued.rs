//! Text glued to a JSON value on one line (`MCP issues detected.{"type":"init",…}`): the
//! value salvaged, the text dropped and remembered for the warning.

use serde_json::Value;

use crate::brackets::{self, Span};

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

impl Framer {
    /// A line that is not one JSON value, with salvage on: the JSON values at its top level
    /// ([`brackets::top_level`]; a value inside another bracketed span is part of it, never a
    /// value of its own) decide.
    ///
    /// * One value, with text on one side of it only (`MCP issues detected.{"type":"init",…}`,
    ///   `{…}Ripgrep is not available.`, `[dotenv@17.2.1] injecting env {…}`): the value, when
    ///   the salvage rule accepts it, and the text is dropped and recorded.
    /// * Several values and nothing else but spaces (`{…}{…}`, a writer that lost its
    ///   newlines): each of them, when the rule accepts every one.
    /// * Anything else — a value with text on both sides (quoted in a sentence), several
    ///   values among text, a value the rule refuses — is text: `false`.
    pub(super) fn glued_line(&mut self, no: u64, t: &[u8], out: &mut dyn FnMut(Item)) -> bool {
        let Some(accept) = self.salvage else {
            return false;
        };
        let mut values: Vec<(Span, Value)> = Vec::new();
        let mut text_between = false;
        let mut last_end = 0;
        for span in brackets::top_level(t) {
            text_between |= !trim(&t[last_end..span.start]).is_empty();
            last_end = span.end;
            match crate::json::from_slice(&t[span.start..span.end]) {
                Ok(value) if span.closed && !span.mismatched => values.push((span, value)),
                // A bracketed span that is not JSON (`[1, 2) then`, a broken value) is text.
                _ => text_between = true,
            }
        }
        match values.as_slice() {
            [] => false,
            [(span, _)] => {
                let (before, after) = (&t[..span.start], &t[span.end..]);
                if !trim(before).is_empty() && !trim(after).is_empty() {
                    return false;
                }
                let (start, end) = (span.start, span.end);
                let value = values.pop().map(|(_, v)| v).expect("one value");
                self.glued_value((no, no), &t[start..end], value, before, after, out)
            }
            _ => {
                let after_text = !trim(&t[last_end..]).is_empty();
                if text_between || after_text || !values.iter().all(|(_, v)| accept(v)) {
                    return false;
                }
                for (span, value) in values {
                    self.stats.values += 1;
                    self.stats.value_bytes += (span.end - span.start) as u64;
                    out(Item::Value { line: no, value });
                }
                true
            }
        }
    }

    /// Hand out `value` (parsed from `json`) when the salvage rule accepts it, recording the
    /// text `before` and `after` it as dropped. `lines`: where the value starts, and the line
    /// that holds the dropped text.
    pub(super) fn glued_value(
        &mut self,
        (start, no): (u64, u64),
        json: &[u8],
        value: Value,
        before: &[u8],
        after: &[u8],
        out: &mut dyn FnMut(Item),
    ) -> bool {
        let Some(accept) = self.salvage else {
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
