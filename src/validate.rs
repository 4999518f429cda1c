//! `sojx validate`: plain JSON documents, or JSON Lines (one document per line), validated
//! against the schema; one envelope per document, streamed as they are read.
//!
//! Framing here is plainer than `extract`'s: any JSON value is a document (scalars too), a line
//! opening an object or array that does not close on it starts a multi-line (pretty-printed)
//! document, and a line that is not JSON is a `parse` envelope: the stream goes on.

use std::io;
use std::ops::ControlFlow;
use std::time::Duration;

use serde_json::{Value, json};

use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure};
use crate::framing::DepthScan;
use crate::input::{Ahead, Ended, LineSink, Piece, Plan, Source, Tee, read_lines};
use crate::producer::LineFacts;
use crate::schema::Schema;

/// Longest text kept as the `candidate` of a `parse` envelope.
const CANDIDATE_BYTES: usize = 4096;

/// What one input line, or a multi-line document, turned into.
enum Doc {
    Value {
        line: u64,
        value: Value,
    },
    Bad {
        line: u64,
        reason: String,
        text: String,
    },
}

/// Lines → documents.
struct Documents {
    open: Option<(u64, Vec<u8>, DepthScan)>,
    max: usize,
    /// Re-reading the lines of a document that did not parse (see [`Documents::recover`]): a
    /// line that does not parse is a bad line, never the start of a multi-line document.
    lines_only: bool,
}

