//! The files of the command line: its inputs ([`Arg`]), and the files it writes beside them
//! (`--tee`, `--envelope-file`: [`tee`]). The engine opens none of these itself.

mod source;
pub(crate) mod tee;

pub(crate) use source::Arg;
