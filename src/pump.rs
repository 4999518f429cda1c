//! Reading one input as it arrives: chunks from the source, each copied to `--tee` before it is
//! processed, with an optional deadline (`--timeout`).
//!
//! Without a deadline the source is read in place. With one, a thread reads chunks and sends
//! them over a channel, and the caller waits with `recv_timeout`, so a writer that never closes
//! the pipe cannot hold sojx past its deadline (the reading thread is left blocked and ends with
//! the process).

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::{ErrorKind, Failure};
use crate::input::{CHUNK, FileId, LineSplitter, Piece, Span, io_reason};
use crate::producer::LineFacts;

/// Chunks in flight between the reading thread and the pipeline.
const IN_FLIGHT: usize = 16;

/// Batches in flight between a [`LinePump`]'s thread and the pipeline: enough for the balance
/// of [`QUEUED_FOR_FACTS`], few enough to keep memory flat (each holds one read).
const BATCHES_IN_FLIGHT: usize = 6;

/// `--tee FILE`: every input byte, written through (unbuffered) as it is read.
#[derive(Debug)]
pub struct Tee {
    file: File,
    path: PathBuf,
}

impl Tee {
    /// `--tee FILE` for a run over `inputs` (none: standard input) that also reads the files of
    /// `also_read` (`("--schema", path)`, …): none without the flag. Files are compared by
    /// device and inode, not by name: FILE is refused (`usage`) when it is an input, standard
    /// input being read, or a file sojx reads, which creating it would truncate before it is
    /// read. An existing FILE that is not a regular file (`/dev/null`, a terminal, a FIFO), or
    /// that is sojx's own standard output or error (`--tee /dev/stderr` with `2>>log`), is
    /// opened for appending, never truncated.
    pub fn for_inputs(
        path: Option<&Path>,
        inputs: &[PathBuf],
        also_read: &[(&str, PathBuf)],
    ) -> Result<Option<Self>, Failure> {
        let Some(path) = path else {
            return Ok(None);
        };
        let Some(target) = FileId::of_path(path) else {
            return Self::create(path).map(Some);
        };
        let stdin_read = inputs.is_empty() || inputs.iter().any(|i| i.as_os_str() == "-");
        let clash = if stdin_read && FileId::of_std(0).as_ref() == Some(&target) {
            Some("standard input, which sojx reads".to_owned())
        } else if inputs
            .iter()
            .any(|i| i.as_os_str() != "-" && FileId::of_path(i).as_ref() == Some(&target))
        {
            Some("also an input".to_owned())
        } else {
            also_read
                .iter()
                .find(|(_, p)| FileId::of_path(p).as_ref() == Some(&target))
                .map(|(flag, _)| format!("the {flag} file"))
        };
        if let Some(what) = clash {
            return Err(Failure::new(
                ErrorKind::Usage,
                "parse_arguments",
                format!(
                    "--tee {} is {what}; it would be truncated before it is read",
                    path.display()
                ),
            )
            .target(path.to_string_lossy().into_owned())
            .retryable(false)
            .hint("tee to another file"));
        }
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        let own_output = [1, 2]
            .iter()
            .any(|&s| FileId::of_std(s).as_ref() == Some(&target));
        if regular && !own_output {
            return Self::create(path).map(Some);
        }
        match std::fs::OpenOptions::new().append(true).open(path) {
            Ok(file) => Ok(Some(Self {
                file,
                path: path.to_path_buf(),
            })),
            Err(e) => Err(cannot_create(path, &e)),
        }
    }

    /// Create (or truncate) FILE; failure is `filesystem`.
    pub fn create(path: &Path) -> Result<Self, Failure> {
        match File::create(path) {
            Ok(file) => Ok(Self {
                file,
                path: path.to_path_buf(),
            }),
            Err(e) => Err(cannot_create(path, &e)),
        }
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.file
            .write_all(bytes)
            .and_then(|()| self.file.flush())
            .map_err(|e| {
                Failure::new(
                    ErrorKind::Io,
                    "write",
                    format!(
                        "writing to --tee {} failed: {}",
                        self.path.display(),
                        io_reason(&e)
                    ),
                )
                .target(self.path.to_string_lossy().into_owned())
                .retryable(false)
            })
    }
}

/// How long past an input's `--timeout` sojx may still be writing its outputs before
/// [`Watchdog`] ends it.
pub const WATCHDOG_GRACE: Duration = Duration::from_secs(1);

