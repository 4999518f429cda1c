//! The envelope (contract §6), built in its documented field order. `schemas/envelope.schema.json`
//! describes every envelope built here.

use serde_json::{Map, Value};

use crate::error::{ErrorKind, Failure};
use crate::producer::{Producer, Session, Warning};

pub const SCHEMA_VERSION: &str = "1.0";

/// One envelope and the exit code it contributes.
#[derive(Debug, Clone)]
pub struct Envelope {
    pub fields: Map<String, Value>,
    pub exit_code: i32,
}

impl Envelope {
    /// `data` of a success envelope.
    pub fn data(&self) -> Option<&Value> {
        self.fields.get("data")
    }

    pub fn error_kind(&self) -> Option<&str> {
        self.fields.get("error")?.get("kind")?.as_str()
    }

    pub fn into_value(self) -> Value {
        Value::Object(self.fields)
    }
}

/// Exit code of a failure kind (contract §7).
pub fn exit_code_of(kind: ErrorKind) -> i32 {
    if kind == ErrorKind::Timeout { 2 } else { 1 }
}

/// The six common fields, in order.
fn common(command: &str, exit_code: i32, input: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("timestamp".into(), Value::from(timestamp()));
    m.insert("command".into(), Value::from(command));
    m.insert("exit_code".into(), Value::from(exit_code));
    m.insert("output_format".into(), Value::from("json"));
    m.insert("schema_version".into(), Value::from(SCHEMA_VERSION));
    m.insert("input".into(), Value::from(input));
    m
}

/// Optional parts of an envelope.
#[derive(Debug, Default)]
pub struct Parts {
    pub producer: Option<Producer>,
    pub source: Option<Value>,
    pub session: Option<Session>,
    pub warnings: Vec<Warning>,
    /// `validation` of a success (`null` when no schema was given).
    pub validation: Option<Value>,
}

fn session_value(s: Option<Session>) -> Option<Value> {
    s.filter(|s| !s.is_empty())
        .and_then(|s| serde_json::to_value(s).ok())
}

fn warnings_value(w: Vec<Warning>) -> Value {
    serde_json::to_value(w).unwrap_or_else(|_| Value::Array(Vec::new()))
}

/// A success envelope.
pub fn success(command: &str, input: &str, data: Value, parts: Parts) -> Envelope {
    let mut m = common(command, 0, input);
    if let Some(p) = parts.producer {
        m.insert("producer".into(), Value::from(p.id()));
    }
    if let Some(s) = parts.source {
        m.insert("source".into(), s);
    }
    m.insert("data".into(), data);
    m.insert("validation".into(), parts.validation.unwrap_or(Value::Null));
    if let Some(s) = session_value(parts.session) {
        m.insert("session".into(), s);
    }
    m.insert("warnings".into(), warnings_value(parts.warnings));
    Envelope {
        fields: m,
        exit_code: 0,
    }
}

/// A failure envelope.
pub fn failure(command: &str, input: &str, failure: Failure, parts: Parts) -> Envelope {
    let exit_code = exit_code_of(failure.kind);
    let mut m = common(command, exit_code, input);
    let found = failure.kind == ErrorKind::NotFound;
    let candidate = failure.candidate.clone();
    let mut error = failure;
    if error.target.is_empty() {
        error.target = input.to_owned();
    }
    m.insert(
        "error".into(),
        serde_json::to_value(&error).unwrap_or(Value::Null),
    );
    if let Some(p) = parts.producer {
        m.insert("producer".into(), Value::from(p.id()));
    }
    if let Some(s) = parts.source {
        m.insert("source".into(), s);
    }
    if let Some(v) = parts.validation {
        m.insert("validation".into(), v);
    }
    if let Some(s) = session_value(parts.session) {
        m.insert("session".into(), s);
    }
    if let Some(c) = candidate {
        m.insert("candidate".into(), c);
    }
    if found {
        m.insert("found".into(), Value::Bool(false));
    }
    m.insert("warnings".into(), warnings_value(parts.warnings));
    Envelope {
        fields: m,
        exit_code,
    }
}

/// Now, as ISO 8601 UTC with milliseconds (`2026-11-22T04:19:33.123Z`).
pub fn timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format_utc(now.as_secs(), now.subsec_millis())
}

/// Format seconds since the epoch as ISO 8601 UTC (days-to-civil, Howard Hinnant's algorithm).
pub fn format_utc(secs: u64, millis: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

/// Deepest `data`: one level less than [`framing::MAX_DEPTH`](crate::framing::MAX_DEPTH), so
/// that the envelope holding it can be read back by serde_json-based tools (sojx included).
pub const MAX_DATA_DEPTH: usize = crate::framing::MAX_DEPTH - 1;

/// Nesting depth of a value (a scalar is 0, `[]` is 1), without recursion.
pub fn depth(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(a) => {
                max = max.max(d + 1);
                stack.extend(a.iter().map(|x| (x, d + 1)));
            }
            Value::Object(o) => {
                max = max.max(d + 1);
                stack.extend(o.values().map(|x| (x, d + 1)));
            }
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_formatting() {
        assert_eq!(format_utc(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_utc(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(format_utc(1_795_321_173, 123), "2026-11-22T04:19:33.123Z");
    }

    #[test]
    fn common_fields_come_first_in_order() {
        let e = failure(
            "extract",
            "<stdin>",
            Failure::new(ErrorKind::NotFound, "extract", "none"),
            Parts::default(),
        );
        let keys: Vec<&str> = e.fields.keys().map(String::as_str).collect();
        assert_eq!(
            &keys[..6],
            [
                "timestamp",
                "command",
                "exit_code",
                "output_format",
                "schema_version",
                "input"
            ]
        );
        assert_eq!(e.fields["found"], Value::Bool(false));
        assert_eq!(e.exit_code, 1);
    }
}
