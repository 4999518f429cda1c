//! How every command prints: the style its flags ask for, an envelope on stdout with its
//! failure told on stderr, the inputs to read, and the batch summary.

use std::io;

use owo_colors::{OwoColorize, Style as Ansi};

use super::Io;
use crate::cli::OutputArgs;
use crate::color;
use crate::details::Details;
use crate::disk::Arg;
use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure};
use crate::exit::ExitStatus;
use crate::input::Source;
use crate::names::Command;
use crate::render::{self, OutputFormat, Reader, Style};
use crate::{github, sanitize, schema};

pub(super) fn style(o: &OutputArgs, io: &Io<'_>) -> Style {
    Style {
        format: o.output_format.unwrap_or(OutputFormat::Json),
        reader: reader(io, o.output_format.is_some() || o.pretty),
        pretty: o.pretty
            || (io.stdout_is_tty
                && o.output_format.unwrap_or(OutputFormat::Json) == OutputFormat::Json),
        raw: o.raw,
        quiet: o.quiet,
        terminal: io.stdout_is_tty,
        color: color::resolve(o.color, &io.env.color, io.stdout_is_tty),
        stderr_color: color::resolve(o.color, &io.env.color, io.stderr_is_tty),
    }
}

/// Who reads standard output: a person when stdout and stderr are one terminal's and no
/// format was `asked` for (`--pretty`, `--output-format`), so that a failure is told once, by
/// its pretty envelope; otherwise a program, whose failures stderr also tells.
pub(super) fn reader(io: &Io<'_>, asked: bool) -> Reader {
    if io.stdout_is_tty && io.stderr_is_tty && !asked {
        Reader::Person
    } else {
        Reader::Program
    }
}

/// The files sojx reads besides its inputs, which `--tee` must not overwrite: the schema, the
/// `--resource` files, the `--handoff` file, each with its flag.
pub(super) fn files_read(
    s: &schema::Settings,
    handoff: Option<&std::path::Path>,
) -> Vec<(&'static str, std::path::PathBuf)> {
    let mut files = Vec::new();
    if let Some(p) = s.schema.as_deref().and_then(schema::file_of) {
        files.push(("--schema", p));
    }
    for file in s.resources.iter().filter_map(schema::Resource::file) {
        files.push(("--resource", file.to_path_buf()));
    }
    if let Some(h) = handoff {
        files.push(("--handoff", h.to_path_buf()));
    }
    files
}

pub(super) fn sources(files: &[std::path::PathBuf]) -> Vec<Arg> {
    if files.is_empty() {
        vec![Arg::Stdin]
    } else {
        files.iter().map(|f| Arg::from_arg(f)).collect()
    }
}

/// No FILE and stdin a terminal: one line on stderr and a `usage` exit status instead of
/// hanging (a person typed the command; there is no input to write an envelope for).
pub(super) fn stdin_guard(
    command: Command,
    files: &[std::path::PathBuf],
    io: &mut Io<'_>,
) -> Option<ExitStatus> {
    if !files.is_empty() || !io.stdin_is_tty {
        return None;
    }
    let _ = writeln!(
        io.stderr,
        "sojx: usage: no input: stdin is a terminal; pipe an agent's output in, or name a FILE ('-' reads the terminal anyway; `sojx {command} --help`)"
    );
    Some(ExitStatus::of(command, ErrorKind::Usage))
}

/// What the engine's watchdog (`input::Watchdog`) does when a read outlives `--timeout` by its
/// grace, blocked in a write the read loop cannot interrupt: sojx ends, with the timeout's
/// status. (Not an early return: the thread that would return is the one blocked.)
#[allow(clippy::exit)]
pub(super) fn timed_out() {
    let status = ExitStatus::of(Command::Extract, ErrorKind::Timeout);
    std::process::exit(i32::from(status.code()));
}

/// Render an envelope, and tell people on stderr what went wrong.
pub(super) fn emit(io: &mut Io<'_>, env: &Envelope, style: Style) -> io::Result<()> {
    render::render(io.stdout, env, style)?;
    keep(io, env)?;
    io.summary.note(env, style, &io.env);
    tell(io, env, style)
}

