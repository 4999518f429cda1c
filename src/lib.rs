//! sojx: extract the final structured output of an LLM agent run, validate it against a JSON
//! Schema, and print one JSON envelope per input.
//!
//! Pipeline: [`input`] (chunks → lines) → [`framing`] (lines → JSON items) → [`producer`]
//! (detection and per-producer extraction) → [`text`] / [`repair`] (JSON from text) →
//! [`schema`] (validation) → [`envelope`] → [`render`]. [`run`] wires them for the command line.

pub mod activity;
mod batch;
pub mod budget;
pub mod cli;
pub mod color;
pub mod compare;
pub mod envelope;
pub mod error;
pub mod exit;
pub mod extract;
pub mod framing;
pub mod generate;
pub mod input;
pub mod jq;
pub mod lint;
pub mod lower;
pub mod markers;
pub mod pointer;
pub mod producer;
pub mod render;
pub mod repair;
pub mod sanitize;
pub mod schema;
pub mod text;
pub mod validate;

use std::ffi::OsString;
use std::io::{self, Write};

use anyhow::Context;
use clap::Parser;

use crate::cli::{Cli, Command, OutputArgs, OutputFormat};
use crate::color::EnvSnapshot;
use crate::envelope::{Envelope, Parts};
use crate::error::{ErrorKind, Failure};
use crate::exit::ExitStatus;
use crate::input::Source;
use crate::render::Style;

/// The environment variables sojx reads, read once here, at the edge, and passed down: nothing
/// below the command layer reads the environment.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `NO_COLOR`, `CLICOLOR_FORCE`, `FORCE_COLOR`, `TERM`.
    pub color: EnvSnapshot,
    /// `SOJX_READ_AHEAD` (docs/performance.md): `0` never reads an input ahead on a second
    /// thread, `1` always does, pre-scanning every line; otherwise sojx chooses.
    pub read_ahead: Option<String>,
    /// `SOJX_NO_FAST_PATH` set and not empty: every line is parsed (to compare the fast path
    /// with the full parse).
    pub no_fast_path: bool,
}

impl Env {
    /// The process's environment.
    pub fn capture() -> Self {
        let var = |k: &str| std::env::var(k).ok();
        Self {
            color: EnvSnapshot {
                no_color: var("NO_COLOR"),
                clicolor_force: var("CLICOLOR_FORCE"),
                force_color: var("FORCE_COLOR"),
                term: var("TERM"),
            },
            read_ahead: var("SOJX_READ_AHEAD"),
            no_fast_path: std::env::var_os("SOJX_NO_FAST_PATH").is_some_and(|v| !v.is_empty()),
        }
    }

    /// How inputs are read, when reading ahead is `allowed` for this run.
    fn read_ahead(&self, allowed: bool) -> extract::ReadAhead {
        match self.read_ahead.as_deref() {
            _ if !allowed => extract::ReadAhead::Never,
            Some("0") => extract::ReadAhead::Never,
            Some("1") => extract::ReadAhead::EveryLine,
            _ => extract::ReadAhead::Auto,
        }
    }
}

/// The process's streams and terminal facts, injected so that tests can run sojx in-process.
pub struct Io<'a> {
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    pub stdin_is_tty: bool,
    pub stdout_is_tty: bool,
    pub stderr_is_tty: bool,
    pub env: Env,
}

/// Standard output that its reader may close (`sojx … | head -c1`): once a write meets a
/// broken pipe, later writes are dropped, so that every input is still read and the exit status
/// is the one sojx computed. (Stopping at the first broken write turned a failed extraction
/// into exit 0 as soon as its envelope outgrew the pipe buffer, and a CI gate passed.)
struct Closable<'a> {
    inner: &'a mut dyn Write,
    closed: bool,
}

impl Write for Closable<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            r => r,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

/// Run sojx with `args` (including the program name); returns the exit status.
pub fn run(args: impl IntoIterator<Item = OsString>, io: &mut Io<'_>) -> ExitStatus {
    // Buffered over `Closable`, so that serde_json's many small writes cost one call each.
    let mut stdout = io::BufWriter::with_capacity(
        64 * 1024,
        Closable {
            inner: &mut *io.stdout,
            closed: false,
        },
    );
    let mut io = Io {
        stdout: &mut stdout,
        stderr: &mut *io.stderr,
        stdin_is_tty: io.stdin_is_tty,
        stdout_is_tty: io.stdout_is_tty,
        stderr_is_tty: io.stderr_is_tty,
        env: io.env.clone(),
    };
    let status = run_closable(args, &mut io);
    match io.stdout.flush() {
        Err(e) if status.is_success() => {
            let _ = writeln!(io.stderr, "sojx: io: writing the output failed: {e}");
            ExitStatus::of(ErrorKind::Io)
        }
        _ => status,
    }
}

