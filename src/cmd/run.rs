//! `sojx run -- COMMAND…`: start the agent and own it until it is gone (`agent::supervise`),
//! read its stdout as `extract` reads an input, and print one envelope that also says how the
//! agent ended.

use std::io;

use super::Io;
use super::extract::Loaded;
use super::output::{emit, fail_before_named, files_read, style};
use crate::exit::ExitStatus;
use crate::{activity, cli};

#[cfg(unix)]
pub(super) fn run(a: &cli::RunArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    use crate::agent::{self, Bounds, Spec};
    use crate::envelope::{self, Parts};
    use crate::error::{ErrorKind, Failure};
    use crate::{extract, input};

    let style = style(&a.output, io);
    let spec = Spec {
        argv: a.command.clone(),
        // In its own process group the agent cannot read a terminal (SIGTTIN would stop it).
        stdin: !io.stdin_is_tty,
        env: Vec::new(),
    };
    let name = spec.program();
    let names = [name.clone()];
    let loaded = match Loaded::load(&a.schema, &a.answer) {
        Ok(l) => l,
        Err(f) => return fail_before_named("run", &names, &f, io, style),
    };
    let read = files_read(&a.schema, a.answer.handoff.as_deref());
    // The agent may read sojx's stdin: the tee must not be that file either.
    let mut tee = match input::Tee::for_inputs(a.live.tee.as_deref(), &[], &read) {
        Ok(t) => t,
        Err(f) => return fail_before_named("run", &names, &f, io, style),
    };
    let opts = loaded.options(&a.answer, &a.limits, &io.env, io.env.read_ahead(true));
    let started = match agent::spawn(&spec) {
        Ok(s) => s,
        Err(f) => {
            let env = envelope::failure("run", &name, f, Parts::default())
                .with_agent(agent::Report::not_started(&spec).to_value());
            emit(io, &env, style)?;
            return Ok(env.exit_status());
        }
    };
    let bounds = Bounds {
        timeout: a.live.timeout,
        kill_after: a.kill_after,
    };
    let color = style.stderr_color;
    let show = a.answer.activity;
    let work = |reader, send: &mut dyn FnMut(activity::Activity)| {
        let mut live = extract::Live {
            tee: tee.as_mut(),
            timeout: a.live.timeout,
            activity: if show { Some(send) } else { None },
        };
        extract::run_reader(&name, reader, &opts, &mut live)
    };
    let finished = agent::supervise(
        started,
        &spec,
        bounds,
        &mut *io.stderr,
        &mut |err, ev| {
            let _ = activity::event(err, &name, ev, color);
        },
        work,
        |env: &crate::envelope::Envelope| env.error_kind() == Some(ErrorKind::Timeout),
    );
    let env = finished.result.unwrap_or_else(|| {
        let f = Failure::new(
            ErrorKind::Io,
            "read",
            "no thread could be started to read the agent's output; the agent was stopped",
        )
        .retryable(true)
        .hint("the system is out of threads or memory: run again");
        envelope::failure("extract", &name, f, Parts::default())
    });
    let env = agent::conclude(env, &finished.report, finished.ended);
    if show {
        let _ = activity::summary(io.stderr, &env, color);
    }
    emit(io, &env, style)?;
    Ok(env.exit_status())
}

/// Not on this platform: process groups and signals are unix's.
#[cfg(not(unix))]
pub(super) fn run(a: &cli::RunArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    use crate::error::{ErrorKind, Failure};
    let style = style(&a.output, io);
    let f = Failure::new(
        ErrorKind::Usage,
        "parse_arguments",
        "`sojx run` needs a unix system (process groups and signals); pipe the agent's output into `sojx extract` instead",
    )
    .retryable(false);
    let names = [a
        .command
        .first()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()];
    let _ = (activity::event, files_read, emit, Loaded::load);
    fail_before_named("run", &names, &f, io, style)
}
