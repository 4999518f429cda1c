//! Reading one input: chunks (in place, or split ahead on a second thread) → lines → the
//! framer → the router, with `--tee`, `--timeout` and `--activity` on the way.

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::activity::Activity;
use crate::error::{ErrorKind, Failure};
use crate::framing::Framer;
use crate::input::LineSplitter;
use crate::input::{FactsPolicy, LinePump, Next, NextBatch, Pump, READ_AHEAD_MIN};
use crate::producer::{self, Extractor, Outcome, Producer, Verdict, Warning};

use super::route::{Router, feed_piece};
use super::{Live, Options, ReadAhead, Stopped};

/// How one input is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ahead {
    /// Read and split in the pipeline's thread.
    Off,
    /// Read, split and pre-scan on a second thread, sharing the scan with the pipeline so
    /// that neither thread waits for the other.
    Balanced,
    /// Pre-scan every line on the second thread (`SOJX_READ_AHEAD=1`, for tests that compare
    /// the ways of reading).
    EveryLine,
}

impl Ahead {
    /// For a file of `size` bytes (`None`: a pipe), as `plan` says.
    pub(super) fn choose(plan: ReadAhead, size: Option<u64>) -> Self {
        match plan {
            ReadAhead::Never => Self::Off,
            ReadAhead::EveryLine => Self::EveryLine,
            ReadAhead::Auto if size.is_none_or(|n| n >= READ_AHEAD_MIN) => Self::Balanced,
            ReadAhead::Auto => Self::Off,
        }
    }
}

/// Read a whole input into an outcome. Errors are read failures.
pub fn read(mut reader: impl Read, opts: &Options<'_>) -> Result<(Outcome, Vec<Warning>), Failure> {
    let mut reading = Reading::new(opts);
    let mut buf = vec![0u8; crate::input::CHUNK];
    loop {
        match crate::input::read_some(&mut reader, &mut buf) {
            Ok(0) => return Ok(reading.finish()),
            Ok(n) => reading.push(&buf[..n]),
            Err(e) => return Err(crate::input::read_failure(&e)),
        }
    }
}

/// [`read`] with live side effects; a timeout stops reading with what was seen so far.
/// `ahead`: how the input is read (read ahead only with the fast path, which it speeds up);
/// `size`: the input's size when known (it sets the size of the reads).
pub(super) fn read_live(
    mut reader: Box<dyn Read + Send>,
    size: Option<u64>,
    opts: &Options<'_>,
    live: &mut Live<'_>,
    ahead: Ahead,
) -> Result<(Outcome, Vec<Warning>), Stopped> {
    // Reading, and the --activity writes made while reading, must end by the deadline even
    // when stderr blocks; what follows (validation, --assert) has its own budgets.
    let _watchdog = crate::input::Watchdog::arm(live.timeout);
    let mut reading = Reading::new(opts);
    reading.router.activity = live.activity.is_some();
    if ahead != Ahead::Off && reading.router.fast_path {
        let facts = FactsPolicy {
            on: Arc::new(AtomicBool::new(true)),
            balanced: ahead == Ahead::Balanced,
        };
        let max = opts.max_line_bytes;
        match LinePump::new(
            reader,
            max,
            facts.clone(),
            live.timeout,
            live.tee.as_deref_mut(),
        ) {
            Ok(pump) => {
                return read_ahead(reading, pump, &facts.on, live.timeout, &mut live.activity);
            }
            // No thread could be started: read in place.
            Err(r) => reader = r,
        }
    }
    let mut pump = Pump::new(reader, size, live.timeout, live.tee.as_deref_mut());
    loop {
        let failure = match pump.next_chunk() {
            Next::Data(bytes) => {
                reading.push(bytes);
                report(&mut reading.router.events, &mut live.activity);
                continue;
            }
            Next::End => break,
            Next::Failed(f) => *f,
            Next::TimedOut => {
                let lines = reading.splitter.lines();
                timed_out(&reading, pump.bytes, lines, live.timeout)
            }
        };
        return Err(reading.stopped(failure));
    }
    reading.end_of_input();
    report(&mut reading.router.events, &mut live.activity);
    Ok(reading.finish())
}

