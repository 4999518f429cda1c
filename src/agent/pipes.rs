//! The agent's two output pipes: stdout as a [`ChildOut`] that `run` can stop reading at once
//! (a process that left the agent's group may hold the pipe open forever), stderr passed on as
//! [`Event::Stderr`] by a thread of its own, with its last bytes kept ([`Tail`]).

use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex, PoisonError};

use rustix::event::{PollFd, PollFlags, poll};

use super::Event;
use super::stderr::{Lines, strip_ansi};
use crate::input::read_some;

/// The most of the agent's stderr kept for the envelope.
pub(crate) const TAIL_BYTES: usize = 4096;

/// The agent's stdout, read in place (no thread, no copy: `extract`'s own reader reads it as
/// it reads a pipe); each read first waits, with `poll`, for the pipe or for
/// [`Stopper::stop`], after which reads end (as an end of input) whatever the pipe does.
pub(crate) struct ChildOut<R> {
    pipe: R,
    /// The read end of the stopper's pipe: readable once stopped.
    wake: OwnedFd,
    stopped: Arc<AtomicBool>,
}

/// Stops a [`ChildOut`] from another thread.
#[derive(Clone)]
pub(crate) struct Stopper {
    wake: Arc<OwnedFd>,
    stopped: Arc<AtomicBool>,
}

impl Stopper {
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        // One byte makes the wake pipe readable; a full pipe is readable already.
        let _ = rustix::io::write(&*self.wake, &[1]);
    }
}

/// Read `pipe` as a [`ChildOut`], with its [`Stopper`]; `pipe` back when the stopper's own
/// pipe cannot be made (out of file descriptors).
pub(crate) fn child_out<R: Read + AsFd>(pipe: R) -> Result<(ChildOut<R>, Stopper), R> {
    let Ok((wake_r, wake_w)) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC) else {
        return Err(pipe);
    };
    let stopped = Arc::new(AtomicBool::new(false));
    Ok((
        ChildOut {
            pipe,
            wake: wake_r,
            stopped: Arc::clone(&stopped),
        },
        Stopper {
            wake: Arc::new(wake_w),
            stopped,
        },
    ))
}

impl<R: Read + AsFd> Read for ChildOut<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.stopped.load(Ordering::SeqCst) {
                return Ok(0);
            }
            let mut fds = [
                PollFd::new(&self.pipe, PollFlags::IN),
                PollFd::new(&self.wake, PollFlags::IN),
            ];
            match poll(&mut fds, None) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
            if !fds[1].revents().is_empty() {
                self.stopped.store(true, Ordering::SeqCst);
                return Ok(0);
            }
            // Readable, closed (HUP) or failed: the read does not block and tells which.
            if !fds[0].revents().is_empty() {
                return self.pipe.read(buf);
            }
        }
    }
}

/// The last [`TAIL_BYTES`] of the agent's stderr, its first line that reported an error, and
/// the trampoline's record, if it wrote one.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tail(Arc<Mutex<Kept>>);

#[derive(Debug, Default)]
struct Kept {
    tail: Vec<u8>,
    lines: Lines,
    /// The window cut the tail.
    cut: bool,
    /// The errno of the trampoline that could not execute COMMAND.
    exec_error: Option<i32>,
}

impl Tail {
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, bytes: &[u8]) {
        let mut k = self.lock();
        let Kept {
            tail, lines, cut, ..
        } = &mut *k;
        lines.push(bytes);
        tail.extend_from_slice(bytes);
        if tail.len() > TAIL_BYTES {
            let over = tail.len() - TAIL_BYTES;
            tail.drain(..over);
            *cut = true;
        }
    }

    /// The tail as text: invalid UTF-8 replaced, a character cut by the 4 KiB window dropped,
    /// terminal escapes removed.
    pub(crate) fn text(&self) -> String {
        let k = self.lock();
        let s = String::from_utf8_lossy(&k.tail);
        let mut s = s.trim_start_matches('\u{fffd}');
        if k.cut {
            match s.find('\n') {
                // A window cut inside a line may have cut an escape sequence: that line goes.
                Some(nl) if !s[nl + 1..].trim().is_empty() => s = &s[nl + 1..],
                // The window is inside the last line (longer than the window): its end is kept,
                // marked as cut (`…` in the place of its first bytes), rather than nothing.
                _ => {
                    let mut at = '…'.len_utf8().min(s.len());
                    while !s.is_char_boundary(at) {
                        at += 1;
                    }
                    return format!("…{}", strip_ansi(&s[at..]));
                }
            }
        }
        strip_ansi(s)
    }

    /// The first line of the whole stderr that reported an error.
    pub(crate) fn first_error(&self) -> Option<String> {
        self.lock().lines.first_error()
    }

    /// The errno of the trampoline's record: COMMAND could not be executed.
    pub(crate) fn exec_error(&self) -> Option<i32> {
        self.lock().exec_error
    }
}

