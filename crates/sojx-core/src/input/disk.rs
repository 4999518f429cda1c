//! Files the engine still reads itself (schema `$ref`s, producer files, the handoff file) and
//! file identity (device and inode).

use std::fs::File;
use std::io;
use std::path::Path;
#[cfg(not(unix))]
use std::path::PathBuf;

use super::read_capped;

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