/// Hand the `--activity` events gathered so far to the sink.
fn report(events: &mut Vec<Activity>, sink: &mut Option<&mut dyn FnMut(Activity)>) {
    if let Some(sink) = sink {
        for a in events.drain(..) {
            sink(a);
        }
    }
}

/// [`read_live`] with the lines split on a second thread ([`LinePump`]); `facts_on` is the
/// thread's switch for computing [`LineFacts`](crate::producer::LineFacts); `timeout` is the pump's, for the report.
fn read_ahead(
    mut reading: Reading<'_>,
    mut pump: LinePump<'_>,
    facts_on: &AtomicBool,
    timeout: Option<Duration>,
    activity: &mut Option<&mut dyn FnMut(Activity)>,
) -> Result<(Outcome, Vec<Warning>), Stopped> {
    let max = reading.opts.max_line_bytes;
    loop {
        let failure = match pump.next_batch() {
            NextBatch::Lines(batch) => {
                let Reading { framer, router, .. } = &mut reading;
                for (piece, facts) in batch.pieces() {
                    feed_piece(piece, facts, framer, router, max);
                }
                // Facts only help an extractor that reads them; stop computing them otherwise.
                if router
                    .extractor
                    .as_ref()
                    .is_some_and(|ex| !ex.reads_facts())
                {
                    facts_on.store(false, Ordering::Relaxed);
                }
                report(&mut reading.router.events, activity);
                continue;
            }
            NextBatch::End => break,
            NextBatch::Failed(f) => *f,
            NextBatch::TimedOut => timed_out(&reading, pump.bytes, pump.lines, timeout),
        };
        return Err(reading.stopped(failure));
    }
    reading.end_of_input();
    report(&mut reading.router.events, activity);
    Ok(reading.finish())
}

/// The `timeout` failure, with what was seen so far in `details`.
fn timed_out(reading: &Reading<'_>, bytes: u64, lines: u64, timeout: Option<Duration>) -> Failure {
    let secs = timeout.map_or(0.0, |t| t.as_secs_f64());
    let producer = reading.router.producer();
    let mut details = Map::new();
    details.insert("timeout_seconds".into(), json!(secs));
    details.insert("bytes".into(), json!(bytes));
    details.insert("lines".into(), json!(lines));
    details.insert("values".into(), json!(reading.router.values));
    details.insert("producer".into(), json!(producer.map(Producer::id)));
    Failure::new(
        ErrorKind::Timeout,
        "read",
        format!("the input did not end within {secs} s ({lines} line(s), {bytes} byte(s) read)"),
    )
    .hint("the agent may be stuck; raise --timeout if it is just slow")
    .details(Value::Object(details))
}

/// The streaming state of one input: splitter, framer and router. Feed it bytes as they arrive.
pub struct Reading<'o> {
    opts: &'o Options<'o>,
    splitter: LineSplitter,
    framer: Framer,
    router: Router,
}

impl<'o> Reading<'o> {
    pub fn new(opts: &'o Options<'o>) -> Self {
        let forced = Producer::forced(opts.from);
        let mut framer = Framer::new(opts.max_line_bytes);
        // Text glued to a producer's event is noise around that event; for `--from json` and
        // `--from text` the raw input is the answer, and nothing is dropped from it.
        if !matches!(forced, Some(Producer::Json | Producer::Text)) {
            framer = framer.salvage(|v| producer::detect_output(v).is_some());
        }
        Self {
            opts,
            splitter: LineSplitter::new(opts.max_line_bytes),
            framer,
            router: Router::new(forced, opts.max_answer_bytes, opts.fast_path),
        }
    }

