//! Routing: producer detection, the fast path's choice of lines not to parse, and the items
//! handed to the producer's extractor (kept, bounded, while the producer is unknown).

use crate::activity::Activity;
use crate::error::{ErrorKind, Failure, Operation};
use crate::framing::{Framer, Item, Stats};
use crate::input::Piece;
use crate::producer::{
    self, EventKind, Extractor, Family, Fast, LastError, LineFacts, Outcome, Over, Producer,
    Registry, Sight,
};

use super::Options;
use super::outcome::{
    contest, cut_document, failed, json_document, mismatch, quoted_mismatch, text_outcome,
    unknown_events,
};

/// Most items kept while the producer is still unknown.
const MAX_PENDING: usize = 100_000;

/// Most bytes of JSON values kept while the producer is still unknown, once there is more than
/// one (one document alone may be as large as a line).
const MAX_PENDING_BYTES: u64 = 1 << 20;

pub(super) fn feed_piece(
    piece: Piece<'_>,
    facts: Option<LineFacts>,
    framer: &mut Framer,
    router: &mut Router<'_>,
    max: usize,
) {
    match piece {
        Piece::Line { no, bytes } => match router.fast(framer, bytes, facts) {
            Fast::Skip => framer.skipped(bytes, facts.and_then(|f| f.utf8)),
            Fast::Lean if router.lean(no, bytes, facts.and_then(|f| f.utf8)) => {
                framer.skipped(bytes, Some(true));
            }
            Fast::Lean | Fast::Parse => {
                let glued = framer.glued_lines;
                router.line_recognized = 0;
                framer.line(no, bytes, &mut |item| router.item(item));
                router.after_line(framer.glued_lines > glued);
            }
        },
        Piece::TooLong { no } => framer.too_long(no),
    }
    // Once the producer's extractor took a line of its own, the input is its stream. With
    // `--from` the extractor is there from the start: until it recognizes a line, what precedes
    // the stream (prose, a fenced block quoting another producer's event) is still text, as it
    // is for a detected producer. An event salvaged from a line with prose glued to it does not
    // make the input a stream ([`Router::quoted`]): the text is kept until a line of the
    // producer's own decides.
    if router.extractor.is_some() && router.whole && framer.keeps_text() {
        framer.drop_text();
    }
    // Values kept while the producer is unknown are bounded by bytes too, not only by count:
    // a long stream of JSON no producer claims must not be held in memory whole.
    // Past the first value (which may be the one document, up to the line limit), values no
    // producer claims are kept only up to MAX_PENDING_BYTES: parsed, small values take up to
    // ~50 times their bytes (a number is a string with arbitrary precision).
    if router.extractor.is_none()
        && (framer.stats.value_bytes > max as u64
            || (framer.stats.values > 1 && framer.stats.value_bytes > MAX_PENDING_BYTES))
    {
        if router.held() {
            router.settle();
        } else {
            router.pending_overflow = true;
        }
    }
}

/// Sends items to the producer's extractor once the producer is known.
pub(super) struct Router<'p> {
    pub(super) forced: Option<Producer>,
    /// Every producer the command knows, for detection.
    pub(super) producers: &'p Registry,
    pub(super) extractor: Option<Box<dyn Extractor>>,
    pub(super) pending: Vec<Item>,
    pub(super) pending_overflow: bool,
    pub(super) detected: Option<Producer>,
    /// The file producers whose events the values so far are too, when `detected` is sojx's
    /// own detection from values such files share ([`Router::held`]); empty once decided.
    pub(super) held_by: Vec<Producer>,
    /// The producer was detected from a first value that carries none of its run's identity
    /// (`{"type": "result", "score": 3}`): it claims the input only when more follows; a sole
    /// such document is the answer (contract §4).
    pub(super) tentative: bool,
    pub(super) recognized: u64,
    /// Items recognized from the line being read (not from pending items fed with it).
    pub(super) line_recognized: u64,
    /// The extractor recognized an item of a line of its own: a whole line, not an event
    /// salvaged from prose glued to it (issue 55). Until then, the input may be text that
    /// quotes an event ([`Router::quoted`]).
    pub(super) whole: bool,
    /// The lines of the glued values among the pending items (bounded as they are).
    pub(super) pending_glued: Vec<u64>,
    /// A loaded producer file that claimed a value sojx's own reader reads, while the
    /// producer was undecided, and the line ([`Registry::contested`]): unless the stream
    /// decides for the file, a warning, or a usage error for a `--producer-file`.
    pub(super) contested: Option<(Producer, u64)>,
    /// A JSON value is among the pending items (for `--from json`: the one document).
    pub(super) pending_value: bool,
    pub(super) dones: u64,
    /// Collect `--activity` events.
    pub(super) activity: bool,
    pub(super) events: Vec<Activity>,
    pub(super) fast_path: bool,
    /// `--max-answer-bytes`.
    pub(super) max_answer: usize,
    /// The bound the extractor went past (then nothing more is fed to it).
    pub(super) past: Option<Past>,
}

