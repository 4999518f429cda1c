//! `sojx run -- COMMAND…`: start the agent and own it until it is gone (`agent::supervise`),
//! read its stdout as `extract` reads an input, and print one envelope that also says how the
//! agent ended; with `--max-attempts`, try again with what was wrong fed back.

#[cfg(unix)]
mod acp;
#[cfg(unix)]
mod attempts;
#[cfg(unix)]
mod claude_schema;
#[cfg(unix)]
mod give_schema;
#[cfg(unix)]
mod retry;

use std::io;

use super::Io;
use super::extract::{Prepared, Producers};
use super::output::{emit, fail_before_named, files_read, style};
use crate::exit::ExitStatus;
use crate::names::Command;
use crate::{activity, cli};

#[cfg(unix)]
pub(super) fn run(a: &cli::RunArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    use crate::agent::{self, Spec, Stdin};

    if a.acp {
        return acp::run(a, io);
    }
    let style = style(&a.output, io);
    let mut first = Spec {
        argv: a.command.clone(),
        // In its own process group the agent cannot read a terminal (SIGTTIN would stop it).
        stdin: if io.stdin_is_tty {
            Stdin::Null
        } else {
            Stdin::Inherit
        },
        env: Vec::new(),
    };
    let name = first.program();
    let Setup {
        loaded,
        mut plan,
        mut tee,
        schema_flags,
        mismatch,
    } = match setup(a, io, &mut first) {
        Ok(s) => s,
        Err(f) => return fail_before_named(Command::Run, &[name], &f, io, style),
    };
    let opts = loaded.options(&a.answer, &a.limits, &io.env, io.env.read_ahead(true));
    let color = style.stderr_color;
    // Caught before the first agent starts, for the whole run.
    let interrupts = agent::Interrupts::catch();
    let shared = Shared {
        a,
        schema_flags: &schema_flags,
        name: &name,
        opts: &opts,
        color,
        interrupts: &interrupts,
    };
    let mut process = Process {
        shared,
        first: &first,
        plan: &mut plan,
        tee: tee.as_mut(),
        io: &mut *io,
    };
    let (env, attempts) = attempts::attempts(&mut process);
    let env = ended(env, &interrupts);
    let env = if plan.rules().max > 1 {
        env.with_attempts(attempts)
    } else {
        env
    };
    let env = match mismatch {
        Some(w) => env.with_warning(w),
        None => env,
    };
    finish(a, io, style, &env)
}

/// What a process run decides before its first attempt.
#[cfg(unix)]
struct Setup {
    loaded: Prepared,
    plan: retry::RetryPlan,
    tee: Option<crate::input::Tee>,
    /// The settings of the schema flags as given.
    schema_flags: crate::schema::Settings,
    /// The schema given to the agent is not `--schema`'s (`schema_mismatch`).
    mismatch: Option<crate::warning::Warning>,
}

