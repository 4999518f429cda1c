//! Input: where it comes from, and the one read loop every command uses ([`read_lines`]).
//!
//! Input is read in chunks and split into lines here, so memory is bounded by the longest line
//! (plus one chunk), whatever the input size, and the result does not depend on how the bytes
//! were split across reads. Encoding is handled here only: the byte order mark is removed from
//! the first line ([`LineSplitter`]); lines are bytes, and the stages after decide what invalid
//! UTF-8 means for them.
//!
//! - `source`: [`Source`] (an input the caller opens: the engine opens no file of its own),
//!   whole files read within a bound ([`read_capped`]);
//! - `read`: [`read_lines`], its [`ReadPlan`] and the [`LineSink`] it hands lines to (with the
//!   facts of the sink's own [`PreScan`], when read ahead);
//! - `split`: bytes → lines; `pump`: chunks, in place or on a deadline thread; `ahead`: lines
//!   split ahead on a reading thread; `tee`: `--tee`'s writes and the watchdog.

mod ahead;
mod pump;
mod read;
mod source;
mod split;
mod tee;

use ahead::{FactsPolicy, LinePump, NextBatch};
use pump::{Next, Pump};

pub use pump::{SMALL_CHUNK, chunk_for, read_failure, read_some};
pub use read::{LineSink, PreScan, READ_AHEAD_MIN, ReadAhead, ReadEnd, ReadPlan, read_lines};
pub use source::{MAX_FILE_BYTES, Source, io_reason, read_at_most, read_capped};
pub use split::{LineSplitter, Piece, Span, memchr};
pub use tee::{Tee, WATCHDOG_GRACE, Watchdog};

/// Size of one read from the input. Small enough that the buffers in flight between the reading
/// thread and the pipeline stay in the L2 cache: on the 256 MB stream of BENCHMARKS.md, 64 KiB
/// reads took a third of the kernel time of 256 KiB reads (the copy lands in cached memory)
/// and 17-26% off the wall time; 32 KiB was no faster.
pub const CHUNK: usize = 64 * 1024;

/// Bytes in memory handed out in the given pieces, one piece (or less) per read, as a pipe
/// hands out what its writer wrote: how tests and the fuzz targets show that the way an input
/// is split across reads changes nothing.
#[derive(Debug, Default)]
pub struct Pieces(std::collections::VecDeque<Vec<u8>>);

impl Pieces {
    pub fn new<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Self {
        Self(pieces.into_iter().map(<[u8]>::to_vec).collect())
    }
}

impl std::io::Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(front) = self.0.front_mut() {
            if front.is_empty() {
                self.0.pop_front();
                continue;
            }
            let n = front.len().min(buf.len());
            buf[..n].copy_from_slice(&front[..n]);
            front.drain(..n);
            return Ok(n);
        }
        Ok(0)
    }
}
