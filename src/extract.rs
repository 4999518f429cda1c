//! `sojx extract`: one input → framed items → producer → verdict → candidate → validation →
//! envelope. Nothing here prints; the caller renders the envelope.

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::activity::Activity;
use crate::cli::From;
use crate::envelope::{self, Envelope, MAX_DATA_DEPTH, Parts, depth};
use crate::error::{ErrorKind, Failure};
use crate::framing::{Framer, Item, Stats};
use crate::input::{LineSplitter, Piece, Source};
use crate::jq::Assertions;
use crate::producer::{
    self, Extractor, LineFacts, Outcome, Producer, Session, SourceKind, Verdict, Warning,
};
use crate::pump::{FactsPolicy, LinePump, Next, NextBatch, Pump, READ_AHEAD_MIN, Tee};
use crate::repair;
use crate::schema::Schema;
use crate::text;

/// Most items kept while the producer is still unknown.
const MAX_PENDING: usize = 100_000;
/// Most bytes of JSON values kept while the producer is still unknown, once there is more than
/// one (one document alone may be as large as a line).
const MAX_PENDING_BYTES: u64 = 1 << 20;

/// Options of one `extract` run, shared by every input.
#[derive(Debug)]
pub struct Options<'a> {
    pub from: From,
    pub strict: bool,
    pub repair: bool,
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
    /// Whether an input is split into lines on a second thread ([`read_ahead`]).
    pub read_ahead: ReadAhead,
    /// The fast path: lines the producer's extractor says cannot matter are not parsed
    /// (`SOJX_NO_FAST_PATH` turns it off, to compare it with the full parse).
    pub fast_path: bool,
}

/// Whether inputs are read ahead, on a second thread (decided by the command layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAhead {
    /// Never (`SOJX_READ_AHEAD=0`, or inputs already read in parallel).
    Never,
    /// Files of at least [`READ_AHEAD_MIN`] bytes and pipes.
    Auto,
    /// Every input, pre-scanning every line (`SOJX_READ_AHEAD=1`, for tests that compare the
    /// ways of reading).
    EveryLine,
}

/// How one input is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ahead {
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
    fn choose(plan: ReadAhead, size: Option<u64>) -> Self {
        match plan {
            ReadAhead::Never => Self::Off,
            ReadAhead::EveryLine => Self::EveryLine,
            ReadAhead::Auto if size.is_none_or(|n| n >= READ_AHEAD_MIN) => Self::Balanced,
            ReadAhead::Auto => Self::Off,
        }
    }
}

