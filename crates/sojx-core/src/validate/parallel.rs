//! Validating on several cores: a reading thread cuts the input into batches (the lines of one
//! read), worker threads frame and validate them, and the calling thread writes what each gave
//! in input order, as soon as every earlier batch is written.
//!
//! A worker frames its batch from a clean state, which is right when the batch before it ended
//! between documents. When a batch ends inside a multi-line document (it "spilled"), its
//! documents before that one are kept, and from its first line on the rest of the input is
//! framed in the calling thread, as the serial path does; the batches the workers already
//! validated are framed again there.
//!
//! At most [`IN_FLIGHT_PER_WORKER`] batches per worker are read and not yet written: the reading
//! thread takes a token for each batch it ships, and the calling thread gives it back once the
//! batch is written, so memory stays bounded by that many batches (a read of 64 KiB, or
//! [`BATCH_LINES`] lines, and their envelopes; or one longest line) however fast the input is
//! read. A failing write stops the workers and the reading thread. When no thread can be
//! started, the caller gets the input back and validates it in its own thread.
//!
//! Each envelope's timestamp is the time its document was validated, so on several threads two
//! neighbouring envelopes can be a few milliseconds out of order; the envelopes themselves are
//! always in input order.

use std::any::Any;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use crate::input::{LineSink, Piece, ReadEnd, ReadPlan, Tee, read_lines};

use super::Out;
use super::batch::{Batch, Collect, Done, Work, deliver};
use super::frame::Documents;
use super::render::Clock;

/// Batches per worker that may be read and not yet written.
const IN_FLIGHT_PER_WORKER: usize = 4;

/// Most lines in a batch: what a batch holds until it is written is its envelopes, which for
/// short invalid documents are many times their bytes.
const BATCH_LINES: usize = 1024;

/// What a worker made of a batch.
enum Worked {
    /// The batch ended between documents.
    Clean(Vec<Done>),
    /// The batch ended inside the multi-line document starting at line `from`: `done` holds
    /// what came before it.
    Spilled { done: Vec<Done>, from: u64 },
    /// Not validated: an earlier batch spilled, and the calling thread frames this one.
    Skipped,
    /// The worker panicked: the calling thread raises it again, in order (the other threads
    /// stop, since no batch is written after it).
    Panicked(Box<dyn Any + Send>),
}

/// How [`run`] ended.
pub(super) enum Ran<'t> {
    /// The input was read: how reading ended and, when a batch spilled, the framer that took
    /// over (the caller finishes it).
    Read(ReadEnd, Option<Documents>),
    /// No thread could be started (a limit on processes or threads): the input, untouched, for
    /// the caller to read in its own thread.
    NoThread(Box<dyn Read + Send>, Option<&'t mut Tee>),
}

/// Read `reader`, validate on `jobs` worker threads, and hand the results to `out` in order.
pub(super) fn run<'t>(
    reader: Box<dyn Read + Send>,
    plan: ReadPlan,
    tee: Option<&'t mut Tee>,
    work: &Work<'_>,
    jobs: usize,
    out: &mut dyn Out,
    count: &mut u64,
) -> io::Result<Ran<'t>> {
    let in_flight = jobs.saturating_mul(IN_FLIGHT_PER_WORKER);
    let spilled = AtomicBool::new(false);
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, Arc<Batch>)>(in_flight);
    let job_rx = Mutex::new(job_rx);
    let (token_tx, token_rx) = mpsc::sync_channel::<()>(in_flight);
    for _ in 0..in_flight {
        // The channel holds them all: this cannot block or fail.
        let _ = token_tx.send(());
    }
    thread::scope(|scope| {
        let (done_tx, done_rx) = mpsc::channel::<(u64, Arc<Batch>, Worked)>();
        let mut workers = 0;
        for _ in 0..jobs {
            let (done_tx, job_rx, spilled) = (done_tx.clone(), &job_rx, &spilled);
            let started = thread::Builder::new()
                .name("sojx-validate".into())
                .spawn_scoped(scope, move || {
                    validate_batches(work, job_rx, spilled, &done_tx);
                });
            if started.is_err() {
                break;
            }
            workers += 1;
        }
        drop(done_tx);
        // The input goes to the reading thread once it runs, so that it is not lost when the
        // thread cannot be started.
        let (input_tx, input_rx) = mpsc::channel();
        let reading = (workers > 0)
            .then(|| {
                thread::Builder::new()
                    .name("sojx-read".into())
                    .spawn_scoped(scope, move || {
                        let Ok((reader, tee)) = input_rx.recv() else {
                            return ReadEnd::End;
                        };
                        read_batches(reader, plan, tee, job_tx, token_rx)
                    })
                    .ok()
            })
            .flatten();
        let Some(reading) = reading else {
            return Ok(Ran::NoThread(reader, tee));
        };
        if let Err(mpsc::SendError((reader, tee))) = input_tx.send((reader, tee)) {
            return Ok(Ran::NoThread(reader, tee));
        }
        let mut order = InOrder::new(work, &spilled);
        let mut written = Ok(());
        'results: for (seq, batch, worked) in &done_rx {
            order.waiting.insert(seq, (batch, worked));
            while let Some(done) = order.next_done() {
                written = deliver(done, out, count);
                if written.is_err() {
                    break 'results;
                }
                let _ = token_tx.send(());
            }
        }
        // On a failed write, this stops the reading thread at its next batch.
        drop(token_tx);
        drop(done_rx);
        let ended = match reading.join() {
            Ok(ended) => ended,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        written.map(|()| Ran::Read(ended, order.serial))
    })
}