/// `--envelope-file FILE` for a run over `inputs` (none: the agent's output) that reads the
/// files of `read` and tees to `tee`: opened after the files sojx reads before its input (the
/// schema, its `$ref`s, producer files: a failure to read them is told in an envelope that
/// reaches FILE too) and before any input, so that every envelope of the run reaches it;
/// refused by `--tee`'s rules (not an input, nor a file sojx reads or has read, nor the tee).
/// Returns `read` with FILE added: what the tee, opened next, must not be.
pub(super) fn open_envelope_file(
    io: &mut Io<'_>,
    path: Option<&std::path::Path>,
    inputs: &[std::path::PathBuf],
    mut read: Vec<(&'static str, std::path::PathBuf)>,
    tee: Option<&std::path::Path>,
    timeout: Option<std::time::Duration>,
) -> Result<Vec<(&'static str, std::path::PathBuf)>, Failure> {
    let tee = tee.map(|t| ("--tee", t.to_path_buf()));
    let avoid: Vec<_> = read.iter().cloned().chain(tee).collect();
    io.envelopes = crate::disk::tee::beside(
        crate::disk::tee::Named {
            flag: "--envelope-file",
            hint: "write the envelopes to another file",
            path,
        },
        inputs,
        &avoid,
        timeout,
    )?;
    read.extend(path.map(|p| ("--envelope-file", p.to_path_buf())));
    Ok(read)
}

/// `--envelope-file`: the envelope as one line of JSON, whatever stdout shows.
fn keep(io: &mut Io<'_>, env: &Envelope) -> io::Result<()> {
    if let Some(file) = &mut io.envelopes {
        let mut line = serde_json::to_vec(env).map_err(io::Error::other)?;
        line.push(b'\n');
        file.write(&line).map_err(|f| io::Error::other(f.message))?;
    }
    Ok(())
}

/// The job summary (`--output-format github` when `GITHUB_STEP_SUMMARY` is set): a row per
/// envelope, at most [`github::SUMMARY_ROWS`], appended to the file once the command is done.
#[derive(Debug, Default)]
pub(super) struct Summary {
    command: Option<Command>,
    rows: Vec<String>,
    more: usize,
}

impl Summary {
    fn note(&mut self, env: &Envelope, style: Style, e: &super::Env) {
        if style.format != OutputFormat::Github || e.github_step_summary.is_none() {
            return;
        }
        self.command = Some(env.command());
        if self.rows.len() < github::SUMMARY_ROWS {
            self.rows.push(github::summary_row(env));
        } else {
            self.more += 1;
        }
    }
}

/// Append the job summary's table, when there is one, to `GITHUB_STEP_SUMMARY`. A file that
/// cannot be written is the caller's: `io`, exit status 3.
pub(super) fn write_summary(io: &mut Io<'_>) -> ExitStatus {
    let s = std::mem::take(&mut io.summary);
    let Some(path) = io
        .env
        .github_step_summary
        .as_ref()
        .filter(|_| !s.rows.is_empty())
    else {
        return ExitStatus::Success;
    };
    let mut table = github::summary_head(s.command.unwrap_or(Command::Sojx));
    table.extend(s.rows);
    if s.more > 0 {
        table.push_str(&format!(
            "\n… and {} more (the envelopes have them all)\n",
            s.more
        ));
    }
    table.push('\n');
    let written = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .and_then(|mut f| io::Write::write_all(&mut f, table.as_bytes()));
    match written {
        Ok(()) => ExitStatus::Success,
        Err(e) => {
            let _ = writeln!(
                io.stderr,
                "sojx: io: cannot append the job summary to {}: {}",
                sanitize::sanitize(&path.to_string_lossy()),
                crate::input::io_reason(&e)
            );
            ExitStatus::of(Command::Sojx, ErrorKind::Io)
        }
    }
}

/// Print an envelope already rendered (by a batch worker), and tell people what went wrong.
pub(super) fn emit_rendered(
    io: &mut Io<'_>,
    env: &Envelope,
    rendered: &[u8],
    style: Style,
) -> io::Result<()> {
    io.stdout.write_all(rendered)?;
    keep(io, env)?;
    io.summary.note(env, style, &io.env);
    tell(io, env, style)
}

/// The human line on stderr for a failure, then flush stdout (each envelope as it is ready).
pub(super) fn tell(io: &mut Io<'_>, env: &Envelope, style: Style) -> io::Result<()> {
    // `validate`'s envelope is one document's: its failure names the document's line.
    let line = match env.command() {
        Command::Validate => env.source().and_then(|s| s.line),
        _ => None,
    };
    tell_line(io, env, env.input(), line, style);
    io.stdout.flush()
}

/// On stderr, in JSON mode or with `-q` (the text format says it all on stdout): each warning, then the
/// failure with its violations (at most [`TOLD_VIOLATIONS`]) and its hint, unless that hint was
/// already given in this run. Every line is `sojx: INPUT: …`, the failure's `sojx: INPUT:LINE:
/// …` when it is a document's on `line`; an empty `input` blames none.
fn tell_line(io: &mut Io<'_>, env: &Envelope, input: &str, line: Option<u64>, style: Style) {
    annotate_aside(io.stderr, env, style);
    if !tells_on_stderr(style) {
        return;
    }
    let color = style.stderr_color;
    let input = match input {
        "" => String::new(),
        name => format!("{}: ", sanitize::sanitize(name)),
    };
    for w in env.warnings() {
        warn(io, &input, w, color);
    }
    let Some(err) = env.error() else { return };
    let at = match (line, input.strip_suffix(": ")) {
        (Some(line), Some(name)) => format!("{name}:{line}: "),
        _ => input,
    };
    let _ = writeln!(
        io.stderr,
        "sojx: {at}{}: {}",
        paint(color, err.kind.as_str(), Ansi::new().red()),
        sanitize::sanitize(&err.message)
    );
    if err.kind == ErrorKind::ValidationFailed
        && let Some(vs) = err.details.as_ref().and_then(Details::violations)
    {
        for v in vs.iter().take(TOLD_VIOLATIONS) {
            let _ = writeln!(io.stderr, "{}", render::violation(v, color));
        }
        if vs.len() > TOLD_VIOLATIONS {
            let _ = writeln!(
                io.stderr,
                "  and {} more (error.details lists every one)",
                vs.len() - TOLD_VIOLATIONS
            );
        }
    }
    if let Some(h) = &err.hint
        && io.first_time(h)
    {
        let _ = writeln!(io.stderr, "  hint: {}", sanitize::sanitize(h));
    }
}

/// `--output-format github` with `-r` or `-q`: stdout keeps the data (or nothing), so the
/// workflow commands go to stderr, where the Actions runner reads them as well
/// (`actions/runner`, `src/Runner.Worker/Handlers/ScriptHandler.cs`: stdout and stderr each
/// go through an `OutputManager` that processes commands). Without this the failure would
/// get no annotation at all.
fn annotate_aside(stderr: &mut dyn io::Write, env: &Envelope, style: Style) {
    if style.format == OutputFormat::Github && (style.raw || style.quiet) {
        let _ = github::commands(stderr, env);
    }
}

/// Whether stderr tells each failure and warning: with `-q` or `-r` (stdout shows no envelope,
/// and no failure at all), and in JSON mode unless a person reads the envelope on the same
/// terminal (the text format says it all on stdout).
fn tells_on_stderr(style: Style) -> bool {
    style.quiet
        || style.raw
        || (style.format == OutputFormat::Json && style.reader == Reader::Program)
}

/// On stderr: `sojx: INPUT: warning: KIND: message`. A schema's warning (`keyword_typo`) is on
/// every document's envelope that `validate` prints, and said once per input; the others are
/// each a document's own, said as they come (remembering them would grow with the input).
/// `input` is `"NAME: "` or empty.
fn warn(io: &mut Io<'_>, input: &str, w: &crate::warning::Warning, color: bool) {
    let line = format!(
        "sojx: {input}{}: {}: {}",
        paint(color, "warning", Ansi::new().yellow()),
        w.kind,
        sanitize::sanitize(&w.message)
    );
    if w.kind != crate::warning::WarningKind::KeywordTypo || io.first_time(&line) {
        let _ = writeln!(io.stderr, "{line}");
    }
}

/// The schema's warnings for `input`, before it is read: `validate` writes most valid
/// documents' envelopes as bytes, which [`tell`] never sees.
pub(super) fn warn_of_schema(io: &mut Io<'_>, input: &str, schema: &schema::Schema, style: Style) {
    if !tells_on_stderr(style) {
        return;
    }
    let input = format!("{}: ", sanitize::sanitize(input));
    for w in &schema.warnings {
        warn(io, &input, w, style.stderr_color);
    }
}

/// A label of a line on stderr in `ansi` when `color`: a [`Style`](Ansi) ends it with a full
/// reset (`\x1b[0m`), as these lines always have (`.yellow()` alone would end with `\x1b[39m`).
pub(super) fn paint(color: bool, s: &str, ansi: Ansi) -> String {
    if color {
        s.style(ansi).to_string()
    } else {
        s.to_owned()
    }
}

/// Most violations of one input listed on stderr (the envelope has them all).
const TOLD_VIOLATIONS: usize = 20;

/// Commands that print one envelope (`lint`, `compile`): its exit status is the run's.
pub(super) fn one(io: &mut Io<'_>, env: &Envelope, style: Style) -> io::Result<ExitStatus> {
    emit(io, env, style)?;
    Ok(env.exit_status())
}

/// A failure before any input is read (a broken schema, a bad `--assert`, an unusable `--tee`
/// or `--handoff`): an envelope for each input named, none of them read (stdout keeps one
/// envelope per input), and one line on stderr that blames no input; the failure's `target`
/// and message name what is wrong.
pub(super) fn fail_before_input(
    command: Command,
    files: &[std::path::PathBuf],
    f: &Failure,
    io: &mut Io<'_>,
    style: Style,
) -> io::Result<ExitStatus> {
    let names: Vec<String> = sources(files).iter().map(Source::name).collect();
    fail_before_named(command, &names, f, io, style)
}

/// [`fail_before_input`] for inputs by their names (`run`: the agent's).
pub(super) fn fail_before_named(
    command: Command,
    names: &[String],
    f: &Failure,
    io: &mut Io<'_>,
    style: Style,
) -> io::Result<ExitStatus> {
    // GitHub annotations are not envelopes: one, blaming no input file. The envelope file
    // still gets one envelope per input, as in the JSON mode.
    if style.format == OutputFormat::Github {
        for name in names {
            keep(
                io,
                &envelope::failure(command, name, f.clone(), Parts::default()),
            )?;
        }
        let env = envelope::failure(command, "", f.clone(), Parts::default());
        render::render(io.stdout, &env, style)?;
        io.summary.note(&env, style, &io.env);
        tell_line(io, &env, "", None, style);
        io.stdout.flush()?;
        return Ok(env.exit_status());
    }
    let mut status = ExitStatus::Success;
    for (i, name) in names.iter().enumerate() {
        let env = envelope::failure(command, name, f.clone(), Parts::default());
        status = status.worst(env.exit_status());
        render::render(io.stdout, &env, style)?;
        keep(io, &env)?;
        io.summary.note(&env, style, &io.env);
        if i == 0 {
            tell_line(io, &env, "", None, style);
        }
    }
    io.stdout.flush()?;
    Ok(status)
}

/// Counts per outcome for the batch summary line.
#[derive(Debug, Default)]
pub(super) struct Tally {
    inputs: usize,
    kinds: std::collections::BTreeMap<String, usize>,
}

impl Tally {
    pub(super) fn note(&mut self, env: &Envelope) {
        self.inputs += 1;
        let kind = env.error_kind().map_or("ok", ErrorKind::as_str).to_owned();
        *self.kinds.entry(kind).or_default() += 1;
    }

    /// `n` more inputs that succeeded.
    pub(super) fn ok(&mut self, n: u64) {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        self.inputs += n;
        *self.kinds.entry("ok".to_owned()).or_default() += n;
    }

    /// `12 inputs, 10 ok, 1 not_found, 1 validation_failed` (contract §7: ok first, then the
    /// kinds that occurred, by name); `what` names the things counted.
    pub(super) fn line(&self, what: &str) -> String {
        let ok = self.kinds.get("ok").copied().unwrap_or(0);
        let mut parts = vec![format!("{} {what}", self.inputs), format!("{ok} ok")];
        parts.extend(
            self.kinds
                .iter()
                .filter(|(k, _)| *k != "ok")
                .map(|(k, n)| format!("{n} {k}")),
        );
        parts.join(", ")
    }

    /// The batch's summary on stderr, terminal or not (a CI log shows it), when there was more
    /// than one.
    pub(super) fn tell(&self, io: &mut Io<'_>, what: &str) {
        if self.inputs > 1 {
            let _ = writeln!(io.stderr, "sojx: {}", self.line(what));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_labels_end_with_a_full_reset() {
        assert_eq!(
            paint(true, "warning", Ansi::new().yellow()),
            "\x1b[33mwarning\x1b[0m"
        );
        assert_eq!(
            paint(true, "not_found", Ansi::new().red()),
            "\x1b[31mnot_found\x1b[0m"
        );
        assert_eq!(paint(false, "retry", Ansi::new().yellow()), "retry");
    }
}
