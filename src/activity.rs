//! `--activity`: one human line per event on stderr, written (and flushed) as soon as its input
//! line is read. Model text is sanitized here, before it reaches a terminal.
//!
//! ```text
//! sojx: run.ndjson:1: producer: claude-code
//! sojx: run.ndjson:3: tool StructuredOutput: {"verdict":"PASS"}
//! sojx: run.ndjson: done: ok (structured_output), 3 turns, $0.0123, 4.2 s
//! ```

use std::io::{self, Write};

use owo_colors::OwoColorize;

use crate::envelope::Envelope;
use crate::sanitize::sanitize;

/// One `--activity` event: the input line it came from and a short description (model text
/// inside is not sanitized yet: the writer does that).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    pub line: u64,
    pub text: String,
}

/// Write one event line and flush it.
pub fn event(out: &mut dyn Write, input: &str, a: &Activity, color: bool) -> io::Result<()> {
    let where_ = format!("sojx: {}:{}:", sanitize(input), a.line);
    let text = sanitize(&a.text);
    let (label, rest) = match text.split_once(": ") {
        Some((l, r)) if l.len() <= 24 => (l, Some(r)),
        _ => (text.as_ref(), None),
    };
    if color {
        write!(out, "{} {}", where_.dimmed(), paint(label))?;
    } else {
        write!(out, "{where_} {label}")?;
    }
    match rest {
        Some(r) => writeln!(out, ": {r}")?,
        None => writeln!(out)?,
    }
    out.flush()
}

/// The label's color: errors red, retries yellow, tools cyan, results green, text plain.
fn paint(label: &str) -> String {
    let l = label.to_ascii_lowercase();
    if l.contains("error") || l.contains("fail") || l.contains("refus") {
        label.red().bold().to_string()
    } else if l.starts_with("retry") || l.contains("warn") {
        label.yellow().to_string()
    } else if l.starts_with("tool") || l.starts_with("command") || l.starts_with("function") {
        label.cyan().to_string()
    } else if l.starts_with("result") || l.starts_with("turn completed") || l.starts_with("done") {
        label.green().to_string()
    } else if l.starts_with("text") {
        label.to_string()
    } else {
        label.blue().to_string()
    }
}

/// The last line for an input: the verdict, and the session's turns, cost and duration.
pub fn summary(out: &mut dyn Write, env: &Envelope, color: bool) -> io::Result<()> {
    let input = env.input();
    let mut parts = vec![match env.error_kind() {
        Some(kind) => kind.as_str().to_owned(),
        None => format!("ok ({})", env.source_kind().unwrap_or("?")),
    }];
    if let Some(s) = env.session() {
        parts.extend(crate::render::session_summary(s));
    }
    let where_ = format!("sojx: {}:", sanitize(input));
    let body = sanitize(&parts.join(", ")).into_owned();
    if color {
        let body = if env.error_kind().is_some() {
            body.red().to_string()
        } else {
            body.green().to_string()
        };
        writeln!(out, "{} {}: {body}", where_.dimmed(), "done".bold())?;
    } else {
        writeln!(out, "{where_} done: {body}")?;
    }
    out.flush()
}
