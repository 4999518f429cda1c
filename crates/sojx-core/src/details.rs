//! The envelope's `error.details`: what a failure found, one type per kind of finding. Each
//! serializes to the object or array the contract and `schemas/envelope.schema.json` describe;
//! [`Details`] is untagged, so the wire shows the finding itself.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::warning::WarningKind;

/// `error.details`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Details {
    /// `validation_failed`, and a schema that does not compile: each violation.
    Violations(Vec<Violation>),
    /// `assertion_failed`: each assertion that does not hold.
    Assertions { assertions: Vec<FailedAssertion> },
    /// `compile --compat strict`: each change the provider would need that loses meaning.
    Refused(Vec<Refusal>),
    /// `agent_error` from the producer's own failure marker: its words.
    Agent(AgentDetails),
    /// `run`'s `agent_error` for an agent that failed without a valid answer.
    AgentExit(AgentExit),
    /// `run`'s `interrupted`: the signal, and what the output had come to.
    Interrupted {
        signal: String,
        output: OutputOutcome,
    },
    /// `timeout`: what was read before it passed.
    Timeout(Timeout),
    /// `truncated` after the producer's last error or retry event.
    LastError(LastError),
    /// `not_found` after Claude Code refused its structured-output calls: the last refusal.
    Rejected { rejected: Vec<String> },
    /// `lint`'s findings or `compare`'s contradictions: the report its success prints as
    /// `data`.
    Report(Value),
    /// `compare`: a failed input's details, passed on as they were read (from an envelope in
    /// the input, or from extracting it).
    Passed(Value),
}

impl Details {
    /// The violations, when these are.
    pub fn violations(&self) -> Option<&[Violation]> {
        match self {
            Self::Violations(vs) => Some(vs),
            _ => None,
        }
    }

    /// The report, when this is one (`lint`, `compare`).
    pub fn report(&self) -> Option<&Value> {
        match self {
            Self::Report(v) => Some(v),
            _ => None,
        }
    }
}

/// One schema violation, as in the JSON Schema "basic" output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Violation {
    /// Where in the value, as a JSON Pointer (empty for the root).
    pub instance_location: String,
    /// The schema keyword that failed, as a JSON Pointer into the schema (`$ref`s followed).
    pub keyword_location: String,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl Violation {
    /// Where in the value: its instance location, `/` for the root.
    pub fn at(&self) -> &str {
        match self.instance_location.as_str() {
            "" => "/",
            at => at,
        }
    }
}

/// One `--assert` (or `compare --items`) expression that does not hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedAssertion {
    pub expression: String,
    /// The values it produced.
    pub values: Vec<Value>,
    /// Its run-time error, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One change `compile --compat strict` refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// Where in the schema.
    pub pointer: String,
    pub provider: &'static str,
    /// What the change would have been (the warning `lossy` gives for it).
    pub rule: WarningKind,
    pub message: String,
}

/// An `agent_error`'s details in the producer's own words (contract §6): `subtype`,
/// `terminal_reason` and `errors` always (`null` when the producer gave none), then what else
/// the producer said, then sojx's reading of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentDetails {
    pub subtype: Option<String>,
    pub terminal_reason: Option<String>,
    pub errors: Value,
    /// The producer's other fields (`is_error`, `api_error_status`, `stop_details`, …), in
    /// its order.
    #[serde(flatten)]
    pub more: Map<String, Value>,
    /// Why the run failed, when sojx can name it: `no_structured_output` (an answer failure,
    /// which `run` retries with feedback), `never_reached_model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<&'static str>,
    /// The last structured-output call the CLI refused, in its words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected: Option<Vec<String>>,
}

impl AgentDetails {
    pub fn new(subtype: Option<&str>, terminal_reason: Option<&str>, errors: Value) -> Self {
        Self {
            subtype: subtype.map(str::to_owned),
            terminal_reason: terminal_reason.map(str::to_owned),
            errors,
            more: Map::new(),
            cause: None,
            rejected: None,
        }
    }
}

/// `run`'s `agent_error` for an agent that failed without a valid answer: the contract's
/// `{subtype, terminal_reason, errors}` as the process gave them, then its exit status or
/// signal, what its output came to, and what its CLI's table says of the status.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentExit {
    /// `exited` or `killed`.
    pub subtype: &'static str,
    /// How it ended: `exited with status 1`.
    pub terminal_reason: String,
    /// The line of its stderr that says why, when there is one.
    pub errors: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    pub output: OutputOutcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_class: Option<&'static str>,
}

/// What `run`'s output came to: `{kind: "ok"}`, or its failure's kind and message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutputOutcome {
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A `timeout`'s details: the time allowed and what was read in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timeout {
    pub timeout_seconds: f64,
    pub bytes: u64,
    pub lines: u64,
    #[serde(flatten)]
    pub read: TimeoutRead,
}

/// What a timed-out command had made of what it read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TimeoutRead {
    /// `extract`, `run`: the values framed, the producer (`null` when none was told), how long
    /// nothing came, and the producer's last error or retry event.
    Values {
        values: u64,
        producer: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        idle_seconds: Option<u64>,
        #[serde(flatten)]
        last: Option<LastError>,
    },
    /// `validate`: the documents validated.
    Documents { documents: u64 },
}

/// The last error or retry event a producer printed before its stream was cut off or timed
/// out: its words, its line, and the event's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastError {
    pub last_error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error_line: Option<u64>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub last_event: Map<String, Value>,
}

/// `lint`'s report (its `data`, or its failure's `details`), read back by type for the text
/// summary and GitHub's annotations. Its fields borrow from the report.
#[derive(Debug, Deserialize)]
pub struct LintReport<'a> {
    #[serde(borrow)]
    pub findings: Vec<LintFinding<'a>>,
}

/// One finding of a [`LintReport`].
#[derive(Debug, Deserialize)]
pub struct LintFinding<'a> {
    /// JSON Pointer into the schema; `""` is the root.
    pub pointer: &'a str,
    pub provider: &'a str,
    /// `error`, `warning` or `info`.
    pub severity: &'a str,
    pub rule: &'a str,
    pub message: &'a str,
    pub fix: &'a str,
}

impl<'a> LintReport<'a> {
    /// The report `v` holds, when it is one.
    pub fn read(v: &'a Value) -> Option<Self> {
        Self::deserialize(v).ok()
    }
}

impl LintFinding<'_> {
    /// Where in the schema: the pointer, `/` for the root.
    pub fn at(&self) -> &str {
        match self.pointer {
            "" => "/",
            p => p,
        }
    }
}
