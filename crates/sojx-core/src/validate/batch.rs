//! The lines of one read, copied out of the read buffer, and what validating them gave: the
//! unit of work of both the serial and the parallel path.

use std::io;

use crate::envelope::Envelope;
use crate::input::Piece;
use crate::schema::Schema;

use super::frame::{Doc, Documents};
use super::render::{Clock, Template};
use super::{Out, envelope_of};

/// Lines, in order.
#[derive(Debug, Default)]
pub(super) struct Batch {
    bytes: Vec<u8>,
    lines: Vec<Line>,
}

#[derive(Debug)]
enum Line {
    Text {
        no: u64,
        start: usize,
        end: usize,
    },
    TooLong {
        no: u64,
    },
    /// The input is UTF-16 (told on its first line; nothing after it is kept).
    Utf16 {
        how: &'static str,
    },
}

impl Batch {
    pub(super) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// The most room a batch's bytes, or its envelopes, reserve ahead: a few reads' worth (a batch
/// is the lines of one read, 64 KiB, and a long line's). A batch with a long line grows as
/// before, and no later batch keeps its size.
const MAX_ROOM: usize = 4 * crate::input::CHUNK;

/// Collects the pieces the read loop hands out into batches.
#[derive(Debug, Default)]
pub(super) struct Collect {
    batch: Batch,
    utf16: bool,
}

impl Collect {
    pub(super) fn take(&mut self, piece: Piece<'_>) {
        if self.utf16 {
            return;
        }
        let line = match piece {
            Piece::Line { no: 1, bytes } if let Some(how) = crate::framing::utf16(bytes) => {
                self.utf16 = true;
                Line::Utf16 { how }
            }
            Piece::Line { no, bytes } => {
                let start = self.batch.bytes.len();
                self.batch.bytes.extend_from_slice(bytes);
                Line::Text {
                    no,
                    start,
                    end: self.batch.bytes.len(),
                }
            }
            Piece::TooLong { no } => Line::TooLong { no },
        };
        self.batch.lines.push(line);
    }

    /// How many lines are collected.
    pub(super) fn lines(&self) -> usize {
        self.batch.lines.len()
    }

    /// The lines collected so far; collecting starts again.
    pub(super) fn batch(&mut self) -> Batch {
        if self.batch.is_empty() {
            // Nothing collected: the room stays.
            return Batch::default();
        }
        // The next batch starts with this one's room: a batch is the lines of one read, so the
        // next is about as long, and its bytes are not copied over and over as they grow.
        let room = Batch {
            bytes: Vec::with_capacity(self.batch.bytes.len().min(MAX_ROOM)),
            lines: Vec::with_capacity(self.batch.lines.len()),
        };
        std::mem::replace(&mut self.batch, room)
    }
}

/// What validating a batch gave, in order.
#[derive(Debug)]
pub(super) enum Done {
    /// The envelopes of `docs` valid documents, written (empty with `-q`).
    Valid { bytes: Vec<u8>, docs: u64 },
    /// Boxed: a batch holds many, mostly [`Done::Valid`].
    Envelope(Box<Envelope>),
}

/// How the envelopes are written.
#[derive(Debug)]
pub(super) struct Work<'a> {
    pub(super) name: &'a str,
    pub(super) schema: &'a Schema,
    /// The valid documents' envelopes are written here as bytes (compact JSON, or nothing with
    /// `-q`); `None`: every document gets an [`Envelope`].
    pub(super) fast: Option<(Template, bool)>,
    pub(super) max_line_bytes: usize,
}