/// Before the first attempt: the envelope file, the producer files, the schema (`--schema`, or
/// COMMAND's own) and the one `first` is given (`give_schema`), the retries' plan, the hint of
/// the stream flags COMMAND lacks, and the tee.
#[cfg(unix)]
fn setup(
    a: &cli::RunArgs,
    io: &mut Io<'_>,
    first: &mut crate::agent::Spec,
) -> Result<Setup, crate::error::Failure> {
    let name = first.program();
    // The schema flags as given; with COMMAND's own schema below when there is no --schema.
    let schema_flags = super::settings::schema(&a.schema);
    // The producer files and the schema (with its `$ref`s) are read before the envelope file and
    // the tee are opened, so that neither can be one of them; a failure to read them is told
    // once the envelope file is open.
    let prepared = (|| {
        // What sojx knows of COMMAND's own flags: by --resume-profile, or by its file name.
        let producers = Producers::load(&a.answer.producer_files, &a.answer.from, &io.env)?;
        let known = retry::known_profile(&a.retry, first, producers.registry());
        let from_argv = known.and_then(|p| p.schema_arg(&first.argv));
        let schema_settings = match (&schema_flags.schema, &from_argv) {
            (None, Some((_, value))) => crate::schema::Settings {
                schema: Some(value.clone()),
                ..schema_flags.clone()
            },
            _ => schema_flags.clone(),
        };
        let agent_schema = give_schema::decide(
            &schema_flags,
            super::settings::given_under(&a.schema),
            !a.no_agent_schema,
            known,
            &first.argv,
            from_argv.as_ref(),
            &name,
        );
        let loaded = Prepared::with(producers, &schema_settings, agent_schema.under, &a.answer)?;
        Ok::<_, crate::error::Failure>((loaded, known, from_argv, agent_schema))
    })();
    // The files sojx reads (COMMAND's own among them), and the envelope file: what the tee
    // must not be.
    let mut read = files_read(&schema_flags, a.answer.handoff.as_deref());
    read.extend(template_file(&a.retry));
    read.extend(crate::agent::command_files(
        &first.argv,
        io.env.path.as_deref(),
    ));
    let read = super::output::open_envelope_file(
        io,
        a.kept.envelope_file.as_deref(),
        &[],
        read,
        a.live.tee.as_deref(),
        a.live.timeout,
    )?;
    let (mut loaded, known, from_argv, agent_schema) = prepared?;
    if let (None, Some((flag, _))) = (&schema_flags.schema, &from_argv) {
        loaded.schema_from(&format!("{name} {flag}"));
    }
    // The feedback and SOJX_SCHEMA_FILE speak of the schema as the agent has it.
    let lowered = loaded.schema().map(crate::schema::Schema::agent_document);
    let plan = retry::RetryPlan::new(&a.retry, lowered, loaded.registry(), &io.env)?;
    agent_schema.give(first, lowered, |text| plan.keep("agent.schema.json", text))?;
    if let Some(fix) = known.and_then(|p| p.stream_fix(&first.argv)) {
        let _ = writeln!(
            io.stderr,
            "sojx: {}: hint: {}",
            crate::sanitize::sanitize(&name),
            crate::sanitize::sanitize(&fix.to_string())
        );
    }
    // The agent may read sojx's stdin: the tee must not be that file either.
    let tee = crate::disk::tee::for_inputs(a.live.tee.as_deref(), &[], &read, a.live.timeout)?;
    Ok(Setup {
        loaded,
        plan,
        tee,
        schema_flags,
        mismatch: agent_schema.warning,
    })
}

/// `--feedback-template @FILE`'s file, which the retries read: `--tee` and `--envelope-file`
/// must not be it.
fn template_file(r: &cli::RetryArgs) -> Option<(&'static str, std::path::PathBuf)> {
    let file = r.feedback_template.as_deref()?.strip_prefix('@')?;
    Some(("--feedback-template", file.into()))
}

/// The run's envelope as it ends: a signal after the last attempt ended still asks sojx to
/// stop, and the shell is told so.
#[cfg(unix)]
fn ended(
    env: crate::envelope::Envelope,
    interrupts: &crate::agent::Interrupts,
) -> crate::envelope::Envelope {
    match interrupts.got() {
        Some(sig) if env.error_kind() != Some(crate::error::ErrorKind::Interrupted) => {
            crate::agent::interrupted(env, sig, "as the run ended")
        }
        _ => env,
    }
}

/// Print the run's envelope (and with `--activity`, its summary); its exit status.
#[cfg(unix)]
fn finish(
    a: &cli::RunArgs,
    io: &mut Io<'_>,
    style: crate::render::Style,
    env: &crate::envelope::Envelope,
) -> io::Result<ExitStatus> {
    if a.answer.activity {
        let _ = activity::summary(io.stderr, env, style.stderr_color);
    }
    emit(io, env, style)?;
    Ok(env.exit_status())
}

/// The process way of running an agent: each attempt starts COMMAND and owns it until it is
/// gone; the first as given, each next one by `--retry-command`, resumed by the agent's
/// profile, or COMMAND again (`retry::RetryPlan`).
#[cfg(unix)]
struct Process<'p, 'r, 'o, 'i> {
    shared: Shared<'r, 'o>,
    /// The first attempt's spec: COMMAND as given.
    first: &'p crate::agent::Spec,
    plan: &'p mut retry::RetryPlan,
    tee: Option<&'p mut crate::input::Tee>,
    io: &'p mut Io<'i>,
}

#[cfg(unix)]
impl attempts::Transport for Process<'_, '_, '_, '_> {
    type Ask = crate::agent::Spec;

    fn rules(&self) -> &attempts::Rules {
        self.plan.rules()
    }

