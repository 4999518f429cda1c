//! `sojx extract`: one input → framed items → producer → verdict → candidate → validation →
//! envelope. Nothing here prints; the caller renders the envelope.
//!
//! - `read`: the input read in chunks (or split ahead on a second thread) into lines,
//!   framed, with `--tee`, `--timeout` and `--activity` on the way;
//! - `route`: producer detection, the fast path's choice, items to the extractor;
//! - `outcome`: what an input no extractor decided comes to (empty, cut off, one document, text);
//! - `decide`: no I/O; the outcome in, the envelope out;
//! - `fallback` and `candidate`: JSON from the answer text, and the candidate chosen;
//! - `calls`: the answer among several tool calls of one turn.

mod calls;
mod candidate;
mod decide;
mod fallback;
mod outcome;
mod read;
mod route;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::Value;

use crate::activity::Activity;
use crate::envelope::{self, Envelope, Parts};
use crate::error::Failure;
use crate::input::Source;
use crate::input::Tee;
use crate::jq::Assertions;
use crate::names::Command;
use crate::producer::{Outcome, Producer, Registry};
use crate::schema::Schema;
use crate::warning::Warning;

pub use decide::decide;
pub use read::{Reading, read};

pub use crate::input::ReadAhead;

use read::read_live;

/// Options of one `extract` run, shared by every input.
#[derive(Debug, Clone)]
pub struct Options<'a> {
    pub from: Option<Producer>,
    /// Every producer the command knows: detection asks it (the built-in ones, and the
    /// producer files a user loaded).
    pub producers: &'a Registry,
    pub strict: bool,
    pub repair: bool,
    /// `--coerce`: a string where the schema asks for a boolean or a number, and that is
    /// exactly one, converted before validation (needs `schema`).
    pub coerce: bool,
    pub max_line_bytes: usize,
    pub max_candidates: usize,
    /// `--max-answer-bytes`: most answer bytes accumulated from deltas (OpenAI chat, Ollama,
    /// Anthropic, Gemini CLI, opencode streams).
    pub max_answer_bytes: usize,
    pub schema: Option<&'a Schema>,
    /// `--markers`: read legacy markers when the answer text holds no JSON value.
    pub markers: bool,
    /// `--handoff`: the legacy escalation file's content, added to marker data.
    pub handoff: Option<&'a Value>,
    /// `--assert`: checks on `data` after validation.
    pub assertions: Option<&'a Assertions>,
    /// Whether an input is split into lines on a second thread.
    pub read_ahead: ReadAhead,
    /// The fast path: lines the producer's extractor says cannot matter are not parsed
    /// (`SOJX_NO_FAST_PATH` turns it off, to compare it with the full parse).
    pub fast_path: bool,
}

impl Default for Options<'_> {
    /// The command line's defaults: auto detection, no schema, the default limits.
    fn default() -> Self {
        Self {
            from: None,
            producers: &crate::producer::file::BUILT_IN,
            strict: false,
            repair: false,
            coerce: false,
            max_line_bytes: 64 << 20,
            max_candidates: 10_000,
            max_answer_bytes: 64 << 20,
            schema: None,
            markers: false,
            handoff: None,
            assertions: None,
            read_ahead: ReadAhead::Auto,
            fast_path: true,
        }
    }
}

/// Extract from one input and build its envelope.
pub fn run(source: &dyn Source, opts: &Options<'_>) -> Envelope {
    run_live(source, opts, &mut Live::default())
}

/// What happens while an input is read, besides extraction: `--tee`, `--timeout`, `--activity`.
#[derive(Default)]
pub struct Live<'a> {
    pub tee: Option<&'a mut Tee>,
    pub timeout: Option<Duration>,
    /// Receives one line per event worth showing, as soon as its input line is read.
    pub activity: Option<&'a mut dyn FnMut(Activity)>,
    /// What to do when the read outlives `timeout` by `input::WATCHDOG_GRACE`, blocked in a
    /// write the read loop cannot interrupt (`--activity` into a full pipe): the command line
    /// ends the process. None: no watchdog.
    pub expired: Option<fn()>,
}

