//! Reading one input: chunks (in place, or split ahead on a second thread) → lines → the
//! framer → the router, with `--tee`, `--timeout` and `--activity` on the way.

use std::io::Read;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::activity::Activity;
use crate::details::{self, Details, TimeoutRead};
use crate::error::{ErrorKind, Failure, Operation};
use crate::framing::Framer;
use crate::input::{LineSink, Piece, PreScan, ReadAhead, ReadEnd, ReadPlan, read_lines};
use crate::producer::{self, LastError, LineFacts, Outcome, Producer, Verdict};
use crate::warning::{Warning, WarningKind};

use super::route::{Router, feed_piece};
use super::{Live, Options, Stopped};

/// Read a whole input into an outcome. Errors are read failures.
pub fn read(
    reader: impl Read + Send + 'static,
    opts: &Options<'_>,
) -> Result<(Outcome, Vec<Warning>), Failure> {
    let mut reading = Reading::new(opts);
    let plan = ReadPlan {
        max_line: opts.max_line_bytes,
        size: None,
        timeout: None,
        ahead: ReadAhead::Never,
    };
    match read_lines(Box::new(reader), plan, None, &mut reading) {
        ReadEnd::End => Ok(reading.finish()),
        ReadEnd::Failed(f) => Err(*f),
        // Neither happens without a deadline and with a sink that never stops; named anyway.
        other => Err(other.unexpected()),
    }
}

/// [`read`] with live side effects; a timeout stops reading with what was seen so far.
/// `size`: the input's size when known (it sets the size of the reads, and whether the input
/// is read ahead: as `opts.read_ahead` says, and only with the fast path, which it speeds up).
pub(super) fn read_live(
    reader: Box<dyn Read + Send>,
    size: Option<u64>,
    opts: &Options<'_>,
    live: &mut Live<'_>,
    past: Option<&AtomicBool>,
) -> Result<(Outcome, Vec<Warning>), Stopped> {
    // Reading, and the --activity writes made while reading, must end by the deadline even
    // when stderr blocks; what follows (validation, --assert) has its own budgets.
    let _watchdog = live
        .expired
        .map(|expired| crate::input::Watchdog::arm(live.timeout, expired));
    let mut reading = Reading::new(opts);
    reading.router.activity = live.activity.is_some();
    let plan = ReadPlan {
        max_line: opts.max_line_bytes,
        size,
        timeout: live.timeout,
        ahead: if reading.router.fast_path {
            opts.read_ahead
        } else {
            ReadAhead::Never
        },
    };
    let mut sink = Reported {
        reading: &mut reading,
        activity: &mut live.activity,
        past,
    };
    let failure = match read_lines(reader, plan, live.tee.as_deref_mut(), &mut sink) {
        ReadEnd::End => {
            reading.end_of_input();
            report(&mut reading.router.events, &mut live.activity);
            return Ok(reading.finish());
        }
        ReadEnd::Failed(f) => *f,
        ReadEnd::TimedOut { bytes, lines } => {
            // What was read decides a held choice, so that the timeout names its last error.
            reading.router.end_of_input();
            timed_out(&reading, bytes, lines, live.timeout)
        }
        other @ ReadEnd::Stopped => other.unexpected(),
    };
    Err(reading.stopped(failure))
}

/// A [`Reading`] that hands its `--activity` events to `activity` after each read.
struct Reported<'r, 'o, 'a> {
    reading: &'r mut Reading<'o>,
    activity: &'r mut Option<&'a mut dyn FnMut(Activity)>,
    /// Set once the extractor went past a bound on what it keeps.
    past: Option<&'r AtomicBool>,
}

impl LineSink for Reported<'_, '_, '_> {
    type Facts = LineFacts;

    fn pre_scan(&self) -> Option<PreScan<LineFacts>> {
        self.reading.pre_scan()
    }

    fn line(&mut self, piece: Piece<'_>, facts: Option<LineFacts>) {
        self.reading.line(piece, facts);
    }

    fn read_done(&mut self) -> ControlFlow<()> {
        self.reading.last_read = Some(Instant::now());
        report(&mut self.reading.router.events, self.activity);
        if let Some(past) = self.past
            && self.reading.router.past.is_some()
        {
            past.store(true, Ordering::Relaxed);
        }
        ControlFlow::Continue(())
    }

    fn wants_facts(&mut self) -> bool {
        self.reading.wants_facts()
    }
}

