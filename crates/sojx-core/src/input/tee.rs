//! `--tee` (every input byte copied through as it is read) and the watchdog that bounds the
//! writes a read cannot interrupt.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

use crate::error::{ErrorKind, Failure, Operation};

use super::{FileId, io_reason};

/// `--tee FILE`: every input byte, written through (unbuffered) as it is read. Also
/// `--envelope-file FILE`, the envelopes written beside stdout: a file sojx writes while it
/// reads others, refused and opened by the same rules.
#[derive(Debug)]
pub struct Tee {
    file: File,
    path: PathBuf,
    /// The flag that named it, for messages.
    flag: &'static str,
    /// Whether what was written so far ends a line (nothing written counts as ended).
    at_line_start: bool,
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
        Self::beside("--tee", "tee to another file", path, inputs, also_read)
    }

    /// The file `flag` names, for a run over `inputs` that also reads `also_read`, by the
    /// rules of [`Tee::for_inputs`]; `hint` says what to do when it is refused.
    pub fn beside(
        flag: &'static str,
        hint: &'static str,
        path: Option<&Path>,
        inputs: &[PathBuf],
        also_read: &[(&str, PathBuf)],
    ) -> Result<Option<Self>, Failure> {
        let Some(path) = path else {
            return Ok(None);
        };
        let Some(target) = FileId::of_path(path) else {
            return Self::create(flag, path).map(Some);
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
                Operation::ParseArguments,
                format!(
                    "{flag} {} is {what}; it would be truncated before it is read",
                    path.display()
                ),
            )
            .target(path.to_string_lossy().into_owned())
            .retryable(false)
            .hint(hint));
        }
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        let own_output = [1, 2]
            .iter()
            .any(|&s| FileId::of_std(s).as_ref() == Some(&target));
        if regular && !own_output {
            return Self::create(flag, path).map(Some);
        }
        match std::fs::OpenOptions::new().append(true).open(path) {
            Ok(file) => Ok(Some(Self {
                file,
                path: path.to_path_buf(),
                flag,
                at_line_start: true,
            })),
            Err(e) => Err(cannot_create(flag, path, &e)),
        }
    }

    /// Create (or truncate) FILE, named by `flag`; failure is `filesystem`.
    pub fn create(flag: &'static str, path: &Path) -> Result<Self, Failure> {
        match File::create(path) {
            Ok(file) => Ok(Self {
                file,
                path: path.to_path_buf(),
                flag,
                at_line_start: true,
            }),
            Err(e) => Err(cannot_create(flag, path, &e)),
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

fn cannot_create(flag: &str, path: &Path, e: &io::Error) -> Failure {
    Failure::new(
        ErrorKind::Filesystem,
        Operation::Write,
        format!("cannot create {flag} {}: {}", path.display(), io_reason(e)),
    )
    .target(path.to_string_lossy().into_owned())
    .retryable(false)
}
