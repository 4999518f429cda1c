//! Lines → documents: a line that is JSON is a document (scalars too), a line opening an object
//! or array that does not close on it starts a multi-line (pretty-printed) document, and a line
//! that is not JSON is a bad document: the stream goes on.

use serde_json::Value;

use crate::framing::DepthScan;
use crate::schema::tape::{self, Tape};

/// Longest text kept as the `candidate` of a `parse` envelope.
const CANDIDATE_BYTES: usize = 4096;

/// What one input line, or a multi-line document, turned into.
pub(super) enum Doc<'a> {
    Value {
        line: u64,
        value: Value,
        /// The document's bytes, when it was one line (trimmed) and they spell the value.
        raw: Option<&'a [u8]>,
        /// The document held lone UTF-16 surrogate escapes, read as U+FFFD.
        lone_surrogates: bool,
    },
    Bad {
        line: u64,
        reason: String,
        text: String,
    },
}

/// Lines → documents.
pub(super) struct Documents {
    open: Option<(u64, Vec<u8>, DepthScan)>,
    max: usize,
    /// Re-reading the lines of a document that did not parse (see [`Documents::recover`]): a
    /// line that does not parse is a bad line, never the start of a multi-line document.
    lines_only: bool,
    /// Where a one-line document is read without a `Value` ([`Documents::single`]).
    tape: Tape,
}

impl Documents {
    /// A framer for documents of at most `max` bytes.
    pub(super) fn new(max: usize) -> Self {
        Self {
            open: None,
            max,
            lines_only: false,
            tape: Tape::default(),
        }
    }

    /// The line where a multi-line document that has not closed yet starts.
    pub(super) fn open_since(&self) -> Option<u64> {
        self.open.as_ref().map(|(start, ..)| *start)
    }

    /// The line `bytes` (trimmed) read into the tape, when it is one plain document on its own:
    /// no multi-line document is open and the tape takes it (then serde_json reads it as the
    /// same one value, so [`Documents::line`] would give it as one [`Doc::Value`]).
    pub(super) fn single<'a>(&'a mut self, bytes: &'a [u8]) -> Option<(tape::Doc<'a>, &'a [u8])> {
        if self.open.is_some() {
            return None;
        }
        let t = bytes.trim_ascii();
        Some((self.tape.read_plain(t)?, t))
    }

    /// One line (without its newline); the documents it completes go to `out`.
    pub(super) fn line<'a>(&mut self, no: u64, bytes: &'a [u8], out: &mut Vec<Doc<'a>>) {
        if let Some((start, buf, scan)) = &mut self.open {
            buf.extend_from_slice(bytes);
            buf.push(b'\n');
            let closed = scan.feed(bytes);
            if closed || buf.len() > self.max {
                let (start, buf) = (*start, std::mem::take(buf));
                self.open = None;
                match (closed, parse(start, &buf)) {
                    (true, ok @ Doc::Value { .. }) => out.push(ok),
                    (true, Doc::Bad { reason, .. }) => self.recover(start, &buf, reason, out),
                    (false, _) => out.push(bad(
                        start,
                        format!("a document longer than --max-line-bytes {}", self.max),
                        &buf,
                    )),
                }
            }
            return;
        }
        let t = bytes.trim_ascii();
        if t.is_empty() {
            return;
        }
        if let Ok(read) = crate::json::from_slice_lenient(t) {
            out.push(Doc::Value {
                line: no,
                value: read.value,
                raw: (!read.lone_surrogates).then_some(t),
                lone_surrogates: read.lone_surrogates,
            });
            return;
        }
        if !self.lines_only && (t[0] == b'{' || t[0] == b'[') {
            let mut scan = DepthScan::default();
            if !scan.feed(t) && scan.depth() > 0 {
                let mut buf = t.to_vec();
                buf.push(b'\n');
                self.open = Some((no, buf, scan));
                return;
            }
        }
        out.push(parse(no, t));
    }

    /// A line past the limit: a bad document of its own, or, inside a multi-line document, the
    /// end of that document, which is bad without it (its other lines would close into a
    /// different value). The lines after it are read afresh.
    pub(super) fn too_long(&mut self, no: u64, out: &mut Vec<Doc<'_>>) {
        let max = self.max;
        out.push(match self.open.take() {
            Some((start, buf, _)) => bad(
                start,
                format!("the document starting here runs through line {no}, longer than --max-line-bytes {max}"),
                &buf,
            ),
            None => Doc::Bad {
                line: no,
                reason: format!("the line is longer than --max-line-bytes {max}"),
                text: String::new(),
            },
        });
    }

    /// The input ended: a document still open is bad, or was JSON Lines after all.
    pub(super) fn finish(&mut self, out: &mut Vec<Doc<'_>>) {
        if let Some((start, buf, _)) = self.open.take() {
            let reason = "the document starting here never closes (the input ends inside it)";
            self.recover(start, &buf, reason.into(), out);
        }
    }

    /// A multi-line document that did not parse. When later lines of it are whole JSON
    /// objects or arrays on their own, it was JSON Lines with a broken first line (a cut-off
    /// line opens a string or bracket that swallows the lines after it): that line is the bad
    /// one, and the rest are read again one line at a time. Otherwise the whole document is bad.
    fn recover(&mut self, start: u64, buf: &[u8], reason: String, out: &mut Vec<Doc<'_>>) {
        let lines: Vec<&[u8]> = buf
            .strip_suffix(b"\n")
            .unwrap_or(buf)
            .split(|&b| b == b'\n')
            .collect();
        let whole = |l: &&[u8]| {
            let t = l.trim_ascii();
            matches!(t.first(), Some(b'{' | b'['))
                && serde_json::from_slice::<serde::de::IgnoredAny>(t).is_ok()
        };
        if !lines.iter().skip(1).any(whole) {
            out.push(bad(start, reason, buf));
            return;
        }
        // No line opens a document while re-reading, so nothing recurses and each line is
        // re-read at most once.
        self.lines_only = true;
        out.push(parse(start, lines[0]));
        let mut again = Vec::new();
        for (i, l) in lines.iter().enumerate().skip(1) {
            self.line(start + i as u64, l, &mut again);
            for d in again.drain(..) {
                out.push(d.detach());
            }
        }
        self.lines_only = false;
    }
}