/// A bound on what the extractor keeps, gone past.
#[derive(Debug, Clone, Copy)]
pub(super) enum Past {
    /// `--max-answer-bytes`, with the bytes held when it was passed.
    Bytes(usize),
    /// A count ([`Over`]).
    Count(Over),
}

impl<'p> Router<'p> {
    pub(super) fn new(
        forced: Option<Producer>,
        producers: &'p Registry,
        max_answer: usize,
        fast_path: bool,
    ) -> Self {
        let extractor = forced.and_then(Producer::extractor);
        Self {
            forced,
            producers,
            extractor,
            pending: Vec::new(),
            pending_overflow: false,
            detected: None,
            held_by: Vec::new(),
            tentative: false,
            recognized: 0,
            line_recognized: 0,
            whole: false,
            pending_glued: Vec::new(),
            contested: None,
            pending_value: false,
            dones: 0,
            activity: false,
            events: Vec::new(),
            fast_path,
            max_answer,
            past: None,
        }
    }

    /// The extractor's last error or retry event.
    pub(super) fn last_error(&self) -> Option<LastError> {
        self.extractor.as_deref().and_then(Extractor::last_error)
    }

    /// The producer, forced or detected so far.
    pub(super) fn producer(&self) -> Option<Producer> {
        self.forced.or(self.detected)
    }

    pub(super) fn describe(&mut self, item: &Item) {
        if !self.activity {
            return;
        }
        let line = item.line();
        if let Some((kind, text)) = self.extractor.as_deref().and_then(|ex| ex.describe(item)) {
            self.events.push(Activity { line, kind, text });
        }
    }

    /// The fast path: how the extractor would take the raw line. Only once something was
    /// recognized (so `--from` mismatch and detection are settled) and between framed items;
    /// a skipped line is counted as a recognized value without being parsed.
    pub(super) fn fast(&mut self, framer: &Framer, raw: &[u8], facts: Option<LineFacts>) -> Fast {
        let fast = if self.fast_path
            && self.recognized > 0
            && framer.between_items()
            && let Some(fast) = self.extractor.as_deref_mut().and_then(Extractor::fast_path)
        {
            fast.fast(raw, facts)
        } else {
            Fast::Parse
        };
        if fast == Fast::Skip {
            self.recognized += 1;
            self.whole = true;
        }
        fast
    }

    /// The lean path: whether the extractor took the line from its bytes (`utf8`: whether it
    /// is valid UTF-8, when known). Not with `--activity` (which describes the parsed value)
    /// or past `--max-answer-bytes` (where nothing more is fed).
    pub(super) fn lean(&mut self, no: u64, raw: &[u8], utf8: Option<bool>) -> bool {
        let Some(ex) = self.extractor.as_deref_mut() else {
            return false;
        };
        if self.activity
            || self.past.is_some()
            || !utf8.unwrap_or_else(|| crate::framing::utf8_ok(raw))
            || !ex.fast_path().is_some_and(|fast| fast.feed_lean(no, raw))
        {
            return false;
        }
        self.recognized += 1;
        self.whole = true;
        self.past = past(ex, self.max_answer);
        true
    }

