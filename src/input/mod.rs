//! Input sources and the line splitter.
//!
//! Input is read in chunks and split into lines here, so memory is bounded by the longest line
//! (plus one chunk), whatever the input size, and the result does not depend on how the bytes
//! were split across reads.

mod ahead;
mod pump;
mod source;
mod split;
mod tee;

pub use ahead::{Batch, FactsPolicy, LinePump, NextBatch};
pub use pump::{Next, Pump, READ_AHEAD_MIN, SMALL_CHUNK, chunk_for, read_failure, read_some};
pub use source::{FileId, MAX_FILE_BYTES, Source, io_reason, read_capped, read_regular};
pub use split::{LineSplitter, Piece, Span, memchr};
pub use tee::{Tee, WATCHDOG_GRACE, Watchdog};

/// Size of one read from the input. Small enough that the buffers in flight between the reading
/// thread and the pipeline stay in the L2 cache: on the 256 MB stream of BENCHMARKS.md, 64 KiB
/// reads took a third of the kernel time of 256 KiB reads (the copy lands in cached memory)
/// and 17-26% off the wall time; 32 KiB was no faster.
pub const CHUNK: usize = 64 * 1024;