impl Doc<'_> {
    /// The same document, without its bytes (they are the framer's own, not the input's).
    pub(super) fn detach(self) -> Doc<'static> {
        match self {
            Doc::Value {
                line,
                value,
                lone_surrogates,
                ..
            } => Doc::Value {
                line,
                value,
                raw: None,
                lone_surrogates,
            },
            Doc::Bad { line, reason, text } => Doc::Bad { line, reason, text },
        }
    }
}

/// A document built from several lines (its bytes are not one line of the input).
fn parse(line: u64, bytes: &[u8]) -> Doc<'static> {
    match crate::json::from_slice_lenient(bytes) {
        Ok(read) => Doc::Value {
            line,
            value: read.value,
            raw: None,
            lone_surrogates: read.lone_surrogates,
        },
        Err(e) => bad(line, e.to_string(), bytes),
    }
}

fn bad(line: u64, reason: String, bytes: &[u8]) -> Doc<'static> {
    let mut end = bytes.len().min(CANDIDATE_BYTES);
    while end < bytes.len() && end > 0 && (bytes[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    Doc::Bad {
        line,
        reason,
        text: String::from_utf8_lossy(&bytes[..end]).trim_end().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(input: &str) -> Vec<String> {
        let mut d = Documents::new(1 << 20);
        let mut out = Vec::new();
        for (i, l) in input.split('\n').enumerate() {
            d.line(i as u64 + 1, l.as_bytes(), &mut out);
        }
        d.finish(&mut out);
        out.into_iter()
            .map(|d| match d {
                Doc::Value { line, value, .. } => format!("{line}:{value}"),
                Doc::Bad { line, .. } => format!("{line}:bad"),
            })
            .collect()
    }

    #[test]
    fn a_cut_off_line_does_not_swallow_the_lines_after_it() {
        let got = frame("{\"a\":1}\n{\"b\": \"cut\n{\"c\":3}\n[4]\n7");
        assert_eq!(got, ["1:{\"a\":1}", "2:bad", "3:{\"c\":3}", "4:[4]", "5:7"]);
        // When the swallowed lines hold no whole object or array, the region is one bad
        // document, and what follows is read as usual (here a pretty document).
        let got = frame("[\"cut\n{\"c\":3}\"]\n{\"d\":\n5}\n\n{\n\"e\": 6\n}");
        assert_eq!(got, ["1:bad", "3:{\"d\":5}", "6:{\"e\":6}"]);
        // A broken pretty document stays one bad document.
        assert_eq!(frame("{\n  \"a\": 1,\n}\n2"), ["1:bad", "4:2"]);
    }

    #[test]
    fn scalars_lines_and_pretty_documents() {
        assert_eq!(
            frame("1\n\"a\"\nnull\n\n{\"a\":1}\n[\n  1,\n  \"]\"\n]\nnope\n{\"open\":"),
            [
                "1:1",
                "2:\"a\"",
                "3:null",
                "5:{\"a\":1}",
                "6:[1,\"]\"]",
                "10:bad",
                "11:bad"
            ]
        );
    }
}