    /// A line was read by the framer: `glued` when its value was salvaged from prose glued to
    /// it. Items recognized from a line of their own make the input the producer's stream; a
    /// glued value still pending is remembered, so that [`Router::start`] can tell.
    fn after_line(&mut self, glued: bool) {
        if !glued {
            self.whole |= self.line_recognized > 0;
        } else if self.extractor.is_none()
            && let Some(Item::Value { line, .. }) = self.pending.last()
            && self.pending_glued.last() != Some(line)
            && self.pending_glued.len() < MAX_PENDING
        {
            self.pending_glued.push(*line);
        }
    }

    /// The input is text that quotes a producer's event, not that producer's stream (issue
    /// 55): everything the extractor recognized came from lines with prose glued to the event,
    /// and the input holds something else too (`text_lines`, or values other than the
    /// `glued_values`). An input that is nothing but such a line (Gemini CLI's `-o json`
    /// object with a stderr notice after its `}`) stays the producer's.
    pub(super) fn quoted(&self, stats: &Stats, glued_values: u64) -> bool {
        self.extractor.is_some()
            && self.recognized > 0
            && !self.whole
            && (stats.text_lines > 0 || stats.values > glued_values)
    }

    pub(super) fn item(&mut self, item: Item) {
        match &item {
            Item::Junk { .. } => return,
            Item::Value { value, line } => {
                if self.contested.is_none()
                    && self.forced.is_none()
                    && (self.detected.is_none() || self.held())
                {
                    self.contested = self.producers.contested(value).map(|f| (f, *line));
                }
                if let Some(held) = self.detected.filter(|_| self.held()) {
                    if let Some(p) = self.producers.holds(held, &self.held_by, value) {
                        self.detected = Some(p);
                        self.held_by.clear();
                    }
                    self.tentative = false;
                } else if self.detected.is_none() {
                    self.detected = match self.producers.sight(value) {
                        Sight::Decided(p) => Some(p),
                        // With `--from`, detection only names what the input looks like.
                        Sight::Held(p, _) if self.forced.is_some() => Some(p),
                        Sight::Held(p, files) => {
                            self.held_by = files;
                            Some(p)
                        }
                        Sight::Unknown => None,
                    };
                    // Only the input's first value can be a sole document.
                    self.tentative = self.detected.is_some()
                        && self.pending.is_empty()
                        && self.producers.detect_output(value).is_none();
                } else {
                    // A second value: the input is a stream, and the first one's producer
                    // claims it.
                    self.tentative = false;
                }
            }
            Item::Done { .. } => {
                self.dones += 1;
                self.tentative = false;
            }
        }
        if let Some(ex) = &mut self.extractor {
            if self.past.is_some() {
                // Past --max-answer-bytes or a count bound: nothing more is kept.
                return;
            }
            let took = u64::from(ex.feed(&item));
            self.recognized += took;
            self.line_recognized += took;
            self.past = past(ex.as_ref(), self.max_answer);
            self.describe(&item);
            return;
        }
        if self.held() && (self.pending.len() + 1 >= MAX_PENDING || self.pending_overflow) {
            // Held as long as the bound on pending values allows (values no producer claimed
            // may have filled it before): sojx's own detection decides, with this value.
            self.held_by.clear();
        }
        if self.forced.is_none()
            && !self.tentative
            && !self.held()
            && let Some(p) = self.detected
        {
            self.start(p, Some(&item));
            return;
        }
        // `json`/`text`, or still unknown: keep the item (bounded; for `--from json`, one value).
        let value = matches!(item, Item::Value { .. });
        if self.pending.len() < MAX_PENDING
            && !self.pending_overflow
            && !(self.forced == Some(Producer::Json) && value && self.pending_value)
        {
            self.pending_value |= value;
            self.pending.push(item);
        } else {
            self.pending_overflow = true;
        }
    }

    /// Whether `detected` is held: sojx's own detection, from values that producer files
    /// sharing its shapes have events for too (Droid's stream starts with Claude Code's init
    /// line), kept pending until a value decides ([`Registry::holds`]), the input ends, or the
    /// pending values reach their bound.
    pub(super) fn held(&self) -> bool {
        !self.held_by.is_empty()
    }

