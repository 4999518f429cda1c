//! The agent's two output pipes, each drained by its own thread: stdout as a [`ChildOut`] that
//! `run` can stop reading at once (a grandchild may hold the pipe open forever), stderr passed
//! on as [`Event::Stderr`] with its last bytes kept ([`Tail`]).

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};

use super::Event;
use crate::input::{CHUNK, read_some};

/// Chunks in flight from the stdout thread (as the deadline pump of `input`).
const IN_FLIGHT: usize = 16;

/// The most of the agent's stderr kept for the envelope.
pub(crate) const TAIL_BYTES: usize = 4096;

enum Chunk {
    Data(Vec<u8>),
    Failed(io::Error),
    /// The end of the pipe.
    End,
    /// [`Stopper::stop`]: end now.
    Stop,
}

/// The agent's stdout, read on a thread: reads end (as an end of input) as soon as
/// [`Stopper::stop`] is called, whatever the pipe does.
pub(crate) struct ChildOut {
    rx: Receiver<Chunk>,
    stopped: Arc<AtomicBool>,
    current: Vec<u8>,
    at: usize,
}

/// Stops a [`ChildOut`] from another thread.
#[derive(Clone)]
pub(crate) struct Stopper {
    tx: SyncSender<Chunk>,
    stopped: Arc<AtomicBool>,
}

impl Stopper {
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        // A full channel: the reader sees the flag before its next wait.
        match self.tx.try_send(Chunk::Stop) {
            Ok(()) | Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
        }
    }
}

/// Start the thread that reads `pipe`; `None` when no thread can be started.
pub(crate) fn child_out(mut pipe: impl Read + Send + 'static) -> io::Result<(ChildOut, Stopper)> {
    let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
    let stopped = Arc::new(AtomicBool::new(false));
    let thread_tx = tx.clone();
    std::thread::Builder::new()
        .name("sojx-agent-stdout".to_owned())
        .spawn(move || {
            let mut buf = vec![0u8; CHUNK];
            loop {
                let msg = match read_some(&mut pipe, &mut buf) {
                    Ok(0) => Chunk::End,
                    Ok(n) => Chunk::Data(buf[..n].to_vec()),
                    Err(e) => Chunk::Failed(e),
                };
                let last = matches!(msg, Chunk::Failed(_) | Chunk::End);
                if thread_tx.send(msg).is_err() || last {
                    return;
                }
            }
        })?;
    Ok((
        ChildOut {
            rx,
            stopped: Arc::clone(&stopped),
            current: Vec::new(),
            at: 0,
        },
        Stopper { tx, stopped },
    ))
}

impl Read for ChildOut {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.current.len() {
            if self.stopped.load(Ordering::SeqCst) {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Chunk::Data(d)) => {
                    self.current = d;
                    self.at = 0;
                }
                Ok(Chunk::Failed(e)) => {
                    self.stopped.store(true, Ordering::SeqCst);
                    return Err(e);
                }
                // The end is said, not told by the channel closing: the stopper keeps a sender.
                Ok(Chunk::End | Chunk::Stop) | Err(_) => {
                    self.stopped.store(true, Ordering::SeqCst);
                    return Ok(0);
                }
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The last [`TAIL_BYTES`] of the agent's stderr.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tail(Arc<Mutex<Vec<u8>>>);

impl Tail {
    fn push(&self, bytes: &[u8]) {
        let mut t = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        t.extend_from_slice(bytes);
        if t.len() > TAIL_BYTES {
            let cut = t.len() - TAIL_BYTES;
            t.drain(..cut);
        }
    }

    /// The tail as text: invalid UTF-8 replaced, a character cut by the 4 KiB window dropped.
    pub(crate) fn text(&self) -> String {
        let t = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let s = String::from_utf8_lossy(&t);
        s.trim_start_matches('\u{fffd}').to_owned()
    }
}

/// Start the thread that passes `pipe` on as [`Event::Stderr`] (then [`Event::StderrEnd`]),
/// keeping its tail; `false` when no thread could be started (the pipe is then dropped, and
/// the agent's writes to it fail).
pub(crate) fn pass_stderr<T: Send + 'static>(
    mut pipe: impl Read + Send + 'static,
    tx: SyncSender<Event<T>>,
    tail: Tail,
) -> bool {
    std::thread::Builder::new()
        .name("sojx-agent-stderr".to_owned())
        .spawn(move || {
            let mut buf = vec![0u8; 8 * 1024];
            while let Ok(n @ 1..) = read_some(&mut pipe, &mut buf) {
                tail.push(&buf[..n]);
                if tx.send(Event::Stderr(buf[..n].to_vec())).is_err() {
                    return;
                }
            }
            let _ = tx.send(Event::StderrEnd);
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_bytes_on_a_character_boundary() {
        let t = Tail::default();
        t.push("é".repeat(TAIL_BYTES).as_bytes());
        t.push(b"end");
        let s = t.text();
        assert!(s.ends_with("end") && s.len() <= TAIL_BYTES, "{}", s.len());
        assert!(!s.starts_with('\u{fffd}'));
    }

    #[test]
    fn a_stopped_child_out_ends_at_once() {
        // A pipe that never ends.
        struct Forever;
        impl Read for Forever {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                std::thread::sleep(std::time::Duration::from_secs(3600));
                Ok(0)
            }
        }
        let (mut out, stop) = child_out(Forever).unwrap();
        stop.stop();
        assert_eq!(out.read(&mut [0; 8]).unwrap(), 0);
        // The end of the pipe ends the reads, with the stopper alive.
        let (mut out, _stop) = child_out(&b"abc"[..]).unwrap();
        let mut got = Vec::new();
        out.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"abc");
    }
}
