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
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::error::{ErrorKind, Failure};
use crate::input::{CHUNK, io_reason};

/// Chunks in flight between the reading thread and the pipeline.
const IN_FLIGHT: usize = 16;

/// `--tee FILE`: every input byte, written through (unbuffered) as it is read.
#[derive(Debug)]
pub struct Tee {
    file: File,
    path: PathBuf,
}

impl Tee {
    /// `--tee FILE` for a run over `inputs`: none without the flag; refused (`usage`) when FILE
    /// is one of the inputs, which creating it would truncate before it is read.
    pub fn for_inputs(path: Option<&Path>, inputs: &[PathBuf]) -> Result<Option<Self>, Failure> {
        let Some(path) = path else {
            return Ok(None);
        };
        if let Ok(tee) = path.canonicalize()
            && inputs
                .iter()
                .any(|i| i.canonicalize().is_ok_and(|i| i == tee))
        {
            return Err(Failure::new(
                ErrorKind::Usage,
                "parse_arguments",
                format!(
                    "--tee {} is also an input; it would be truncated before it is read",
                    path.display()
                ),
            )
            .target(path.to_string_lossy().into_owned())
            .retryable(false)
            .hint("tee to another file"));
        }
        Self::create(path).map(Some)
    }

    /// Create (or truncate) FILE; failure is `filesystem`.
    pub fn create(path: &Path) -> Result<Self, Failure> {
        match File::create(path) {
            Ok(file) => Ok(Self {
                file,
                path: path.to_path_buf(),
            }),
            Err(e) => Err(Failure::new(
                ErrorKind::Filesystem,
                "write",
                format!("cannot create --tee {}: {}", path.display(), io_reason(&e)),
            )
            .target(path.to_string_lossy().into_owned())
            .retryable(false)),
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
}

/// One input, chunk by chunk.
pub struct Pump<'t> {
    inner: Inner,
    buf: Vec<u8>,
    deadline: Option<Instant>,
    tee: Option<&'t mut Tee>,
    /// Bytes read so far.
    pub bytes: u64,
}

impl<'t> Pump<'t> {
    /// Read `reader`; with `timeout`, the input must end within it (from now).
    pub fn new(
        reader: Box<dyn Read + Send>,
        timeout: Option<Duration>,
        tee: Option<&'t mut Tee>,
    ) -> Self {
        let (inner, deadline) = match timeout {
            None => (Inner::Direct(reader), None),
            Some(t) => (Inner::Thread(spawn(reader)), Instant::now().checked_add(t)),
        };
        Self {
            inner,
            buf: Vec::new(),
            deadline,
            tee,
            bytes: 0,
        }
    }

    /// The next chunk (already copied to the tee), the end, a failure, or the deadline.
    pub fn next_chunk(&mut self) -> Next<'_> {
        let got = match &mut self.inner {
            Inner::Direct(r) => {
                if self.buf.len() != CHUNK {
                    self.buf = vec![0; CHUNK];
                }
                read_some(r.as_mut(), &mut self.buf)
            }
            Inner::Thread(rx) => {
                let wait = match self.deadline {
                    Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
                    // A deadline too far to represent: wait as long as it takes.
                    None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                };
                match wait {
                    Ok(Ok(chunk)) => {
                        self.buf = chunk;
                        Ok(self.buf.len())
                    }
                    Ok(Err(e)) => Err(e),
                    Err(RecvTimeoutError::Disconnected) => Ok(0),
                    Err(RecvTimeoutError::Timeout) => return Next::TimedOut,
                }
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
/// channel closing is the end) or an error.
fn spawn(mut reader: Box<dyn Read + Send>) -> Receiver<io::Result<Vec<u8>>> {
    let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
    std::thread::spawn(move || {
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
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pump_reads_everything_both_ways() {
        for timeout in [None, Some(Duration::from_secs(60))] {
            let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
            let mut p = Pump::new(Box::new(io::Cursor::new(data.clone())), timeout, None);
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
