//! `sojx compile`: one schema lowered for a provider, in one envelope.

use std::io;

use super::output::{one, style};
use super::{Io, settings};
use crate::exit::ExitStatus;
use crate::{cli, lower};

pub(super) fn run(a: &cli::CompileArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let settings = settings::schema_of(&a.schema, &a.refs);
    one(
        io,
        &lower::run(&a.schema, &settings, a.provider, a.compat),
        style,
    )
}
