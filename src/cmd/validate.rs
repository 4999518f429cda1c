//! `sojx validate`: plain JSON documents, or JSON Lines, against a schema; an envelope per
//! document as it is read.

use std::io;

use super::output::{
    Tally, emit, fail_before_input, files_read, sources, stdin_guard, style, warn_of_schema,
};
use super::{Io, settings};
use crate::envelope::Envelope;
use crate::error::{ErrorKind, Failure, Operation};
use crate::exit::ExitStatus;
use crate::input::Source;
use crate::names::Command;
use crate::render::{OutputFormat, Style};
use crate::validate::ValidDocs;
use crate::{cli, input, validate};

pub(super) fn run(a: &cli::ValidateArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let settings = settings::schema(&a.schema);
    let schema = match settings::load(&settings, settings::given_under(&a.schema)) {
        Ok(Some(s)) => s,
        Ok(None) => {
            let f = Failure::new(
                ErrorKind::Usage,
                Operation::ParseArguments,
                "sojx validate needs --schema",
            )
            .retryable(false)
            .hint("sojx validate --schema S [FILE]...");
            return fail_before_input(Command::Validate, &a.files, &f, io, style);
        }
        Err(f) => return fail_before_input(Command::Validate, &a.files, &f, io, style),
    };
    if let Some(code) = stdin_guard(Command::Validate, &a.files, io) {
        return Ok(code);
    }
    let read = files_read(&settings, None);
    let mut tee = match crate::disk::tee::for_inputs(
        a.live.tee.as_deref(),
        &a.files,
        &read,
        a.live.timeout,
    ) {
        Ok(t) => t,
        Err(f) => return fail_before_input(Command::Validate, &a.files, &f, io, style),
    };
    // A valid document's envelope may be written as bytes when it is printed as compact JSON
    // (or not at all).
    let valid = match (style.format, style.raw, style.quiet) {
        (OutputFormat::Json, false, true) => ValidDocs::Counted,
        (OutputFormat::Json, false, false) if !style.pretty && !style.terminal => {
            ValidDocs::Compact
        }
        _ => ValidDocs::Envelopes,
    };
    let mut sink = Sink {
        io,
        style,
        status: ExitStatus::Success,
        tally: Tally::default(),
    };
    for s in sources(&a.files) {
        warn_of_schema(sink.io, &s.name(), &schema, style);
        let _watchdog = input::Watchdog::arm(a.live.timeout, super::output::timed_out);
        let opts = validate::Options {
            max_line_bytes: a.limits.max_line_bytes,
            timeout: a.live.timeout,
            jobs: a.jobs,
            valid,
        };
        validate::run_live(&s, &schema, opts, tee.as_mut(), &mut sink)?;
    }
    sink.tally.tell(sink.io, "documents");
    Ok(sink.status)
}

/// The envelopes of `validate`, printed as they come.
struct Sink<'a, 'b> {
    io: &'a mut Io<'b>,
    style: Style,
    status: ExitStatus,
    tally: Tally,
}

impl validate::Out for Sink<'_, '_> {
    fn valid(&mut self, rendered: &[u8], docs: u64) -> io::Result<()> {
        self.tally.ok(docs);
        self.io.stdout.write_all(rendered)
    }

    fn envelope(&mut self, env: Envelope) -> io::Result<()> {
        let env = agent_stream(env);
        self.status = self.status.worst(env.exit_status());
        self.tally.note(&env);
        emit(self.io, &env, self.style)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.io.stdout.flush()
    }
}

/// A document that fails validation and is an agent's output (a Claude Code event line, a
/// Codex `turn.completed`: a value that carries a known producer's run identity): `validate`
/// was given an agent's stream, whose answer `extract` finds. The hint says so, instead of
/// feeding the event back to the model.
fn agent_stream(env: Envelope) -> Envelope {
    if env.error_kind() != Some(ErrorKind::ValidationFailed) {
        return env;
    }
    let Some(producer) = env
        .candidate()
        .and_then(|v| crate::producer::file::BUILT_IN.detect_output(v))
    else {
        return env;
    };
    let hint = format!(
        "this looks like an agent's stream ({} events), not answers: `sojx extract --schema S FILE` finds the answer in it",
        producer.id()
    );
    env.map_error(|f| f.hint = Some(hint))
}