impl Documents {
    fn line(&mut self, no: u64, bytes: &[u8], out: &mut Vec<Doc>) {
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
        if let Ok(value) = serde_json::from_slice(t) {
            out.push(Doc::Value { line: no, value });
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
    fn too_long(&mut self, no: u64, out: &mut Vec<Doc>) {
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

    fn finish(&mut self, out: &mut Vec<Doc>) {
        if let Some((start, buf, _)) = self.open.take() {
            let reason = "the document starting here never closes (the input ends inside it)";
            self.recover(start, &buf, reason.into(), out);
        }
    }

    /// A multi-line document that did not parse. When later lines of it are whole JSON
    /// objects or arrays on their own, it was JSON Lines with a broken first line (a cut-off
    /// line opens a string or bracket that swallows the lines after it): that line is the bad
    /// one, and the rest are read again one line at a time. Otherwise the whole document is bad.
    fn recover(&mut self, start: u64, buf: &[u8], reason: String, out: &mut Vec<Doc>) {
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
        for (i, l) in lines.iter().enumerate().skip(1) {
            self.line(start + i as u64, l, out);
        }
        self.lines_only = false;
    }
}

fn parse(line: u64, bytes: &[u8]) -> Doc {
    match serde_json::from_slice(bytes) {
        Ok(value) => Doc::Value { line, value },
        Err(e) => bad(line, e.to_string(), bytes),
    }
}

fn bad(line: u64, reason: String, bytes: &[u8]) -> Doc {
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

/// Lines → documents → envelopes, emitted after each read.
struct Emit<'a> {
    name: &'a str,
    schema: &'a Schema,
    docs: Documents,
    pending: Vec<Doc>,
    /// Documents emitted so far.
    count: u64,
    out: &'a mut dyn FnMut(Envelope) -> io::Result<()>,
    /// Why emitting failed (reading stops).
    failed: Option<io::Error>,
    /// The input is UTF-16: told once, on its first line; the rest is not read as documents.
    utf16: bool,
}

impl Emit<'_> {
    /// Emit the documents framed so far.
    fn flush(&mut self) -> io::Result<()> {
        for d in self.pending.drain(..) {
            self.count += 1;
            (self.out)(envelope_of(self.name, self.schema, d))?;
        }
        Ok(())
    }
}

impl LineSink for Emit<'_> {
    fn line(&mut self, piece: Piece<'_>, _facts: Option<LineFacts>) {
        if self.utf16 {
            return;
        }
        match piece {
            Piece::Line { no: 1, bytes } if let Some(how) = crate::framing::utf16(bytes) => {
                self.utf16 = true;
                self.pending.push(Doc::Bad {
                    line: 1,
                    reason: format!(
                        "the input is {how}; sojx reads UTF-8 (convert it first: `iconv -f UTF-16 -t UTF-8 FILE`)"
                    ),
                    text: String::new(),
                });
            }
            Piece::Line { no, bytes } => self.docs.line(no, bytes, &mut self.pending),
            Piece::TooLong { no } => self.docs.too_long(no, &mut self.pending),
        }
    }

    fn read_done(&mut self) -> ControlFlow<()> {
        match self.flush() {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.failed = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}

/// Validate one input, with `--tee` and `--timeout`; `emit` receives each envelope in order.
pub(crate) fn run_live(
    source: &Source,
    schema: &Schema,
    max_line_bytes: usize,
    tee: Option<&mut Tee>,
    timeout: Option<Duration>,
    emit: &mut dyn FnMut(Envelope) -> io::Result<()>,
) -> io::Result<()> {
    let name = source.name();
    let reader = match source.open_within(timeout) {
        Ok(r) => r,
        Err(f) => return emit(envelope::failure("validate", &name, f, Parts::default())),
    };
    let mut sink = Emit {
        name: &name,
        schema,
        docs: Documents {
            open: None,
            max: max_line_bytes,
            lines_only: false,
        },
        pending: Vec::new(),
        count: 0,
        out: emit,
        utf16: false,
        failed: None,
    };
    let plan = Plan {
        max_line: max_line_bytes,
        size: source.size(),
        timeout,
        ahead: Ahead::Off,
    };
    let f = match read_lines(reader, plan, tee, &mut sink) {
        Ended::End => None,
        Ended::Failed(f) => Some(*f),
        Ended::TimedOut { bytes, lines } => {
            let (secs, count) = (timeout.map_or(0.0, |t| t.as_secs_f64()), sink.count);
            Some(
                Failure::new(
                    ErrorKind::Timeout,
                    "read",
                    format!("the input did not end within {secs} s ({lines} line(s) read, {count} document(s) validated)"),
                )
                .hint("raise --timeout, or check what writes the input")
                .details(json!({"timeout_seconds": secs, "bytes": bytes, "lines": lines, "documents": count})),
            )
        }
        // Writing an envelope failed.
        Ended::Stopped => return sink.failed.map_or(Ok(()), Err),
    };
    if let Some(f) = f {
        return (sink.out)(envelope::failure("validate", &name, f, Parts::default()));
    }
    sink.docs.finish(&mut sink.pending);
    sink.flush()?;
    let (count, emit) = (sink.count, sink.out);
    if count == 0 {
        emit(envelope::failure(
            "validate",
            &name,
            Failure::new(
                ErrorKind::EmptyInput,
                "read",
                "the input is empty: no JSON document to validate",
            )
            .retryable(false),
            Parts::default(),
        ))?;
    }
    Ok(())
}

fn envelope_of(name: &str, schema: &Schema, doc: Doc) -> Envelope {
    match doc {
        Doc::Value { line, value } => document(name, schema, line, value),
        Doc::Bad { line, reason, text } => {
            let mut f = Failure::new(
                ErrorKind::Parse,
                "parse",
                format!("line {line} is not JSON: {reason}"),
            )
            .target(format!("{name}:{line}"))
            .retryable(false)
            .hint("give one JSON document per line (JSON Lines), or one document per file");
            if !text.is_empty() {
                f = f.candidate(Value::String(text));
            }
            envelope::failure(
                "validate",
                name,
                f,
                Parts {
                    source: Some(json!({"kind": "document", "line": line})),
                    ..Parts::default()
                },
            )
        }
    }
}

fn document(name: &str, schema: &Schema, line: u64, value: Value) -> Envelope {
    let source = Some(json!({"kind": "document", "line": line}));
    let violations = match schema.violations(&value) {
        Ok(v) => v,
        Err(f) => {
            return envelope::failure(
                "validate",
                name,
                f,
                Parts {
                    source,
                    ..Parts::default()
                },
            );
        }
    };
    if violations.is_empty() {
        envelope::success(
            "validate",
            name,
            value,
            Parts {
                source,
                validation: Some(schema.report(true)),
                ..Parts::default()
            },
        )
    } else {
        let f = schema
            .failure(violations, value)
            .target(format!("{name}:{line}"));
        envelope::failure(
            "validate",
            name,
            f,
            Parts {
                source,
                validation: Some(schema.report(false)),
                ..Parts::default()
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(input: &str) -> Vec<String> {
        let mut d = Documents {
            open: None,
            max: 1 << 20,
            lines_only: false,
        };
        let mut out = Vec::new();
        for (i, l) in input.split('\n').enumerate() {
            d.line(i as u64 + 1, l.as_bytes(), &mut out);
        }
        d.finish(&mut out);
        out.into_iter()
            .map(|d| match d {
                Doc::Value { line, value } => format!("{line}:{value}"),
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
