//! The command line's inputs: a file named on it, or standard input (`-`, or no file), opened
//! for the engine as it reads them ([`Arg`], the engine's `input::Source`).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{ErrorKind, Failure, Operation};
use crate::input::{Source, io_reason};

/// One input as the command line names it: a path, or standard input (`-`, or no file).
#[derive(Debug, Clone)]
pub(crate) enum Arg {
    Stdin,
    Path(PathBuf),
}

impl Arg {
    pub(crate) fn from_arg(path: &Path) -> Self {
        if path.as_os_str() == "-" {
            Self::Stdin
        } else {
            Self::Path(path.to_path_buf())
        }
    }
}

impl Source for Arg {
    fn name(&self) -> String {
        match self {
            Self::Stdin => "<stdin>".to_owned(),
            Self::Path(p) => p.to_string_lossy().into_owned(),
        }
    }

    fn size(&self) -> Option<u64> {
        let meta = match self {
            Self::Stdin => stdin_metadata()?,
            Self::Path(p) => std::fs::metadata(p).ok()?,
        };
        meta.is_file().then_some(meta.len())
    }

    /// A FIFO or device is opened by its first read when there is a `timeout`, on the thread
    /// that reads it, because opening a FIFO waits for a writer, which must not outlast the
    /// deadline.
    fn open_within(&self, timeout: Option<Duration>) -> Result<Box<dyn Read + Send>, Failure> {
        if let (Some(_), Self::Path(p)) = (timeout, self)
            && std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())
        {
            return Ok(Box::new(OpenOnRead {
                path: p.clone(),
                file: None,
            }));
        }
        match self {
            Self::Stdin => Ok(Box::new(io::stdin())),
            Self::Path(p) => match File::open(p) {
                Ok(f) if f.metadata().is_ok_and(|m| m.is_dir()) => Err(Failure::new(
                    ErrorKind::Filesystem,
                    Operation::Read,
                    format!("{} is a directory, not a file", p.display()),
                )
                .target(self.name())),
                Ok(f) => Ok(Box::new(f)),
                Err(e) => Err(Failure::new(
                    ErrorKind::Filesystem,
                    Operation::Read,
                    format!("cannot open {}: {}", p.display(), io_reason(&e)),
                )
                .target(self.name())
                .hint("check the path; `-` reads standard input")),
            },
        }
    }

    fn is_stdin(&self) -> bool {
        matches!(self, Self::Stdin)
    }
}

/// A file opened by its first read (see [`Arg::open_within`]).
struct OpenOnRead {
    path: PathBuf,
    file: Option<File>,
}

impl Read for OpenOnRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.file.is_none() {
            self.file = Some(File::open(&self.path)?);
        }
        self.file.as_mut().map_or(Ok(0), |f| f.read(buf))
    }
}

#[cfg(unix)]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

#[cfg(not(unix))]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    None
}
