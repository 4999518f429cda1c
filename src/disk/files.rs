//! The disk, as the engine reads it ([`Disk`], the engine's `files::Files`): a schema named by
//! path, the files its `$ref`s and `--resource` point to, producer files and their folder, the
//! `--handoff` file; and files' identities (device and inode) for the files the command line
//! writes ([`id_of_path`], [`id_of_std`]).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::files::{FileId, Files, Kind};
use crate::input::read_at_most;

/// The disk, read through `std::fs`. Every file whose bytes it reads is remembered for the
/// rest of the process (`read_so_far`): the files the command line writes must not be one.
#[derive(Debug, Default, Clone, Copy)]
pub struct Disk;

/// The files [`Disk`] read, by identity, each with its path as given.
static READ: Mutex<Vec<(FileId, PathBuf)>> = Mutex::new(Vec::new());

/// The files [`Disk`] has read in this process: a schema by path, its `$ref`s and
/// `--resource` files, producer files and their folder's, the `--handoff` file, a
/// `--prompt-file`.
pub(crate) fn read_so_far() -> Vec<(FileId, PathBuf)> {
    READ.lock()
        .map_or_else(|e| e.into_inner().clone(), |r| r.clone())
}

/// Remember that `file`, opened from `path`, is read.
fn remember(file: &File, path: &Path) {
    #[cfg(unix)]
    let id = file.metadata().ok().map(|m| id_of(&m));
    #[cfg(not(unix))]
    let id = {
        let _ = file;
        id_of_path(path)
    };
    if let Some(id) = id {
        let mut read = READ
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !read.iter().any(|(i, _)| *i == id) {
            read.push((id, path.to_path_buf()));
        }
    }
}

impl Files for Disk {
    fn canonical(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }

    fn kind(&self, path: &Path) -> io::Result<Kind> {
        let m = std::fs::metadata(path)?;
        Ok(if m.is_file() {
            Kind::File(m.len())
        } else if m.is_dir() {
            Kind::Dir
        } else {
            Kind::Other(file_kind(&m))
        })
    }

    fn read(&self, path: &Path, max: u64) -> io::Result<Vec<u8>> {
        let file = File::open(path)?;
        remember(&file, path);
        read_at_most(file, max)
    }

    /// The file opened must be the one checked (same device and inode).
    fn read_regular(&self, path: &Path, max: u64) -> io::Result<Vec<u8>> {
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
        remember(&file, path);
        read_at_most(file, max)
    }

    /// An entry that cannot be read (removed while listed) is left out.
    fn list(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        Ok(std::fs::read_dir(dir)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect())
    }

    fn id(&self, path: &Path) -> Option<FileId> {
        id_of_path(path)
    }
}

/// A regular file the command line reads whole (`--prompt-file`, `--feedback-template @FILE`),
/// at most the engine's bound on a whole file, by [`Disk`]'s rules.
pub(crate) fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    Disk.read_regular(path, crate::input::MAX_FILE_BYTES)
}

/// The file at `path` (symlinks followed), when it exists.
pub(crate) fn id_of_path(path: &Path) -> Option<FileId> {
    id_of_meta(path, &std::fs::metadata(path).ok()?)
}

/// The file at `path`, whose metadata (symlinks followed) is `meta`. (An `Option` for other
/// systems than unix, where the identity is the canonical path.)
#[cfg_attr(unix, allow(clippy::unnecessary_wraps))]
pub(crate) fn id_of_meta(path: &Path, meta: &std::fs::Metadata) -> Option<FileId> {
    #[cfg(unix)]
    {
        let _ = path;
        Some(id_of(meta))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Some(FileId::Path(path.canonicalize().ok()?))
    }
}

/// The file behind one of the process's standard streams (0 stdin, 1 stdout, 2 stderr).
pub(crate) fn id_of_std(stream: u8) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = match stream {
            0 => io::stdin().as_fd().try_clone_to_owned(),
            1 => io::stdout().as_fd().try_clone_to_owned(),
            _ => io::stderr().as_fd().try_clone_to_owned(),
        }
        .ok()?;
        Some(id_of(&File::from(fd).metadata().ok()?))
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        None
    }
}

#[cfg(unix)]
fn id_of(m: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId::DevIno(m.dev(), m.ino())
}

/// Whether two metadata describe the same file: same device and inode (a path says nothing).
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    id_of(a) == id_of(b)
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
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
