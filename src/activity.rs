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
use crate::producer::EventKind;
use crate::sanitize::sanitize;

pub(crate) use sojx_core::activity::Activity;

/// Write one event line and flush it.
pub(crate) fn event(out: &mut dyn Write, input: &str, a: &Activity, color: bool) -> io::Result<()> {
    let where_ = format!("sojx: {}:{}:", sanitize(input), a.line);
    let text = sanitize(&a.text);
    let (label, rest) = match text.split_once(": ") {
        Some((l, r)) if l.len() <= 24 => (l, Some(r)),
        _ => (text.as_ref(), None),
    };
    if color {
        write!(out, "{} {}", where_.dimmed(), paint(a.kind, label))?;
    } else {
        write!(out, "{where_} {label}")?;
    }
    match rest {
        Some(r) => writeln!(out, ": {r}")?,
        None => writeln!(out)?,
    }
    out.flush()
}

/// The label's color, by the event's kind: errors red, retries yellow, tools cyan, results
/// green, text plain, the rest blue.
fn paint(kind: EventKind, label: &str) -> String {
    match kind {
        EventKind::Error => label.red().bold().to_string(),
        EventKind::Retry => label.yellow().to_string(),
        EventKind::Tool => label.cyan().to_string(),
        EventKind::Result => label.green().to_string(),
        EventKind::Text => label.to_string(),
        EventKind::Info => label.blue().to_string(),
    }
}

/// The last line for an input: the verdict, and the session's turns, cost and duration.
pub(crate) fn summary(out: &mut dyn Write, env: &Envelope, color: bool) -> io::Result<()> {
    let input = env.input();
    let mut parts = vec![match env.error_kind() {
        Some(kind) => kind.as_str().to_owned(),
        None => format!("ok ({})", env.source().map_or("?", |s| s.kind.as_str())),
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

#[cfg(test)]
mod tests {
    use super::{Activity, event};
    use crate::producer::EventKind;

    /// The color comes from the event's kind, whatever its text says.
    #[test]
    fn the_label_is_colored_by_the_kind_of_event() {
        let line = |kind, text: &str| {
            let mut out = Vec::new();
            let a = Activity {
                line: 3,
                kind,
                text: text.to_owned(),
            };
            event(&mut out, "run", &a, true).unwrap();
            String::from_utf8(out).unwrap()
        };
        // "error" in a tool's name does not make the call an error.
        assert!(
            line(EventKind::Tool, "tool error_report: {}").contains("\x1b[36mtool error_report")
        );
        assert!(line(EventKind::Error, "turn failed").contains("\x1b[31m"));
        assert!(line(EventKind::Retry, "retry: attempt 2 of 10").contains("\x1b[33mretry"));
        assert!(line(EventKind::Result, "result: success").contains("\x1b[32mresult"));
        let text = line(EventKind::Text, "text: hello");
        assert!(text.ends_with(" text: hello\n"), "{text:?}");
        let mut plain = Vec::new();
        let a = Activity {
            line: 1,
            kind: EventKind::Error,
            text: "error: boom".into(),
        };
        event(&mut plain, "run", &a, false).unwrap();
        assert_eq!(
            String::from_utf8(plain).unwrap(),
            "sojx: run:1: error: boom\n"
        );
    }
}
