//! `--tee` (every input byte copied through as it is read) and the watchdog that bounds the
//! writes a read cannot interrupt.

use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

use crate::error::{ErrorKind, Failure, Operation};

use super::io_reason;

/// `--tee FILE`: every input byte, written through (unbuffered) as it is read. Also
/// `--envelope-file FILE`, the envelopes written beside stdout.
pub struct Tee {
    file: Box<dyn Write + Send>,
    path: PathBuf,
    /// The flag that named it, for messages.
    flag: &'static str,
    /// Whether what was written so far ends a line (nothing written counts as ended).
    at_line_start: bool,
}

impl Tee {
    /// The file `flag` names (`--tee`, `--envelope-file`), called `path` in messages, written
    /// through `file`: the caller opens it (the command line by the rules of
    /// `src/disk/tee.rs`).
    pub fn new(flag: &'static str, path: PathBuf, file: Box<dyn Write + Send>) -> Self {
        Self {
            file,
            path,
            flag,
            at_line_start: true,
        }
    }

    /// One line of sojx's own between two inputs' bytes (`run`'s attempts), on a line of its
    /// own even when the bytes before it did not end theirs.
    pub fn mark(&mut self, line: &str) -> Result<(), Failure> {
        let mut text = String::new();
        if !self.at_line_start {
            text.push('\n');
        }
        text.push_str(line);
        text.push('\n');
        self.write(text.as_bytes())
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        if let Some(&last) = bytes.last() {
            self.at_line_start = last == b'\n';
        }
        self.file
            .write_all(bytes)
            .and_then(|()| self.file.flush())
            .map_err(|e| {
                Failure::new(
                    ErrorKind::Io,
                    Operation::Write,
                    format!(
                        "writing to {} {} failed: {}",
                        self.flag,
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
/// [`Watchdog`] fires.
pub const WATCHDOG_GRACE: Duration = Duration::from_secs(1);

/// Calls its caller's `expired` (the command line ends the process with status 2, timeout) when
/// an input's `--timeout` has passed by [`WATCHDOG_GRACE`] and sojx is still reading that input. The read loop enforces the deadline
/// itself; this covers the writes it cannot interrupt while reading: `--activity` into a pipe
/// nobody reads (extract), an envelope per document into a full stdout (validate). Armed for
/// the read only: the work after it (validation, `--assert`) has its own budgets. Disarmed when
/// dropped.
pub struct Watchdog {
    _disarm: Option<Sender<()>>,
}

impl Watchdog {
    /// Armed for one input read with `timeout` (none: nothing to watch); `expired` runs on the
    /// watchdog's own thread.
    pub fn arm(timeout: Option<Duration>, expired: fn()) -> Self {
        let Some(limit) = timeout.and_then(|t| t.checked_add(WATCHDOG_GRACE)) else {
            return Self { _disarm: None };
        };
        let (tx, rx) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("sojx-watchdog".to_owned())
            .spawn(move || {
                // Dropping the sender (the input is done) disconnects: nothing to do.
                if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(limit) {
                    expired();
                }
            });
        Self {
            _disarm: spawned.is_ok().then_some(tx),
        }
    }
}

impl std::fmt::Debug for Tee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tee")
            .field("flag", &self.flag)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}
