//! `sojx validate`: plain JSON documents, or JSON Lines (one document per line), validated
//! against the schema; one envelope per document, streamed as they are read.
//!
//! Framing here is plainer than `extract`'s: any JSON value is a document (scalars too), a line
//! opening an object or array that does not close on it starts a multi-line (pretty-printed)
//! document, and a line that is not JSON is a `parse` envelope: the stream goes on.
//!
//! The unit of work is the lines of one read (`batch`): framed into documents (`frame`),
//! validated, and turned into envelopes, a valid document's written straight into bytes
//! (`render`). A regular file of `PARALLEL_FROM` bytes or more is validated on several
//! cores, in input order (`parallel`); anything else, in the reading thread.

use std::io;
use std::ops::ControlFlow;
use std::time::Duration;

use serde_json::Value;

use crate::details::{Details, Timeout, TimeoutRead};
use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure, Operation};
use crate::input::{LineSink, Piece, ReadAhead, ReadEnd, ReadPlan, Source, Tee, read_lines};
use crate::names::Command;
use crate::schema::Schema;
use crate::warning::Warning;

mod batch;
mod frame;
mod parallel;
mod render;

use batch::{Collect, Done, Work, deliver};
use frame::{Doc, Documents};
use parallel::Ran;
use render::{Clock, Template};

/// Most worker threads, whatever `--jobs` asks for.
const MAX_JOBS: usize = 256;

/// The smallest regular file validated on several cores (below it, threads cost more than they
/// save).
const PARALLEL_FROM: u64 = 1 << 20;

/// Where the envelopes go, in input order.
pub trait Out {
    /// The envelopes of `docs` valid documents, already written as JSON lines (`rendered` is
    /// empty when nothing is printed for them: `-q`).
    fn valid(&mut self, rendered: &[u8], docs: u64) -> io::Result<()>;
    /// Any other envelope.
    fn envelope(&mut self, env: Envelope) -> io::Result<()>;
    /// The end of a read: everything handed over may be written out.
    fn flush(&mut self) -> io::Result<()>;
}

/// How `validate` runs.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub max_line_bytes: usize,
    pub timeout: Option<Duration>,
    /// Worker threads for a large regular file (1: validate in the reading thread; `None`: one
    /// per core).
    pub jobs: Option<std::num::NonZeroUsize>,
    /// What a valid document's envelope becomes.
    pub valid: ValidDocs,
}

/// What a valid document's envelope becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidDocs {
    /// An [`Envelope`] handed over ([`Out::envelope`]), as every other document's is.
    Envelopes,
    /// Compact JSON written as bytes, without an [`Envelope`] ([`Out::valid`]).
    Compact,
    /// Counted only, nothing printed (`-q`; [`Out::valid`] with no bytes).
    Counted,
}

/// The read loop's sink when validating in the reading thread.
struct Serial<'w, 'o> {
    collect: Collect,
    docs: Documents,
    work: &'w Work<'w>,
    clock: Clock,
    done: Vec<Done>,
    out: &'o mut dyn Out,
    /// Documents handed over so far.
    count: u64,
    /// Why writing failed (reading stops).
    failed: Option<io::Error>,
}

impl Serial<'_, '_> {
    /// Validate the lines collected so far and hand over what they gave.
    fn validate(&mut self) -> io::Result<()> {
        let batch = self.collect.batch();
        self.work
            .frame(&batch, 0, &mut self.docs, &mut self.clock, &mut self.done);
        deliver(&mut self.done, self.out, &mut self.count)
    }
}

impl LineSink for Serial<'_, '_> {
    type Facts = ();

    fn line(&mut self, piece: Piece<'_>, _facts: Option<()>) {
        self.collect.take(piece);
    }