/// [`run`] with live side effects.
pub fn run_live(source: &dyn Source, opts: &Options<'_>, live: &mut Live<'_>) -> Envelope {
    let name = source.name();
    let reader = match source.open_within(live.timeout) {
        Ok(r) => r,
        Err(f) => return envelope::failure(Command::Extract, &name, f, Parts::default()),
    };
    from_reader(&name, reader, source.size(), opts, live, None)
}

/// [`run_live`] over a stream that is not a [`Source`]: `run` reads the agent's stdout, a
/// pipe, named `name`.
pub fn run_reader(
    name: &str,
    reader: Box<dyn std::io::Read + Send>,
    opts: &Options<'_>,
    live: &mut Live<'_>,
) -> Envelope {
    from_reader(name, reader, None, opts, live, None)
}

/// [`run_reader`], setting `past` as soon as the extractor went past a bound on what it keeps
/// (`--max-answer-bytes`, a count): from then on nothing more read can change the outcome, so
/// that the caller can stop what it is feeding the reader (`run --acp` cancels the turn).
pub fn run_reader_watched(
    name: &str,
    reader: Box<dyn std::io::Read + Send>,
    opts: &Options<'_>,
    live: &mut Live<'_>,
    past: &AtomicBool,
) -> Envelope {
    from_reader(name, reader, None, opts, live, Some(past))
}

/// Read `reader` (of `size` bytes, when known) and decide.
fn from_reader(
    name: &str,
    reader: Box<dyn std::io::Read + Send>,
    size: Option<u64>,
    opts: &Options<'_>,
    live: &mut Live<'_>,
    past: Option<&AtomicBool>,
) -> Envelope {
    match read_live(reader, size, opts, live, past) {
        Ok(read) => conclude(name, read, opts),
        Err(stopped) => stopped_early(name, stopped, opts),
    }
}

/// The envelope of an input read to its end (the outcome and reading's warnings): what the
/// schema earns comes first, on every envelope validated against it.
pub fn conclude(name: &str, read: (Outcome, Vec<Warning>), opts: &Options<'_>) -> Envelope {
    let (outcome, read) = read;
    let mut warnings = opts.schema.map(|s| s.warnings.clone()).unwrap_or_default();
    warnings.extend(read);
    decide(name, outcome, warnings, opts)
}

/// The envelope of an input whose reading `stopped` early. The target is the input unless the
/// failure names another (the tee file).
pub fn stopped_early(name: &str, stopped: Stopped, opts: &Options<'_>) -> Envelope {
    let parts = Parts {
        producer: stopped.producer,
        warnings: opts.schema.map(|s| s.warnings.clone()).unwrap_or_default(),
        ..Parts::default()
    };
    envelope::failure(Command::Extract, name, stopped.failure, parts)
}

/// Reading ended before the input did: why, and the producer if it was known by then.
#[derive(Debug)]
pub struct Stopped {
    pub failure: Failure,
    pub producer: Option<Producer>,
}

#[cfg(test)]
pub(super) mod tests {
    use crate::schema::Schema;

    /// `{"verdict": "PASS" | "FAIL"}`, required, as `--schema` inline JSON.
    const SCHEMA: &str = r#"{"type":"object","required":["verdict"],"properties":{"verdict":{"enum":["PASS","FAIL"]}}}"#;

    /// [`SCHEMA`] loaded as `--schema SCHEMA` loads it.
    pub(in crate::extract) fn schema() -> Schema {
        let settings = crate::schema::Settings {
            schema: Some(SCHEMA.to_owned()),
            ..crate::schema::Settings::default()
        };
        crate::schema::load(&settings)
            .expect("the schema compiles")
            .expect("a schema was given")
    }
}