/// Ends the process with status 2 (timeout) when an input's `--timeout` has passed by
/// [`WATCHDOG_GRACE`] and sojx is still reading that input. The read loop enforces the deadline
/// itself; this covers the writes it cannot interrupt while reading: `--activity` into a pipe
/// nobody reads (extract), an envelope per document into a full stdout (validate). Armed for
/// the read only: the work after it (validation, `--assert`) has its own budgets. Disarmed when
/// dropped.
pub struct Watchdog {
    _disarm: Option<Sender<()>>,
}

impl Watchdog {
    /// Armed for one input read with `timeout` (none: nothing to watch).
    pub fn arm(timeout: Option<Duration>) -> Self {
        let Some(limit) = timeout.and_then(|t| t.checked_add(WATCHDOG_GRACE)) else {
            return Self { _disarm: None };
        };
        let (tx, rx) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("sojx-watchdog".to_owned())
            .spawn(move || {
                // Dropping the sender (the input is done) disconnects: nothing to do.
                if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(limit) {
                    std::process::exit(2);
                }
            });
        Self {
            _disarm: spawned.is_ok().then_some(tx),
        }
    }
}

fn cannot_create(path: &Path, e: &io::Error) -> Failure {
    Failure::new(
        ErrorKind::Filesystem,
        "write",
        format!("cannot create --tee {}: {}", path.display(), io_reason(e)),
    )
    .target(path.to_string_lossy().into_owned())
    .retryable(false)
}

/// What the next read gave.
#[derive(Debug)]
pub enum Next<'a> {
    Data(&'a [u8]),
    End,
    /// Reading the input, or writing the tee, failed.
    Failed(Box<Failure>),
    /// The deadline passed before the input ended.
    TimedOut,
}

enum Inner {
    Direct(Box<dyn Read + Send>),
    Thread(Receiver<io::Result<Vec<u8>>>),
    /// The thread that enforces the deadline could not start.
    NoThread(Option<io::Error>),
}

/// One input, chunk by chunk.
pub struct Pump<'t> {
    inner: Inner,
    buf: Vec<u8>,
    /// Size of one direct read.
    chunk: usize,
    deadline: Option<Instant>,
    tee: Option<&'t mut Tee>,
    /// Bytes read so far.
    pub bytes: u64,
}

impl<'t> Pump<'t> {
    /// Read `reader`; with `timeout`, the input must end within it (from now). `size`: the
    /// input's size when known ([`chunk_for`]).
    pub fn new(
        reader: Box<dyn Read + Send>,
        size: Option<u64>,
        timeout: Option<Duration>,
        tee: Option<&'t mut Tee>,
    ) -> Self {
        let (inner, deadline) = match timeout {
            None => (Inner::Direct(reader), None),
            Some(t) => match spawn(reader) {
                Ok(rx) => (Inner::Thread(rx), Instant::now().checked_add(t)),
                Err(e) => (Inner::NoThread(Some(e)), None),
            },
        };
        Self {
            inner,
            buf: Vec::new(),
            chunk: chunk_for(size),
            deadline,
            tee,
            bytes: 0,
        }
    }

    /// The next chunk (already copied to the tee), the end, a failure, or the deadline.
    pub fn next_chunk(&mut self) -> Next<'_> {
        let got = match &mut self.inner {
            Inner::Direct(r) => {
                if self.buf.len() != self.chunk {
                    self.buf = vec![0; self.chunk];
                }
                read_some(r.as_mut(), &mut self.buf)
            }
            Inner::Thread(rx) => match recv(rx, self.deadline) {
                Ok(Some(Ok(chunk))) => {
                    self.buf = chunk;
                    Ok(self.buf.len())
                }
                Ok(Some(Err(e))) => Err(e),
                Ok(None) => Ok(0),
                Err(TimedOut) => return Next::TimedOut,
            },
            Inner::NoThread(e) => {
                // Reading without the thread could block past the deadline: refuse instead.
                let e = e.take().unwrap_or_else(|| io::Error::other("no thread"));
                return Next::Failed(Box::new(
                    Failure::new(
                        ErrorKind::Io,
                        "read",
                        format!(
                            "cannot start the thread that enforces --timeout: {}",
                            io_reason(&e)
                        ),
                    )
                    .retryable(true)
                    .hint(
                        "the system is out of threads or memory: run again, or without --timeout",
                    ),
                ));
            }
        };
        let n = match got {
            Ok(0) => return Next::End,
            Ok(n) => n,
            Err(e) => return Next::Failed(Box::new(read_failure(&e))),
        };
        if let Some(t) = &mut self.tee
            && let Err(f) = t.write(&self.buf[..n])
        {
            return Next::Failed(Box::new(f));
        }
        self.bytes += n as u64;
        Next::Data(&self.buf[..n])
    }
}

