//! A candidate answer chosen from the outcome, and the failures that name what is wrong
//! with one (`json_invalid`, too deep, `not_found`).

use serde_json::{Map, Value};

use crate::details::Violation;
use crate::envelope::{MAX_DATA_DEPTH, Source};
use crate::error::{ErrorKind, Failure, Operation};
use crate::producer::{Producer, SourceKind};
use crate::repair;
use crate::schema::Schema;
use crate::warning::Warning;

use super::Options;

/// The value chosen as the answer, and where it came from.
pub(super) struct Chosen {
    pub(super) kind: SourceKind,
    pub(super) value: Value,
    pub(super) line: Option<u64>,
    pub(super) detail: Map<String, Value>,
    /// Made valid JSON by `--repair`.
    pub(super) repaired: bool,
    /// `--repair`'s changes, offsets in the answer text.
    pub(super) repairs: Vec<repair::Change>,
    /// Its validation against `--schema`, when choosing it already took one (the text
    /// fallback validates candidates to pick one): a value is validated once.
    pub(super) checked: Option<Checked>,
}

/// The result of validating a value: its violations (none: valid), or why it was not
/// validated (sojx's budget).
pub(super) type Checked = Result<Vec<Violation>, Failure>;

impl Chosen {
    /// A value taken as it was found (not repaired, not validated yet).
    pub(super) fn new(
        kind: SourceKind,
        value: Value,
        line: Option<u64>,
        detail: Map<String, Value>,
    ) -> Self {
        Self {
            kind,
            value,
            line,
            detail,
            repaired: false,
            repairs: Vec::new(),
            checked: None,
        }
    }

    /// The same, made valid JSON by `--repair`.
    pub(super) fn repaired(kind: SourceKind, mended: Mended, line: Option<u64>) -> Self {
        Self {
            repaired: true,
            repairs: mended.changes,
            ..Self::new(kind, mended.value, line, Map::new())
        }
    }

    /// The envelope's `source`: kind, line, the producer's details, and `repaired` with its
    /// `repairs`.
    pub(super) fn source(&self) -> Source {
        Source {
            repaired: self.repaired,
            repairs: self.repairs.clone(),
            ..source_of(self.kind, self.line, &self.detail)
        }
    }
}

/// The envelope's `source` for a value of `kind` found on `line`.
pub(super) fn source_of(
    kind: SourceKind,
    line: Option<u64>,
    detail: &Map<String, Value>,
) -> Source {
    Source {
        detail: detail.clone(),
        ..Source::new(kind, line)
    }
}

pub(super) fn not_found(message: String, producer: Producer, opts: &Options<'_>) -> Failure {
    let hint = if opts.strict {
        "--strict accepts only a structured output, a tool input or an answer that is exactly one JSON value"
    } else {
        schema_option(producer)
    };
    Failure::new(ErrorKind::NotFound, Operation::Extract, message).hint(hint)
}

/// An input that holds NUL bytes and no answer: a binary file (a program, an image, an
/// archive), not an agent's output; neither `--repair` nor a re-run finds an answer in it.
pub(super) fn binary_input() -> Failure {
    Failure::new(
        ErrorKind::Parse,
        Operation::Read,
        "the input is binary (it holds NUL bytes and no answer), not an agent's output or text",
    )
    .hint("give sojx what the agent printed: its stdout, or a file it was written to")
    .retryable(false)
}

/// How to ask `producer` for structured output (`../shared/formats/`, each producer's
/// "Schema" section), for the `not_found` hint.
fn schema_option(producer: Producer) -> &'static str {
    match producer {
        Producer::ClaudeCode => {
            "run claude with --json-schema; its answer is then the result's structured_output"
        }
        Producer::QwenCode => {
            "run qwen with --json-schema; its answer is then the result's structured_result"
        }
        Producer::Codex => "run codex exec with --output-schema FILE",
        Producer::Meerkat => "run rkat with --schema; its answer is then structured_output",
        Producer::GeminiCli | Producer::Amp | Producer::Cursor | Producer::Opencode => {
            "this CLI has no schema option: ask for one bare JSON object in the prompt"
        }
        Producer::OpenaiChat => {
            "request response_format {\"type\": \"json_schema\", \"json_schema\": {…}} (or a strict function tool)"
        }
        Producer::OpenaiResponses => {
            "request text.format {\"type\": \"json_schema\", …} (or a strict function tool)"
        }
        Producer::Anthropic => {
            "request output_config.format {\"type\": \"json_schema\", …}, or force a tool whose input_schema is the schema"
        }
        Producer::Ollama => "request format: the JSON Schema (Ollama structured outputs)",
        Producer::Acp => {
            "ACP has no schema option: `sojx run --acp --schema S --max-attempts 2` asks for the JSON in the same session"
        }
        Producer::Antigravity => {
            "run agy with --json-schema; its answer is then the result's structured_output"
        }
        Producer::CopilotCli
        | Producer::Pi
        | Producer::GrokCli
        | Producer::Goose
        | Producer::KimiCode
        | Producer::BobShell
        | Producer::Cline
        | Producer::Continue
        | Producer::Droid
        | Producer::Kilo
        | Producer::Codebuddy
        | Producer::Auggie
        | Producer::Openhands
        | Producer::File(_) => {
            "ask for one bare JSON object in the prompt (or use the CLI's schema option, if it has one)"
        }
        Producer::Json | Producer::Text => {
            "ask the agent for structured output (e.g. claude --json-schema, codex --output-schema)"
        }
    }
}