impl Work<'_> {
    /// Frame the lines of `batch` numbered `from` on with `docs`, and validate the documents
    /// they complete into `out`.
    pub(super) fn frame(
        &self,
        batch: &Batch,
        from: u64,
        docs: &mut Documents,
        clock: &mut Clock,
        out: &mut Vec<Done>,
    ) {
        let mut framed = Vec::new();
        // What the batch's envelopes take when all are valid: the first run of valid documents
        // reserves it, so that its bytes are not copied over and over as they grow.
        let mut reserve = match &self.fast {
            Some((template, false)) => {
                (batch.bytes.len() + batch.lines.len() * template.overhead()).min(MAX_ROOM)
            }
            _ => 0,
        };
        for line in &batch.lines {
            match *line {
                Line::Text { no, start, end } if no >= from => {
                    let bytes = &batch.bytes[start..end];
                    if !self.plain_valid(no, bytes, docs, clock, (out, &mut reserve)) {
                        docs.line(no, bytes, &mut framed);
                    }
                }
                Line::TooLong { no } if no >= from => docs.too_long(no, &mut framed),
                Line::Utf16 { how } => framed.push(Doc::Bad {
                    line: 1,
                    reason: format!(
                        "the input is {how}; sojx reads UTF-8 (convert it first: `iconv -f UTF-16 -t UTF-8 FILE`)"
                    ),
                    text: String::new(),
                }),
                _ => {}
            }
            for doc in framed.drain(..) {
                self.judge(doc, clock, (out, &mut reserve));
            }
        }
    }

    /// The input ended: what a document still open gives.
    pub(super) fn finish(&self, docs: &mut Documents, clock: &mut Clock, out: &mut Vec<Done>) {
        let mut framed = Vec::new();
        docs.finish(&mut framed);
        for doc in framed {
            self.judge(doc, clock, (out, &mut 0));
        }
    }

    /// Whether the line `no` is one valid document spelled as serde_json spells it, told and
    /// written without building its `Value` (then its envelope is in `out`).
    fn plain_valid(
        &self,
        no: u64,
        bytes: &[u8],
        docs: &mut Documents,
        clock: &mut Clock,
        (out, reserve): (&mut Vec<Done>, &mut usize),
    ) -> bool {
        let Some((template, quiet)) = &self.fast else {
            return false;
        };
        if !self.schema.reads_tape() {
            return false;
        }
        let Some((doc, raw)) = docs.single(bytes) else {
            return false;
        };
        if !doc.plain || self.schema.is_valid_doc(&doc) != Some(true) {
            return false;
        }
        let (bytes, count) = valid_run(out, reserve);
        if !quiet {
            template.write_plain(clock, no, raw, bytes);
        }
        *count += 1;
        true
    }

    /// Validate `doc` into `out`; a new run of valid documents reserves `reserve` bytes (then
    /// none).
    fn judge(&self, doc: Doc<'_>, clock: &mut Clock, (out, reserve): (&mut Vec<Done>, &mut usize)) {
        match doc {
            Doc::Value {
                line,
                value,
                raw,
                lone_surrogates: false,
            } if let Some((template, quiet)) = &self.fast
                && self.schema.is_valid(&value) =>
            {
                let (bytes, count) = valid_run(out, reserve);
                if !quiet {
                    template.write(clock, line, &value, raw, bytes);
                }
                *count += 1;
            }
            doc => out.push(Done::Envelope(Box::new(envelope_of(
                self.name,
                self.schema,
                doc,
            )))),
        }
    }
}

/// The run of valid documents' envelopes at the end of `out` (a new one when the last is an
/// envelope, with room for `reserve` bytes, which is then spent): its bytes and its count.
fn valid_run<'a>(out: &'a mut Vec<Done>, reserve: &mut usize) -> (&'a mut Vec<u8>, &'a mut u64) {
    if !matches!(out.last(), Some(Done::Valid { .. })) {
        out.push(Done::Valid {
            bytes: Vec::with_capacity(std::mem::take(reserve)),
            docs: 0,
        });
    }
    match out.last_mut() {
        Some(Done::Valid { bytes, docs }) => (bytes, docs),
        _ => unreachable!("a valid run was just pushed"),
    }
}

/// Hand `done` to `out` in order, counting the documents, then let `out` flush: everything read
/// so far is out.
pub(super) fn deliver(done: &mut Vec<Done>, out: &mut dyn Out, count: &mut u64) -> io::Result<()> {
    for d in done.drain(..) {
        match d {
            Done::Valid { bytes, docs } => {
                *count += docs;
                out.valid(&bytes, docs)?;
            }
            Done::Envelope(env) => {
                *count += 1;
                out.envelope(*env)?;
            }
        }
    }
    out.flush()
}
