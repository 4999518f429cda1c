//! Rendering envelopes: JSON (one line, or pretty), `-r` (data only), and the human text
//! summary. The only module that writes to stdout.

use std::io::{self, Write};

use owo_colors::OwoColorize;
use serde_json::Value;

use crate::details::{Details, LintReport, Violation};
use crate::envelope::{AgentReport, Envelope};
use crate::error::{ErrorKind, Failure};
use crate::names::Command;
use crate::producer::Session;
use crate::sanitize::sanitize;

/// What is printed for an envelope (`--output-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputFormat {
    /// One JSON envelope per input (JSON Lines).
    Json,
    /// A short human summary.
    Text,
    /// GitHub Actions workflow commands, and the job summary's table.
    Github,
}

/// Who reads standard output, which decides whether stderr repeats what an envelope says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    /// A program: a pipe, a file, CI; or anyone who asked for a format (`--pretty`,
    /// `--output-format`). Every failure and warning is also told on standard error, for the
    /// person reading the job's log.
    Program,
    /// A person at a terminal that shows standard output and standard error together, who
    /// asked for no format: the (pretty) envelope is the one message; standard error does not
    /// repeat its failure or warnings (contract §6 keeps the envelope on stdout).
    Person,
}

/// How envelopes are printed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub format: OutputFormat,
    /// Who reads standard output.
    pub reader: Reader,
    pub pretty: bool,
    pub raw: bool,
    /// `-q`: nothing on stdout.
    pub quiet: bool,
    /// Standard output is a terminal: JSON escapes what a terminal would act on, and `-r`
    /// prints strings sanitized.
    pub terminal: bool,
    /// Color the text summary.
    pub color: bool,
    /// Color messages on stderr (decided for stderr, which may be a terminal when stdout is not).
    pub stderr_color: bool,
}

/// Print one envelope.
pub(crate) fn render(out: &mut dyn Write, env: &Envelope, style: Style) -> io::Result<()> {
    if style.quiet {
        return Ok(());
    }
    if style.raw {
        return match env.data() {
            Some(Value::String(s)) if style.terminal => {
                // Line by line, so that the answer's own newlines stay newlines.
                for line in s.split('\n') {
                    writeln!(out, "{}", sanitize(line))?;
                }
                Ok(())
            }
            Some(Value::String(s)) => writeln!(out, "{s}"),
            Some(v) => {
                json(out, v, false, style.terminal)?;
                writeln!(out)
            }
            None => Ok(()),
        };
    }
    match style.format {
        OutputFormat::Json => {
            json(out, env, style.pretty, style.terminal)?;
            writeln!(out)
        }
        OutputFormat::Text => text(out, env, style.color),
        OutputFormat::Github => crate::github::commands(out, env),
    }
}

/// `v` as JSON, pretty or on one line; for a terminal, with [`TerminalSafe`] escapes.
fn json(
    out: &mut dyn Write,
    v: &impl serde::Serialize,
    pretty: bool,
    terminal: bool,
) -> io::Result<()> {
    use serde_json::ser::{CompactFormatter, PrettyFormatter, Serializer};
    let r = match (pretty, terminal) {
        (false, false) => serde_json::to_writer(&mut *out, v),
        (true, false) => serde_json::to_writer_pretty(&mut *out, v),
        (false, true) => v.serialize(&mut Serializer::with_formatter(
            &mut *out,
            TerminalSafe(CompactFormatter),
        )),
        (true, true) => v.serialize(&mut Serializer::with_formatter(
            &mut *out,
            TerminalSafe(PrettyFormatter::new()),
        )),
    };
    r.map_err(io::Error::from)
}