impl Default for Options<'_> {
    /// The command line's defaults: auto detection, no schema, the default limits.
    fn default() -> Self {
        Self {
            from: From::Auto,
            strict: false,
            repair: false,
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
pub fn run(source: &Source, opts: &Options<'_>) -> Envelope {
    run_live(source, opts, &mut Live::default())
}

/// What happens while an input is read, besides extraction: `--tee`, `--timeout`, `--activity`.
#[derive(Default)]
pub struct Live<'a> {
    pub tee: Option<&'a mut Tee>,
    pub timeout: Option<Duration>,
    /// Receives one line per event worth showing, as soon as its input line is read.
    pub activity: Option<&'a mut dyn FnMut(Activity)>,
}

/// [`run`] with live side effects.
pub fn run_live(source: &Source, opts: &Options<'_>, live: &mut Live<'_>) -> Envelope {
    let name = source.name();
    let reader = match source.open_within(live.timeout) {
        Ok(r) => r,
        Err(f) => return envelope::failure("extract", &name, f, Parts::default()),
    };
    let size = source.size();
    let ahead = Ahead::choose(opts.read_ahead, size);
    let (outcome, warnings) = match read_live(reader, size, opts, live, ahead) {
        Ok(r) => r,
        Err(Stopped { failure, producer }) => {
            let parts = Parts {
                producer,
                ..Parts::default()
            };
            // The target is the input unless the failure names another (the tee file).
            return envelope::failure("extract", &name, failure, parts);
        }
    };
    decide(&name, outcome, warnings, opts)
}

/// Reading ended before the input did: why, and the producer if it was known by then.
#[derive(Debug)]
pub struct Stopped {
    pub failure: Failure,
    pub producer: Option<Producer>,
}

/// Read a whole input into an outcome. Errors are read failures.
pub fn read(mut reader: impl Read, opts: &Options<'_>) -> Result<(Outcome, Vec<Warning>), Failure> {
    let mut reading = Reading::new(opts);
    let mut buf = vec![0u8; crate::input::CHUNK];
    loop {
        match crate::pump::read_some(&mut reader, &mut buf) {
            Ok(0) => return Ok(reading.finish()),
            Ok(n) => reading.push(&buf[..n]),
            Err(e) => return Err(crate::pump::read_failure(&e)),
        }
    }
}

/// [`read`] with live side effects; a timeout stops reading with what was seen so far.
/// `ahead`: how the input is read (read ahead only with the fast path, which it speeds up);
/// `size`: the input's size when known (it sets the size of the reads).
fn read_live(
    mut reader: Box<dyn Read + Send>,
    size: Option<u64>,
    opts: &Options<'_>,
    live: &mut Live<'_>,
    ahead: Ahead,
) -> Result<(Outcome, Vec<Warning>), Stopped> {
    // Reading, and the --activity writes made while reading, must end by the deadline even
    // when stderr blocks; what follows (validation, --assert) has its own budgets.
    let _watchdog = crate::pump::Watchdog::arm(live.timeout);
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
/// thread's switch for computing [`LineFacts`]; `timeout` is the pump's, for the report.
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

fn feed_piece(
    piece: Piece<'_>,
    facts: Option<LineFacts>,
    framer: &mut Framer,
    router: &mut Router,
    max: usize,
) {
    match piece {
        Piece::Line { bytes, .. } if router.skips(framer, bytes, facts) => {
            framer.skipped(bytes, facts.and_then(|f| f.utf8));
        }
        Piece::Line { no, bytes } => framer.line(no, bytes, &mut |item| router.item(item)),
        Piece::TooLong { no } => framer.too_long(no),
    }
    if router.extractor.is_some() && framer.keeps_text() {
        framer.drop_text();
    }
    // Values kept while the producer is unknown are bounded by bytes too, not only by count:
    // a long stream of JSON no producer claims must not be held in memory whole.
    // Past the first value (which may be the one document, up to the line limit), values no
    // producer claims are kept only up to MAX_PENDING_BYTES: parsed, small values take up to
    // ~50 times their bytes (a number is a string with arbitrary precision).
    if router.extractor.is_none()
        && (framer.stats.value_bytes > max as u64
            || (router.values > 1 && framer.stats.value_bytes > MAX_PENDING_BYTES))
    {
        router.pending_overflow = true;
    }
}

/// Sends items to the producer's extractor once the producer is known.
struct Router {
    forced: Option<Producer>,
    extractor: Option<Box<dyn Extractor>>,
    pending: Vec<Item>,
    pending_overflow: bool,
    detected: Option<Producer>,
    recognized: u64,
    values: u64,
    dones: u64,
    /// Collect `--activity` events.
    activity: bool,
    events: Vec<Activity>,
    fast_path: bool,
    /// `--max-answer-bytes`, and the bytes the extractor held when it went past it.
    max_answer: usize,
    answer_over: Option<usize>,
}

impl Router {
    fn new(forced: Option<Producer>, max_answer: usize, fast_path: bool) -> Self {
        let extractor = forced.and_then(Producer::extractor);
        Self {
            forced,
            extractor,
            pending: Vec::new(),
            pending_overflow: false,
            detected: None,
            recognized: 0,
            values: 0,
            dones: 0,
            activity: false,
            events: Vec::new(),
            fast_path,
            max_answer,
            answer_over: None,
        }
    }

    /// The producer, forced or detected so far.
    fn producer(&self) -> Option<Producer> {
        self.forced.or(self.detected)
    }

    fn describe(&mut self, item: &Item) {
        if !self.activity {
            return;
        }
        let line = item.line();
        if let Some(text) = self.extractor.as_deref().and_then(|ex| ex.describe(item)) {
            self.events.push(Activity { line, text });
        }
    }

    /// The fast path: whether the extractor said the raw line cannot matter, in which case it
    /// is counted as a recognized value without being parsed. Only once something was
    /// recognized (so `--from` mismatch and detection are settled) and between framed items.
    fn skips(&mut self, framer: &Framer, raw: &[u8], facts: Option<LineFacts>) -> bool {
        let skip = self.fast_path
            && self.recognized > 0
            && framer.between_items()
            && self.extractor.as_ref().is_some_and(|ex| match facts {
                Some(f) => !ex.wants_with(raw, f),
                None => !ex.wants(raw),
            });
        if skip {
            self.values += 1;
            self.recognized += 1;
        }
        skip
    }

    fn item(&mut self, item: Item) {
        match &item {
            Item::Junk { .. } => return,
            Item::Value { value, .. } => {
                self.values += 1;
                if self.detected.is_none() {
                    self.detected = producer::detect(value);
                }
            }
            Item::Done { .. } => self.dones += 1,
        }
        if let Some(ex) = &mut self.extractor {
            if self.answer_over.is_some() {
                // Past --max-answer-bytes: nothing more is accumulated.
                return;
            }
            self.recognized += u64::from(ex.feed(&item));
            let held = ex.held();
            if held > self.max_answer {
                self.answer_over = Some(held);
            }
            self.describe(&item);
            return;
        }
        if self.forced.is_none()
            && let Some(p) = self.detected
        {
            let mut ex = p.extractor().expect("detected producers have extractors");
            let pending = std::mem::take(&mut self.pending);
            for it in &pending {
                self.recognized += u64::from(ex.feed(it));
            }
            self.recognized += u64::from(ex.feed(&item));
            self.extractor = Some(ex);
            if self.activity {
                self.events.push(Activity {
                    line: pending.first().unwrap_or(&item).line(),
                    text: format!("producer: {}", p.id()),
                });
                for it in &pending {
                    self.describe(it);
                }
            }
            self.describe(&item);
            return;
        }
        // `json`/`text`, or still unknown: keep the item (bounded).
        if self.pending.len() < MAX_PENDING
            && !self.pending_overflow
            && !(self.forced == Some(Producer::Json) && self.values > 1)
        {
            self.pending.push(item);
        } else {
            self.pending_overflow = true;
        }
    }

    fn finish(self, framer: &mut Framer, stats: &Stats, opts: &Options<'_>) -> Outcome {
        let empty = stats.values == 0
            && stats.text_lines == 0
            && stats.sse_lines == 0
            && stats.too_long == 0;
        if let Some(held) = self.answer_over {
            let p = self.producer().unwrap_or(Producer::Text);
            return failed(
                p,
                Failure::new(
                    ErrorKind::Parse,
                    "extract",
                    format!(
                        "the answer streamed in deltas grew past --max-answer-bytes {} ({held} bytes held); the rest was not read into memory",
                        self.max_answer
                    ),
                )
                .hint("raise --max-answer-bytes if the answer is really that large")
                .retryable(false),
            );
        }
        if let Some(ex) = self.extractor {
            let forced = self.forced;
            if let Some(f) = forced
                && (self.recognized == 0
                    || self
                        .detected
                        .is_some_and(|d| !f.same_family(d, self.recognized)))
            {
                return mismatch(f, self.detected, empty);
            }
            return ex.finish();
        }
        if empty {
            let p = self.forced.unwrap_or(Producer::Text);
            return failed(
                p,
                Failure::new(ErrorKind::EmptyInput, "read", "the input is empty")
                    .hint("the producer printed nothing; check that it ran (and its stderr)"),
            );
        }
        if self.forced.is_none()
            && self.values == 0
            && let Some(outcome) = cut_document(framer)
        {
            return outcome;
        }
        match self.forced {
            Some(Producer::Json) => json_document(self.pending, self.values, framer, stats, opts),
            Some(_) => text_outcome(framer),
            None if stats.text_lines > 0 => text_outcome(framer),
            None if self.values == 1 && self.dones == 0 && !self.pending_overflow => {
                json_document(self.pending, self.values, framer, stats, opts)
            }
            // Only JSON events (or SSE fields), none of a known producer: digging the last event
            // object out as "the answer" would be a guess.
            None => failed(
                Producer::Text,
                Failure::new(
                    ErrorKind::Parse,
                    "detect",
                    if self.values == 0 {
                        "the input is a Server-Sent Events stream without data events".to_owned()
                    } else {
                        format!("the input holds {} JSON events, none of a known producer", self.values)
                    },
                )
                .hint("name the producer with --from, or use --from text to look for the answer in the raw text")
                .retryable(false),
            ),
        }
    }
}

/// The whole input is one JSON document cut off before its end. When what was written is
/// recognizably a producer's output (closing it tentatively shows whose), the run is
/// `truncated` for that producer; otherwise the input is read as text (`json_invalid`).
fn cut_document(framer: &Framer) -> Option<Outcome> {
    let (line, bytes) = framer.cut.as_ref()?;
    let text = std::str::from_utf8(bytes).ok()?;
    let closed = repair::repair(text)?;
    let producer = producer::detect(&closed.value)?;
    Some(failed(
        producer,
        Failure::new(
            ErrorKind::Truncated,
            "extract",
            format!("the input ends inside a JSON document that starts on line {line} (cut off)"),
        )
        .hint("the producer was stopped before it finished writing; re-run it"),
    ))
}

fn failed(producer: Producer, f: Failure) -> Outcome {
    Outcome {
        producer,
        verdict: Verdict::Failed(f),
        session: Session::default(),
        warnings: Vec::new(),
    }
}

fn mismatch(forced: Producer, detected: Option<Producer>, empty: bool) -> Outcome {
    if empty {
        return failed(
            forced,
            Failure::new(ErrorKind::EmptyInput, "read", "the input is empty"),
        );
    }
    let f = match detected {
        Some(d) => Failure::new(
            ErrorKind::Parse,
            "detect",
            format!(
                "--from {} was given, but the input looks like {} output",
                forced.id(),
                d.id()
            ),
        )
        .hint(format!("use --from {} or --from auto", d.id())),
        None => Failure::new(
            ErrorKind::Parse,
            "detect",
            format!(
                "--from {} was given, but no {} event was found in the input",
                forced.id(),
                forced.id()
            ),
        )
        .hint("use --from auto to detect the producer"),
    };
    failed(forced, f.retryable(false))
}

/// The whole input as one bare JSON value (`json` producer, `document`).
fn json_document(
    mut pending: Vec<Item>,
    values: u64,
    framer: &mut Framer,
    stats: &Stats,
    opts: &Options<'_>,
) -> Outcome {
    let p = Producer::Json;
    if values == 1 && stats.text_lines == 0 {
        if let Some(Item::Value { line, value }) =
            pending.drain(..).find(|i| matches!(i, Item::Value { .. }))
        {
            let verdict = Verdict::Value {
                kind: SourceKind::Document,
                value,
                line: Some(line),
                detail: Map::new(),
            };
            return Outcome {
                producer: p,
                verdict,
                session: Session::default(),
                warnings: Vec::new(),
            };
        }
    }
    if values > 1 {
        return failed(
            p,
            Failure::new(
                ErrorKind::Parse,
                "parse",
                format!("the input holds {values} JSON values; --from json expects exactly one"),
            )
            .hint("use --from auto, or validate JSON Lines with `sojx validate`")
            .retryable(false),
        );
    }
    // Not one JSON value: read the text as the answer, so that broken JSON is `json_invalid`.
    let text = framer.take_text().unwrap_or_default();
    let text = String::from_utf8_lossy(&text).into_owned();
    if let Some(value) = text::whole(&text) {
        // A bare scalar (`"plain"`, `42`): lines that do not start with `{` or `[` are not framed.
        let verdict = Verdict::Value {
            kind: SourceKind::Document,
            value,
            line: Some(1),
            detail: Map::new(),
        };
        return Outcome {
            producer: p,
            verdict,
            session: Session::default(),
            warnings: Vec::new(),
        };
    }
    if opts.repair || text::looks_like_json(&text) {
        return Outcome {
            producer: p,
            verdict: Verdict::ValueText {
                kind: SourceKind::Document,
                text,
                line: Some(1),
                detail: Map::new(),
            },
            session: Session::default(),
            warnings: Vec::new(),
        };
    }
    failed(
        p,
        Failure::new(ErrorKind::Parse, "parse", "the input is not a JSON value")
            .hint("use --from text to look for JSON inside text")
            .candidate(Value::from(text)),
    )
}

fn text_outcome(framer: &mut Framer) -> Outcome {
    let p = Producer::Text;
    match framer.take_text() {
        Some(bytes) => {
            let mut warnings = Vec::new();
            let text = match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    warnings.push(Warning::new("invalid_utf8", "the input text is not valid UTF-8; invalid bytes were replaced with U+FFFD"));
                    String::from_utf8_lossy(e.as_bytes()).into_owned()
                }
            };
            Outcome {
                producer: p,
                verdict: Verdict::Text {
                    text,
                    line: Some(1),
                },
                session: Session::default(),
                warnings,
            }
        }
        None => failed(
            p,
            Failure::new(
                ErrorKind::Parse,
                "parse",
                "the input is not a known producer's output and is too large to read as text",
            )
            .hint("raise --max-line-bytes, or name the producer with --from"),
        ),
    }
}