/// A worker thread: validate the batches it is given until the channel closes or nobody
/// listens to its results.
fn validate_batches(
    work: &Work<'_>,
    jobs: &Mutex<Receiver<(u64, Arc<Batch>)>>,
    spilled: &AtomicBool,
    results: &mpsc::Sender<(u64, Arc<Batch>, Worked)>,
) {
    let mut clock = Clock::default();
    loop {
        let next = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok((seq, batch)) = next else { break };
        let worked = if spilled.load(Ordering::Relaxed) {
            Worked::Skipped
        } else {
            validate_batch(work, &batch, &mut clock)
        };
        if results.send((seq, batch, worked)).is_err() {
            break;
        }
    }
}

/// Frame and validate one batch from a clean state, catching a panic to raise it in order.
fn validate_batch(work: &Work<'_>, batch: &Batch, clock: &mut Clock) -> Worked {
    let validated = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let mut docs = Documents::new(work.max_line_bytes);
        let mut done = Vec::new();
        work.frame(batch, 0, &mut docs, clock, &mut done);
        (done, docs.open_since())
    }));
    match validated {
        Ok((done, None)) => Worked::Clean(done),
        Ok((done, Some(from))) => Worked::Spilled { done, from },
        Err(panic) => Worked::Panicked(panic),
    }
}

/// The reading thread: cut the input into batches and ship them, one token each.
fn read_batches(
    reader: Box<dyn Read + Send>,
    plan: ReadPlan,
    tee: Option<&mut Tee>,
    jobs: SyncSender<(u64, Arc<Batch>)>,
    tokens: Receiver<()>,
) -> ReadEnd {
    let mut ship = Ship {
        collect: Collect::default(),
        seq: 0,
        jobs,
        tokens,
        stopped: false,
    };
    let ended = read_lines(reader, plan, tee, &mut ship);
    let _ = ship.ship();
    ended
}

/// The calling thread's side: puts the workers' results back in input order, and frames the
/// input itself from the first batch that spilled on.
struct InOrder<'w, 'a> {
    work: &'w Work<'a>,
    spilled: &'w AtomicBool,
    /// Results that arrived before an earlier one, by sequence number.
    waiting: BTreeMap<u64, (Arc<Batch>, Worked)>,
    /// The sequence number to write next.
    next: u64,
    /// The framer that took over when a batch spilled.
    serial: Option<Documents>,
    clock: Clock,
    done: Vec<Done>,
}

impl<'w, 'a> InOrder<'w, 'a> {
    fn new(work: &'w Work<'a>, spilled: &'w AtomicBool) -> Self {
        Self {
            work,
            spilled,
            waiting: BTreeMap::new(),
            next: 0,
            serial: None,
            clock: Clock::default(),
            done: Vec::new(),
        }
    }

    /// The documents of the next batch in order, once its result is here.
    fn next_done(&mut self) -> Option<&mut Vec<Done>> {
        let (batch, worked) = self.waiting.remove(&self.next)?;
        self.next += 1;
        let work = self.work;
        match worked {
            Worked::Panicked(panic) => std::panic::resume_unwind(panic),
            Worked::Clean(done) if self.serial.is_none() => self.done = done,
            Worked::Spilled { done, from } if self.serial.is_none() => {
                self.done = done;
                self.spilled.store(true, Ordering::Relaxed);
                let docs = self.serial.insert(Documents::new(work.max_line_bytes));
                work.frame(&batch, from, docs, &mut self.clock, &mut self.done);
            }
            _ => {
                let docs = self
                    .serial
                    .get_or_insert_with(|| Documents::new(work.max_line_bytes));
                work.frame(&batch, 0, docs, &mut self.clock, &mut self.done);
            }
        }
        Some(&mut self.done)
    }
}

/// The read loop's sink on the reading thread: ships the lines of each read, or every
/// [`BATCH_LINES`] lines, to the workers.
struct Ship {
    collect: Collect,
    seq: u64,
    jobs: SyncSender<(u64, Arc<Batch>)>,
    tokens: Receiver<()>,
    /// Shipping failed (writing did): reading stops at the end of this read.
    stopped: bool,
}

impl Ship {
    /// Send the lines collected so far, once a batch may be in flight.
    fn ship(&mut self) -> ControlFlow<()> {
        let batch = self.collect.batch();
        if batch.is_empty() {
            return ControlFlow::Continue(());
        }
        if self.tokens.recv().is_err() || self.jobs.send((self.seq, Arc::new(batch))).is_err() {
            return ControlFlow::Break(());
        }
        self.seq += 1;
        ControlFlow::Continue(())
    }
}

impl LineSink for Ship {
    type Facts = ();

    fn line(&mut self, piece: Piece<'_>, _facts: Option<()>) {
        if self.stopped {
            return;
        }
        self.collect.take(piece);
        if self.collect.lines() >= BATCH_LINES {
            self.stopped = self.ship().is_break();
        }
    }

    fn read_done(&mut self) -> ControlFlow<()> {
        if self.stopped {
            return ControlFlow::Break(());
        }
        self.ship()
    }
}