    fn read_done(&mut self) -> ControlFlow<()> {
        match self.validate() {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.failed = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}

/// Validate one input, with `--tee` and `--timeout`; `out` receives the envelopes in order.
pub fn run_live(
    source: &dyn Source,
    schema: &Schema,
    opts: Options,
    tee: Option<&mut Tee>,
    out: &mut dyn Out,
) -> io::Result<()> {
    let name = source.name();
    let fail = |out: &mut dyn Out, f| {
        out.envelope(envelope::failure(
            Command::Validate,
            &name,
            f,
            Parts::default(),
        ))
    };
    let reader = match source.open_within(opts.timeout) {
        Ok(r) => r,
        Err(f) => return fail(out, f),
    };
    let work = Work {
        name: &name,
        schema,
        fast: match opts.valid {
            // A lifted document is not the line as read.
            _ if schema.provider().is_some() => None,
            ValidDocs::Envelopes => None,
            ValidDocs::Compact => Some((Template::new(&name, schema), false)),
            ValidDocs::Counted => Some((Template::new(&name, schema), true)),
        },
        max_line_bytes: opts.max_line_bytes,
    };
    let size = source.size();
    let plan = ReadPlan {
        max_line: opts.max_line_bytes,
        size,
        timeout: opts.timeout,
        ahead: ReadAhead::Never,
    };
    let mut count = 0;
    let jobs = jobs_for(size, opts.jobs);
    let ran = if jobs > 1 {
        parallel::run(reader, plan, tee, &work, jobs, out, &mut count)?
    } else {
        Ran::NoThread(reader, tee)
    };
    let (ended, docs) = match ran {
        Ran::Read(ended, docs) => (ended, docs),
        Ran::NoThread(reader, tee) => {
            let (ended, docs) = serial(reader, plan, tee, &work, out, &mut count)?;
            (ended, Some(docs))
        }
    };
    let ControlFlow::Continue(read) = read_failure(ended, opts.timeout, count) else {
        // Writing an envelope failed (and said so).
        return Ok(());
    };
    if let Some(f) = read {
        return fail(out, f);
    }
    if let Some(mut docs) = docs {
        let mut done = Vec::new();
        work.finish(&mut docs, &mut Clock::default(), &mut done);
        deliver(&mut done, out, &mut count)?;
    }
    if count == 0 {
        fail(
            out,
            Failure::new(
                ErrorKind::EmptyInput,
                Operation::Read,
                "the input is empty: no JSON document to validate",
            )
            .retryable(false),
        )?;
    }
    Ok(())
}

/// The worker threads for an input of `size` bytes: the cores (or `--jobs`) are counted only
/// for a file that may use them.
fn jobs_for(size: Option<u64>, jobs: Option<std::num::NonZeroUsize>) -> usize {
    match size {
        Some(s) if s >= PARALLEL_FROM => jobs
            .map_or_else(crate::batch::cores, std::num::NonZeroUsize::get)
            .min(MAX_JOBS),
        _ => 1,
    }
}

/// Read and validate in the calling thread; `count` grows by the documents handed over. The
/// framer is returned with the lines after the last read's end still in it.
fn serial(
    reader: Box<dyn std::io::Read + Send>,
    plan: ReadPlan,
    tee: Option<&mut Tee>,
    work: &Work<'_>,
    out: &mut dyn Out,
    count: &mut u64,
) -> io::Result<(ReadEnd, Documents)> {
    let mut sink = Serial {
        collect: Collect::default(),
        docs: Documents::new(work.max_line_bytes),
        work,
        clock: Clock::default(),
        done: Vec::new(),
        out,
        count: 0,
        failed: None,
    };
    let ended = read_lines(reader, plan, tee, &mut sink);
    if let Some(e) = sink.failed {
        return Err(e);
    }
    // The lines after the last read's end (reading stopped in the middle of one).
    sink.validate()?;
    *count = sink.count;
    Ok((ended, sink.docs))
}

/// How reading ended, as the failure to report (none when the input ended); `Break` when
/// writing an envelope failed and reading stopped.
fn read_failure(
    ended: ReadEnd,
    timeout: Option<Duration>,
    count: u64,
) -> ControlFlow<(), Option<Failure>> {
    ControlFlow::Continue(match ended {
        ReadEnd::End => None,
        ReadEnd::Failed(f) => Some(*f),
        ReadEnd::TimedOut { bytes, lines } => {
            let secs = timeout.map_or(0.0, |t| t.as_secs_f64());
            Some(
                Failure::new(
                    ErrorKind::Timeout,
                    Operation::Read,
                    format!("the input did not end within {secs} s ({lines} line(s) read, {count} document(s) validated)"),
                )
                .hint("raise --timeout, or check what writes the input")
                .details(Details::Timeout(Timeout {
                    timeout_seconds: secs,
                    bytes,
                    lines,
                    read: TimeoutRead::Documents { documents: count },
                })),
            )
        }
        ReadEnd::Stopped => return ControlFlow::Break(()),
    })
}

fn envelope_of(name: &str, schema: &Schema, doc: Doc<'_>) -> Envelope {
    match doc {
        Doc::Value {
            line,
            value,
            lone_surrogates,
            ..
        } => {
            let mut warnings = schema.warnings.clone();
            if lone_surrogates {
                warnings.push(Warning::lone_surrogate(Some(line)));
            }
            document(name, schema, line, value, warnings)
        }
        Doc::Bad { line, reason, text } => {
            let mut f = Failure::new(
                ErrorKind::Parse,
                Operation::Parse,
                format!("line {line} is not JSON: {reason}"),
            )
            .target(format!("{name}:{line}"))
            .retryable(false)
            .hint("give one JSON document per line (JSON Lines), or one document per file");
            if !text.is_empty() {
                f = f.candidate(Value::String(text));
            }
            envelope::failure(
                Command::Validate,
                name,
                f,
                Parts {
                    source: Some(envelope::Source::document(line)),
                    ..Parts::default()
                },
            )
        }
    }
}

fn document(
    name: &str,
    schema: &Schema,
    line: u64,
    value: Value,
    warnings: Vec<Warning>,
) -> Envelope {
    let source = Some(envelope::Source::document(line));
    let violations = match schema.violations(&value) {
        Ok(v) => v,
        Err(f) => {
            return envelope::failure(
                Command::Validate,
                name,
                f,
                Parts {
                    source,
                    warnings,
                    ..Parts::default()
                },
            );
        }
    };
    if violations.is_empty() {
        let (value, lifted) = schema.lift(value);
        let mut warnings = warnings;
        warnings.extend(lifted);
        envelope::success(
            Command::Validate,
            name,
            value,
            Parts {
                source,
                warnings,
                validation: Some(schema.report(true)),
                ..Parts::default()
            },
        )
    } else {
        let f = schema
            .failure(violations, value)
            .target(format!("{name}:{line}"));
        envelope::failure(
            Command::Validate,
            name,
            f,
            Parts {
                source,
                warnings,
                validation: Some(schema.report(false)),
                ..Parts::default()
            },
        )
    }
}
