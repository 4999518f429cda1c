//! The one pass of `--repair` over a value's bytes, from its first bracket to where it ends (or
//! the text does): the bytes are copied as JSON, with what models write besides JSON read by
//! the rules of [`crate::brackets::lenient`] and each change recorded, and trailing commas
//! removed.

use super::{Change, quoted};
use crate::brackets::lenient::{self, comment_at, quote_opens};
use crate::warning::WarningKind;

/// Deepest nesting a repair will track.
const MAX_DEPTH: usize = 512;

/// The value's bytes as read up to where it ends (or the text does).
pub(super) struct Scan {
    pub(super) out: Vec<u8>,
    /// The brackets open at the end (outermost first).
    pub(super) stack: Vec<u8>,
    /// Whether the text ended inside a string.
    pub(super) in_str: bool,
    /// The string the text ended in runs over a line's end: a quote missing (the `}` after it
    /// is on the page), not an answer cut off.
    pub(super) open_string_lines: bool,
    /// Nothing but whitespace follows the last comment removed: a line comment may have
    /// swallowed the closing bracket (`{"a": 1 # ok}`), so the value is not known to be cut off.
    pub(super) ends_in_comment: bool,
    /// Where each trailing comma removed was, in the bytes.
    pub(super) trailing_commas: Vec<usize>,
    /// Where the last `,` copied was, in the bytes.
    pub(super) last_comma: Option<usize>,
    /// Where the last member of the outermost value starts in `out`: just after its opening
    /// bracket, or after the last `,` between its members; and in the bytes.
    pub(super) member_start: usize,
    pub(super) member_at: usize,
    /// Where the value ended in the bytes, when it did.
    pub(super) ended_at: Option<usize>,
    /// What was read besides JSON (offsets in the bytes), in order.
    pub(super) changes: Vec<Change>,
    /// The last byte copied outside strings that is not whitespace (a string: `"`).
    last: u8,
}