fn run_closable(args: impl IntoIterator<Item = OsString>, io: &mut Io<'_>) -> ExitStatus {
    let args: Vec<OsString> = args.into_iter().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => return clap_error(&e, &args, io),
    };
    let result: anyhow::Result<ExitStatus> = match cli.command {
        Command::Extract(cli::Lazy(a)) => extract(&a, io),
        Command::Validate(cli::Lazy(a)) => validate(&a, io),
        Command::Lint(cli::Lazy(a)) => {
            let style = style(&a.output, io);
            one(io, &lint::run(&a), style)
        }
        Command::Compile(cli::Lazy(a)) => {
            let style = style(&a.output, io);
            one(io, &lower::run(&a), style)
        }
        Command::Generate(cli::Lazy(a)) => {
            generate::write(a.what, io.stdout).map(|()| ExitStatus::Success)
        }
        Command::Compare(cli::Lazy(a)) => compare(&a, io),
    }
    .context("writing the output failed");
    match result {
        Ok(status) => status,
        // Not expected (`Closable` drops writes to a closed stdout), but a broken pipe is the
        // reader's choice, not a failure of sojx.
        Err(e) if is_broken_pipe(&e) => ExitStatus::Success,
        Err(e) => {
            let _ = writeln!(io.stderr, "sojx: io: {e:#}");
            ExitStatus::of(ErrorKind::Io)
        }
    }
}

/// Whether a broken pipe is anywhere in the error's chain (ripgrep, ruff).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

/// `--help` / `--version` print and exit 0; usage errors print clap's message on stderr and a
/// `usage` envelope on stdout, exit 1.
fn clap_error(e: &clap::Error, args: &[OsString], io: &mut Io<'_>) -> ExitStatus {
    use clap::error::ErrorKind as K;
    if matches!(
        e.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let to_stderr = e.kind() == K::DisplayHelpOnMissingArgumentOrSubcommand;
        let tty = if to_stderr {
            io.stderr_is_tty
        } else {
            io.stdout_is_tty
        };
        let text = if color::resolve(color_flag(args), &io.env.color, tty) {
            e.render().ansi().to_string()
        } else {
            e.render().to_string()
        };
        let out: &mut dyn Write = if to_stderr { io.stderr } else { io.stdout };
        // `--help > /dev/full` must not claim success.
        if let Err(err) = write!(out, "{text}").and_then(|()| out.flush()) {
            let _ = writeln!(io.stderr, "sojx: io: writing the output failed: {err}");
            return ExitStatus::of(ErrorKind::Io);
        }
        return if e.kind() == K::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitStatus::of(ErrorKind::Usage)
        } else {
            ExitStatus::Success
        };
    }
    if color::resolve(color_flag(args), &io.env.color, io.stderr_is_tty) {
        let _ = write!(io.stderr, "{}", e.render().ansi());
    } else {
        let _ = write!(io.stderr, "{}", e.render());
    }
    let command = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find_map(|a| {
            ["extract", "validate", "lint", "compile", "compare"]
                .into_iter()
                .find(|c| *c == a)
        })
        .unwrap_or("sojx");
    // clap's message up to its usage block, on one line ("… were not provided: --schema <S>").
    let full = e.to_string();
    let body = full.split("\nUsage:").next().unwrap_or(&full);
    let message = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let message = message.trim_start_matches("error: ").to_owned();
    let f = Failure::new(ErrorKind::Usage, "parse_arguments", message)
        .retryable(false)
        .hint(
            format!(
                "run `sojx {} --help`",
                if command == "sojx" { "" } else { command }
            )
            .replace("  ", " "),
        );
    let env = envelope::failure(command, "", f, Parts::default());
    let status = env.exit_status();
    let _ = render::render(
        io.stdout,
        &env,
        Style {
            format: OutputFormat::Json,
            pretty: false,
            raw: false,
            terminal: io.stdout_is_tty,
            color: false,
            stderr_color: false,
        },
    );
    status
}

/// `--color` as given, for clap's own output (help, usage errors) before parsing succeeded.
fn color_flag(args: &[OsString]) -> cli::ColorWhen {
    let mut when = cli::ColorWhen::Auto;
    let mut it = args.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(a) = it.next() {
        let v = match a.strip_prefix("--color") {
            Some("") => it.next(),
            Some(v) => v.strip_prefix('='),
            None if a == "--" => break,
            None => None,
        };
        match v {
            Some("always") => when = cli::ColorWhen::Always,
            Some("never") => when = cli::ColorWhen::Never,
            Some("auto") => when = cli::ColorWhen::Auto,
            _ => {}
        }
    }
    when
}

