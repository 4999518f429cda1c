//! Where an input comes from ([`Source`]), files read whole besides the inputs, and file
//! identity (device and inode).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::error::{ErrorKind, Failure, Operation};

/// A file's identity: its device and inode (on unix; elsewhere its canonical path). Two names
/// of one file (a hard link, a symlink, `/dev/stderr`) have one identity; paths alone cannot
/// tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileId {
    #[cfg(unix)]
    dev_ino: (u64, u64),
    #[cfg(not(unix))]
    path: PathBuf,
}

impl FileId {
    #[cfg(unix)]
    fn of_metadata(m: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            dev_ino: (m.dev(), m.ino()),
        }
    }

    /// The file at `path` (symlinks followed), when it exists.
    pub fn of_path(path: &Path) -> Option<Self> {
        #[cfg(unix)]
        {
            Some(Self::of_metadata(&std::fs::metadata(path).ok()?))
        }
        #[cfg(not(unix))]
        {
            Some(Self {
                path: path.canonicalize().ok()?,
            })
        }
    }

    /// The file behind one of the process's standard streams (0 stdin, 1 stdout, 2 stderr).
    pub fn of_std(stream: u8) -> Option<Self> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let fd = match stream {
                0 => io::stdin().as_fd().try_clone_to_owned(),
                1 => io::stdout().as_fd().try_clone_to_owned(),
                _ => io::stderr().as_fd().try_clone_to_owned(),
            }
            .ok()?;
            Some(Self::of_metadata(&File::from(fd).metadata().ok()?))
        }
        #[cfg(not(unix))]
        {
            let _ = stream;
            None
        }
    }
}

/// Where one input comes from.
#[derive(Debug, Clone)]
pub enum Source {
    Stdin,
    Path(PathBuf),
}

impl Source {
    pub fn from_arg(path: &Path) -> Self {
        if path.as_os_str() == "-" {
            Self::Stdin
        } else {
            Self::Path(path.to_path_buf())
        }
    }

    /// The name used in envelopes: the file name as given, or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            Self::Stdin => "<stdin>".to_owned(),
            Self::Path(p) => p.to_string_lossy().into_owned(),
        }
    }

    /// The size of a regular file (also one redirected to standard input); `None` for pipes,
    /// terminals and anything whose size is not known in advance.
    pub fn size(&self) -> Option<u64> {
        let meta = match self {
            Self::Stdin => stdin_metadata()?,
            Self::Path(p) => std::fs::metadata(p).ok()?,
        };
        meta.is_file().then_some(meta.len())
    }

    /// Open the source for reading; a missing or unreadable file is a `filesystem` failure.
    pub fn open(&self) -> Result<Box<dyn Read + Send>, Failure> {
        self.open_within(None)
    }

    /// [`Source::open`], for a read bounded by `--timeout`: a FIFO or device is opened by its
    /// first read instead of here, on the thread that reads it, because opening a FIFO waits
    /// for a writer, which must not outlast the deadline.
    pub fn open_within(
        &self,
        timeout: Option<std::time::Duration>,
    ) -> Result<Box<dyn Read + Send>, Failure> {
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
}

/// A file opened by its first read (see [`Source::open_within`]).
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

/// Largest file sojx reads whole besides its inputs: a schema, a file a `$ref` or `--resource`
/// points to, the `--handoff` file. A path like `/dev/zero` or an endless pipe must not be read
/// into memory without bound.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Read all of `r`, refusing more than [`MAX_FILE_BYTES`].
pub fn read_capped(r: impl Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    r.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(io::Error::other(format!(
            "larger than {} MiB",
            MAX_FILE_BYTES >> 20
        )));
    }
    Ok(bytes)
}

/// Read a whole file that must be a regular file (after symlinks), at most [`MAX_FILE_BYTES`]:
/// a FIFO, a device, a socket or a directory is refused before it is opened, so that a FIFO
/// cannot block and `/dev/zero` is not read. The file opened must be the one checked (same
/// device and inode).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let checked = std::fs::metadata(path)?;
    if !checked.is_file() {
        return Err(io::Error::other(format!(
            "not a regular file ({})",
            file_kind(&checked)
        )));
    }
    let file = File::open(path)?;
    let opened = file.metadata()?;
    if !opened.is_file() || !same_file(&checked, &opened) {
        return Err(io::Error::other(
            "the file changed while it was being opened",
        ));
    }
    read_capped(file)
}

/// What a non-regular file is, in a few words.
fn file_kind(m: &std::fs::Metadata) -> &'static str {
    if m.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Whether two metadata describe the same file: same device and inode (a path says nothing).
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    FileId::of_metadata(a) == FileId::of_metadata(b)
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
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

/// A short lower-case reason for an I/O error, without the `(os error N)` suffix.
pub fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_owned(),
                None => s,
            }
        }
    }
}
