//! Rendering envelopes: JSON (one line, or pretty), `-r` (data only), and the human text
//! summary. The only module that writes to stdout.

use std::io::{self, Write};

use owo_colors::OwoColorize;
use serde_json::Value;

use crate::cli::OutputFormat;
use crate::envelope::Envelope;
use crate::sanitize::sanitize;

/// How envelopes are printed.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub format: OutputFormat,
    pub pretty: bool,
    pub raw: bool,
    /// Color the text summary.
    pub color: bool,
}

/// Print one envelope.
pub fn render(out: &mut dyn Write, env: &Envelope, style: Style) -> io::Result<()> {
    if style.raw {
        return match env.data() {
            Some(Value::String(s)) => writeln!(out, "{s}"),
            Some(v) => {
                serde_json::to_writer(&mut *out, v)?;
                writeln!(out)
            }
            None => Ok(()),
        };
    }
    match style.format {
        OutputFormat::Json => {
            if style.pretty {
                serde_json::to_writer_pretty(&mut *out, &env.fields)?;
            } else {
                serde_json::to_writer(&mut *out, &env.fields)?;
            }
            writeln!(out)
        }
        OutputFormat::Text => text(out, env, style.color),
    }
}

fn paint(color: bool, s: &str, f: fn(&str) -> String) -> String {
    if color { f(s) } else { s.to_owned() }
}

/// The human summary: a verdict line, where the value came from, violations, the data.
fn text(out: &mut dyn Write, env: &Envelope, color: bool) -> io::Result<()> {
    let f = &env.fields;
    let input = f.get("input").and_then(Value::as_str).unwrap_or("?");
    let producer = f.get("producer").and_then(Value::as_str);
    let who = producer.map(|p| format!(" ({p})")).unwrap_or_default();
    if let Some(err) = f.get("error") {
        let kind = err.get("kind").and_then(Value::as_str).unwrap_or("error");
        let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
        writeln!(
            out,
            "{} {}{who}: {}",
            paint(color, "✗", |s| s.red().bold().to_string()),
            sanitize(input),
            paint(color, kind, |s| s.red().to_string())
        )?;
        writeln!(out, "  {}", sanitize(msg))?;
        if kind == "validation_failed"
            && let Some(Value::Array(vs)) = err.get("details")
        {
            for v in vs {
                let at = v
                    .get("instance_location")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let at = if at.is_empty() { "/" } else { at };
                let m = v.get("message").and_then(Value::as_str).unwrap_or("");
                let kw = v
                    .get("keyword_location")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                writeln!(
                    out,
                    "  - {} {} {}",
                    paint(color, at, |s| s.yellow().to_string()),
                    sanitize(m),
                    paint(color, &format!("({kw})"), |s| s.dimmed().to_string())
                )?;
            }
        }
        if let Some(d) = err.get("details").filter(|_| kind == "agent_error") {
            writeln!(
                out,
                "  {}",
                paint(color, &sanitize(&d.to_string()), |s| s.dimmed().to_string())
            )?;
        }
        if let Some(h) = err.get("hint").and_then(Value::as_str) {
            writeln!(
                out,
                "  {} {}",
                paint(color, "hint:", |s| s.cyan().to_string()),
                sanitize(h)
            )?;
        }
        if let Some(c) = f.get("candidate") {
            writeln!(out, "  candidate:")?;
            pretty_block(out, c)?;
        }
    } else {
        let kind = f
            .get("source")
            .and_then(|s| s.get("kind"))
            .and_then(Value::as_str)
            .or_else(|| f.get("command").and_then(Value::as_str))
            .unwrap_or("?");
        let line = f
            .get("source")
            .and_then(|s| s.get("line"))
            .and_then(Value::as_u64)
            .map(|l| format!(", line {l}"))
            .unwrap_or_default();
        let valid = match f.get("validation") {
            Some(Value::Object(v)) => format!(
                ", valid against {}",
                sanitize(v.get("schema").and_then(Value::as_str).unwrap_or("schema"))
            ),
            _ => String::new(),
        };
        writeln!(
            out,
            "{} {}{who}: {}{line}{valid}",
            paint(color, "✓", |s| s.green().bold().to_string()),
            sanitize(input),
            paint(color, kind, |s| s.green().to_string())
        )?;
        if let Some(d) = f.get("data") {
            pretty_block(out, d)?;
        }
    }
    if let Some(Value::Array(ws)) = f.get("warnings") {
        for w in ws {
            let k = w.get("kind").and_then(Value::as_str).unwrap_or("");
            let m = w.get("message").and_then(Value::as_str).unwrap_or("");
            writeln!(
                out,
                "  {} {k}: {}",
                paint(color, "warning:", |s| s.yellow().to_string()),
                sanitize(m)
            )?;
        }
    }
    Ok(())
}

fn pretty_block(out: &mut dyn Write, v: &Value) -> io::Result<()> {
    let s = match v {
        Value::String(s) => s.clone(),
        _ => serde_json::to_string_pretty(v).unwrap_or_default(),
    };
    for line in s.lines() {
        writeln!(out, "    {}", sanitize(line))?;
    }
    Ok(())
}
