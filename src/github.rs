//! `--output-format github`: GitHub Actions workflow commands on stdout (an annotation per
//! violation, warning, lint finding or failure), and the rows of the Markdown table sojx appends
//! to the job summary (`GITHUB_STEP_SUMMARY`).
//!
//! The escaping is the runner's own (`actions/toolkit`, `packages/core/src/command.ts`:
//! `escapeData`, `escapeProperty`): in the message `%`, CR and LF become `%25`, `%0D`, `%0A`;
//! in a property `:` and `,` become `%3A` and `%2C` as well. A model-written message can thus
//! never end a command early or start a new one.

use std::io::{self, Write};

use serde_json::Value;

use crate::details::{Details, LintReport};
use crate::envelope::Envelope;
use crate::error::ErrorKind;
use crate::names::Command;

/// Most violations of one input annotated (the envelope, and the JSON mode, have them all).
const VIOLATIONS: usize = 20;

/// The workflow commands for one envelope.
pub(crate) fn commands(out: &mut dyn Write, env: &Envelope) -> io::Result<()> {
    // Only a file can be pointed at: not stdin, not a schema given inline.
    let file = Some(env.input()).filter(|f| !f.is_empty() && !f.starts_with(['<', '{', '[']));
    let line = env.source().and_then(|s| s.line);
    let cmd = |out: &mut dyn Write, level: &str, line: Option<u64>, title: &str, msg: &str| {
        let mut props = Vec::new();
        if let Some(f) = file {
            props.push(format!("file={}", property(f)));
        }
        if let Some(l) = line {
            props.push(format!("line={l}"));
        }
        props.push(format!("title={}", property(title)));
        writeln!(out, "::{level} {}::{}", props.join(","), data(msg))
    };
    for w in env.warnings() {
        cmd(
            out,
            "warning",
            None,
            &format!("sojx {}", w.kind),
            &w.message,
        )?;
    }
    if let Some(report) = findings(env) {
        for f in report.findings {
            let level = match f.severity {
                "error" => "error",
                "warning" => "warning",
                _ => "notice",
            };
            let title = format!("sojx lint {}/{} at {}", f.provider, f.rule, f.at());
            cmd(
                out,
                level,
                None,
                &title,
                &format!("{}\nfix: {}", f.message, f.fix),
            )?;
        }
    }
    let Some(err) = env.error() else {
        if env.command() != Command::Lint {
            let what = [
                env.producer().map(crate::producer::Producer::id),
                env.source().map(|s| s.kind.as_str()),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
            cmd(out, "notice", line, "sojx ok", &what)?;
        }
        return Ok(());
    };
    let title = format!("sojx {}", err.kind.as_str());
    let violations = match err.details.as_ref().and_then(Details::violations) {
        Some(vs) if err.kind == ErrorKind::ValidationFailed => vs,
        _ => &[],
    };
    if violations.is_empty() {
        let msg = match &err.hint {
            Some(h) => format!("{}\nhint: {h}", err.message),
            None => err.message.clone(),
        };
        return cmd(out, "error", line, &title, &msg);
    }
    for v in violations.iter().take(VIOLATIONS) {
        let msg = format!("{} ({})", v.message, v.keyword_location);
        cmd(out, "error", line, &format!("{title} at {}", v.at()), &msg)?;
    }
    if violations.len() > VIOLATIONS {
        let more = violations.len() - VIOLATIONS;
        cmd(
            out,
            "error",
            line,
            &title,
            &format!("and {more} more violation(s) in error.details"),
        )?;
    }
    Ok(())
}

/// `sojx lint`'s findings, on success (`data`) or failure (`error.details`).
fn findings(env: &Envelope) -> Option<LintReport<'_>> {
    if env.command() != Command::Lint {
        return None;
    }
    let holder = env
        .data()
        .or_else(|| env.error()?.details.as_ref()?.report())?;
    LintReport::read(holder)
}

/// Most rows of the job summary table; the rest are counted in a last line.
pub(crate) const SUMMARY_ROWS: usize = 100;

/// The job summary's table header.
pub(crate) fn summary_head(command: Command) -> String {
    format!(
        "\n### sojx {command}\n\n| input | producer | result | error | first violations, or the message | cost | turns |\n| --- | --- | --- | --- | --- | --- | --- |\n"
    )
}

/// One row of the job summary table for `env`.
pub(crate) fn summary_row(env: &Envelope) -> String {
    let input = match env.input() {
        "" => "(none)".to_owned(),
        i => code(i),
    };
    let producer = env.producer().map_or("", |p| p.id());
    let (result, kind, detail) = match env.error() {
        None => ("✅ ok", "", String::new()),
        Some(e) => {
            let result = if e.kind == ErrorKind::Timeout {
                "⏱️ timeout"
            } else {
                "❌ failed"
            };
            let detail = match e.details.as_ref().and_then(Details::violations) {
                Some(vs) if e.kind == ErrorKind::ValidationFailed => vs
                    .iter()
                    .take(3)
                    .map(|v| format!("{}: {}", code(v.at()), code(&v.message)))
                    .collect::<Vec<_>>()
                    .join("<br>"),
                _ => code(&e.message),
            };
            (result, e.kind.as_str(), detail)
        }
    };
    let session = env.session();
    let cost = session
        .and_then(|s| s.cost_usd.as_ref())
        .and_then(Value::as_f64)
        .map(crate::producer::usd)
        .unwrap_or_default();
    let turns = session
        .and_then(|s| s.turns.as_ref())
        .and_then(Value::as_u64)
        .map(|t| t.to_string())
        .unwrap_or_default();
    format!("| {input} | {producer} | {result} | {kind} | {detail} | {cost} | {turns} |\n")
}

/// Text shown as written in one Markdown table cell, whatever it holds (a model's answer may
/// hold anything): a code span, inside which nothing renders (no link, image, autolink, HTML,
/// entity or emphasis; CommonMark 0.31 §6.1). A code span reads no backslash escape, so a
/// backtick (which would end it) becomes `'`; a pipe is written `\|`, which GFM reads as the
/// cell's before the span (GFM 0.29 §4.10); a newline becomes a space, other control
/// characters are dropped. (Backslash escapes alone do not do: cmark-gfm finds an e-mail
/// autolink in `a\@b\.example`.)
fn code(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('`');
    for c in s.chars() {
        match c {
            '`' => out.push('\''),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('`');
    out
}

/// Escape workflow-command data (the message).
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow-command property (`file`, `title`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped_as_the_runner_reads_them() {
        assert_eq!(data("50%\r\n::error::x"), "50%25%0D%0A::error::x");
        assert_eq!(property("a: b, c\n"), "a%3A b%2C c%0A");
    }

    #[test]
    fn a_cell_cannot_break_its_row() {
        assert_eq!(code("a | b\nc <script> `x`"), r"`a \| b c <script> 'x'`");
    }

    /// Nothing a model writes renders as Markdown in a cell: it is one code span, which no
    /// backtick of its own ends, and no pipe of its own ends the cell.
    #[test]
    fn nothing_in_a_cell_renders() {
        let attack = "![x](https://attacker.example/x.png) [Click](https://a.example/p) \
                      <img src=x> &lt; **b** a@attacker.example `code` ``two`` | \\| \n";
        let out = code(attack);
        assert!(out.starts_with('`') && out.ends_with('`'), "{out}");
        assert_eq!(out.matches('`').count(), 2, "{out}");
        assert_eq!(
            out.matches('|').count(),
            out.matches("\\|").count(),
            "{out}"
        );
        assert!(!out.contains('\n'), "{out}");
    }
}
