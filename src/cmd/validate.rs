//! `sojx validate`: plain JSON documents, or JSON Lines, against a schema; an envelope per
//! document as it is read.

use std::io;

use super::Io;
use super::output::{Tally, emit, fail_before_input, files_read, sources, stdin_guard, style};
use crate::error::{ErrorKind, Failure};
use crate::exit::ExitStatus;
use crate::{cli, input, schema, validate};

pub(super) fn run(a: &cli::ValidateArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let schema = match schema::load(&a.schema) {
        Ok(Some(s)) => s,
        Ok(None) => {
            let f = Failure::new(
                ErrorKind::Usage,
                "parse_arguments",
                "sojx validate needs --schema",
            )
            .retryable(false)
            .hint("sojx validate --schema S [FILE]...");
            return fail_before_input("validate", &a.files, &f, io, style);
        }
        Err(f) => return fail_before_input("validate", &a.files, &f, io, style),
    };
    if let Some(code) = stdin_guard("validate", &a.files, io) {
        return Ok(code);
    }
    let read = files_read(&a.schema, None);
    let mut tee = match input::Tee::for_inputs(a.live.tee.as_deref(), &a.files, &read) {
        Ok(t) => t,
        Err(f) => return fail_before_input("validate", &a.files, &f, io, style),
    };
    let mut status = ExitStatus::Success;
    let mut tally = Tally::default();
    for s in sources(&a.files) {
        let _watchdog = input::Watchdog::arm(a.live.timeout);
        let (tee, timeout) = (tee.as_mut(), a.live.timeout);
        validate::run_live(
            &s,
            &schema,
            a.limits.max_line_bytes,
            tee,
            timeout,
            &mut |env| {
                status = status.worst(env.exit_status());
                tally.note(&env);
                emit(io, &env, style)
            },
        )?;
    }
    tally.tell(io, "documents");
    Ok(status)
}
