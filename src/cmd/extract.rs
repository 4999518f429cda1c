//! `sojx extract`: the main job, one envelope per input, in order; inputs read in parallel,
//! or one at a time when `--tee`, `--timeout` or `--activity` follow them live.

use std::io;

use super::output::{
    Tally, emit, emit_rendered, fail_before_input, files_read, sources, stdin_guard, style,
};
use super::{Env, Io};
use crate::exit::ExitStatus;
use crate::{activity, batch, cli, extract, input, jq, markers, render, schema};

/// `extract`'s options for a run of `compare` or `extract`: the flags both share, and the plan
/// the environment sets (the fast path; no reading ahead, which `extract` may turn on).
pub(super) fn extract_options<'a>(
    from: cli::From,
    strict: bool,
    repair: bool,
    limits: &cli::LimitArgs,
    schema: Option<&'a schema::Schema>,
    env: &Env,
) -> extract::Options<'a> {
    extract::Options {
        from: from.0,
        strict,
        repair,
        max_line_bytes: limits.line.max_line_bytes,
        max_candidates: limits.max_candidates,
        max_answer_bytes: limits.max_answer_bytes,
        schema,
        read_ahead: extract::ReadAhead::Never,
        fast_path: !env.no_fast_path,
        ..extract::Options::default()
    }
}

pub(super) fn run(a: &cli::ExtractArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let schema = match schema::load(&a.schema) {
        Ok(s) => s,
        Err(f) => return fail_before_input("extract", &a.files, &f, io, style),
    };
    let assertions = match jq::Assertions::compile(&a.asserts) {
        Ok(x) => x,
        Err(f) => return fail_before_input("extract", &a.files, &f, io, style),
    };
    let handoff = match a.handoff.as_deref().map(markers::load_handoff).transpose() {
        Ok(h) => h,
        Err(f) => return fail_before_input("extract", &a.files, &f, io, style),
    };
    if let Some(code) = stdin_guard("extract", &a.files, io) {
        return Ok(code);
    }
    let sources = sources(&a.files);
    let one_by_one = a.activity || a.live.tee.is_some() || a.live.timeout.is_some();
    let opts = extract::Options {
        markers: a.markers,
        handoff: handoff.as_ref(),
        assertions: (!assertions.is_empty()).then_some(&assertions),
        // Inputs read in parallel already keep the cores busy.
        read_ahead: io.env.read_ahead(sources.len() <= 1 || one_by_one),
        ..extract_options(
            a.from,
            a.strict,
            a.repair,
            &a.limits,
            schema.as_ref(),
            &io.env,
        )
    };
    let mut status = ExitStatus::Success;
    let mut tally = Tally::default();
    if one_by_one {
        // --tee, --timeout and --activity follow each input as it arrives: one at a time, in
        // order (the tee file is one stream; activity lines must not interleave).
        let read = files_read(&a.schema, a.handoff.as_deref());
        let mut tee = match input::Tee::for_inputs(a.live.tee.as_deref(), &a.files, &read) {
            Ok(t) => t,
            Err(f) => return fail_before_input("extract", &a.files, &f, io, style),
        };
        for s in &sources {
            let name = s.name();
            let env = {
                let stderr = &mut *io.stderr;
                let color = style.stderr_color;
                let mut sink = |ev: activity::Activity| {
                    let _ = activity::event(stderr, &name, &ev, color);
                };
                let mut live = extract::Live {
                    tee: tee.as_mut(),
                    timeout: a.live.timeout,
                    activity: if a.activity { Some(&mut sink) } else { None },
                };
                extract::run_live(s, &opts, &mut live)
            };
            if a.activity {
                let _ = activity::summary(io.stderr, &env, style.stderr_color);
            }
            status = status.worst(env.exit_status());
            tally.note(&env);
            emit(io, &env, style)?;
        }
    } else {
        batch::for_each(
            &sources,
            batch::parallel_ok(&sources),
            |s| {
                // Rendering is part of the parallel work; the printing thread only writes bytes.
                let env = extract::run(s, &opts);
                let mut rendered = Vec::new();
                render::render(&mut rendered, &env, style).map(|()| (env, rendered))
            },
            |done| {
                let (env, rendered) = done?;
                status = status.worst(env.exit_status());
                tally.note(&env);
                emit_rendered(io, &env, &rendered, style)
            },
        )?;
    }
    tally.tell(io, "inputs");
    Ok(status)
}
