//! Reading one input as it arrives: chunks from the source, each copied to `--tee` before it is
//! processed, with an optional deadline (`--timeout`).
//!
//! Without a deadline the source is read in place. With one, a thread reads chunks and sends
//! them over a channel, and the caller waits with `recv_timeout`, so a writer that never closes
//! the pipe cannot hold sojx past its deadline (the reading thread is left blocked and ends with
//! the process).

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::error::{ErrorKind, Failure, Operation};

use super::{CHUNK, READ_AHEAD_MIN, Tee, io_reason};

/// Chunks in flight between the reading thread and the pipeline.
const IN_FLIGHT: usize = 16;

/// What the next read gave.
#[derive(Debug)]
pub(super) enum Next<'a> {
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
pub(super) struct Pump<'t> {
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
    pub(super) fn new(
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
    pub(super) fn next_chunk(&mut self) -> Next<'_> {
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
                        Operation::Read,
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

/// The read size for small files ([`chunk_for`]).
pub const SMALL_CHUNK: usize = 16 * 1024;

/// The deadline passed.
pub(super) struct TimedOut;

/// The next message, `None` when the sender is gone, or the deadline (none: wait as long as it
/// takes, as for a deadline too far to represent).
pub(super) fn recv<T>(rx: &Receiver<T>, deadline: Option<Instant>) -> Result<Option<T>, TimedOut> {
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

/// The `io` failure of a read.
pub fn read_failure(e: &io::Error) -> Failure {
    Failure::new(
        ErrorKind::Io,
        Operation::Read,
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
