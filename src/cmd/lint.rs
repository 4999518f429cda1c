//! `sojx lint`: one envelope for one schema; its findings decide the exit status.

use std::io;

use super::Io;
use super::output::{one, style};
use crate::exit::ExitStatus;
use crate::{cli, lint};

pub(super) fn run(a: &cli::LintArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    one(io, &lint::run(a), style)
}