/// Turn an outcome into the envelope: choose the candidate, parse, repair, validate.
pub fn decide(
    name: &str,
    outcome: Outcome,
    mut warnings: Vec<Warning>,
    opts: &Options<'_>,
) -> Envelope {
    let Outcome {
        producer,
        verdict,
        session,
        warnings: w,
    } = outcome;
    warnings.extend(w);
    let parts = |source: Option<Value>, warnings: Vec<Warning>| Parts {
        producer: Some(producer),
        source,
        session: Some(session.clone()),
        warnings,
        validation: None,
    };
    let chosen = match verdict {
        Verdict::Failed(f) => return envelope::failure("extract", name, f, parts(None, warnings)),
        Verdict::Nothing { message } => {
            return envelope::failure(
                "extract",
                name,
                not_found(message, producer, opts),
                parts(None, warnings),
            );
        }
        Verdict::Value {
            kind,
            value,
            line,
            detail,
        } => Chosen {
            kind,
            value,
            line,
            detail,
            repaired: false,
        },
        Verdict::ValueText {
            kind,
            text,
            line,
            detail,
        } => match serde_json::from_str::<Value>(text.trim()) {
            Ok(value) => Chosen {
                kind,
                value,
                line,
                detail,
                repaired: false,
            },
            Err(e) => match try_repair(&text, opts, &mut warnings) {
                Some(value) => Chosen {
                    kind,
                    value,
                    line,
                    detail,
                    repaired: true,
                },
                None => {
                    let f = json_invalid(&e.to_string(), &text, kind);
                    return envelope::failure(
                        "extract",
                        name,
                        f,
                        parts(Some(source_of(kind, line, &detail)), warnings),
                    );
                }
            },
        },
        Verdict::Text { text, line } => {
            match from_text(&text, line, producer, opts, &mut warnings) {
                Ok(c) => c,
                Err(f) if f.kind == ErrorKind::NotFound && opts.markers => {
                    match from_markers(&text, line, opts, &mut warnings) {
                        Some(c) => c,
                        None => {
                            let f = Failure {
                                message: format!(
                                    "{}, and it has no [EVENT:…] or [MEMORY:…] markers",
                                    f.message
                                ),
                                ..f
                            };
                            return envelope::failure("extract", name, f, parts(None, warnings));
                        }
                    }
                }
                Err(f) => return envelope::failure("extract", name, f, parts(None, warnings)),
            }
        }
    };
    // A value found in text that is itself a producer's output (a Gemini CLI error object after
    // a `[ERROR] ` prefix, an API error body in a log) is that producer's output, never the
    // answer. (`--from json` and `--from text` take the input literally: the shared corpus
    // expects `--from json` on a Claude Code array to return the array.)
    if opts.from == From::Auto
        && matches!(producer, Producer::Json | Producer::Text)
        && let Some(inner) = as_producer_output(&chosen.value, chosen.line)
    {
        return decide(name, inner, warnings, opts);
    }
    if depth(&chosen.value) > MAX_DATA_DEPTH {
        let f = too_deep(&chosen.value.to_string(), chosen.kind, MAX_DATA_DEPTH);
        let source = source_of(chosen.kind, chosen.line, &chosen.detail);
        return envelope::failure("extract", name, f, parts(Some(source), warnings));
    }
    let mut source = source_of(chosen.kind, chosen.line, &chosen.detail);
    if chosen.repaired
        && let Value::Object(m) = &mut source
    {
        m.insert("repaired".into(), Value::Bool(true));
    }
    let mut p = parts(Some(source), warnings);
    if let Some(schema) = opts.schema {
        let violations = match schema.violations(&chosen.value) {
            Ok(v) => v,
            Err(f) => return envelope::failure("extract", name, f, p),
        };
        p.validation = Some(schema.report(violations.is_empty()));
        if !violations.is_empty() {
            let f = schema.failure(violations, chosen.value);
            return envelope::failure("extract", name, f, p);
        }
    }
    if let Some(a) = opts.assertions
        && let Err(f) = a.check(&chosen.value)
    {
        return envelope::failure("extract", name, f.target(name), p);
    }
    envelope::success("extract", name, chosen.value, p)
}