fn style(o: &OutputArgs, io: &Io<'_>) -> Style {
    Style {
        format: o.output_format,
        pretty: o.pretty || (io.stdout_is_tty && o.output_format == OutputFormat::Json),
        raw: o.raw,
        terminal: io.stdout_is_tty,
        color: color::resolve(o.color, &io.env.color, io.stdout_is_tty),
        stderr_color: color::resolve(o.color, &io.env.color, io.stderr_is_tty),
    }
}

/// The files sojx reads besides its inputs, which `--tee` must not overwrite: the schema, the
/// `--resource` files, the `--handoff` file, each with its flag.
fn files_read(
    s: &cli::SchemaArgs,
    handoff: Option<&std::path::Path>,
) -> Vec<(&'static str, std::path::PathBuf)> {
    let mut files = Vec::new();
    if let Some(p) = s.schema.as_deref().and_then(schema::file_of) {
        files.push(("--schema", p));
    }
    for r in &s.resource {
        if let Some((_, file)) = r.split_once('=') {
            files.push(("--resource", file.into()));
        }
    }
    if let Some(h) = handoff {
        files.push(("--handoff", h.to_path_buf()));
    }
    files
}

fn sources(files: &[std::path::PathBuf]) -> Vec<Source> {
    if files.is_empty() {
        vec![Source::Stdin]
    } else {
        files.iter().map(|f| Source::from_arg(f)).collect()
    }
}

/// `extract`'s options for a run of `compare` or `extract`: the flags both share, and the plan
/// the environment sets (the fast path; no reading ahead, which `extract` may turn on).
fn extract_options<'a>(
    from: cli::From,
    strict: bool,
    repair: bool,
    limits: &cli::LimitArgs,
    schema: Option<&'a schema::Schema>,
    env: &Env,
) -> extract::Options<'a> {
    extract::Options {
        from,
        strict,
        repair,
        max_line_bytes: limits.max_line_bytes,
        max_candidates: limits.max_candidates,
        max_answer_bytes: limits.max_answer_bytes,
        schema,
        read_ahead: extract::ReadAhead::Never,
        fast_path: !env.no_fast_path,
        ..extract::Options::default()
    }
}

/// No FILE and stdin a terminal: a one-line hint and a `usage` envelope instead of hanging.
fn stdin_guard(
    command: &'static str,
    files: &[std::path::PathBuf],
    io: &mut Io<'_>,
    style: Style,
) -> io::Result<Option<ExitStatus>> {
    if !files.is_empty() || !io.stdin_is_tty {
        return Ok(None);
    }
    let _ = writeln!(
        io.stderr,
        "sojx: reading from the terminal; pipe an agent's output in, or name a FILE (`sojx {command} --help`)"
    );
    let f = Failure::new(
        ErrorKind::Usage,
        "read",
        "no input: standard input is a terminal and no FILE was given",
    )
    .retryable(false)
    .hint(format!(
        "pipe an agent's output into `sojx {command}`, or pass a FILE ('-' reads stdin anyway)"
    ));
    let env = envelope::failure(command, "<stdin>", f, Parts::default());
    emit(io, &env, style)?;
    Ok(Some(env.exit_status()))
}

/// Render an envelope, and tell people on stderr what went wrong.
fn emit(io: &mut Io<'_>, env: &Envelope, style: Style) -> io::Result<()> {
    render::render(io.stdout, env, style)?;
    tell(io, env, style)
}

/// Print an envelope already rendered (by a batch worker), and tell people what went wrong.
fn emit_rendered(io: &mut Io<'_>, env: &Envelope, rendered: &[u8], style: Style) -> io::Result<()> {
    io.stdout.write_all(rendered)?;
    tell(io, env, style)
}

/// The human line on stderr for a failure, then flush stdout (each envelope as it is ready).
fn tell(io: &mut Io<'_>, env: &Envelope, style: Style) -> io::Result<()> {
    if style.format == OutputFormat::Json
        && let Some(err) = env.error()
    {
        let kind = err.kind.as_str();
        let label = if style.stderr_color {
            format!("\x1b[31m{kind}\x1b[0m")
        } else {
            kind.to_owned()
        };
        let _ = writeln!(
            io.stderr,
            "sojx: {}: {label}: {}",
            sanitize::sanitize(env.input()),
            sanitize::sanitize(&err.message)
        );
        if let Some(h) = &err.hint {
            let _ = writeln!(io.stderr, "  hint: {}", sanitize::sanitize(h));
        }
    }
    io.stdout.flush()
}

/// Commands that print one envelope (`lint`, `compile`): its exit status is the run's.
fn one(io: &mut Io<'_>, env: &Envelope, style: Style) -> io::Result<ExitStatus> {
    emit(io, env, style)?;
    Ok(env.exit_status())
}