    fn first(&self) -> (Self::Ask, String) {
        (self.first.clone(), "command".to_owned())
    }

    fn attempt(
        &mut self,
        n: u32,
        mut spec: Self::Ask,
        before: Option<&crate::envelope::Envelope>,
    ) -> attempts::Outcome {
        use attempts::Outcome;
        spec.env = self.plan.variables();
        let name = self.shared.name;
        if let Some(sig) = self.shared.interrupts.got() {
            // Between two attempts (or before the first): no further agent starts.
            let base = before.cloned().unwrap_or_else(|| not_started(&spec, name));
            let env = crate::agent::interrupted(base, sig, "before the next attempt started");
            return Outcome::NotMade(env);
        }
        if n > 1
            && let Some(t) = self.tee.as_mut()
        {
            // Each attempt's bytes follow a line of sojx's own (docs/run.md).
            let mark = serde_json::json!({"type": "sojx_attempt", "attempt": n});
            if let Err(f) = t.mark(&mark.to_string()) {
                let parts = crate::envelope::Parts::default();
                let env = crate::envelope::failure(Command::Run, name, f, parts);
                // The agent that ran last is the one to tell of.
                return Outcome::NotMade(match before.and_then(|l| l.agent()) {
                    Some(a) => env.with_agent(a.clone()),
                    None => env,
                });
            }
        }
        let env = supervised(&self.shared, &spec, self.tee.as_deref_mut(), self.io);
        Outcome::Made { env, more: true }
    }

    fn next(
        &mut self,
        failed: &crate::envelope::Envelope,
        n: u32,
    ) -> Result<attempts::Next<Self::Ask>, crate::warning::Warning> {
        let next = self.plan.next(self.first, failed, n)?;
        let ask = crate::agent::Spec {
            argv: next.argv,
            stdin: next.stdin,
            env: Vec::new(),
        };
        Ok(attempts::Next {
            ask,
            via: next.via,
            how: next.how,
        })
    }

    fn tell(&mut self, line: &str) {
        let Shared { name, color, .. } = self.shared;
        attempts::tell_retry(self.io.stderr, name, color, line);
    }
}

/// The envelope of an attempt that did not start.
#[cfg(unix)]
fn not_started(spec: &crate::agent::Spec, name: &str) -> crate::envelope::Envelope {
    use crate::error::{ErrorKind, Failure, Operation};
    let f = Failure::new(
        ErrorKind::EmptyInput,
        Operation::Read,
        "the agent was not started",
    );
    unstarted(spec, name, f)
}

/// The envelope of an agent `spec` (COMMAND's program `name`) that could not start: `f`, and
/// the `agent` of a process that never ran.
#[cfg(unix)]
fn unstarted(
    spec: &crate::agent::Spec,
    name: &str,
    f: crate::error::Failure,
) -> crate::envelope::Envelope {
    crate::envelope::failure(Command::Run, name, f, crate::envelope::Parts::default())
        .with_agent(crate::agent::Report::not_started(spec).to_report())
}

/// What every attempt of one run shares.
#[cfg(unix)]
#[derive(Clone, Copy)]
struct Shared<'r, 'o> {
    a: &'r cli::RunArgs,
    /// The settings of the schema flags as given.
    schema_flags: &'r crate::schema::Settings,
    /// COMMAND's program, the envelope's input.
    name: &'r str,
    opts: &'r crate::extract::Options<'o>,
    color: bool,
    interrupts: &'r crate::agent::Interrupts,
}

/// A script without a `#!` line runs with /bin/sh: said once per run, on stderr.
#[cfg(unix)]
fn hint_no_shebang(script: &std::path::Path, name: &str, io: &mut Io<'_>) {
    let hint = format!(
        "`{}` has no #! line, so it runs with {}, as a shell runs it; a first line #!/bin/sh (or the interpreter it is written for) would say so",
        crate::agent::quote(&script.to_string_lossy()),
        crate::agent::SH
    );
    if io.first_time(&hint) {
        let _ = writeln!(
            io.stderr,
            "sojx: {}: hint: {}",
            crate::sanitize::sanitize(name),
            crate::sanitize::sanitize(&hint)
        );
    }
}