/// A serde_json formatter that also writes, as `\uXXXX` escapes, the characters in strings
/// that a terminal would act on and JSON leaves raw: C1 controls (U+009B is an 8-bit CSI), DEL,
/// bidi overrides, zero-width and tag characters ([`crate::sanitize`]). The JSON value is the
/// same; only its spelling changes, and only for a terminal.
struct TerminalSafe<F>(F);

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for TerminalSafe<F> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if crate::sanitize::is_unsafe(c) {
                w.write_all(&fragment.as_bytes()[start..i])?;
                for unit in c.encode_utf16(&mut [0; 2]) {
                    write!(w, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }

    // The layout: what PrettyFormatter overrides, handed to the inner formatter.
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

fn paint(color: bool, s: &str, f: fn(&str) -> String) -> String {
    if color { f(s) } else { s.to_owned() }
}

/// The human summary: a verdict line, where the value came from, violations, the data.
fn text(out: &mut dyn Write, env: &Envelope, color: bool) -> io::Result<()> {
    let who = env
        .producer()
        .map(|p| format!(" ({})", p.id()))
        .unwrap_or_default();
    match env.error() {
        Some(err) => failed(out, env, err, &who, color)?,
        None => succeeded(out, env, &who, color)?,
    }
    if let Some(s) = env.session() {
        let parts = session_summary(s);
        if !parts.is_empty() {
            writeln!(
                out,
                "  {} {}",
                paint(color, "session:", |s| s.cyan().to_string()),
                sanitize(&parts.join(", "))
            )?;
        }
    }
    if let Some(a) = env.agent() {
        writeln!(
            out,
            "  {} {}",
            paint(color, "agent:", |s| s.cyan().to_string()),
            sanitize(&agent_summary(a))
        )?;
    }
    for w in env.warnings() {
        writeln!(
            out,
            "  {} {}: {}",
            paint(color, "warning:", |s| s.yellow().to_string()),
            w.kind,
            sanitize(&w.message)
        )?;
    }
    Ok(())
}

/// The text summary of a failure: `✗ INPUT (producer): kind`, the message, the violations,
/// findings or details, the hint and the candidate.
fn failed(
    out: &mut dyn Write,
    env: &Envelope,
    err: &Failure,
    who: &str,
    color: bool,
) -> io::Result<()> {
    writeln!(
        out,
        "{} {}{who}: {}",
        paint(color, "✗", |s| s.red().bold().to_string()),
        sanitize(env.input()),
        paint(color, err.kind.as_str(), |s| s.red().to_string())
    )?;
    writeln!(out, "  {}", sanitize(&err.message))?;
    let validation = err.kind == ErrorKind::ValidationFailed;
    let details = err.details.as_ref();
    if validation && let Some(vs) = details.and_then(Details::violations) {
        for v in vs {
            writeln!(out, "{}", violation(v, color))?;
        }
    }
    if let Some(report) = details.and_then(Details::report).and_then(LintReport::read) {
        findings(out, &report, color)?;
    } else if let Some(Value::Object(d)) = details
        .filter(|_| !validation)
        .and_then(|d| serde_json::to_value(d).ok())
    {
        let pairs: Vec<String> = d
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}: {s}"),
                _ => format!("{k}: {v}"),
            })
            .collect();
        writeln!(
            out,
            "  {}",
            paint(color, &sanitize(&pairs.join(", ")), |s| s
                .dimmed()
                .to_string())
        )?;
    }
    if let Some(h) = &err.hint {
        writeln!(
            out,
            "  {} {}",
            paint(color, "hint:", |s| s.cyan().to_string()),
            sanitize(h)
        )?;
    }
    if let Some(c) = env.candidate() {
        writeln!(out, "  candidate:")?;
        pretty_block(out, c, CANDIDATE_LINES)?;
    }
    Ok(())
}

/// The text summary of a success: `✓ INPUT (producer): kind, line N, valid against S` (`lint`
/// and `compile`: `a valid draft D schema`), then the data (`lint`: its findings).
fn succeeded(out: &mut dyn Write, env: &Envelope, who: &str, color: bool) -> io::Result<()> {
    if env.command() == Command::Producers
        && let Some(Value::Array(list)) = env.data()
    {
        return producer_table(out, list, color);
    }
    let kind = env
        .source()
        .map_or(env.command().as_str(), |s| s.kind.as_str());
    let line = env
        .source()
        .and_then(|s| s.line)
        .map(|l| format!(", line {l}"))
        .unwrap_or_default();
    let valid = match env.validation() {
        // The schema is the input: it is checked against its draft's meta-schema, not itself.
        Some(v) if matches!(env.command(), Command::Lint | Command::Compile) => {
            format!(", a valid draft {} schema", v.draft)
        }
        Some(v) => format!(", valid against {}", sanitize(&v.schema)),
        None => String::new(),
    };
    writeln!(
        out,
        "{} {}{who}: {}{line}{valid}",
        paint(color, "✓", |s| s.green().bold().to_string()),
        sanitize(env.input()),
        paint(color, kind, |s| s.green().to_string())
    )?;
    match env.data() {
        Some(d) if env.command() == Command::Lint => {
            if let Some(report) = LintReport::read(d) {
                findings(out, &report, color)?;
            }
        }
        Some(d) => pretty_block(out, d, usize::MAX)?,
        None => {}
    }
    Ok(())
}