/// What a producer's extractor says of `value` alone, when `value` is a complete output of a
/// known producer (an error or status object, a result, a response body); `None` when no
/// producer claims it or it is only a fragment of a stream (its extractor calls it
/// `truncated`), which leaves it an ordinary value.
fn as_producer_output(value: &Value, line: Option<u64>) -> Option<Outcome> {
    let mut ex = producer::detect_output(value)?.extractor()?;
    let item = Item::Value {
        line: line.unwrap_or(1),
        value: value.clone(),
    };
    if !ex.feed(&item) {
        return None;
    }
    let outcome = ex.finish();
    match &outcome.verdict {
        Verdict::Failed(f) if f.kind == ErrorKind::Truncated => None,
        _ => Some(outcome),
    }
}

/// `--markers`: the legacy path, when the answer text holds no JSON value. `None` when the text
/// has no marker and no handoff file was given.
fn from_markers(
    text: &str,
    line: Option<u64>,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Option<Chosen> {
    let m = crate::markers::parse(text);
    if !m.any() && opts.handoff.is_none() {
        return None;
    }
    warnings.push(Warning::new(
        "legacy_markers",
        format!(
            "the run has no structured output; used the legacy path: {} event(s) and {} memory \
             marker(s) read from the answer text{}",
            m.events.len(),
            m.memories.len(),
            if opts.handoff.is_some() {
                ", escalation from the --handoff file"
            } else {
                ""
            }
        ),
    ));
    let markers = m.events.len() + m.memories.len();
    warnings.extend(m.warnings.iter().cloned());
    Some(Chosen {
        kind: SourceKind::Markers,
        value: m.into_data(opts.handoff),
        line,
        detail: crate::producer::detail(&[("markers", json!(markers))]),
        repaired: false,
    })
}

struct Chosen {
    kind: SourceKind,
    value: Value,
    line: Option<u64>,
    detail: Map<String, Value>,
    repaired: bool,
}

fn source_of(kind: SourceKind, line: Option<u64>, detail: &Map<String, Value>) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), Value::from(kind.as_str()));
    if let Some(l) = line {
        m.insert("line".into(), Value::from(l));
    }
    for (k, v) in detail {
        m.insert(k.clone(), v.clone());
    }
    Value::Object(m)
}