/// A failure before any input is read (a bad schema): one envelope per input, all failing.
fn fail_all(
    command: &'static str,
    files: &[std::path::PathBuf],
    f: &Failure,
    io: &mut Io<'_>,
    style: Style,
) -> io::Result<ExitStatus> {
    let mut status = ExitStatus::Success;
    for s in sources(files) {
        let env = envelope::failure(command, &s.name(), f.clone(), Parts::default());
        status = status.worst(env.exit_status());
        emit(io, &env, style)?;
    }
    Ok(status)
}

fn extract(a: &cli::ExtractArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let schema = match schema::load(&a.schema) {
        Ok(s) => s,
        Err(f) => return fail_all("extract", &a.files, &f, io, style),
    };
    let assertions = match jq::Assertions::compile(&a.asserts) {
        Ok(x) => x,
        Err(f) => return fail_all("extract", &a.files, &f, io, style),
    };
    let handoff = match a.handoff.as_deref().map(markers::load_handoff).transpose() {
        Ok(h) => h,
        Err(f) => return fail_all("extract", &a.files, &f, io, style),
    };
    if let Some(code) = stdin_guard("extract", &a.files, io, style)? {
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
            Err(f) => return fail_all("extract", &a.files, &f, io, style),
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
    if sources.len() > 1 && io.stderr_is_tty {
        let _ = writeln!(io.stderr, "sojx: {}", tally.line());
    }
    Ok(status)
}

/// Counts per outcome for the batch summary line.
#[derive(Debug, Default)]
struct Tally {
    inputs: usize,
    kinds: std::collections::BTreeMap<String, usize>,
}

impl Tally {
    fn note(&mut self, env: &Envelope) {
        self.inputs += 1;
        let kind = env.error_kind().map_or("ok", ErrorKind::as_str).to_owned();
        *self.kinds.entry(kind).or_default() += 1;
    }

    /// `12 inputs: 10 ok, 1 not_found, 1 validation_failed` (ok first, then kinds by name).
    fn line(&self) -> String {
        let ok = self.kinds.get("ok").copied().unwrap_or(0);
        let mut parts = vec![format!("{ok} ok")];
        parts.extend(
            self.kinds
                .iter()
                .filter(|(k, _)| *k != "ok")
                .map(|(k, n)| format!("{n} {k}")),
        );
        format!("{} inputs: {}", self.inputs, parts.join(", "))
    }
}

fn validate(a: &cli::ValidateArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
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
            return fail_all("validate", &a.files, &f, io, style);
        }
        Err(f) => return fail_all("validate", &a.files, &f, io, style),
    };
    if let Some(code) = stdin_guard("validate", &a.files, io, style)? {
        return Ok(code);
    }
    let read = files_read(&a.schema, None);
    let mut tee = match input::Tee::for_inputs(a.live.tee.as_deref(), &a.files, &read) {
        Ok(t) => t,
        Err(f) => return fail_all("validate", &a.files, &f, io, style),
    };
    let mut status = ExitStatus::Success;
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
                emit(io, &env, style)
            },
        )?;
    }
    Ok(status)
}

fn compare(a: &cli::CompareArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let sources = sources(&a.files);
    let names: Vec<String> = sources.iter().map(Source::name).collect();
    let input = compare::input_name(&names);
    let fail = |io: &mut Io<'_>, f: Failure| -> io::Result<ExitStatus> {
        let env = envelope::failure("compare", &input, f, Parts::default());
        emit(io, &env, style)?;
        Ok(env.exit_status())
    };
    let exprs = match compare::Exprs::compile(a) {
        Ok(e) => e,
        Err(f) => return fail(io, f),
    };
    let schema = match schema::load(&a.schema) {
        Ok(s) => s,
        Err(f) => return fail(io, f),
    };
    if let Some(code) = stdin_guard("compare", &a.files, io, style)? {
        return Ok(code);
    }
    let opts = extract_options(
        a.from,
        a.strict,
        a.repair,
        &a.limits,
        schema.as_ref(),
        &io.env,
    );
    let mut loaded = Vec::new();
    batch::for_each(
        &sources,
        batch::parallel_ok(&sources),
        |s| compare::load(s, &opts),
        |l| {
            loaded.extend(l);
            Ok(())
        },
    )?;
    // On one worker thread, with the stack the expressions' budget assumes (src/jq.rs).
    let env = match jq::on_worker(|| compare::report(&input, &loaded, &exprs)) {
        Some(env) => env,
        None => {
            return fail(
                io,
                Failure::new(
                    ErrorKind::Internal,
                    "compare",
                    "no thread could be started to run the expressions".to_owned(),
                ),
            );
        }
    };
    emit(io, &env, style)?;
    Ok(env.exit_status())
}