/// Start the thread that passes `pipe` on as [`Event::Stderr`] (then [`Event::StderrEnd`]),
/// keeping its tail; `false` when no thread could be started (the pipe is then dropped, and
/// the agent's writes to it fail). With the `nonce` of a start through the trampoline, the
/// trampoline's record at the pipe's start is kept in the tail instead of passed on: it is one
/// write of a few bytes, before any other, so the first read holds it whole.
pub(crate) fn pass_stderr<T: Send + 'static, E: Send + 'static>(
    mut pipe: impl Read + Send + 'static,
    tx: SyncSender<Event<T, E>>,
    tail: Tail,
    nonce: Option<u64>,
) -> bool {
    std::thread::Builder::new()
        .name("sojx-agent-stderr".to_owned())
        .spawn(move || {
            let mut buf = vec![0u8; 8 * 1024];
            let mut first = true;
            while let Ok(n @ 1..) = read_some(&mut pipe, &mut buf) {
                let mut bytes = &buf[..n];
                if std::mem::take(&mut first)
                    && let Some((errno, len)) = nonce.and_then(|n| record(bytes, n))
                {
                    tail.lock().exec_error = Some(errno);
                    bytes = &bytes[len..];
                }
                if bytes.is_empty() {
                    continue;
                }
                tail.push(bytes);
                if tx.send(Event::Stderr(bytes.to_vec())).is_err() {
                    return;
                }
            }
            let _ = tx.send(Event::StderrEnd);
        })
        .is_ok()
}

/// The trampoline's record at the start of `bytes` (Linux).
#[cfg(target_os = "linux")]
fn record(bytes: &[u8], nonce: u64) -> Option<(i32, usize)> {
    super::trampoline::read_record(bytes, nonce)
}

#[cfg(not(target_os = "linux"))]
fn record(_: &[u8], _: u64) -> Option<(i32, usize)> {
    None
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
        // Cut inside a line that held an escape: that line goes, the next is whole.
        let t = Tail::default();
        t.push(format!("\u{1b}[31m{}\nlast line\u{1b}[0m\n", "x".repeat(TAIL_BYTES)).as_bytes());
        assert_eq!(t.text(), "last line\n");
        let whole = Tail::default();
        whole.push(b"one\ntwo\n");
        assert_eq!(whole.text(), "one\ntwo\n");
        // A last line longer than the window keeps its end (issue 58: it once left the tail
        // empty).
        let long = Tail::default();
        long.push(format!("start\n{}the reason\n", "x".repeat(2 * TAIL_BYTES)).as_bytes());
        let s = long.text();
        assert!(s.starts_with('…') && s.ends_with("the reason\n"), "{s:?}");
    }

    #[test]
    fn a_stopped_child_out_ends_at_once() {
        use std::io::Write;
        // A pipe whose writer stays open: reading it would wait forever.
        let (r, w) = rustix::pipe::pipe().unwrap();
        let mut w = std::fs::File::from(w);
        w.write_all(b"abc").unwrap();
        let Ok((mut out, stop)) = child_out(std::fs::File::from(r)) else {
            panic!("no pipe")
        };
        let mut buf = [0; 8];
        assert_eq!(out.read(&mut buf).unwrap(), 3);
        let stopper = stop.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stopper.stop();
        });
        assert_eq!(out.read(&mut buf).unwrap(), 0);
        t.join().unwrap();
        // The end of the pipe ends the reads too.
        let (r, w) = rustix::pipe::pipe().unwrap();
        std::fs::File::from(w).write_all(b"xyz").unwrap();
        let Ok((mut out, _stop)) = child_out(std::fs::File::from(r)) else {
            panic!("no pipe")
        };
        let mut got = Vec::new();
        out.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"xyz");
    }
}