impl Scan {
    /// Read `bytes` (from the first bracket) to the end of the value; with `lenient`, comments,
    /// raw control characters in strings, single quotes, identifier keys and Python's literals
    /// are read too. `None` for brackets that do not match, a block comment never closed, or
    /// nesting deeper than [`MAX_DEPTH`].
    pub(super) fn of(bytes: &[u8], lenient: bool) -> Option<Self> {
        let mut s = Self {
            out: Vec::with_capacity(bytes.len() + 8),
            stack: Vec::new(),
            in_str: false,
            open_string_lines: false,
            ends_in_comment: false,
            trailing_commas: Vec::new(),
            last_comma: None,
            member_start: 1,
            member_at: 1,
            ended_at: None,
            changes: Vec::new(),
            last: 0,
        };
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if !b.is_ascii_whitespace() {
                s.ends_in_comment = false;
            }
            match b {
                b'"' => {
                    i = s.string(bytes, i, lenient);
                    continue;
                }
                b'\'' if lenient && quote_opens(s.last) => {
                    i = s.string(bytes, i, lenient);
                    continue;
                }
                b'/' | b'#' if lenient && i > 0 => {
                    if let Some(c) = comment_at(bytes, i) {
                        if !c.closed {
                            return None;
                        }
                        s.change(WarningKind::CommentRemoved, i, &bytes[i..c.end], "");
                        s.ends_in_comment = true;
                        i = c.end;
                        continue;
                    }
                    s.out.push(b);
                }
                b'{' | b'[' => {
                    if s.stack.len() >= MAX_DEPTH {
                        return None;
                    }
                    s.stack.push(b);
                    s.out.push(b);
                }
                b'}' | b']' => {
                    let want = if b == b'}' { b'{' } else { b'[' };
                    if s.stack.pop() != Some(want) {
                        return None;
                    }
                    if super::strip_trailing_comma(&mut s.out) {
                        s.trailing_commas.extend(s.last_comma);
                    }
                    s.out.push(b);
                    if s.stack.is_empty() {
                        s.ended_at = Some(i + 1);
                        break;
                    }
                }
                b',' => {
                    s.out.push(b);
                    s.last_comma = Some(i);
                    if s.stack.len() == 1 {
                        s.member_start = s.out.len();
                        s.member_at = i + 1;
                    }
                }
                b'0'..=b'9' | b'-' | b'.' | b'+' if lenient => {
                    // A number's run (`1e5`, `-1.5E+3`) is copied as it is: no word in it.
                    let end = lenient::word_end(bytes, i + 1);
                    s.out.extend_from_slice(&bytes[i..end]);
                    s.last = b'0';
                    i = end;
                    continue;
                }
                c if lenient && (c.is_ascii_alphabetic() || c == b'_' || c == b'$') => {
                    i = s.word(bytes, i);
                    continue;
                }
                _ => s.out.push(b),
            }
            if !b.is_ascii_whitespace() {
                s.last = b;
            }
            i += 1;
        }
        Some(s)
    }

    /// Record a change at `offset` of `from` into `to`.
    fn change(&mut self, kind: WarningKind, offset: usize, from: &[u8], to: &str) {
        self.changes.push(Change {
            kind,
            offset,
            from: quoted(&String::from_utf8_lossy(from)),
            to: quoted(to),
        });
    }

    /// The string at `bytes[i]`, quoted by `bytes[i]` (`"`, or `'` when `lenient`), written as
    /// a JSON string: with `lenient`, each run of raw control characters in it escaped; in a
    /// single-quoted one, `\'` is `'` and a `"` is escaped (a change recorded). Returns where it
    /// ends (the end of the bytes when it never does: then `in_str`).
    fn string(&mut self, bytes: &[u8], i: usize, lenient: bool) -> usize {
        let quote = bytes[i];
        let from = self.out.len();
        self.out.push(b'"');
        self.last = b'"';
        let mut esc = false;
        let mut j = i + 1;
        while j < bytes.len() {
            let c = bytes[j];
            if esc {
                esc = false;
                if c == b'\'' && quote == b'\'' {
                    self.out.pop();
                }
                self.out.push(c);
            } else if c == b'\\' {
                esc = true;
                self.out.push(c);
            } else if c == quote {
                self.out.push(b'"');
                if quote == b'\'' {
                    let to = String::from_utf8_lossy(&self.out[from..]).into_owned();
                    let kind = WarningKind::SingleQuotedString;
                    self.change(kind, i, &bytes[i..=j], &to);
                }
                return j + 1;
            } else if c == b'"' {
                self.out.extend_from_slice(b"\\\"");
            } else if c < 0x20 && lenient {
                j = self.controls(bytes, j);
                continue;
            } else {
                self.out.push(c);
            }
            j += 1;
        }
        self.in_str = true;
        // (A line's end after its last character is the text's, not the string's.)
        self.open_string_lines = bytes[i..].trim_ascii_end().contains(&b'\n');
        bytes.len()
    }

    /// The run of raw control characters at `bytes[j]`, inside a string, escaped.
    fn controls(&mut self, bytes: &[u8], j: usize) -> usize {
        let end = bytes[j..]
            .iter()
            .position(|&c| c >= 0x20)
            .map_or(bytes.len(), |p| j + p);
        let mut to = String::new();
        for &c in &bytes[j..end] {
            match c {
                b'\n' => to.push_str("\\n"),
                b'\r' => to.push_str("\\r"),
                b'\t' => to.push_str("\\t"),
                _ => to.push_str(&format!("\\u{c:04x}")),
            }
        }
        self.out.extend_from_slice(to.as_bytes());
        self.change(WarningKind::ControlCharacterEscaped, j, &bytes[j..end], &to);
        end
    }

    /// The bare word at `bytes[i]`: an identifier key is quoted, Python's `True`, `False` and
    /// `None` become JSON's as values; any other word is copied (and will not parse).
    fn word(&mut self, bytes: &[u8], i: usize) -> usize {
        let end = lenient::word_end(bytes, i);
        let word = &bytes[i..end];
        let key_place = self.stack.last() == Some(&b'{') && matches!(self.last, b'{' | b',');
        if key_place
            && lenient::is_identifier(word)
            && lenient::next_significant(bytes, end) == Some(b':')
        {
            let to = format!("\"{}\"", String::from_utf8_lossy(word));
            self.out.extend_from_slice(to.as_bytes());
            self.change(WarningKind::UnquotedKey, i, word, &to);
            self.last = b'"';
            return end;
        }
        match lenient::python_literal(word) {
            Some(json) if !key_place => {
                self.out.extend_from_slice(json.as_bytes());
                self.change(WarningKind::PythonLiteral, i, word, json);
            }
            _ => self.out.extend_from_slice(word),
        }
        self.last = b'w';
        end
    }
}