    /// The producer is `p`: its extractor takes the pending items, then `item`.
    fn start(&mut self, p: Producer, item: Option<&Item>) {
        let mut ex = p.extractor().expect("detected producers have extractors");
        let pending = std::mem::take(&mut self.pending);
        let glued = std::mem::take(&mut self.pending_glued);
        for it in &pending {
            let took = ex.feed(it);
            self.recognized += u64::from(took);
            self.whole |= took && glued.binary_search(&it.line()).is_err();
        }
        if let Some(it) = item {
            let took = u64::from(ex.feed(it));
            self.recognized += took;
            self.line_recognized += took;
        }
        self.past = past(ex.as_ref(), self.max_answer);
        self.extractor = Some(ex);
        if self.activity {
            if let Some(first) = pending.first().or(item) {
                self.events.push(Activity {
                    line: first.line(),
                    kind: EventKind::Info,
                    text: format!("producer: {}", p.id()),
                });
            }
            for it in pending.iter().chain(item) {
                self.describe(it);
            }
        }
    }

    /// A producer held ([`Router::held`]) is decided when what is pending reached its bound in
    /// bytes (sojx's own detection decides, so that a long stream is not kept in memory).
    pub(super) fn settle(&mut self) {
        if self.held()
            && self.extractor.is_none()
            && let Some(p) = self.detected
        {
            self.held_by.clear();
            self.start(p, None);
        }
    }

    /// The input ended (or timed out): a held choice is sojx's own detection's.
    pub(super) fn end_of_input(&mut self) {
        if !self.tentative {
            self.settle();
        }
    }

    pub(super) fn finish(
        mut self,
        framer: &mut Framer,
        stats: &Stats,
        opts: &Options<'_>,
    ) -> Outcome {
        let empty = stats.values == 0
            && stats.text_lines == 0
            && stats.sse_lines == 0
            && stats.too_long == 0;
        // The input ended while held: sojx's own detection decides.
        self.end_of_input();
        if let Some(outcome) = self.unreadable(stats) {
            return outcome;
        }
        // Text that quotes an event in prose is text, whatever the event (issue 55).
        if self.quoted(stats, framer.glued_lines) {
            return match self.forced {
                Some(f) => quoted_mismatch(f),
                None => text_outcome(framer),
            };
        }
        if let Some(ex) = self.extractor.take() {
            // A producer described by its own events (a producer file) is decided by them: sojx's
            // detection may name the producer it starts like (Droid's stream begins with Claude
            // Code's init line).
            let own_events = |f: Producer| f.family() == Family::Described && f.reads_as() == f;
            if let Some(f) = self.forced
                && (self.recognized == 0
                    || (!own_events(f)
                        && self
                            .detected
                            .is_some_and(|d| !f.same_family(d, self.recognized))))
            {
                return mismatch(f, self.detected, empty);
            }
            let mut outcome = ex.finish();
            if let Some(failure) = contest(self.contested, self.forced, &mut outcome) {
                return failed(outcome.producer, failure);
            }
            return outcome;
        }
        if empty {
            let p = self.forced.unwrap_or(Producer::Text);
            return failed(
                p,
                Failure::new(ErrorKind::EmptyInput, Operation::Read, "the input is empty")
                    .hint("the producer printed nothing; check that it ran (and its stderr)"),
            );
        }
        self.unclaimed(framer, stats, opts)
    }

