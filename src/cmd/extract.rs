//! `sojx extract`: the main job, one envelope per input, in order; inputs read in parallel,
//! or one at a time when `--tee`, `--timeout` or `--activity` follow them live.

use std::io;

use super::output::{
    Tally, emit, emit_rendered, fail_before_input, files_read, open_envelope_file, sources,
    stdin_guard, style,
};
use super::{Env, Io, settings};
use crate::exit::ExitStatus;
use crate::input::Source;
use crate::names::Command;
use crate::producer::{Producer, Registry};
use crate::{activity, batch, cli, extract, jq, markers, render, schema};

/// `extract`'s options for a run of `compare` or `extract`: the flags both share, and the plan
/// the environment sets (the fast path; no reading ahead, which `extract` may turn on).
pub(super) fn extract_options<'a>(
    producers: &'a Producers,
    strict: bool,
    repair: bool,
    coerce: bool,
    limits: &cli::LimitArgs,
    schema: Option<&'a schema::Schema>,
    env: &Env,
) -> extract::Options<'a> {
    extract::Options {
        from: producers.from,
        producers: &producers.registry,
        strict,
        repair,
        coerce,
        max_line_bytes: limits.line.max_line_bytes,
        max_candidates: limits.max_candidates,
        max_answer_bytes: limits.max_answer_bytes,
        schema,
        read_ahead: extract::ReadAhead::Never,
        fast_path: !env.no_fast_path,
        ..extract::Options::default()
    }
}

/// The producers a command knows (sojx's own and the loaded producer files), and the one
/// `--from` names.
pub(super) struct Producers {
    registry: Registry,
    from: Option<Producer>,
}

impl Producers {
    /// Load the producer files (`--producer-file`, the config folder) and resolve `--from`.
    pub(super) fn load(
        files: &[std::path::PathBuf],
        from: &cli::From,
        env: &Env,
    ) -> Result<Self, crate::error::Failure> {
        let registry = settings::producers(files, env)?;
        let from = settings::from(from, &registry)?;
        Ok(Self { registry, from })
    }

    /// Every producer the command knows.
    #[cfg(unix)]
    pub(super) fn registry(&self) -> &Registry {
        &self.registry
    }
}

/// What `extract` and `run` read before any input: the producer files, the schema, the
/// `--assert` expressions and the `--handoff` file.
pub(super) struct Prepared {
    producers: Producers,
    schema: Option<schema::Schema>,
    assertions: jq::Assertions,
    handoff: Option<serde_json::Value>,
}

impl Prepared {
    /// Load them; a failure is the caller's (`schema_invalid`, `usage`, `filesystem`).
    pub(super) fn load(
        schema: &schema::Settings,
        under: Option<(crate::provider::Provider, crate::provider::Compat)>,
        answer: &cli::AnswerArgs,
        env: &Env,
    ) -> Result<Self, crate::error::Failure> {
        let producers = Producers::load(&answer.producer_files, &answer.from, env)?;
        Self::with(producers, schema, under, answer)
    }

    /// The same, with the producers loaded already.
    pub(super) fn with(
        producers: Producers,
        schema: &schema::Settings,
        under: Option<(crate::provider::Provider, crate::provider::Compat)>,
        answer: &cli::AnswerArgs,
    ) -> Result<Self, crate::error::Failure> {
        let schema = settings::load(schema, under)?;
        settings::coerce_needs_schema(answer.coerce, schema.as_ref())?;
        Ok(Self {
            producers,
            schema,
            assertions: jq::Assertions::compile(&answer.asserts)?,
            handoff: answer
                .handoff
                .as_deref()
                .map(|p| markers::load_handoff(p, &crate::disk::Disk))
                .transpose()?,
        })
    }

    /// Every producer the command knows.
    #[cfg(unix)]
    pub(super) fn registry(&self) -> &Registry {
        &self.producers.registry
    }

    /// The schema, when `--schema` gave one.
    #[cfg(unix)]
    pub(super) fn schema(&self) -> Option<&schema::Schema> {
        self.schema.as_ref()
    }

    /// Say where the schema came from in `validation.schema` (`run`: COMMAND's own flag):
    /// `<inline> (claude --json-schema)`.
    #[cfg(unix)]
    pub(super) fn schema_from(&mut self, flag: &str) {
        if let Some(s) = &mut self.schema {
            s.name = format!("{} ({flag})", s.name);
        }
    }

    /// The options of a run that finds the answer as `answer` says.
    pub(super) fn options(
        &self,
        answer: &cli::AnswerArgs,
        limits: &cli::LimitArgs,
        env: &Env,
        read_ahead: extract::ReadAhead,
    ) -> extract::Options<'_> {
        extract::Options {
            markers: answer.markers,
            handoff: self.handoff.as_ref(),
            assertions: (!self.assertions.is_empty()).then_some(&self.assertions),
            read_ahead,
            ..extract_options(
                &self.producers,
                answer.strict,
                answer.repair,
                answer.coerce,
                limits,
                self.schema.as_ref(),
                env,
            )
        }
    }
}

pub(super) fn run(a: &cli::ExtractArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let schema = settings::schema(&a.schema);
    // The schema, its `$ref`s and the producer files are read first, so that the envelope
    // file and the tee cannot be one of them.
    let loaded = Prepared::load(
        &schema,
        settings::given_under(&a.schema),
        &a.answer,
        &io.env,
    );
    // The files sojx reads, and the envelope file: what the tee must not be.
    let read = match open_envelope_file(
        io,
        a.kept.envelope_file.as_deref(),
        &a.files,
        files_read(&schema, a.answer.handoff.as_deref()),
        a.live.tee.as_deref(),
        a.live.timeout,
    ) {
        Ok(read) => read,
        Err(f) => return fail_before_input(Command::Extract, &a.files, &f, io, style),
    };
    let loaded = match loaded {
        Ok(l) => l,
        Err(f) => return fail_before_input(Command::Extract, &a.files, &f, io, style),
    };
    if let Some(code) = stdin_guard(Command::Extract, &a.files, io) {
        return Ok(code);
    }
    let sources = sources(&a.files);
    let one_by_one = a.answer.activity || a.live.tee.is_some() || a.live.timeout.is_some();
    // Inputs read in parallel already keep the cores busy.
    let read_ahead = io.env.read_ahead(sources.len() <= 1 || one_by_one);
    let opts = loaded.options(&a.answer, &a.limits, &io.env, read_ahead);
    let mut status = ExitStatus::Success;
    let mut tally = Tally::default();
    if one_by_one {
        // --tee, --timeout and --activity follow each input as it arrives: one at a time, in
        // order (the tee file is one stream; activity lines must not interleave).
        let mut tee = match crate::disk::tee::for_inputs(
            a.live.tee.as_deref(),
            &a.files,
            &read,
            a.live.timeout,
        ) {
            Ok(t) => t,
            Err(f) => return fail_before_input(Command::Extract, &a.files, &f, io, style),
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
                    activity: if a.answer.activity {
                        Some(&mut sink)
                    } else {
                        None
                    },
                    expired: Some(super::output::timed_out),
                };
                extract::run_live(s, &opts, &mut live)
            };
            if a.answer.activity {
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
