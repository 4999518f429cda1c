//! `sojx compile`: one schema lowered for a provider, in one envelope.

use std::io;

use super::Io;
use super::output::{one, style};
use crate::exit::ExitStatus;
use crate::{cli, lower};

pub(super) fn run(a: &cli::CompileArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    one(io, &lower::run(a), style)
}