/// The read size for an input of `size` bytes: [`CHUNK`], or [`SMALL_CHUNK`] for a file
/// known to be smaller than [`READ_AHEAD_MIN`]. Every page of a read buffer is
/// faulted in the first time a read fills it (about 3 µs each on the VM of BENCHMARKS.md), so a
/// small buffer read again and again costs a short run less than one that holds the whole file;
/// a long input wants few, large reads.
pub fn chunk_for(size: Option<u64>) -> usize {
    match size {
        Some(n) if n < READ_AHEAD_MIN => SMALL_CHUNK,
        _ => CHUNK,
    }
}

/// The smallest file read ahead (on a second thread): below it, starting a thread costs more
/// than it saves.
pub const READ_AHEAD_MIN: u64 = 1 << 20;

/// The read size for small files ([`chunk_for`]).
pub const SMALL_CHUNK: usize = 16 * 1024;

/// The deadline passed.
struct TimedOut;

/// The next message, `None` when the sender is gone, or the deadline (none: wait as long as it
/// takes, as for a deadline too far to represent).
fn recv<T>(rx: &Receiver<T>, deadline: Option<Instant>) -> Result<Option<T>, TimedOut> {
    let got = match deadline {
        Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
    };
    match got {
        Ok(v) => Ok(Some(v)),
        Err(RecvTimeoutError::Disconnected) => Ok(None),
        Err(RecvTimeoutError::Timeout) => Err(TimedOut),
    }
}

/// One input split into lines ahead, on a reading thread: it reads, splits and computes each
/// line's [`LineFacts`] while the pipeline works on earlier lines, so that on a long stream the
/// fast path's raw-byte scan runs in parallel with the parsing of the lines that matter. The
/// lines, their numbers and the bytes copied to the tee are exactly those of [`Pump`] with a
/// [`LineSplitter`]; only where the work happens differs.
pub struct LinePump<'t> {
    rx: Receiver<io::Result<Batch>>,
    /// Batches handed back for reuse, so the steady state allocates nothing.
    back: Sender<Batch>,
    /// Batches sent and not yet received.
    queued: Arc<AtomicUsize>,
    /// The reading thread, joined once its channel closes.
    thread: Option<JoinHandle<()>>,
    current: Option<Batch>,
    deadline: Option<Instant>,
    tee: Option<&'t mut Tee>,
    /// Bytes read so far.
    pub bytes: u64,
    /// Lines handed out so far.
    pub lines: u64,
}

/// What [`LinePump::next_batch`] gave.
#[derive(Debug)]
pub enum NextBatch<'a> {
    Lines(&'a Batch),
    End,
    Failed(Box<Failure>),
    TimedOut,
}

/// The lines completed by one read.
#[derive(Debug, Default)]
pub struct Batch {
    /// The read's buffer; its first `len` bytes are what was read.
    buf: Vec<u8>,
    len: usize,
    /// The lines that began in an earlier read.
    spill: Vec<u8>,
    lines: Vec<Line>,
}

#[derive(Debug)]
enum Line {
    Whole {
        no: u64,
        /// In `spill` rather than in the read's bytes.
        spilled: bool,
        start: usize,
        end: usize,
        facts: Option<LineFacts>,
    },
    TooLong {
        no: u64,
    },
}

