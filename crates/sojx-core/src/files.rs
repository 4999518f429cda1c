//! The files the engine reads besides its inputs — a schema named by path, the files its `$ref`s
//! and `--resource` point to, producer files and their folder, the `--handoff` file — read only
//! through the [`Files`] its caller gives it: the engine opens nothing itself. The command line
//! gives the disk (`src/disk/files.rs`); a program that gives none ([`NoFiles`]) has every such
//! read refused.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What a path names (symlinks followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file of this many bytes.
    File(u64),
    /// A directory.
    Dir,
    /// Anything else, in a few words: "a FIFO", "a device", "a socket".
    Other(&'static str),
}

/// A file's identity: its device and inode (on unix; elsewhere its canonical path). Two names
/// of one file (a hard link, a symlink, `/dev/stderr`) have one identity; paths alone cannot
/// tell.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileId {
    /// The device and the inode.
    DevIno(u64, u64),
    /// The path, absolute, symlinks resolved.
    Path(PathBuf),
}

/// How the engine reads files: given by its caller.
pub trait Files: Send + Sync + fmt::Debug {
    /// `path` made absolute, symlinks resolved.
    fn canonical(&self, path: &Path) -> io::Result<PathBuf>;

    /// What `path` names.
    fn kind(&self, path: &Path) -> io::Result<Kind>;

    /// The bytes of `path`, which may be a pipe (`--schema <(…)`), at most `max` (more is an
    /// error, never a truncated read).
    fn read(&self, path: &Path, max: u64) -> io::Result<Vec<u8>>;

    /// The bytes of the regular file `path`, at most `max`: anything else (a FIFO, which would
    /// block; `/dev/zero`, which never ends) is refused before it is opened.
    fn read_regular(&self, path: &Path, max: u64) -> io::Result<Vec<u8>>;

    /// The entries of the folder `dir`.
    fn list(&self, dir: &Path) -> io::Result<Vec<PathBuf>>;

    /// The identity of the file at `path`, when it exists and the platform gives one.
    fn id(&self, path: &Path) -> Option<FileId>;
}

/// No files: every read refused (`Unsupported`). What a program that does not let the engine
/// read files gives it, and the default of the settings that hold a [`Files`].
#[derive(Debug, Default, Clone, Copy)]
pub struct NoFiles;

impl NoFiles {
    fn refused() -> io::Error {
        io::Error::new(
            io::ErrorKind::Unsupported,
            "this program lets sojx read no files",
        )
    }
}

impl Files for NoFiles {
    fn canonical(&self, _: &Path) -> io::Result<PathBuf> {
        Err(Self::refused())
    }
    fn kind(&self, _: &Path) -> io::Result<Kind> {
        Err(Self::refused())
    }
    fn read(&self, _: &Path, _: u64) -> io::Result<Vec<u8>> {
        Err(Self::refused())
    }
    fn read_regular(&self, _: &Path, _: u64) -> io::Result<Vec<u8>> {
        Err(Self::refused())
    }
    fn list(&self, _: &Path) -> io::Result<Vec<PathBuf>> {
        Err(Self::refused())
    }
    fn id(&self, _: &Path) -> Option<FileId> {
        None
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{FileId, Files, Kind};
    use std::io;
    use std::path::{Path, PathBuf};

    /// The disk for the engine's own tests, plainly (`std::fs`, a file's identity its canonical
    /// path): the command line's, with its checks, is `src/disk/files.rs`.
    #[derive(Debug)]
    pub(crate) struct TestDisk;

    impl Files for TestDisk {
        fn canonical(&self, path: &Path) -> io::Result<PathBuf> {
            std::fs::canonicalize(path)
        }
        fn kind(&self, path: &Path) -> io::Result<Kind> {
            let m = std::fs::metadata(path)?;
            Ok(match (m.is_file(), m.is_dir()) {
                (true, _) => Kind::File(m.len()),
                (_, true) => Kind::Dir,
                _ => Kind::Other("a special file"),
            })
        }
        fn read(&self, path: &Path, max: u64) -> io::Result<Vec<u8>> {
            let bytes = std::fs::read(path)?;
            if bytes.len() as u64 > max {
                return Err(io::Error::other("too large"));
            }
            Ok(bytes)
        }
        fn read_regular(&self, path: &Path, max: u64) -> io::Result<Vec<u8>> {
            match self.kind(path)? {
                Kind::File(_) => self.read(path, max),
                _ => Err(io::Error::other("not a regular file")),
            }
        }
        fn list(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
            Ok(std::fs::read_dir(dir)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .collect())
        }
        fn id(&self, path: &Path) -> Option<FileId> {
            self.canonical(path).ok().map(FileId::Path)
        }
    }
}