    /// The failure when the input could not be read for an answer at all: what the extractor
    /// keeps grew past `--max-answer-bytes` or a count bound, or the input is UTF-16.
    fn unreadable(&self, stats: &Stats) -> Option<Outcome> {
        if let Some(past) = self.past {
            let p = self.producer().unwrap_or(Producer::Text);
            let (message, hint) = match past {
                Past::Bytes(held) => (
                    format!(
                        "what the stream holds to find the answer (the answer's deltas, tool calls, ids, error messages) grew past --max-answer-bytes {} ({held} bytes held); the rest was not read into memory",
                        self.max_answer
                    ),
                    "raise --max-answer-bytes if the answer is really that large",
                ),
                Past::Count(Over { what, max }) => (
                    format!(
                        "the stream holds more than {max} {what}, sojx's bound; the rest was not read into memory"
                    ),
                    "a model's run makes far fewer; check that the input is the output of one run",
                ),
            };
            return Some(failed(
                p,
                Failure::new(ErrorKind::Parse, Operation::Extract, message)
                    .hint(hint)
                    .retryable(false),
            ));
        }
        // No producer writes UTF-16; read as UTF-8 it is noise, not "no answer".
        let how = stats.utf16.filter(|_| self.recognized == 0)?;
        Some(failed(
            self.forced.unwrap_or(Producer::Text),
            Failure::new(
                ErrorKind::Parse,
                Operation::Read,
                format!("the input is {how}; sojx reads UTF-8"),
            )
            .hint("convert it first: `iconv -f UTF-16 -t UTF-8 FILE | sojx extract …` (in PowerShell, write the agent's output with `| Out-File -Encoding utf8`)")
            .retryable(false),
        ))
    }

    /// The outcome of an input no producer claimed (or of `--from json`/`text`): the one JSON
    /// document, the answer in text, or why there is none.
    fn unclaimed(self, framer: &mut Framer, stats: &Stats, opts: &Options<'_>) -> Outcome {
        if self.forced.is_none()
            && stats.values == 0
            && let Some(outcome) = cut_document(framer, self.producers)
        {
            return outcome;
        }
        // A value that carries a run's identity (a session id, the run's usage or turns) and
        // that no known producer claims is an unknown producer's status or result object,
        // never the answer (contract §4): Grok CLI's `--output-format json` object, goose's
        // terminal `complete` line among its text.
        if self.forced.is_none()
            && self.pending.iter().any(|i| match i {
                Item::Value { value, .. } => producer::run_identity(value),
                _ => false,
            })
        {
            return unknown_events(&self.pending, stats.values);
        }
        match self.forced {
            Some(Producer::Json) => json_document(self.pending, framer, stats, opts),
            Some(_) => text_outcome(framer),
            None if stats.text_lines > 0 => text_outcome(framer),
            None if stats.values == 1 && self.dones == 0 && !self.pending_overflow => {
                json_document(self.pending, framer, stats, opts)
            }
            // Lines over the limit left nothing to read: say so, not what the rest looks like
            // (short SSE `event:` lines without their long `data:`).
            None if stats.values == 0 && stats.too_long > 0 => too_long(stats, opts),
            // Only JSON events (or SSE fields), none of a known producer: digging the last event
            // object out as "the answer" would be a guess.
            None if stats.values == 0 => failed(
                Producer::Text,
                Failure::new(
                    ErrorKind::Parse,
                    Operation::Detect,
                    "the input is a Server-Sent Events stream without data events",
                )
                .hint("name the producer with --from, or use --from text to look for the answer in the raw text")
                .retryable(false),
            ),
            None => unknown_events(&self.pending, stats.values),
        }
    }
}

/// The bound `ex` went past, if any: a count first, then `--max-answer-bytes` (`max_answer`).
fn past(ex: &dyn Extractor, max_answer: usize) -> Option<Past> {
    if let Some(over) = ex.over() {
        return Some(Past::Count(over));
    }
    let held = ex.held();
    (held > max_answer).then_some(Past::Bytes(held))
}

/// The failure when lines over `--max-line-bytes` left nothing to read.
fn too_long(stats: &Stats, opts: &Options<'_>) -> Outcome {
    failed(
        Producer::Text,
        Failure::new(
            ErrorKind::Parse,
            Operation::Read,
            if stats.sse_lines == 0 && stats.text_lines == 0 {
                format!(
                    "every line of the input ({}) is longer than --max-line-bytes {}; none was read",
                    stats.too_long, opts.max_line_bytes
                )
            } else {
                format!(
                    "{} line(s) of the input are longer than --max-line-bytes {}, and what is left holds no JSON",
                    stats.too_long, opts.max_line_bytes
                )
            },
        )
        .hint("raise --max-line-bytes to the longest line the producer writes")
        .retryable(false),
    )
}