fn not_found(message: String, producer: Producer, opts: &Options<'_>) -> Failure {
    let hint = if opts.strict {
        "--strict accepts only a structured output, a tool input or an answer that is exactly one JSON value"
    } else {
        schema_option(producer)
    };
    Failure::new(ErrorKind::NotFound, "extract", message).hint(hint)
}

/// How to ask `producer` for structured output (`../shared/formats/`, each producer's
/// "Schema" section), for the `not_found` hint.
fn schema_option(producer: Producer) -> &'static str {
    match producer {
        Producer::ClaudeCode => {
            "run claude with --json-schema; its answer is then the result's structured_output"
        }
        Producer::QwenCode => {
            "run qwen with --json-schema; its answer is then the result's structured_result"
        }
        Producer::Codex => "run codex exec with --output-schema FILE",
        Producer::Meerkat => "run rkat with --schema; its answer is then structured_output",
        Producer::GeminiCli | Producer::Amp | Producer::Cursor | Producer::Opencode => {
            "this CLI has no schema option: ask for one bare JSON object in the prompt"
        }
        Producer::OpenaiChat => {
            "request response_format {\"type\": \"json_schema\", \"json_schema\": {…}} (or a strict function tool)"
        }
        Producer::OpenaiResponses => {
            "request text.format {\"type\": \"json_schema\", …} (or a strict function tool)"
        }
        Producer::Anthropic => {
            "request output_config.format {\"type\": \"json_schema\", …}, or force a tool whose input_schema is the schema"
        }
        Producer::Ollama => "request format: the JSON Schema (Ollama structured outputs)",
        Producer::Json | Producer::Text => {
            "ask the agent for structured output (e.g. claude --json-schema, codex --output-schema)"
        }
    }
}