/// One attempt: start the agent as `spec` says and own it until it is gone; its envelope.
#[cfg(unix)]
fn supervised(
    shared: &Shared<'_, '_>,
    spec: &crate::agent::Spec,
    mut tee: Option<&mut crate::input::Tee>,
    io: &mut Io<'_>,
) -> crate::envelope::Envelope {
    use crate::agent::{self, Bounds};
    use crate::envelope::{self, Envelope, Parts};
    use crate::error::{ErrorKind, Failure, Operation};
    use crate::extract;

    let Shared {
        a,
        schema_flags,
        name,
        opts,
        color,
        interrupts,
    } = *shared;

    let not_started = |f| unstarted(spec, name, f);
    let started = match agent::spawn(spec, io.env.path.as_deref()) {
        Ok(s) => s,
        Err(f) => return not_started(f),
    };
    if let Some(script) = started.script_without_shebang() {
        hint_no_shebang(script, name, io);
    }
    let bounds = Bounds::read(a.live.timeout, a.kill_after);
    let show = a.answer.activity;
    let profile = retry::known_profile(&a.retry, spec, shared.opts.producers);
    // Claude Code given a schema: did its init event offer the tool that takes the answer?
    let schema_given = profile == Some(crate::agent::Profile::Claude)
        && profile.and_then(|p| p.schema_arg(&spec.argv)).is_some();
    let seen = claude_schema::Seen::default();
    let work = |reader: Box<dyn std::io::Read + Send>,
                send: &mut (dyn FnMut(activity::Activity) + Send)| {
        let reader: Box<dyn std::io::Read + Send> = if schema_given {
            Box::new(claude_schema::Watch::new(reader, seen.clone()))
        } else {
            reader
        };
        let mut live = extract::Live {
            tee: tee.as_deref_mut(),
            timeout: a.live.timeout,
            activity: if show { Some(send) } else { None },
            expired: Some(super::output::timed_out),
        };
        extract::run_reader(name, reader, opts, &mut live)
    };
    let finished = agent::supervise(
        started,
        interrupts,
        bounds,
        &mut *io.stderr,
        &mut |err, ev| {
            let _ = activity::event(err, name, ev, color);
        },
        work,
        |env: &Envelope| env.error_kind() == Some(ErrorKind::Timeout),
    );
    let env = finished.result.unwrap_or_else(|| {
        let f = Failure::new(
            ErrorKind::Internal,
            Operation::Read,
            "reading the agent's output ended without a result (no thread could start, or a bug in sojx); the agent was stopped",
        )
        .retryable(false)
        .hint("run again; if it happens again, report it with the command line");
        envelope::failure(Command::Extract, name, f, Parts::default())
    });
    if let Some(f) = finished.not_started {
        return not_started(f);
    }
    let mut report = finished.report;
    report.exit_class = profile
        .zip(report.exit_status)
        .and_then(|(p, code)| p.exit_class(code));
    let env = agent::conclude(env, &report, finished.ended);
    if profile != Some(crate::agent::Profile::Claude) {
        return env;
    }
    let refused = || {
        profile
            .and_then(|p| p.schema_arg(&spec.argv))
            .is_some_and(|(_, schema)| claude_schema::refused(&schema, schema_flags))
    };
    claude_schema::tell(env, &seen, refused)
}

/// Not on this platform: process groups and signals are unix's.
#[cfg(not(unix))]
pub(super) fn run(a: &cli::RunArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    use crate::error::{ErrorKind, Failure, Operation};
    let style = style(&a.output, io);
    let f = Failure::new(
        ErrorKind::Usage,
        Operation::ParseArguments,
        "`sojx run` needs a unix system (process groups and signals); pipe the agent's output into `sojx extract` instead",
    )
    .retryable(false);
    let names = [a
        .command
        .first()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()];
    let _ = (activity::event, emit, Prepared::load);
    // The envelope file (the GitHub Action reads it) says so too.
    if let Err(f) = super::output::open_envelope_file(
        io,
        a.kept.envelope_file.as_deref(),
        &[],
        files_read(
            &super::settings::schema(&a.schema),
            a.answer.handoff.as_deref(),
        ),
        a.live.tee.as_deref(),
        a.live.timeout,
    ) {
        return fail_before_named(Command::Run, &names, &f, io, style);
    }
    fail_before_named(Command::Run, &names, &f, io, style)
}