    /// Feed bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        let max = self.opts.max_line_bytes;
        let Self {
            splitter,
            framer,
            router,
            ..
        } = self;
        splitter.push(bytes, &mut |piece| {
            feed_piece(piece, None, framer, router, max)
        });
    }

    /// Reading stopped early with `failure`.
    fn stopped(&self, failure: Failure) -> Stopped {
        Stopped {
            failure,
            producer: self.router.producer(),
        }
    }

    /// The extractor in use, once the producer is known.
    pub fn extractor(&self) -> Option<&dyn Extractor> {
        self.router.extractor.as_deref()
    }

    /// The input ended: hand out its last line (one without a newline) and close what is
    /// open. [`Reading::finish`] does it too; calling it before lets the caller report the
    /// `--activity` events of that last line.
    pub fn end_of_input(&mut self) {
        let max = self.opts.max_line_bytes;
        let Self {
            splitter,
            framer,
            router,
            ..
        } = self;
        splitter.finish(&mut |piece| feed_piece(piece, None, framer, router, max));
        framer.finish();
    }

    /// End of input: decide.
    pub fn finish(mut self) -> (Outcome, Vec<Warning>) {
        self.end_of_input();
        let opts = self.opts;
        let stats = self.framer.stats.clone();
        let mut warnings = Vec::new();
        if stats.too_long > 0 {
            warnings.push(Warning::new(
                "line_too_long",
                format!(
                    "{} line(s) longer than --max-line-bytes {} were skipped",
                    stats.too_long, opts.max_line_bytes
                ),
            ));
        }
        if stats.too_deep > 0 {
            warnings.push(Warning::new(
                "too_deep",
                format!(
                    "{} JSON value(s) nest deeper than {} levels, sojx's fixed limit, and were read as text",
                    stats.too_deep,
                    crate::framing::MAX_DEPTH
                ),
            ));
        }
        warnings.extend(glued_warnings(&self.framer));
        let outcome = self.router.finish(&mut self.framer, &stats, opts);
        // The answer's own line held a string cut inside an emoji (only that line: the fast
        // path never parses lines that cannot matter, so others are not known).
        let answer_line = match &outcome.verdict {
            Verdict::Value { line, .. }
            | Verdict::ValueText { line, .. }
            | Verdict::Text { line, .. } => *line,
            Verdict::Failed(_) | Verdict::Nothing { .. } => None,
        };
        if let Some(l) = answer_line.filter(|l| stats.surrogate_lines.contains(l)) {
            warnings.push(Warning::new(
                "lone_surrogate",
                format!(
                    "line {l} holds a lone UTF-16 surrogate escape (a string cut inside an emoji, as \
                     Node's JSON.stringify writes it); it was read as U+FFFD"
                ),
            ));
        }
        (outcome, warnings)
    }
}

/// One warning per line whose glued text was dropped (the first few), and one for the rest.
fn glued_warnings(framer: &Framer) -> Vec<Warning> {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut out: Vec<Warning> = framer
        .glued
        .iter()
        .map(|g| {
            let what = match (g.before.is_empty(), g.after.is_empty()) {
                (false, false) => format!(
                    "around the JSON value: {} before it, {} after it",
                    quote(&g.before),
                    quote(&g.after)
                ),
                (false, true) => format!("before the JSON value: {}", quote(&g.before)),
                _ => format!("after the JSON value: {}", quote(&g.after)),
            };
            Warning::new(
                "glued_text",
                format!("line {}: dropped the text {what}", g.line),
            )
        })
        .collect();
    let rest = framer.glued_lines - framer.glued.len() as u64;
    if rest > 0 {
        out.push(Warning::new(
            "glued_text",
            format!("text glued to JSON values was dropped on {rest} more line(s)"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options<'static> {
        Options {
            max_line_bytes: 1 << 20,
            max_candidates: 100,
            ..Options::default()
        }
    }

    #[test]
    fn a_cut_off_result_document_is_truncated_for_its_producer() {
        let o = opts();
        let (out, _) = read(
            &b"{\n  \"type\": \"result\",\n  \"subtype\": \"success\",\n  \"result\": \"ha"[..],
            &o,
        )
        .unwrap();
        assert_eq!(out.producer, Producer::ClaudeCode);
        assert!(matches!(out.verdict, Verdict::Failed(ref f) if f.kind == ErrorKind::Truncated));
        // A cut-off answer that is nobody's document stays text (json_invalid later).
        let (out, _) = read(&b"{\"verdict\": \"PA"[..], &o).unwrap();
        assert_eq!(out.producer, Producer::Text);
    }
}