/// Hand the `--activity` events gathered so far to the sink.
fn report(events: &mut Vec<Activity>, sink: &mut Option<&mut dyn FnMut(Activity)>) {
    if let Some(sink) = sink {
        for a in events.drain(..) {
            sink(a);
        }
    }
}

/// The `timeout` failure, with what was seen so far in `details`: how much, how long nothing
/// came (whole seconds, rounded down, from 2 s on), and the producer's last error or retry event.
fn timed_out(reading: &Reading<'_>, bytes: u64, lines: u64, timeout: Option<Duration>) -> Failure {
    let secs = timeout.map_or(0.0, |t| t.as_secs_f64());
    let producer = reading.router.producer();
    let mut message =
        format!("the input did not end within {secs} s ({lines} line(s), {bytes} byte(s) read)");
    let idle = reading
        .last_read
        .filter(|_| bytes > 0)
        .map(|t| t.elapsed().as_secs())
        .filter(|&s| s >= 2);
    if let Some(idle) = idle {
        message.push_str(&format!("; nothing came in its last {idle} s"));
    }
    let last = reading.router.last_error();
    if let Some(e) = &last {
        message = e.after(&message);
    }
    let details = details::Timeout {
        timeout_seconds: secs,
        bytes,
        lines,
        read: TimeoutRead::Values {
            values: reading.framer.stats.values,
            producer: producer.map(Producer::id),
            idle_seconds: idle,
            last: last.as_ref().map(LastError::details),
        },
    };
    let f = Failure::new(ErrorKind::Timeout, Operation::Read, message)
        .hint("the agent may be stuck; raise --timeout if it is just slow")
        .details(Details::Timeout(details));
    match &last {
        Some(e) if !e.retryable() => f.retryable(false),
        _ => f,
    }
}

/// The streaming state of one input: framer and router. The read loop
/// ([`read_lines`]) hands it lines as they arrive.
pub struct Reading<'o> {
    opts: &'o Options<'o>,
    framer: Framer,
    router: Router<'o>,
    /// When the last read handed over its lines (for a `timeout` to say how long nothing came).
    last_read: Option<Instant>,
}

impl LineSink for Reading<'_> {
    type Facts = LineFacts;

    /// The fast path's raw-byte scan, run ahead ([`LineFacts`]).
    fn pre_scan(&self) -> Option<PreScan<LineFacts>> {
        Some(LineFacts::of)
    }

    fn line(&mut self, piece: Piece<'_>, facts: Option<LineFacts>) {
        if let Piece::Line { no, bytes } = piece
            && let Some(attempt) = attempt_mark(bytes)
        {
            self.restart(no, attempt);
            return;
        }
        let max = self.opts.max_line_bytes;
        feed_piece(piece, facts, &mut self.framer, &mut self.router, max);
    }

    /// Facts only help an extractor with a fast path (or one still to be detected).
    fn wants_facts(&mut self) -> bool {
        self.router
            .extractor
            .as_deref_mut()
            .is_none_or(|ex| ex.fast_path().is_some())
    }
}

/// The longest line read as an attempt mark (sojx writes 38 bytes; spaces may be added).
const MAX_MARK: usize = 128;

/// The line `sojx run --tee` writes before attempt 2 and each later one,
/// `{"type":"sojx_attempt","attempt":N}` on a line by itself: `N`, when `bytes` is that line
/// (in any key order and spacing, with no other member).
fn attempt_mark(bytes: &[u8]) -> Option<u64> {
    // The mark is short: a long line is not looked at (the check costs nothing per byte).
    if bytes.len() > MAX_MARK || memchr::memmem::find(bytes, b"\"sojx_attempt\"").is_none() {
        return None;
    }
    let v = crate::json::from_slice(bytes).ok()?;
    let o = v.as_object().filter(|o| o.len() == 2)?;
    (o.get("type")?.as_str()? == "sojx_attempt")
        .then(|| o.get("attempt")?.as_u64())
        .flatten()
        .filter(|&n| n >= 2)
}

