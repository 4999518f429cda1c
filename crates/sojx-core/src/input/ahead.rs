//! One input split into lines ahead, on a reading thread ([`LinePump`]), so that the sink's
//! pre-scan of a long stream (the fast path's raw-byte scan, for `extract`) runs in parallel
//! with the parsing of the lines that matter.

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::Failure;

use super::pump::{TimedOut, read_failure, read_some, recv};
use super::{CHUNK, LineSplitter, Piece, PreScan, Span, Tee};

/// Batches in flight between a [`LinePump`]'s thread and the pipeline: enough for the balance
/// of [`QUEUED_FOR_FACTS`], few enough to keep memory flat (each holds one read).
const BATCHES_IN_FLIGHT: usize = 6;

/// One input split into lines ahead, on a reading thread: it reads, splits and pre-scans each
/// line (facts of type `F`, from the sink's [`PreScan`]) while the pipeline works on earlier
/// lines, so that on a long stream the scan runs in parallel with the parsing of the lines that
/// matter. The
/// lines, their numbers and the bytes copied to the tee are exactly those of [`Pump`](super::pump::Pump) with a
/// [`LineSplitter`]; only where the work happens differs.
pub(super) struct LinePump<'t, F> {
    rx: Receiver<io::Result<Batch<F>>>,
    /// Batches handed back for reuse, so the steady state allocates nothing.
    back: Sender<Batch<F>>,
    /// Batches sent and not yet received.
    queued: Arc<AtomicUsize>,
    /// The reading thread, joined once its channel closes.
    thread: Option<JoinHandle<()>>,
    current: Option<Batch<F>>,
    deadline: Option<Instant>,
    tee: Option<&'t mut Tee>,
    /// Bytes read so far.
    pub bytes: u64,
    /// Lines handed out so far.
    pub lines: u64,
}

/// What [`LinePump::next_batch`] gave.
#[derive(Debug)]
pub(super) enum NextBatch<'a, F> {
    Lines(&'a Batch<F>),
    End,
    Failed(Box<Failure>),
    TimedOut,
}

/// The lines completed by one read, each with its facts when they were computed.
#[derive(Debug)]
pub(super) struct Batch<F> {
    /// The read's buffer; its first `len` bytes are what was read.
    buf: Vec<u8>,
    len: usize,
    /// The lines that began in an earlier read.
    spill: Vec<u8>,
    lines: Vec<Line<F>>,
}

impl<F> Default for Batch<F> {
    fn default() -> Self {
        Self {
            buf: Vec::new(),
            len: 0,
            spill: Vec::new(),
            lines: Vec::new(),
        }
    }
}

#[derive(Debug)]
enum Line<F> {
    Whole {
        no: u64,
        /// In `spill` rather than in the read's bytes.
        spilled: bool,
        start: usize,
        end: usize,
        facts: Option<F>,
    },
    TooLong {
        no: u64,
    },
}

