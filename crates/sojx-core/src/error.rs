//! Typed failures: every way an input can fail, as the envelope's `error` object carries it.

use serde::Serialize;
use serde_json::Value;

use crate::details::Details;
use crate::names::wire_enum;

wire_enum! {
    /// The stable error kinds of contract §6.
    #[non_exhaustive]
    pub enum ErrorKind {
        /// The caller's mistake: a flag, a setting or an argument that cannot be used.
        Usage = "usage",
        /// A file sojx was given could not be read or written.
        Filesystem = "filesystem",
        /// The schema is not JSON, not a valid schema, or cannot be used within sojx's bounds.
        SchemaInvalid = "schema_invalid",
        /// The input held nothing but whitespace.
        EmptyInput = "empty_input",
        /// The input could not be read as its producer's stream.
        Parse = "parse",
        /// The stream ended before its producer's end of run: the run was cut off.
        Truncated = "truncated",
        /// The agent reported that its run failed (or exited non-zero without an answer).
        AgentError = "agent_error",
        /// The run ended with no final answer.
        NotFound = "not_found",
        /// The answer was found, and it is not JSON.
        JsonInvalid = "json_invalid",
        /// The answer does not match the schema.
        ValidationFailed = "validation_failed",
        /// The answer matches the schema and fails an `--assert` check.
        AssertionFailed = "assertion_failed",
        /// The input did not end within `--timeout`.
        Timeout = "timeout",
        /// Reading or writing a stream failed.
        Io = "io",
        /// sojx's own bug, reported instead of a crash.
        Internal = "internal",
        /// `run`: COMMAND could not be started (not found, not executable).
        Spawn = "spawn",
        /// `run`: sojx got a signal that would end it (SIGINT, SIGTERM, SIGHUP, SIGQUIT, …).
        Interrupted = "interrupted",
    }
}

wire_enum! {
    /// The envelope's `error.operation`: what sojx was doing when it failed (contract §6).
    pub enum Operation {
        /// Parsing the command line.
        ParseArguments = "parse_arguments",
        /// Reading an input, a side file or a schema's file.
        Read = "read",
        /// Reading the schema given with `--schema`.
        ReadSchema = "read_schema",
        /// Compiling the schema for validation.
        CompileSchema = "compile_schema",
        /// Compiling a jq expression (`--assert`, `compare`'s keys).
        CompileExpression = "compile_expression",
        /// Telling who wrote the input.
        Detect = "detect",
        /// Finding the final answer in a producer's output.
        Extract = "extract",
        /// Reading JSON text into a value.
        Parse = "parse",
        /// Validating a value against the schema.
        Validate = "validate",
        /// Evaluating `--assert`.
        Assert = "assert",
        /// `compare`'s comparison of the inputs.
        Compare = "compare",
        /// `lint`'s check of a schema.
        Lint = "lint",
        /// `compile`'s lowering of a schema.
        Compile = "compile",
        /// `run`: the agent's run, as a whole.
        Run = "run",
        /// `run`: starting the agent.
        Spawn = "spawn",
        /// Writing the output, the tee or a side file.
        Write = "write",
    }
}

impl ErrorKind {
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
    pub operation: Operation,
    pub target: String,
    pub retryable: bool,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Details>,
    /// The value that failed validation or the text that failed to parse (envelope top level).
    #[serde(skip)]
    pub candidate: Option<Value>,
}

impl Failure {
    pub fn new(kind: ErrorKind, operation: Operation, message: impl Into<String>) -> Self {
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
    pub fn details(mut self, details: Details) -> Self {
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
pub fn thousands(n: u64) -> String {
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
