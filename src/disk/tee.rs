//! Opening `--tee FILE` and `--envelope-file FILE` (files sojx writes while it reads others):
//! refused when sojx reads them, appended to when they are not regular files or are sojx's own
//! output, else created. The engine writes through the [`Tee`] made here.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{id_of_meta, id_of_path, id_of_std};
use crate::error::{ErrorKind, Failure, Operation};
use crate::files::FileId;
use crate::input::{Tee, io_reason};

/// `--tee FILE` for a run over `inputs` (none: standard input) that also reads the files of
/// `also_read` (`("--schema", path)`, …), opened within `timeout`: none without the flag, by
/// the rules of [`beside`].
pub(crate) fn for_inputs(
    path: Option<&Path>,
    inputs: &[PathBuf],
    also_read: &[(&str, PathBuf)],
    timeout: Option<Duration>,
) -> Result<Option<Tee>, Failure> {
    beside(
        Named {
            flag: "--tee",
            hint: "tee to another file",
            path,
        },
        inputs,
        also_read,
        timeout,
    )
}

/// A file the command line writes beside its output: the flag that names it, what to do when it
/// is refused, and the path (none: the flag was not given).
#[derive(Clone, Copy)]
pub(crate) struct Named<'a> {
    pub(crate) flag: &'static str,
    pub(crate) hint: &'static str,
    pub(crate) path: Option<&'a Path>,
}

/// The file `named` names, for a run over `inputs` that also reads `also_read`. Files are
/// compared by device and inode, not by name. FILE is refused (`usage`) when it is an input,
/// standard input being read, a file of `also_read` (which creating it would truncate before it
/// is read), or a file sojx has read for this run (a schema's `$ref`, a producer file:
/// [`super::read_so_far`]); also when it is sojx's own standard output or error redirected to
/// a regular file without append (`> out.jsonl`: both would write from their own offsets, over
/// each other). An existing FILE that is not a regular file (`/dev/null`, a terminal, a FIFO),
/// or that is sojx's own output opened for appending (`--tee /dev/stderr` with `2>>log`), is
/// appended to, never truncated; a FIFO is opened within `timeout` (it waits for a reader).
pub(crate) fn beside(
    named: Named<'_>,
    inputs: &[PathBuf],
    also_read: &[(&str, PathBuf)],
    timeout: Option<Duration>,
) -> Result<Option<Tee>, Failure> {
    let Named { flag, hint, path } = named;
    let Some(path) = path else {
        return Ok(None);
    };
    // What FILE is, asked once (symlinks followed); a new FILE is created.
    let Some((target, meta)) = std::fs::metadata(path)
        .ok()
        .and_then(|m| Some((id_of_meta(path, &m)?, m)))
    else {
        return create(flag, path).map(Some);
    };
    let (char_device, fifo) = special(&meta);
    // A character device (`/dev/null`, a terminal) is written without destroying anything
    // read from it: `--tee /dev/null < /dev/null`, `run --tee /dev/stderr` on a terminal.
    if !char_device && let Some(why) = clash(&target, inputs, also_read) {
        return Err(refused(flag, path, &why).hint(hint));
    }
    let regular = meta.is_file();
    let own: Vec<u8> = [1, 2]
        .into_iter()
        .filter(|&s| id_of_std(s).as_ref() == Some(&target))
        .collect();
    // Every one of sojx's streams that is the file must append (`>>f 2>f`: stderr does not).
    let overwriting = own.iter().copied().find(|&s| !appends(s));
    match overwriting {
        Some(stream) if regular => {
            let name = if stream == 1 { "output" } else { "error" };
            return Err(refused(
                flag,
                path,
                &format!(
                    "is sojx's own standard {name}, a file opened without append (`>`): both would write over each other"
                ),
            )
            .hint(format!(
                "redirect with `>>` (both then append), or name another file for {flag}"
            )));
        }
        None if regular && own.is_empty() => return create(flag, path).map(Some),
        _ => {}
    }
    match open_appending(path, timeout.filter(|_| fifo)) {
        Ok(file) => Ok(Some(Tee::new(flag, path.to_path_buf(), Box::new(file)))),
        Err(e) if e.kind() == io::ErrorKind::TimedOut => Err(Failure::new(
            ErrorKind::Timeout,
            Operation::Write,
            format!(
                "{flag} {} is a FIFO that no one read within --timeout",
                path.display()
            ),
        )
        .target(path.to_string_lossy().into_owned())
        .retryable(false)
        .hint("start the FIFO's reader first, or name a file")),
        Err(e) => Err(cannot_create(flag, path, &e)),
    }
}