pub(super) fn too_deep(text: &str, kind: SourceKind, limit: usize) -> Failure {
    Failure::new(
        ErrorKind::JsonInvalid,
        Operation::Parse,
        format!(
            "the {} nests deeper than {limit} levels, sojx's fixed nesting limit",
            what(kind)
        ),
    )
    .hint("ask for a flatter structure; see docs/limits.md")
    .candidate(Value::from(text))
}

/// The `json_invalid` failure for `text`, which does not parse.
pub(super) fn not_json(text: &str, kind: SourceKind) -> Failure {
    match crate::json::from_str(text) {
        Err(e) => json_invalid(&e, text, text, kind),
        Ok(_) => json_invalid_because("", text, kind),
    }
}

/// The failure for `text`, whose part `parsed` serde_json refused with `err`: too deep, or not
/// JSON.
pub(super) fn json_invalid(
    err: &serde_json::Error,
    parsed: &str,
    text: &str,
    kind: SourceKind,
) -> Failure {
    if crate::framing::is_too_deep(err, parsed.as_bytes()) {
        return too_deep(text, kind, MAX_DATA_DEPTH);
    }
    json_invalid_because(&err.to_string(), text, kind)
}

fn json_invalid_because(err: &str, text: &str, kind: SourceKind) -> Failure {
    Failure::new(ErrorKind::JsonInvalid, Operation::Parse, format!("the {} is not valid JSON: {err}", what(kind)))
        .hint("the answer looks like JSON but does not parse; --repair reads comments, single quotes, bare keys, Python literals, raw newlines in strings and trailing commas, and answers cut off at the end")
        .candidate(Value::from(text))
}

fn what(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::ToolInput => "tool input",
        SourceKind::CodeFence => "fenced block",
        SourceKind::Embedded => "JSON in the answer text",
        SourceKind::Document => "input",
        _ => "answer text",
    }
}

/// A value `--repair` made of broken text, and its changes.
pub(super) struct Mended {
    pub(super) value: Value,
    /// Offsets in the answer text.
    pub(super) changes: Vec<repair::Change>,
}

/// `--repair` of `text`, found by `kind`'s rule, which starts at byte `at` of the answer text
/// and, when `cut`, runs to its end (a value still open there may be completed): a warning per
/// kind of change. Found in prose (`embedded`), the value must be one a valid span would be
/// taken as ([`crate::text::is_answer_like`]: `[ # todo ]` is not the answer).
pub(super) fn try_repair(
    text: &str,
    at: usize,
    cut: bool,
    kind: SourceKind,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Option<Mended> {
    if !opts.repair {
        return None;
    }
    let rules = repair::Rules { lenient: true, cut };
    let r = repair::repair_with(text, rules)?;
    if kind == SourceKind::Embedded && !crate::text::is_answer_like(&r.value) {
        return None;
    }
    for (kind, message) in r.warnings {
        warnings.push(Warning::new(kind, message));
    }
    let mut changes = r.changes;
    for c in &mut changes {
        c.offset += at;
    }
    Some(Mended {
        value: r.value,
        changes,
    })
}

/// The candidate to take among `values` (in order): the last one `schema` accepts (with
/// `coerce`, as it is or once `--coerce` converted its type slips), or the last one (without a
/// schema, or when none is accepted), with its validation when it was validated. The last value
/// is validated in full (its violations are the report if it is taken); earlier ones only as
/// far as it takes to know they are valid. A value accepted only once converted carries its
/// violations as written, which the decision converts. The text fallback's candidates and a
/// turn's tool calls are chosen alike.
pub(super) fn pick(
    values: &[&Value],
    schema: Option<&Schema>,
    coerce: bool,
) -> Option<(usize, Option<Checked>)> {
    let last = values.len().checked_sub(1)?;
    let Some(schema) = schema else {
        return Some((last, None));
    };
    let checked = schema.violations(values[last]);
    if matches!(&checked, Ok(v) if v.is_empty()) || coerce && coerces_valid(schema, values[last]) {
        return Some((last, Some(checked)));
    }
    for i in (0..last).rev() {
        if schema.is_valid(values[i]) {
            return Some((i, Some(Ok(Vec::new()))));
        }
        if coerce && coerces_valid(schema, values[i]) {
            return Some((i, Some(schema.violations(values[i]))));
        }
    }
    Some((last, Some(checked)))
}

/// Whether `value`, invalid as written, is valid once `--coerce` converted its type slips.
pub(super) fn coerces_valid(schema: &Schema, value: &Value) -> bool {
    let mut converted = value.clone();
    !schema.coerce(&mut converted).is_empty() && schema.is_valid(&converted)
}
