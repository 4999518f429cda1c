//! `sojx generate`: a completion script or the man page on stdout (no envelope).

use std::io;

use super::Io;
use crate::exit::ExitStatus;
use crate::{cli, generate};

pub(super) fn run(a: &cli::GenerateArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    generate::write(a.what, io.stdout).map(|()| ExitStatus::Success)
}
