//! The envelope (contract §6), built in its documented field order. `schemas/envelope.schema.json`
//! describes every envelope built here.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{ErrorKind, Failure};
use crate::exit::ExitStatus;
use crate::names::Command;
use crate::names::wire_enum;
use crate::producer::{Family, Producer, Session, SourceKind};
use crate::warning::Warning;

pub const SCHEMA_VERSION: &str = "1.1";

/// The version of an envelope that names a producer of a producer file (built in or a user's):
/// 1.2 added them, and an envelope that names none stays 1.1 (`schemas/envelope.schema.json`).
pub const SCHEMA_VERSION_FILES: &str = "1.2";

/// The schema version of `command`'s envelope naming `producer` (`sojx producers` is 1.2's).
fn version(command: Command, producer: Option<Producer>) -> &'static str {
    match producer {
        _ if command == Command::Producers => SCHEMA_VERSION_FILES,
        // ACP's recordings came with 1.2 too.
        Some(p) if matches!(p.family(), Family::Described | Family::Acp) => SCHEMA_VERSION_FILES,
        _ => SCHEMA_VERSION,
    }
}

/// One envelope. Serialized in the contract's field order: the six common fields, then
/// `error`, `producer`, `source`, `data`, `validation`, `session`, `candidate`, `found`,
/// `warnings`; a field that is `None` is left out (a success always has `validation`, `null`
/// when no schema was given).
#[derive(Debug, Clone, Serialize)]
pub struct Envelope {
    timestamp: String,
    command: Command,
    exit_code: ExitStatus,
    output_format: &'static str,
    schema_version: &'static str,
    input: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Failure>,
    #[serde(skip_serializing_if = "Option::is_none")]
    producer: Option<Producer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<Source>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    validation: Option<Validated>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<Session>,
    #[serde(skip_serializing_if = "Option::is_none")]
    candidate: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    found: Option<bool>,
    warnings: Vec<Warning>,
    /// `run`: the agent process and how it ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<AgentReport>,
    /// `run` with more than one attempt allowed: one entry per attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    attempts: Option<Vec<Attempt>>,
}

impl Envelope {
    /// The six common fields, and nothing else yet.
    fn common(command: Command, exit_code: ExitStatus, input: &str) -> Self {
        Self {
            timestamp: timestamp(),
            command,
            exit_code,
            output_format: "json",
            schema_version: version(command, None),
            input: input.to_owned(),
            error: None,
            producer: None,
            source: None,
            data: None,
            validation: None,
            session: None,
            candidate: None,
            found: None,
            warnings: Vec::new(),
            agent: None,
            attempts: None,
        }
    }

    /// This envelope as `command`'s (`run` reports what `extract` decided): the exit status
    /// follows, from the error's kind.
    #[must_use]
    pub fn as_command(mut self, command: Command) -> Self {
        self.command = command;
        self.schema_version = version(command, self.producer);
        if let Some(e) = &self.error {
            self.exit_code = ExitStatus::of(command, e.kind);
        }
        self
    }

    /// An interrupted run's status: 128 + `signal` (only for the kind `interrupted`).
    #[must_use]
    pub fn interrupted_by(mut self, signal: i32) -> Self {
        if self.error_kind() == Some(ErrorKind::Interrupted) {
            self.exit_code = ExitStatus::interrupted(signal);
        }
        self
    }

    /// `run`'s `agent` object.
    #[must_use]
    pub fn with_agent(mut self, agent: AgentReport) -> Self {
        self.agent = Some(agent);
        self
    }

    /// `run`'s `attempts`.
    #[must_use]
    pub fn with_attempts(mut self, attempts: Vec<Attempt>) -> Self {
        self.attempts = Some(attempts);
        self
    }

    /// One more warning.
    #[must_use]
    pub fn with_warning(mut self, warning: Warning) -> Self {
        self.warnings.push(warning);
        self
    }

    /// The same envelope with its error's message extended by `more` (a failure envelope only).
    #[must_use]
    pub fn with_error_said(mut self, more: &str) -> Self {
        if let Some(e) = &mut self.error {
            e.message.push_str(more);
        }
        self
    }

    /// The same envelope with its error changed by `f` (a failure envelope only).
    #[must_use]
    pub fn map_error(mut self, f: impl FnOnce(&mut Failure)) -> Self {
        if let Some(e) = &mut self.error {
            f(e);
        }
        self
    }