impl<F: Copy> Batch<F> {
    /// The bytes of the read, as read.
    pub(super) fn read(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The lines, in order, each with its facts when they were computed.
    pub(super) fn pieces(&self) -> impl Iterator<Item = (Piece<'_>, Option<F>)> {
        self.lines.iter().map(|l| match *l {
            Line::Whole {
                no,
                spilled,
                start,
                end,
                facts,
            } => {
                let from = if spilled { &self.spill } else { &self.buf };
                let bytes = &from[start..end];
                (Piece::Line { no, bytes }, facts)
            }
            Line::TooLong { no } => (Piece::TooLong { no }, None),
        })
    }

    fn last_line(&self) -> Option<u64> {
        self.lines.last().map(|l| match *l {
            Line::Whole { no, .. } | Line::TooLong { no } => no,
        })
    }

    /// Record a line of `read`, or one the splitter assembled across reads (taken, not copied,
    /// so that a long line is held once), pre-scanned by `scan` when given.
    fn record(&mut self, read: &[u8], span: Span<'_>, scan: Option<PreScan<F>>) {
        let (no, spilled, start, bytes) = match span {
            Span::Piece(Piece::TooLong { no }) => {
                self.lines.push(Line::TooLong { no });
                return;
            }
            Span::Piece(Piece::Line { no, bytes }) => {
                // `push_spans` hands out lines inside the read as sub-slices of it (and
                // `finish_spans` none at all).
                debug_assert!(read.as_ptr_range().contains(&bytes.as_ptr()) || bytes.is_empty());
                let start = bytes.as_ptr() as usize - read.as_ptr() as usize;
                (no, false, start, bytes)
            }
            Span::Carried { no, line } => {
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                let start = self.spill.len();
                if start == 0 {
                    std::mem::swap(&mut self.spill, line);
                } else {
                    // Not reached today (the splitter completes at most one carried line per
                    // read), kept so that a second one would be copied, not lost.
                    self.spill.extend_from_slice(line);
                }
                (no, true, start, &self.spill[start..])
            }
        };
        let facts = scan.map(|scan| scan(bytes));
        let end = start + bytes.len();
        self.lines.push(Line::Whole {
            no,
            spilled,
            start,
            end,
            facts,
        });
    }
}

/// Which lines a [`LinePump`]'s thread pre-scans, and how.
#[derive(Debug, Clone)]
pub(super) struct FactsPolicy<F> {
    /// The sink's pre-scan, if it has one.
    pub scan: Option<PreScan<F>>,
    /// Facts are computed while this is set (the pipeline clears it when the sink no longer
    /// reads them).
    pub on: Arc<AtomicBool>,
    /// Only for batches read while the pipeline has work waiting ([`QUEUED_FOR_FACTS`]);
    /// otherwise for every line.
    pub balanced: bool,
}

impl<'t, F: Copy + Send + 'static> LinePump<'t, F> {
    /// Read `reader` on a new thread, splitting lines at `max_line` bytes as [`LineSplitter`]
    /// does, with facts as `facts` says. With `timeout`, the input must end within it (from
    /// now). When no thread can be started, the reader is handed back (read it in place).
    pub(super) fn new(
        reader: Box<dyn Read + Send>,
        max_line: usize,
        facts: FactsPolicy<F>,
        timeout: Option<Duration>,
        tee: Option<&'t mut Tee>,
    ) -> Result<Self, Box<dyn Read + Send>> {
        let (tx, rx) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
        let (back, back_rx) = mpsc::channel::<Batch<F>>();
        let queued = Arc::new(AtomicUsize::new(0));
        let shared = Shared {
            max_line,
            facts,
            queued: Arc::clone(&queued),
        };
        // The reader goes to the thread once it runs, so that it comes back if none can start.
        let (give, take) = mpsc::sync_channel::<Box<dyn Read + Send>>(1);
        let thread = std::thread::Builder::new()
            .name("sojx-read".to_owned())
            .spawn(move || {
                if let Ok(reader) = take.recv() {
                    split_ahead(reader, &shared, &tx, &back_rx);
                }
            });
        let Ok(thread) = thread else {
            return Err(reader);
        };
        if let Err(mpsc::SendError(reader)) = give.send(reader) {
            return Err(reader);
        }
        Ok(Self {
            rx,
            back,
            queued,
            thread: Some(thread),
            current: None,
            deadline: timeout.and_then(|t| Instant::now().checked_add(t)),
            tee,
            bytes: 0,
            lines: 0,
        })
    }

    /// The next batch of lines (its read already copied to the tee), the end, a failure, or
    /// the deadline.
    pub(super) fn next_batch(&mut self) -> NextBatch<'_, F> {
        if let Some(done) = self.current.take() {
            // The reading thread may have ended; then the batch is dropped here.
            let _ = self.back.send(done);
        }
        let batch = match recv(&self.rx, self.deadline) {
            Ok(Some(Ok(batch))) => {
                self.queued.fetch_sub(1, Ordering::Relaxed);
                batch
            }
            Ok(Some(Err(e))) => return NextBatch::Failed(Box::new(read_failure(&e))),
            Ok(None) => {
                // The thread ended: by the end of the input, or by a panic, which is sojx's bug
                // and must not pass for the end of the input.
                if let Some(Err(panic)) = self.thread.take().map(JoinHandle::join) {
                    std::panic::resume_unwind(panic);
                }
                return NextBatch::End;
            }
            Err(TimedOut) => return NextBatch::TimedOut,
        };
        if let Some(t) = &mut self.tee
            && let Err(f) = t.write(batch.read())
        {
            return NextBatch::Failed(Box::new(f));
        }
        self.bytes += batch.len as u64;
        self.lines = batch.last_line().unwrap_or(self.lines);
        NextBatch::Lines(self.current.insert(batch))
    }
}

/// What the reading thread of a [`LinePump`] shares with it.
struct Shared<F> {
    max_line: usize,
    facts: FactsPolicy<F>,
    /// Batches sent and not yet received.
    queued: Arc<AtomicUsize>,
}

/// Facts are computed for a batch only while the pipeline has at least this many batches
/// waiting: when it has fewer, the reading thread is the slower of the two, and leaving the scan
/// of this batch to the pipeline (which scans lines without facts itself) balances the work.
const QUEUED_FOR_FACTS: usize = 2;