/// Why the file `target` cannot be written: it is read in this run.
fn clash(target: &FileId, inputs: &[PathBuf], also_read: &[(&str, PathBuf)]) -> Option<String> {
    const TRUNCATED: &str = "it would be truncated before it is read";
    let stdin_read = inputs.is_empty() || inputs.iter().any(|i| i.as_os_str() == "-");
    if stdin_read && id_of_std(0).as_ref() == Some(target) {
        return Some(format!("is standard input, which sojx reads; {TRUNCATED}"));
    }
    if inputs
        .iter()
        .any(|i| i.as_os_str() != "-" && id_of_path(i).as_ref() == Some(target))
    {
        return Some(format!("is also an input; {TRUNCATED}"));
    }
    if let Some((flag, _)) = also_read
        .iter()
        .find(|(_, p)| id_of_path(p).as_ref() == Some(target))
    {
        return Some(format!("is the {flag} file; {TRUNCATED}"));
    }
    super::read_so_far()
        .into_iter()
        .find(|(id, _)| id == target)
        .map(|(_, p)| {
            format!(
                "is {}, a file sojx read for this run (a schema's $ref, a producer file); sojx never writes over a file it reads",
                p.display()
            )
        })
}

/// The `usage` failure of a file `flag` may not name.
fn refused(flag: &str, path: &Path, why: &str) -> Failure {
    Failure::new(
        ErrorKind::Usage,
        Operation::ParseArguments,
        format!("{flag} {} {why}", path.display()),
    )
    .target(path.to_string_lossy().into_owned())
    .retryable(false)
}

/// Whether a file is a character device (`/dev/null`, a terminal), and whether a FIFO.
fn special(meta: &std::fs::Metadata) -> (bool, bool) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        (t.is_char_device(), t.is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (false, false)
    }
}

/// Whether sojx's standard `stream` (1 or 2) was opened for appending (`>>`): writes through
/// it then land at the end, wherever another descriptor of the file writes.
fn appends(stream: u8) -> bool {
    #[cfg(unix)]
    {
        use rustix::fs::{OFlags, fcntl_getfl};
        let flags = if stream == 1 {
            fcntl_getfl(io::stdout())
        } else {
            fcntl_getfl(io::stderr())
        };
        flags.is_ok_and(|f| f.contains(OFlags::APPEND))
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        false
    }
}

/// Open an existing file for appending. A FIFO waits for its reader: given its `timeout`, it
/// is opened without blocking, again every 10 ms until a reader comes (`TimedOut` when none
/// came in time), then made blocking for the writes.
fn open_appending(path: &Path, fifo_timeout: Option<Duration>) -> io::Result<File> {
    #[cfg(unix)]
    if let Some(limit) = fifo_timeout {
        use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
        use std::os::unix::fs::OpenOptionsExt;
        let start = Instant::now();
        loop {
            let opened = std::fs::OpenOptions::new()
                .append(true)
                .custom_flags(i32::try_from(OFlags::NONBLOCK.bits()).unwrap_or(0))
                .open(path);
            match opened {
                Ok(file) => {
                    let flags = fcntl_getfl(&file)?;
                    fcntl_setfl(&file, flags - OFlags::NONBLOCK)?;
                    return Ok(file);
                }
                Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) => {
                    if start.elapsed() >= limit {
                        return Err(io::Error::new(io::ErrorKind::TimedOut, "no reader"));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(e),
            }
        }
    }
    let _ = fifo_timeout;
    std::fs::OpenOptions::new().append(true).open(path)
}

/// Create (or truncate) FILE, named by `flag`; failure is `filesystem`.
pub(crate) fn create(flag: &'static str, path: &Path) -> Result<Tee, Failure> {
    match File::create(path) {
        Ok(file) => Ok(Tee::new(flag, path.to_path_buf(), Box::new(file))),
        Err(e) => Err(cannot_create(flag, path, &e)),
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