/// The framer of one input (or of one attempt of a `--tee` copy).
fn framer(opts: &Options<'_>) -> Framer {
    let framer = Framer::new(opts.max_line_bytes);
    // Text glued to a producer's event is noise around that event; for `--from json` and
    // `--from text` the raw input is the answer, and nothing is dropped from it. (The built-in
    // producers only: the framer takes a plain function; a loaded file's events glued to text
    // are left as text.)
    if matches!(opts.from, Some(Producer::Json | Producer::Text)) {
        framer
    } else {
        framer.salvage(|v| producer::file::BUILT_IN.detect_output(v).is_some())
    }
}

impl<'o> Reading<'o> {
    pub fn new(opts: &'o Options<'o>) -> Self {
        Self {
            opts,
            framer: framer(opts),
            router: Router::new(
                opts.from,
                opts.producers,
                opts.max_answer_bytes,
                opts.fast_path,
            ),
            last_read: None,
        }
    }

    /// A `--tee` copy's next attempt starts on line `no` (issue 39, item 4): the input reads
    /// back as its last attempt, so what came before is dropped — its answer, its failure, its
    /// producer and its counts — as if the input started here.
    fn restart(&mut self, no: u64, attempt: u64) {
        let activity = self.router.activity;
        let mut events = std::mem::take(&mut self.router.events);
        self.framer = framer(self.opts);
        self.router = Router::new(
            self.opts.from,
            self.opts.producers,
            self.opts.max_answer_bytes,
            self.opts.fast_path,
        );
        self.router.activity = activity;
        if activity {
            events.push(Activity {
                line: no,
                kind: producer::EventKind::Info,
                text: format!(
                    "attempt {attempt} of sojx run: what came before was an earlier attempt's"
                ),
            });
        }
        self.router.events = events;
    }

    /// Reading stopped early with `failure`.
    pub fn stopped(&self, failure: Failure) -> Stopped {
        Stopped {
            failure,
            producer: self.router.producer(),
        }
    }

    /// The input ended (its last line handed out): close what is open. [`Reading::finish`]
    /// does it too; calling it before lets the caller report the `--activity` events of the
    /// last line.
    fn end_of_input(&mut self) {
        self.framer.finish();
        // A held choice is made now, so that its values' `--activity` lines are reported.
        self.router.end_of_input();
    }

    /// End of input: decide.
    pub fn finish(mut self) -> (Outcome, Vec<Warning>) {
        self.end_of_input();
        let opts = self.opts;
        let stats = self.framer.stats.clone();
        let mut warnings = Vec::new();
        if stats.too_long > 0 {
            warnings.push(Warning::new(
                WarningKind::LineTooLong,
                format!(
                    "{} line(s) longer than --max-line-bytes {} were skipped",
                    stats.too_long, opts.max_line_bytes
                ),
            ));
        }
        if stats.too_deep > 0 {
            warnings.push(Warning::new(
                WarningKind::TooDeep,
                format!(
                    "{} JSON value(s) nest deeper than {} levels, sojx's fixed limit, and were read as text",
                    stats.too_deep,
                    crate::framing::MAX_DEPTH
                ),
            ));
        }
        // Text that quotes an event is read whole: nothing was dropped from it.
        if !self.router.quoted(&stats, self.framer.glued_lines) {
            warnings.extend(glued_warnings(&self.framer));
        }
        let outcome = self.router.finish(&mut self.framer, &stats, opts);
        // The answer's own line held a string cut inside an emoji (only that line: the fast
        // path never parses lines that cannot matter, so others are not known).
        let answer_line = match &outcome.verdict {
            Verdict::Value { line, .. }
            | Verdict::ValueText { line, .. }
            | Verdict::Text { line, .. }
            | Verdict::Binary { line, .. }
            | Verdict::Prose { line, .. } => *line,
            // The calls' lines: which call is the answer is decided later.
            Verdict::Calls(calls) => calls
                .iter()
                .filter_map(|c| c.line)
                .find(|l| stats.surrogate_lines.contains(l)),
            Verdict::Failed(_) | Verdict::Nothing { .. } => None,
        };
        if let Some(l) = answer_line.filter(|l| stats.surrogate_lines.contains(l)) {
            warnings.push(Warning::lone_surrogate(Some(l)));
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
                WarningKind::GluedText,
                format!("line {}: dropped the text {what}", g.line),
            )
        })
        .collect();
    let rest = framer.glued_lines - framer.glued.len() as u64;
    if rest > 0 {
        out.push(Warning::new(
            WarningKind::GluedText,
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