/// The reading thread of a [`LinePump`]: read, split, send, until the end (the channel closing)
/// or an error.
fn split_ahead<F: Copy>(
    mut reader: Box<dyn Read + Send>,
    shared: &Shared<F>,
    tx: &SyncSender<io::Result<Batch<F>>>,
    back: &Receiver<Batch<F>>,
) {
    let mut splitter = LineSplitter::new(shared.max_line);
    let send = |batch| {
        shared.queued.fetch_add(1, Ordering::Relaxed);
        tx.send(Ok(batch)).is_ok()
    };
    loop {
        let mut batch = back.try_recv().unwrap_or_default();
        // A long line's buffer, back from the pipeline, becomes the splitter's: one buffer the
        // size of the longest line circulates, as the splitter alone keeps one.
        splitter.reuse(&mut batch.spill);
        batch.spill.clear();
        batch.lines.clear();
        if batch.buf.len() != CHUNK {
            batch.buf = vec![0; CHUNK];
        }
        let on = shared.facts.on.load(Ordering::Relaxed)
            && (!shared.facts.balanced
                || shared.queued.load(Ordering::Relaxed) >= QUEUED_FOR_FACTS);
        let scan = shared.facts.scan.filter(|_| on);
        match read_some(reader.as_mut(), &mut batch.buf) {
            Ok(0) => {
                batch.len = 0;
                splitter.finish_spans(&mut |p| batch.record(&[], p, scan));
                if !batch.lines.is_empty() {
                    send(batch);
                }
                return;
            }
            Ok(n) => {
                batch.len = n;
                // The splitter reads the buffer while `record` fills the other fields.
                let buf = std::mem::take(&mut batch.buf);
                splitter.push_spans(&buf[..n], &mut |p| batch.record(&buf[..n], p, scan));
                batch.buf = buf;
                if !send(batch) {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn split_whole(data: &[u8], max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut splitter = LineSplitter::new(max);
        let mut f = |p: Piece<'_>| out.push(format!("{p:?}"));
        splitter.push(data, &mut f);
        splitter.finish(&mut f);
        out
    }

    fn split_ahead_all(data: &[u8], max: usize, sizes: &[usize]) -> (Vec<String>, Vec<u8>, u64) {
        // `data` in reads of the given sizes (cycling), as a pipe hands it out.
        let mut cuts = Vec::new();
        let mut rest = data;
        for size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (piece, after) = rest.split_at((*size).max(1).min(rest.len()));
            cuts.push(piece);
            rest = after;
        }
        let reader = super::super::Pieces::new(cuts);
        // A stand-in pre-scan: the line's length.
        let facts = FactsPolicy {
            scan: Some(<[u8]>::len),
            on: Arc::new(AtomicBool::new(true)),
            balanced: false,
        };
        let Ok(mut pump) = LinePump::new(Box::new(reader), max, facts, None, None) else {
            panic!("a reading thread starts");
        };
        let (mut pieces, mut read) = (Vec::new(), Vec::new());
        loop {
            match pump.next_batch() {
                NextBatch::Lines(b) => {
                    read.extend_from_slice(b.read());
                    for (p, f) in b.pieces() {
                        if let (Piece::Line { bytes, .. }, Some(f)) = (&p, f) {
                            assert_eq!(f, bytes.len());
                        }
                        pieces.push(format!("{p:?}"));
                    }
                }
                NextBatch::End => break,
                other => panic!("{other:?}"),
            }
        }
        (pieces, read, pump.lines)
    }

    proptest! {
        /// The lines split ahead are those of a splitter over the whole input, whatever the
        /// reads, with lines longer than a read, too-long lines and a last line without a
        /// newline; the reads together are the input.
        #[test]
        fn lines_split_ahead_are_the_splitters(
            lines in prop::collection::vec(("[a-z{}\"\r]{0,40}", 0usize..3), 0..30),
            sizes in prop::collection::vec(1usize..50, 1..5),
            max in 5usize..60,
            newline_at_end in any::<bool>(),
            bom in any::<bool>(),
        ) {
            let mut data = Vec::new();
            if bom {
                data.extend_from_slice("\u{feff}".as_bytes());
            }
            for (l, stretch) in &lines {
                data.extend_from_slice(l.repeat(stretch + 1).as_bytes());
                data.push(b'\n');
            }
            if !newline_at_end {
                data.pop();
            }
            let want = split_whole(&data, max);
            let (got, read, last) = split_ahead_all(&data, max, &sizes);
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(read, data);
            prop_assert_eq!(last, want.len() as u64);
        }
    }
}