fn too_deep(text: &str, kind: SourceKind, limit: usize) -> Failure {
    Failure::new(
        ErrorKind::JsonInvalid,
        "parse",
        format!(
            "the {} nests deeper than {limit} levels, sojx's fixed nesting limit",
            what(kind)
        ),
    )
    .hint("ask for a flatter structure; see docs/limits.md")
    .candidate(Value::from(text))
}

fn json_invalid(err: &str, text: &str, kind: SourceKind) -> Failure {
    if err.starts_with("recursion limit exceeded") {
        return too_deep(text, kind, MAX_DATA_DEPTH);
    }
    Failure::new(ErrorKind::JsonInvalid, "parse", format!("the {} is not valid JSON: {err}", what(kind)))
        .hint("the answer looks like JSON but does not parse; --repair fixes cut-off answers and trailing commas")
        .candidate(Value::from(text))
}

fn what(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::ToolInput => "tool input",
        SourceKind::CodeFence => "fenced block",
        SourceKind::Embedded => "JSON in the answer text",
        SourceKind::Document => "input",
        _ => "answer text",
    }
}

fn try_repair(text: &str, opts: &Options<'_>, warnings: &mut Vec<Warning>) -> Option<Value> {
    if !opts.repair {
        return None;
    }
    let r = repair::repair(text)?;
    for (kind, message) in r.repairs {
        warnings.push(Warning::new(kind, message));
    }
    Some(r.value)
}