impl Batch {
    /// The bytes of the read, as read.
    pub fn read(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The lines, in order, each with its facts when they were computed.
    pub fn pieces(&self) -> impl Iterator<Item = (Piece<'_>, Option<LineFacts>)> {
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
    /// so that a long line is held once).
    fn record(&mut self, read: &[u8], span: Span<'_>, facts_on: bool) {
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
        let facts = facts_on.then(|| LineFacts::of(bytes));
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

/// Which lines a [`LinePump`]'s thread computes [`LineFacts`] for.
#[derive(Debug, Clone)]
pub struct FactsPolicy {
    /// Facts are computed while this is set (the pipeline clears it when its extractor does
    /// not read them).
    pub on: Arc<AtomicBool>,
    /// Only for batches read while the pipeline has work waiting ([`QUEUED_FOR_FACTS`]);
    /// otherwise for every line.
    pub balanced: bool,
}

impl<'t> LinePump<'t> {
    /// Read `reader` on a new thread, splitting lines at `max_line` bytes as [`LineSplitter`]
    /// does, with facts as `facts` says. With `timeout`, the input must end within it (from
    /// now). When no thread can be started, the reader is handed back (read it in place).
    pub fn new(
        reader: Box<dyn Read + Send>,
        max_line: usize,
        facts: FactsPolicy,
        timeout: Option<Duration>,
        tee: Option<&'t mut Tee>,
    ) -> Result<Self, Box<dyn Read + Send>> {
        let (tx, rx) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
        let (back, back_rx) = mpsc::channel::<Batch>();
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
    pub fn next_batch(&mut self) -> NextBatch<'_> {
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
struct Shared {
    max_line: usize,
    facts: FactsPolicy,
    /// Batches sent and not yet received.
    queued: Arc<AtomicUsize>,
}

/// Facts are computed for a batch only while the pipeline has at least this many batches
/// waiting: when it has fewer, the reading thread is the slower of the two, and leaving the scan
/// of this batch to the pipeline (which scans lines without facts itself) balances the work.
const QUEUED_FOR_FACTS: usize = 2;

/// The reading thread of a [`LinePump`]: read, split, send, until the end (the channel closing)
/// or an error.
fn split_ahead(
    mut reader: Box<dyn Read + Send>,
    shared: &Shared,
    tx: &SyncSender<io::Result<Batch>>,
    back: &Receiver<Batch>,
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
        match read_some(reader.as_mut(), &mut batch.buf) {
            Ok(0) => {
                batch.len = 0;
                splitter.finish_spans(&mut |p| batch.record(&[], p, on));
                if !batch.lines.is_empty() {
                    send(batch);
                }
                return;
            }
            Ok(n) => {
                batch.len = n;
                // The splitter reads the buffer while `record` fills the other fields.
                let buf = std::mem::take(&mut batch.buf);
                splitter.push_spans(&buf[..n], &mut |p| batch.record(&buf[..n], p, on));
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

/// The `io` failure of a read.
pub fn read_failure(e: &io::Error) -> Failure {
    Failure::new(
        ErrorKind::Io,
        "read",
        format!("reading the input failed: {}", io_reason(e)),
    )
}

/// One read, retried on `Interrupted`; 0 is the end.
pub fn read_some(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// A thread that reads chunks and sends them until the end (an empty send is never made: the
/// channel closing is the end) or an error; the error when no thread can start.
fn spawn(mut reader: Box<dyn Read + Send>) -> io::Result<Receiver<io::Result<Vec<u8>>>> {
    let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
    std::thread::Builder::new()
        .name("sojx-timeout".to_owned())
        .spawn(move || {
            let mut buf = vec![0u8; CHUNK];
            loop {
                match read_some(reader.as_mut(), &mut buf) {
                    Ok(0) => return,
                    Ok(n) => {
                        if tx.send(Ok(buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        })?;
    Ok(rx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_files_are_read_in_small_reads() {
        let min = READ_AHEAD_MIN;
        assert_eq!(chunk_for(Some(0)), SMALL_CHUNK);
        assert_eq!(chunk_for(Some(80 * 1024)), SMALL_CHUNK);
        assert_eq!(chunk_for(Some(min - 1)), SMALL_CHUNK);
        assert_eq!(chunk_for(Some(min)), CHUNK);
        // A pipe: its size is not known.
        assert_eq!(chunk_for(None), CHUNK);
    }

    /// A reader that hands out `data` in reads of the given sizes (cycling), as a pipe does.
    struct Reads {
        data: Vec<u8>,
        at: usize,
        sizes: Vec<usize>,
        n: usize,
    }

    impl Read for Reads {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let size = self.sizes[self.n % self.sizes.len()].max(1);
            self.n += 1;
            let k = size.min(buf.len()).min(self.data.len() - self.at);
            buf[..k].copy_from_slice(&self.data[self.at..self.at + k]);
            self.at += k;
            Ok(k)
        }
    }

    fn split_whole(data: &[u8], max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut splitter = LineSplitter::new(max);
        let mut f = |p: Piece<'_>| out.push(format!("{p:?}"));
        splitter.push(data, &mut f);
        splitter.finish(&mut f);
        out
    }

    fn split_ahead_all(data: &[u8], max: usize, sizes: Vec<usize>) -> (Vec<String>, Vec<u8>, u64) {
        let reader = Reads {
            data: data.to_vec(),
            at: 0,
            sizes,
            n: 0,
        };
        let facts = FactsPolicy {
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
                            assert_eq!(f, LineFacts::of(bytes));
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
            let (got, read, last) = split_ahead_all(&data, max, sizes);
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(read, data);
            prop_assert_eq!(last, want.len() as u64);
        }
    }

    #[test]
    fn pump_reads_everything_both_ways() {
        for timeout in [None, Some(Duration::from_secs(60))] {
            let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
            let mut p = Pump::new(Box::new(io::Cursor::new(data.clone())), None, timeout, None);
            let mut got = Vec::new();
            loop {
                match p.next_chunk() {
                    Next::Data(d) => got.extend_from_slice(d),
                    Next::End => break,
                    other => panic!("{other:?}"),
                }
            }
            assert_eq!(got, data);
            assert_eq!(p.bytes, 200_000);
        }
    }
}
