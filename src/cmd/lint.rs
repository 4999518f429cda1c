//! `sojx lint`: one envelope for one schema; its findings decide the exit status.

use std::io;

use super::output::{one, style};
use super::{Io, settings};
use crate::exit::ExitStatus;
use crate::{cli, lint};

pub(super) fn run(a: &cli::LintArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let mut style = style(&a.output, io);
    // A person at a terminal gets the short report, not the envelope.
    if a.output.output_format.is_none() && io.stdout_is_tty && !style.raw && !a.output.pretty {
        style.format = crate::render::OutputFormat::Text;
        style.pretty = false;
    }
    let settings = settings::schema_of(&a.schema, &a.refs);
    one(io, &lint::run(&a.schema, &settings, a.provider), style)
}
