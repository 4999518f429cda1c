//! The read loop every command uses: one input → chunks (read in place, or split ahead on a
//! second thread) → lines, copied to `--tee` as read and bounded by `--timeout`, handed to a
//! [`LineSink`]. What the lines mean (an agent's events, documents, envelopes) is the sink's,
//! and so is the pre-scan of each line ([`PreScan`]) that reading ahead runs on its thread.

use std::io::Read;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::{ErrorKind, Failure, Operation};

use super::{FactsPolicy, LinePump, LineSplitter, Next, NextBatch, Piece, Pump, Tee};

/// The smallest file read ahead (on a second thread): below it, starting a thread costs more
/// than it saves.
pub const READ_AHEAD_MIN: u64 = 1 << 20;

/// Whether an input is read ahead, on a second thread (decided by the command layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAhead {
    /// Read and split in the caller's thread (`SOJX_READ_AHEAD=0`, inputs already read in
    /// parallel, or a sink that gains nothing from it).
    Never,
    /// Files of at least [`READ_AHEAD_MIN`] bytes and pipes: read, split and pre-scanned on a
    /// second thread, which shares the pre-scan with the caller so that neither thread waits
    /// for the other.
    Auto,
    /// Every input, pre-scanning every line on the second thread (`SOJX_READ_AHEAD=1`, for
    /// tests that compare the ways of reading).
    EveryLine,
}

impl ReadAhead {
    /// Whether an input of `size` bytes (`None`: a pipe) is read ahead, and if so whether the
    /// pre-scan is shared with the caller (`true`) or done for every line on the reading
    /// thread (`false`).
    fn balanced(self, size: Option<u64>) -> Option<bool> {
        match self {
            Self::Never => None,
            Self::EveryLine => Some(false),
            Self::Auto => size.is_none_or(|n| n >= READ_AHEAD_MIN).then_some(true),
        }
    }
}

/// How one input is read: the line limit, the deadline, and whether ahead.
#[derive(Debug, Clone, Copy)]
pub struct ReadPlan {
    /// `--max-line-bytes`: a longer line is handed out as [`Piece::TooLong`], never held.
    pub max_line: usize,
    /// The input's size when known (it sets the size of the reads).
    pub size: Option<u64>,
    /// `--timeout`: the input must end within it, from the start of the read.
    pub timeout: Option<Duration>,
    pub ahead: ReadAhead,
}

/// A sink's pre-scan: what a line's bytes alone say to the sink, computed on the reading thread
/// while the sink works on earlier lines, when the input is read ahead. The sink must come to
/// the same result with the facts as without them (it is handed lines without facts too).
pub type PreScan<F> = fn(&[u8]) -> F;

/// What the read loop hands lines to.
pub trait LineSink {
    /// What the sink's [`PreScan`] says of a line; `()` for a sink without one.
    type Facts: Copy + Send + std::fmt::Debug + 'static;

    /// The pre-scan the reading thread runs on each line when the input is read ahead; `None`
    /// (the default): the lines are only split ahead.
    fn pre_scan(&self) -> Option<PreScan<Self::Facts>> {
        None
    }