/// `sojx producers` for people: one line per producer, its id, where it comes from, its
/// version, and what it reads.
fn producer_table(out: &mut dyn Write, list: &[Value], color: bool) -> io::Result<()> {
    let field = |p: &Value, k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let rows: Vec<[String; 4]> = list
        .iter()
        .map(|p| {
            let from = match (field(p, "origin").as_str(), field(p, "reads").as_str()) {
                ("built-in", "code") => "built-in".to_owned(),
                ("built-in", _) => "built-in file".to_owned(),
                (origin, _) => format!("{origin}: {}", field(p, "file")),
            };
            [field(p, "id"), from, field(p, "version"), field(p, "about")]
        })
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for [id, from, version, about] in &rows {
        let id = sanitize(id);
        let pad = w0.saturating_sub(id.chars().count());
        writeln!(
            out,
            "{}{:pad$}  {:w1$}  {:w2$}  {}",
            paint(color, &id, |s| s.bold().to_string()),
            "",
            sanitize(from),
            sanitize(version),
            sanitize(about)
        )?;
    }
    writeln!(out, "{} producers", rows.len())
}

/// How `run`'s agent ended, for people: `exited with status 1`, `killed by SIGKILL (sojx stopped
/// it: timeout)`.
fn agent_summary(a: &AgentReport) -> String {
    let how = match (a.exit_status, &a.signal) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => format!("killed by {sig}"),
        (None, None) => "not started".to_owned(),
    };
    match a.stopped {
        Some(why) => format!("{how} (sojx stopped it: {why})"),
        None => how,
    }
}

/// One violation of `error.details`, as a line for people: `  - /at: message (/keyword)`.
pub(crate) fn violation(v: &Violation, color: bool) -> String {
    format!(
        "  - {}: {} {}",
        paint(color, &sanitize(v.at()), |s| s.yellow().to_string()),
        sanitize(&v.message),
        paint(
            color,
            &format!("({})", sanitize(&v.keyword_location)),
            |s| s.dimmed().to_string()
        )
    )
}

/// `sojx lint` findings, one per line: severity, provider, rule, pointer, message, fix.
fn findings(out: &mut dyn Write, report: &LintReport<'_>, color: bool) -> io::Result<()> {
    for x in &report.findings {
        let sev = x.severity;
        let label = if sev == "error" {
            paint(color, sev, |t| t.red().to_string())
        } else {
            paint(color, sev, |t| t.yellow().to_string())
        };
        writeln!(
            out,
            "  - {label} {}/{} {}: {}",
            x.provider,
            x.rule,
            sanitize(x.at()),
            sanitize(x.message)
        )?;
        writeln!(out, "    fix: {}", sanitize(x.fix))?;
    }
    Ok(())
}

/// Most lines of a failed candidate shown in the text summary (the envelope has all of it).
const CANDIDATE_LINES: usize = 40;

/// A value, pretty-printed and indented; a string is shown as text. At most `max` lines.
fn pretty_block(out: &mut dyn Write, v: &Value, max: usize) -> io::Result<()> {
    let s = match v {
        Value::String(s) => s.clone(),
        _ => serde_json::to_string_pretty(v).unwrap_or_default(),
    };
    let total = s.lines().count();
    for line in s.lines().take(max) {
        writeln!(out, "    {}", sanitize(line))?;
    }
    if total > max {
        writeln!(out, "    … ({} more lines)", total - max)?;
    }
    Ok(())
}

/// The session for people: model, turns, cost, duration, tokens (those that are known).
pub(crate) fn session_summary(s: &Session) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(m) = &s.model {
        parts.push(m.clone());
    }
    if let Some(t) = s.turns.as_ref().and_then(Value::as_u64) {
        parts.push(format!("{t} turn{}", if t == 1 { "" } else { "s" }));
    }
    if let Some(c) = s.cost_usd.as_ref().and_then(Value::as_f64) {
        parts.push(crate::producer::usd(c));
    }
    if let Some(ms) = s.duration_ms.as_ref().and_then(Value::as_f64) {
        parts.push(format!("{:.1} s", ms / 1000.0));
    }
    let n = |v: &Option<Value>| v.as_ref().and_then(Value::as_u64);
    if let (Some(i), Some(o)) = (n(&s.usage.input_tokens), n(&s.usage.output_tokens)) {
        parts.push(format!("{i} in / {o} out tokens"));
    }
    parts
}