    /// `run`'s `agent` object, when this is `run`'s envelope.
    pub fn agent(&self) -> Option<&AgentReport> {
        self.agent.as_ref()
    }

    /// Take the parts a failure of the same input keeps: producer, session, warnings.
    pub fn into_parts(self) -> Parts {
        Parts {
            producer: self.producer,
            source: None,
            session: self.session,
            warnings: self.warnings,
            validation: None,
        }
    }

    /// The status this envelope contributes to the run's exit status.
    pub fn exit_status(&self) -> ExitStatus {
        self.exit_code
    }

    pub fn command(&self) -> Command {
        self.command
    }

    /// The input's name as given, or `<stdin>`.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// `data` of a success envelope.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// `error` of a failure envelope.
    pub fn error(&self) -> Option<&Failure> {
        self.error.as_ref()
    }

    pub fn error_kind(&self) -> Option<ErrorKind> {
        self.error.as_ref().map(|e| e.kind)
    }

    pub fn producer(&self) -> Option<Producer> {
        self.producer
    }

    /// `source`: where the value came from.
    pub fn source(&self) -> Option<&Source> {
        self.source.as_ref()
    }

    /// `validation`: the schema the value was held to (none on a success without a schema).
    pub fn validation(&self) -> Option<&Validation> {
        match self.validation.as_ref()? {
            Validated::Against(v) => Some(v),
            Validated::NoSchema => None,
        }
    }

    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    pub fn candidate(&self) -> Option<&Value> {
        self.candidate.as_ref()
    }

    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// `data` of a success envelope, taken out.
    pub fn into_data(self) -> Option<Value> {
        self.data
    }

    /// The envelope as a JSON value (field order kept).
    pub fn into_value(self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Optional parts of an envelope.
#[derive(Debug, Default)]
pub struct Parts {
    pub producer: Option<Producer>,
    pub source: Option<Source>,
    pub session: Option<Session>,
    pub warnings: Vec<Warning>,
    /// `validation` (a success without one says `null`).
    pub validation: Option<Validation>,
}

/// The envelope's `source`: the rule the value was found by, the line it was on, the
/// producer's details of it (`tool`, `call_id`, …, in the producer's order), and whether
/// `--repair` mended it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Source {
    pub kind: SourceKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(flatten)]
    pub detail: Map<String, Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub repaired: bool,
    /// `--repair`: each change made to the answer's text, in text order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<crate::repair::Change>,
    /// `--coerce`: each string converted to the type the schema asks for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub coercions: Vec<crate::coerce::Coercion>,
}

impl Source {
    /// A value of `kind` found on `line`, with no details.
    pub fn new(kind: SourceKind, line: Option<u64>) -> Self {
        Self {
            kind,
            line,
            detail: Map::new(),
            repaired: false,
            repairs: Vec::new(),
            coercions: Vec::new(),
        }
    }

    /// A document that is itself the value, on `line` (`validate`'s).
    pub fn document(line: u64) -> Self {
        Self::new(SourceKind::Document, Some(line))
    }
}

/// `run`'s `agent`: the agent process and how it ended (`exit_status` or `signal`, never
/// both).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentReport {
    /// Its argv, as run.
    pub command: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// The signal that ended it (`SIGTERM`), when it did not exit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Why sojx signalled its group: `timeout` or `interrupted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<&'static str>,
    pub duration_ms: u64,
    /// The last 4 KiB of its stderr.
    pub stderr_tail: String,
    /// The first line of its whole stderr that reported an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_first_error: Option<String>,
    /// What its exit status means in its CLI's own table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_class: Option<&'static str>,
}

wire_enum! {
    /// An attempt's `outcome`.
    pub enum AttemptOutcome {
        Ok = "ok",
        Failed = "failed",
    }
}

/// One entry of `run`'s `attempts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attempt {
    /// Its number, from 1.
    pub attempt: u32,
    pub outcome: AttemptOutcome,
    /// The kind of its failure, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// The agent's session, when its output named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// How it was started: `command`, `resume:<profile>`, `retry-command`.
    pub via: String,
    pub duration_ms: u64,
}

