//! `--markers`: the legacy text protocol of an operations session manager, read only when a run
//! holds no structured output (contract §4, `source.kind: markers`).
//!
//! A marker is a line of the final answer text that starts (after optional whitespace and a
//! list bullet `-`, `*` or `>`) with one of
//!
//! ```text
//! [EVENT:level] message            level: info | warning | critical
//! [EVENT:level:service] message
//! [MEMORY:category] observation
//! [MEMORY:category:service] observation
//! ```
//!
//! Events become `{level, service?, message}`, memories `{key, value}` with `key`
//! `service:category` (or `category`). A marker with an unknown level, an empty part or an
//! empty message is reported in a warning naming its line and left out; nothing is coerced.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::error::{ErrorKind, Failure, Operation};
use crate::warning::{Warning, WarningKind};

const LEVELS: [&str; 3] = ["info", "warning", "critical"];

/// What the markers of one answer text hold.
#[derive(Debug, Default)]
pub(crate) struct Markers {
    pub events: Vec<Value>,
    pub memories: Vec<Value>,
    pub warnings: Vec<Warning>,
}

impl Markers {
    /// Markers found (valid or not).
    pub(crate) fn any(&self) -> bool {
        !self.events.is_empty() || !self.memories.is_empty() || !self.warnings.is_empty()
    }

    /// `{events, memories}`, plus `escalation` when a handoff file was given.
    pub(crate) fn into_data(self, escalation: Option<&Value>) -> Value {
        let mut m = Map::new();
        m.insert("events".into(), Value::Array(self.events));
        m.insert("memories".into(), Value::Array(self.memories));
        if let Some(e) = escalation {
            m.insert("escalation".into(), e.clone());
        }
        Value::Object(m)
    }
}

/// Read the markers of `text` (line numbers in warnings count from its first line).
pub(crate) fn parse(text: &str) -> Markers {
    let mut out = Markers::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw
            .trim_start()
            .trim_start_matches(['-', '*', '>'])
            .trim_start();
        let (tag, kind) = if let Some(rest) = line.strip_prefix("[EVENT:") {
            (rest, "EVENT")
        } else if let Some(rest) = line.strip_prefix("[MEMORY:") {
            (rest, "MEMORY")
        } else {
            continue;
        };
        let no = i + 1;
        let report = |why: String| {
            Warning::new(
                WarningKind::MarkerInvalid,
                format!(
                    "answer line {no}: {why}; the marker was skipped: {}",
                    crate::jq::short(&Value::from(raw.trim()))
                ),
            )
        };
        let Some(close) = tag.find(']') else {
            out.warnings
                .push(report(format!("[{kind}: has no closing bracket")));
            continue;
        };
        let parts: Vec<&str> = tag[..close].split(':').map(str::trim).collect();
        let body = tag[close + 1..].trim();
        if parts.len() > 2 || parts.iter().any(|p| p.is_empty()) {
            out.warnings.push(report(format!(
                "[{kind}:…] takes one or two non-empty parts separated by `:`"
            )));
            continue;
        }
        if body.is_empty() {
            out.warnings
                .push(report(format!("[{kind}:…] has an empty message")));
            continue;
        }
        let service = parts.get(1).copied();
        if kind == "EVENT" {
            let level = parts[0];
            if !LEVELS.contains(&level) {
                out.warnings.push(report(format!(
                    "event level `{level}` is not one of info, warning, critical"
                )));
                continue;
            }
            let mut e = Map::new();
            e.insert("level".into(), Value::from(level));
            if let Some(s) = service {
                e.insert("service".into(), Value::from(s));
            }
            e.insert("message".into(), Value::from(body));
            out.events.push(Value::Object(e));
        } else {
            let key = match service {
                Some(s) => format!("{s}:{}", parts[0]),
                None => parts[0].to_owned(),
            };
            out.memories.push(json!({"key": key, "value": body}));
        }
    }
    out
}

/// Read the `--handoff` file through `files` once, before any input: JSON when it parses, else
/// its text. It must be a regular file of at most [`crate::input::MAX_FILE_BYTES`] (a FIFO would
/// block, `/dev/zero` would never end).
pub fn load_handoff(path: &Path, files: &dyn crate::files::Files) -> Result<Value, Failure> {
    let bytes = files
        .read_regular(path, crate::input::MAX_FILE_BYTES)
        .map_err(|e| {
            Failure::new(
                ErrorKind::Filesystem,
                Operation::Read,
                format!(
                    "cannot read the handoff file {}: {}",
                    path.display(),
                    crate::input::io_reason(&e)
                ),
            )
            .target(path.to_string_lossy().into_owned())
            .retryable(false)
            .hint("--handoff names the legacy escalation file the agent wrote")
        })?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(crate::text::whole(&text).unwrap_or_else(|| Value::from(text.trim_end())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_events_and_memories() {
        let m = parse(
            "Checked.\n[EVENT:critical:db] disk full\n - [MEMORY:runbook] restart first\n\
             [MEMORY:incident:db] it recurs\n[EVENT:debug] noise\n[EVENT:info]\n",
        );
        assert_eq!(
            m.events,
            vec![json!({"level":"critical","service":"db","message":"disk full"})]
        );
        assert_eq!(
            m.memories,
            vec![
                json!({"key":"runbook","value":"restart first"}),
                json!({"key":"db:incident","value":"it recurs"})
            ]
        );
        assert_eq!(m.warnings.len(), 2);
        assert!(m.warnings[0].message.contains("line 5"));
        assert!(m.warnings[0].message.contains("`debug`"));
    }
}