/// JSON from the final answer text (`final_text`, `code_fence`, `embedded`).
fn from_text(
    text: &str,
    line: Option<u64>,
    producer: Producer,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Chosen, Failure> {
    let none = Map::new();
    // The text is the raw input (`text`): candidates' lines are input lines.
    let text_lines = producer == Producer::Text;
    if let Some(value) = text::whole(text) {
        return Ok(Chosen {
            kind: SourceKind::FinalText,
            value,
            line,
            detail: none,
            repaired: false,
        });
    }
    let looks = text::looks_like_json(text);
    if opts.strict {
        if looks {
            let err = serde_json::from_str::<Value>(text.trim())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            return Err(json_invalid(&err, text.trim(), SourceKind::FinalText));
        }
        return Err(not_found(
            "the answer text is not exactly one JSON value".into(),
            producer,
            opts,
        ));
    }
    let mined = text::mine(text, opts.max_candidates);
    if mined.capped {
        warnings.push(Warning::new(
            "candidates_capped",
            format!(
                "stopped after {} candidates (--max-candidates)",
                opts.max_candidates
            ),
        ));
    }
    let line_of = |l: usize| {
        if text_lines {
            line.map(|b| b + l as u64)
        } else {
            line
        }
    };
    // The text rules in precedence: `code_fence`, then `embedded`; the first that yields
    // decides. Within it, the last value that validates wins (the last one without a schema),
    // and a broken value after the chosen one means the answer itself is broken: `json_invalid`,
    // or repaired with --repair.
    for kind in [SourceKind::CodeFence, SourceKind::Embedded] {
        let cands: Vec<&text::Candidate> =
            mined.candidates.iter().filter(|c| c.kind == kind).collect();
        let broken: Vec<&text::Broken> = mined.broken.iter().filter(|b| b.kind == kind).collect();
        if cands.is_empty() && broken.is_empty() {
            continue;
        }
        let pick = opts
            .schema
            .and_then(|s| cands.iter().rposition(|c| s.is_valid(&c.value)))
            .or(cands.len().checked_sub(1));
        let after = pick.map_or(0, |i| cands[i].offset);
        let later_broken: Vec<&&text::Broken> =
            broken.iter().filter(|b| b.offset >= after).collect();
        if let Some(i) = pick
            && later_broken.is_empty()
        {
            let c = cands[i];
            let detail = crate::producer::detail(&[
                ("candidate", json!(i + 1)),
                ("candidates", json!(cands.len())),
            ]);
            return Ok(Chosen {
                kind,
                value: c.value.clone(),
                line: line_of(c.line),
                detail,
                repaired: false,
            });
        }
        for b in later_broken.iter().rev() {
            if let Some(value) = try_repair(&b.text, opts, warnings) {
                return Ok(Chosen {
                    kind,
                    value,
                    line: line_of(b.line),
                    detail: none,
                    repaired: true,
                });
            }
        }
        let last = later_broken
            .last()
            .expect("a rule that yields nothing was skipped");
        let err = serde_json::from_str::<Value>(&last.text)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        return Err(json_invalid(&err, &last.text, kind));
    }
    // Nothing in fences or prose: the whole text may be one broken JSON value.
    if looks {
        let trimmed = text.trim();
        if let Some(value) = try_repair(trimmed, opts, warnings) {
            return Ok(Chosen {
                kind: SourceKind::FinalText,
                value,
                line,
                detail: none,
                repaired: true,
            });
        }
        let err = serde_json::from_str::<Value>(trimmed)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        return Err(json_invalid(&err, trimmed, SourceKind::FinalText));
    }
    Err(not_found(
        "the answer text holds no JSON value".into(),
        producer,
        opts,
    ))
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