impl Attempt {
    /// The entry of attempt `n`, whose envelope is `env`.
    pub fn of(n: u32, env: &Envelope, via: &str, duration_ms: u64) -> Self {
        let error_kind = env.error_kind();
        Self {
            attempt: n,
            outcome: if error_kind.is_some() {
                AttemptOutcome::Failed
            } else {
                AttemptOutcome::Ok
            },
            error_kind,
            session_id: env.session().and_then(|s| s.id.clone()),
            via: via.to_owned(),
            duration_ms,
        }
    }
}

/// The envelope's `validation` field: a success always has it.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
enum Validated {
    /// No schema was given: `null`.
    NoSchema,
    Against(Validation),
}

/// The envelope's `validation`: the schema the value was held to, whether it passed, and the
/// draft it was read with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Validation {
    pub schema: String,
    pub valid: bool,
    pub draft: &'static str,
    /// The provider the answer was given under (`--provider`): it was lifted from the shape of
    /// the schema lowered for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<&'static str>,
}

/// A success envelope.
pub fn success(command: Command, input: &str, data: Value, parts: Parts) -> Envelope {
    Envelope {
        schema_version: version(command, parts.producer),
        producer: parts.producer,
        source: parts.source,
        data: Some(data),
        validation: Some(
            parts
                .validation
                .map_or(Validated::NoSchema, Validated::Against),
        ),
        session: parts.session.filter(|s| !s.is_empty()),
        warnings: parts.warnings,
        ..Envelope::common(command, ExitStatus::Success, input)
    }
}

/// A failure envelope. Its exit status is the one the failure's kind contributes; an error
/// without a target names the input.
pub fn failure(command: Command, input: &str, mut failure: Failure, parts: Parts) -> Envelope {
    if failure.target.is_empty() {
        input.clone_into(&mut failure.target);
    }
    let candidate = failure.candidate.take();
    let found = (failure.kind == ErrorKind::NotFound).then_some(false);
    let status = ExitStatus::of(command, failure.kind);
    Envelope {
        error: Some(failure),
        schema_version: version(command, parts.producer),
        producer: parts.producer,
        source: parts.source,
        validation: parts.validation.map(Validated::Against),
        session: parts.session.filter(|s| !s.is_empty()),
        candidate,
        found,
        warnings: parts.warnings,
        ..Envelope::common(command, status, input)
    }
}

/// Now, as RFC 3339 UTC with milliseconds (`2026-11-22T04:19:33.123Z`).
pub fn timestamp() -> String {
    format_utc(SystemTime::now())
}

/// The last millisecond humantime formats (9999-12-31T23:59:59.999Z).
const LAST: Duration = Duration::from_millis(253_402_300_799_999);

/// `at` as RFC 3339 UTC with milliseconds (humantime). A clock before 1970 reads as 1970 and
/// one past 9999 as 9999: humantime formats neither.
pub fn format_utc(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default().min(LAST);
    humantime::format_rfc3339_millis(UNIX_EPOCH + since).to_string()
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
    use crate::error::Operation;

    #[test]
    fn utc_formatting() {
        let at = |secs, nanos| format_utc(UNIX_EPOCH + Duration::new(secs, nanos));
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 5_000_000), "2000-02-29T00:00:00.005Z");
        // Milliseconds are cut, not rounded.
        assert_eq!(at(1_795_321_173, 123_999_999), "2026-11-22T04:19:33.123Z");
        assert_eq!(
            format_utc(UNIX_EPOCH - Duration::from_secs(1)),
            "1970-01-01T00:00:00.000Z"
        );
        assert_eq!(at(300_000_000_000, 0), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn common_fields_come_first_in_order() {
        let e = failure(
            Command::Extract,
            "<stdin>",
            Failure::new(ErrorKind::NotFound, Operation::Extract, "none"),
            Parts::default(),
        );
        assert_eq!(e.exit_status(), ExitStatus::Failure);
        let v = e.into_value();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "timestamp",
                "command",
                "exit_code",
                "output_format",
                "schema_version",
                "input",
                "error",
                "found",
                "warnings"
            ]
        );
        assert_eq!(v["found"], Value::Bool(false));
        assert_eq!(v["exit_code"], 1);
        assert_eq!(v["error"]["target"], "<stdin>");
    }

    #[test]
    fn a_success_always_has_validation_and_warnings() {
        let v = success(Command::Extract, "a", Value::from(1), Parts::default()).into_value();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            &keys[5..],
            ["input", "data", "validation", "warnings"],
            "{v}"
        );
        assert_eq!(v["validation"], Value::Null);
        assert_eq!(v["exit_code"], 0);
    }
}