    /// One line (the first without its byte order mark, none with its newline) or a line past
    /// the limit, in order; `facts` when the reading thread pre-scanned it.
    fn line(&mut self, piece: Piece<'_>, facts: Option<Self::Facts>);

    /// The lines of one read were handed out: a point to report progress. `Break` stops
    /// reading ([`ReadEnd::Stopped`]).
    fn read_done(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// Whether the pre-scan still helps (asked after each read ahead; once `false`, the reading
    /// thread stops running it).
    fn wants_facts(&mut self) -> bool {
        true
    }
}

/// How reading ended.
#[derive(Debug)]
pub enum ReadEnd {
    /// The input ended; every line was handed out.
    End,
    /// Reading the input, or writing the tee, failed.
    Failed(Box<Failure>),
    /// The deadline passed first, after `bytes` bytes and `lines` lines.
    TimedOut { bytes: u64, lines: u64 },
    /// The sink asked to stop.
    Stopped,
}

impl ReadEnd {
    /// The failure for an ending the caller's plan and sink rule out (a timeout without a
    /// deadline, a stop the sink never asks for): sojx's bug, reported, never a panic.
    pub fn unexpected(&self) -> Failure {
        Failure::new(
            ErrorKind::Internal,
            Operation::Read,
            format!("reading stopped before the input ended: {self:?}"),
        )
    }
}

/// Read `reader` to its end as `plan` says, handing every line to `sink` (with its facts when
/// read ahead, from the sink's pre-scan).
pub fn read_lines<F: Copy + Send + std::fmt::Debug + 'static>(
    mut reader: Box<dyn Read + Send>,
    plan: ReadPlan,
    mut tee: Option<&mut Tee>,
    sink: &mut dyn LineSink<Facts = F>,
) -> ReadEnd {
    if let Some(balanced) = plan.ahead.balanced(plan.size) {
        let facts = FactsPolicy {
            scan: sink.pre_scan(),
            on: Arc::new(AtomicBool::new(true)),
            balanced,
        };
        let tee = tee.as_deref_mut();
        match LinePump::new(reader, plan.max_line, facts.clone(), plan.timeout, tee) {
            Ok(pump) => return ahead(pump, &facts.on, sink),
            // No thread could be started: read in place.
            Err(r) => reader = r,
        }
    }
    let mut splitter = LineSplitter::new(plan.max_line);
    let mut pump = Pump::new(reader, plan.size, plan.timeout, tee);
    loop {
        match pump.next_chunk() {
            Next::Data(bytes) => {
                splitter.push(bytes, &mut |p| sink.line(p, None));
                if sink.read_done().is_break() {
                    return ReadEnd::Stopped;
                }
            }
            Next::End => break,
            Next::Failed(f) => return ReadEnd::Failed(f),
            Next::TimedOut => {
                return ReadEnd::TimedOut {
                    bytes: pump.bytes,
                    lines: splitter.lines(),
                };
            }
        }
    }
    splitter.finish(&mut |p| sink.line(p, None));
    ReadEnd::End
}

/// [`read_lines`] with the lines split on a second thread; `facts_on` is its switch for the
/// pre-scan.
fn ahead<F: Copy + Send + std::fmt::Debug + 'static>(
    mut pump: LinePump<'_, F>,
    facts_on: &AtomicBool,
    sink: &mut dyn LineSink<Facts = F>,
) -> ReadEnd {
    loop {
        match pump.next_batch() {
            NextBatch::Lines(batch) => {
                for (piece, facts) in batch.pieces() {
                    sink.line(piece, facts);
                }
                if !sink.wants_facts() {
                    facts_on.store(false, Ordering::Relaxed);
                }
                if sink.read_done().is_break() {
                    return ReadEnd::Stopped;
                }
            }
            NextBatch::End => return ReadEnd::End,
            NextBatch::Failed(f) => return ReadEnd::Failed(f),
            NextBatch::TimedOut => {
                return ReadEnd::TimedOut {
                    bytes: pump.bytes,
                    lines: pump.lines,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line, as text, and how reading ended.
    #[derive(Default)]
    struct Collect {
        lines: Vec<String>,
        reads: usize,
    }

    impl LineSink for Collect {
        type Facts = ();

        fn line(&mut self, piece: Piece<'_>, _facts: Option<()>) {
            self.lines.push(match piece {
                Piece::Line { no, bytes } => format!("{no}:{}", String::from_utf8_lossy(bytes)),
                Piece::TooLong { no } => format!("{no}:<too long>"),
            });
        }

        fn read_done(&mut self) -> ControlFlow<()> {
            self.reads += 1;
            ControlFlow::Continue(())
        }
    }

    fn read_all(data: &'static [u8], ahead: ReadAhead, timeout: Option<Duration>) -> Vec<String> {
        let plan = ReadPlan {
            max_line: 8,
            size: None,
            timeout,
            ahead,
        };
        let mut sink = Collect::default();
        let ended = read_lines(Box::new(data), plan, None, &mut sink);
        assert!(matches!(ended, ReadEnd::End), "{ended:?}");
        assert!(sink.reads >= 1);
        sink.lines
    }

    /// In place, on a deadline thread, or ahead: the same lines, the byte order mark removed
    /// from the first, a line past the limit reported and not kept.
    #[test]
    fn every_way_of_reading_hands_out_the_same_lines() {
        let data = "\u{feff}a\r\nbb\n0123456789\n\nlast".as_bytes();
        let want = ["1:a", "2:bb", "3:<too long>", "4:", "5:last"];
        for ahead in [ReadAhead::Never, ReadAhead::Auto, ReadAhead::EveryLine] {
            for timeout in [None, Some(Duration::from_secs(60))] {
                assert_eq!(
                    read_all(data, ahead, timeout),
                    want,
                    "{ahead:?} {timeout:?}"
                );
            }
        }
    }

    #[test]
    fn the_sink_can_stop_reading() {
        struct Stop;
        impl LineSink for Stop {
            type Facts = ();
            fn line(&mut self, _: Piece<'_>, _: Option<()>) {}
            fn read_done(&mut self) -> ControlFlow<()> {
                ControlFlow::Break(())
            }
        }
        let plan = ReadPlan {
            max_line: 8,
            size: None,
            timeout: None,
            ahead: ReadAhead::Never,
        };
        let ended = read_lines(Box::new(&b"a\nb\n"[..]), plan, None, &mut Stop);
        assert!(matches!(ended, ReadEnd::Stopped));
    }

    #[test]
    fn small_files_are_not_read_ahead() {
        let min = READ_AHEAD_MIN;
        assert_eq!(ReadAhead::Auto.balanced(Some(min - 1)), None);
        assert_eq!(ReadAhead::Auto.balanced(Some(min)), Some(true));
        assert_eq!(ReadAhead::Auto.balanced(None), Some(true));
        assert_eq!(ReadAhead::Never.balanced(None), None);
        assert_eq!(ReadAhead::EveryLine.balanced(Some(0)), Some(false));
    }
}
