//! Typed failures: every way an input can fail, as the envelope's `error` object carries it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The stable error kinds of contract §6 (snake_case on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Usage,
    Filesystem,
    SchemaInvalid,
    EmptyInput,
    Parse,
    Truncated,
    AgentError,
    NotFound,
    JsonInvalid,
    ValidationFailed,
    AssertionFailed,
    Timeout,
    Io,
    Internal,
    /// `run`: COMMAND could not be started (not found, not executable).
    Spawn,
    /// `run`: sojx got SIGINT, SIGTERM or SIGHUP while the agent ran.
    Interrupted,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Usage => "usage",
            Self::Filesystem => "filesystem",
            Self::SchemaInvalid => "schema_invalid",
            Self::EmptyInput => "empty_input",
            Self::Parse => "parse",
            Self::Truncated => "truncated",
            Self::AgentError => "agent_error",
            Self::NotFound => "not_found",
            Self::JsonInvalid => "json_invalid",
            Self::ValidationFailed => "validation_failed",
            Self::AssertionFailed => "assertion_failed",
            Self::Timeout => "timeout",
            Self::Io => "io",
            Self::Internal => "internal",
            Self::Spawn => "spawn",
            Self::Interrupted => "interrupted",
        }
    }

    /// The kind named `s` on the wire (`not_found` → `NotFound`), by the same serde names
    /// the envelope is written with.
    pub fn parse(s: &str) -> Option<Self> {
        use serde::de::{IntoDeserializer, value::Error};
        Self::deserialize(IntoDeserializer::<Error>::into_deserializer(s)).ok()
    }

    /// Whether re-running the agent (not sojx) can plausibly fix a failure of this kind.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            Self::Truncated
                | Self::AgentError
                | Self::NotFound
                | Self::JsonInvalid
                | Self::ValidationFailed
                | Self::AssertionFailed
                | Self::Timeout
                | Self::EmptyInput
        )
    }
}

/// What failed, in the contract's words: `error.{kind, operation, target, retryable, message,
/// hint, details}` plus the `candidate` that failed, when there is one.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub kind: ErrorKind,
    pub operation: &'static str,
    pub target: String,
    pub retryable: bool,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// The value that failed validation or the text that failed to parse (envelope top level).
    #[serde(skip)]
    pub candidate: Option<Value>,
}

impl Failure {
    pub fn new(kind: ErrorKind, operation: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            operation,
            target: String::new(),
            retryable: kind.retryable(),
            message: message.into(),
            hint: None,
            details: None,
            candidate: None,
        }
    }

    #[must_use]
    pub fn target(mut self, target: impl Into<String>) -> Self {
        self.target = target.into();
        self
    }

    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    #[must_use]
    pub fn details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    #[must_use]
    pub fn candidate(mut self, candidate: Value) -> Self {
        self.candidate = Some(candidate);
        self
    }

    #[must_use]
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}

impl std::error::Error for Failure {}

/// `n` with thousands separators, for messages that name a bound: `1,000,000`.
pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One violation of `error.details`: where in the value (`/` for the root), its message, and
/// the schema keyword that failed.
pub(crate) fn violation_parts(v: &Value) -> (&str, &str, &str) {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
    let at = match s("instance_location") {
        "" => "/",
        at => at,
    };
    (at, s("message"), s("keyword_location"))
}

#[cfg(test)]
mod kind_tests {
    use super::ErrorKind;

    #[test]
    fn kinds_parse_from_their_wire_names() {
        for k in [
            ErrorKind::NotFound,
            ErrorKind::AssertionFailed,
            ErrorKind::Io,
        ] {
            assert_eq!(ErrorKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(ErrorKind::parse("NotFound"), None);
        assert_eq!(ErrorKind::parse(""), None);
    }
}
