//! The disk, for the command line: its inputs (`Arg`), and the files it writes beside them
//! (`--tee`, `--envelope-file`: `tee`); the disk as the engine reads it ([`Disk`]). The
//! engine opens none of these itself.

mod files;
mod source;
pub(crate) mod tee;

pub use files::Disk;
pub(crate) use files::{id_of_meta, id_of_path, id_of_std, read_regular, read_so_far};
pub(crate) use source::Arg;
