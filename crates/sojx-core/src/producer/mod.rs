//! Producers: detection of who wrote the input, and one extractor per producer family that
//! turns the framed items into a verdict (a value, a text to mine for JSON, a failure, or
//! nothing), plus the normalized session.
//!
//! Detection looks at each item until one is decisive; it never depends on key order, on the
//! first line alone or on a line prefix.

mod acp;
mod anthropic;
mod claude;
mod codex;
mod detect;
mod fast;
pub mod file;
mod gemini;
mod id;
mod last_error;
mod meerkat;
mod ollama;
mod openai_chat;
mod openai_responses;
mod opencode;
mod raw;
mod tool_calls;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::details::{AgentDetails, Details};
use crate::error::{Failure, Operation};
use crate::framing::Item;
use crate::names::wire_enum;
use crate::warning::Warning;

pub use acp::AUTH_REQUIRED;
pub use detect::{detect, detect_output, event_type, run_identity};
pub use fast::{Fast, FastPath, LineFacts};
pub use file::{Registry, Sight};
pub use gemini::FATAL as GEMINI_FATAL;
pub use id::{Family, Producer};
pub use last_error::LastError;
pub(crate) use last_error::truncated_after;
pub use tool_calls::{CallInput, ToolCall};

impl Producer {
    /// The extractor for this producer; `None` for `json` and `text`, which read the whole input.
    pub fn extractor(self) -> Option<Box<dyn Extractor>> {
        Some(match self.family() {
            Family::Claude => Box::new(claude::Claude::new(self)),
            Family::Codex => Box::new(codex::Codex::default()),
            Family::Gemini => Box::new(gemini::Gemini::default()),
            Family::Opencode => Box::new(opencode::Opencode::default()),
            Family::OpenaiChat => Box::new(openai_chat::Chat::default()),
            Family::OpenaiResponses => Box::new(openai_responses::Responses::default()),
            Family::Anthropic => Box::new(anthropic::Anthropic::default()),
            Family::Ollama => Box::new(ollama::Ollama::default()),
            Family::Meerkat => Box::new(meerkat::Meerkat::default()),
            Family::Acp => Box::new(acp::Acp::default()),
            Family::Described => {
                let spec = file::spec_of(self).expect("a described producer has its spec");
                match self.reads_as() {
                    p if p != self => Box::new(file::Relabel::new(p.extractor()?, self)),
                    _ => Box::new(file::Events::new(self, spec)),
                }
            }
            Family::Json | Family::Text => return None,
        })
    }
}

wire_enum! {
    /// Which extraction rule produced the value (contract §4).
    pub enum SourceKind {
        StructuredOutput = "structured_output",
        ToolInput = "tool_input",
        FinalText = "final_text",
        CodeFence = "code_fence",
        Embedded = "embedded",
        Document = "document",
        Markers = "markers",
    }
}

/// What a producer's extractor concluded.
#[derive(Debug)]
pub enum Verdict {
    /// The producer's own failure marker, or a missing terminal marker.
    Failed(Failure),
    /// An already-parsed value (`structured_output`, a tool input object).
    Value {
        kind: SourceKind,
        value: Value,
        line: Option<u64>,
        detail: Map<String, Value>,
    },
    /// A value that arrives as JSON text (OpenAI `function.arguments`): parsed, never mined.
    ValueText {
        kind: SourceKind,
        text: String,
        line: Option<u64>,
        detail: Map<String, Value>,
    },
    /// Several tool calls in the final turn (two or more), in order: the decision chooses
    /// (contract §4; `tool_calls`).
    Calls(Vec<ToolCall>),
    /// The final answer text, to be mined for JSON (`final_text`, `code_fence`, `embedded`).
    Text { text: String, line: Option<u64> },
    /// Answer text of a run that was given a schema and ended in prose: mined as `Text`; when
    /// it holds no JSON value, `why` (what the CLI did with the schema) is the failure.
    Prose {
        text: String,
        line: Option<u64>,
        why: Failure,
    },
    /// Text of an input that holds NUL bytes, which no agent prints: mined as `Text`, since a
    /// NUL-padded recording still holds its answer; when it holds none, the input is binary
    /// (a `parse` failure, which neither `--repair` nor a re-run fixes).
    Binary { text: String, line: Option<u64> },
    /// A complete run with no answer at all.
    Nothing { message: String },
}

/// Token usage, normalized across producers.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct Usage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<Value>,
}

impl Usage {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A cost in US dollars for people, the same wherever sojx prints one (`--activity`, the text
/// summary, the job summary): four decimals (`$0.0421`), more for a cost below a cent so that
/// it keeps two significant digits (`$0.000042`) instead of showing `$0.0000`. The envelope's
/// `cost_usd` keeps the producer's number as it was.
pub fn usd(cost: f64) -> String {
    // The place of the first digit that is not 0, past the point (at most 14), and one more.
    let mut first = 0;
    let mut x = cost.abs();
    while x > 0.0 && x < 1.0 && first < 14 {
        x *= 10.0;
        first += 1;
    }
    let decimals = if cost.abs() >= 0.01 || !cost.is_finite() {
        4
    } else {
        4.max(first + 1)
    };
    format!("${cost:.decimals$}")
}

/// The run's session facts, normalized across producers; unknown facts are omitted.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Session {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turns: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<Value>,
    #[serde(skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
    /// The agent's own name and version (ACP's `agentInfo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_info: Option<AgentInfo>,
    /// The agent's permission requests in the turn, and how sojx answered them (ACP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
}

/// The agent's name, title and version, as it gives them (ACP's `initialize` result).
#[derive(Debug, Default, Clone, Serialize, PartialEq, Eq)]
pub struct AgentInfo {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The permission requests of a turn, and how they were answered: `allowed` or `denied` (an
/// option of a `reject` kind, or the request cancelled).
#[derive(Debug, Default, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Permissions {
    pub asked: u64,
    pub allowed: u64,
    pub denied: u64,
}

impl Session {
    pub fn is_empty(&self) -> bool {
        self.id.is_none()
            && self.model.is_none()
            && self.turns.is_none()
            && self.duration_ms.is_none()
            && self.cost_usd.is_none()
            && self.usage.is_empty()
            && self.agent_info.is_none()
            && self.permissions.is_none()
    }
}

/// The result of reading one input.
#[derive(Debug)]
pub struct Outcome {
    pub producer: Producer,
    pub verdict: Verdict,
    pub session: Session,
    pub warnings: Vec<Warning>,
}

/// Most tool calls, content blocks or output items kept of one turn (of one response): far
/// more than a model makes, few enough that the many small parts of a crafted stream stay
/// small in memory (each part costs a few hundred bytes beside its text, which
/// `--max-answer-bytes` bounds).
pub(crate) const MAX_PARTS: usize = 10_000;

/// A count bound that a stream went past ([`Extractor::over`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Over {
    /// What there were too many of, in the plural ("tool calls in one turn").
    pub what: &'static str,
    pub max: usize,
}

impl Over {
    /// The [`MAX_PARTS`] bound on `what`, when `past`.
    pub(crate) fn parts(past: bool, what: &'static str) -> Option<Self> {
        past.then_some(Self {
            what,
            max: MAX_PARTS,
        })
    }
}

/// What an `--activity` event is, which its color says: its text is the producer's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The producer, the model, a stop or finish reason.
    Info,
    /// Model text.
    Text,
    /// A tool call or a command.
    Tool,
    /// The agent retrying: its API, or a tool call whose error went back to it.
    Retry,
    /// An error of the run: a failed turn, an error event.
    Error,
    /// A result or a completed turn.
    Result,
}

/// A producer family's streaming extractor.
pub trait Extractor: Send {
    /// Offer one item; returns whether the extractor recognized it as its producer's.
    fn feed(&mut self, item: &Item) -> bool;
    /// End of input: decide.
    fn finish(self: Box<Self>) -> Outcome;
    /// Bytes the extractor keeps from line to line to find the answer: text and tool arguments
    /// accumulated from deltas, and the ids, names, tool calls and error messages it keeps
    /// (docs/limits.md): the reader stops at `--max-answer-bytes`. Extractors that keep only
    /// values of single lines say 0.
    fn held(&self) -> usize {
        0
    }
    /// A bound on how many things the extractor keeps that the stream went past (tool calls of
    /// one turn, …): the reader stops feeding it, as at `--max-answer-bytes`, and the input is
    /// a `parse` failure naming the bound.
    fn over(&self) -> Option<Over> {
        None
    }
    /// A short human line for the event and its kind, for `--activity` (None: nothing worth
    /// showing).
    fn describe(&self, _item: &Item) -> Option<(EventKind, String)> {
        None
    }
    /// The last error or retry event seen so far, for a `timeout` to name.
    fn last_error(&self) -> Option<LastError> {
        None
    }
    /// The extractor's fast path, if it has one: lines it takes without their parsed value
    /// (the caller still parses every line for an extractor without one).
    fn fast_path(&mut self) -> Option<&mut dyn FastPath> {
        None
    }
}

// --- small helpers shared by the extractors ---

pub(crate) fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A non-null field.
pub(crate) fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

/// A number field, kept exactly as written.
pub(crate) fn num(v: &Value, key: &str) -> Option<Value> {
    v.get(key).filter(|x| x.is_number()).cloned()
}

pub(crate) fn u64_at(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// Add `n` to an accumulated token count.
pub(crate) fn add(acc: &mut Option<Value>, n: Option<u64>) {
    if let Some(n) = n {
        let prev = acc.as_ref().and_then(Value::as_u64).unwrap_or(0);
        *acc = Some(Value::from(prev.saturating_add(n)));
    }
}

pub(crate) fn detail(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

/// The `details` of an `agent_error` (contract §6): the producer's own words.
pub(crate) fn agent_details(
    subtype: Option<&str>,
    terminal_reason: Option<&str>,
    errors: Value,
) -> AgentDetails {
    AgentDetails::new(subtype, terminal_reason, errors)
}

/// An `agent_error` failure with the producer's own words.
pub(crate) fn agent_error(message: impl Into<String>, details: AgentDetails) -> Verdict {
    Verdict::Failed(agent_failure(message, details))
}

/// The API error types and codes that re-running cannot fix: the account, the key, a
/// permission, the bill or the request itself is wrong (docs/producers.md, "retryable", has
/// the table and its sources). Anthropic's `error.type`: `invalid_request_error`,
/// `authentication_error`, `permission_error`, `not_found_error`, `billing_error`,
/// `request_too_large`; OpenAI's `error.type` or `error.code`: `invalid_request_error`,
/// `authentication_error`, `permission_error`, `invalid_api_key`, `insufficient_quota`,
/// `model_not_found`, `billing_hard_limit_reached`, `account_deactivated`,
/// `unsupported_country_region_territory`, `invalid_prompt`, `context_length_exceeded`.
/// Anything else (`rate_limit_error`, `overloaded_error`, `api_error`, `timeout_error`,
/// `rate_limit_exceeded`, `server_error`, a code added later) may pass on a re-run.
pub(crate) const PERMANENT_API_CODES: [&str; 14] = [
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "not_found_error",
    "billing_error",
    "request_too_large",
    "invalid_api_key",
    "insufficient_quota",
    "model_not_found",
    "billing_hard_limit_reached",
    "account_deactivated",
    "unsupported_country_region_territory",
    "invalid_prompt",
    "context_length_exceeded",
];

/// `error.details.cause` of an `agent_error` whose run asked for structured output and whose
/// model answered in text instead (Qwen Code's `error_during_execution` after prose): an answer
/// failure, which `sojx run` retries with feedback.
pub const NO_STRUCTURED_OUTPUT: &str = "no_structured_output";

/// Whether an API's HTTP status says re-running cannot help: a 4xx, the request's own fault,
/// but for 408 (request timeout), 409 (conflict) and 429 (rate limit), which can pass on a
/// re-run (docs/producers.md, "retryable").
pub(crate) fn status_permanent(status: u64) -> bool {
    (400..500).contains(&status) && !matches!(status, 408 | 409 | 429)
}

/// What says that re-running cannot help, by the API's own codes (never its message): the
/// first of `codes` (an error's `type`, its `code`) that is permanent ([`PERMANENT_API_CODES`]),
/// else an HTTP `status` that is ([`status_permanent`], as `status N`).
pub(crate) fn refusal(codes: &[Option<&str>], status: Option<u64>) -> Option<String> {
    codes
        .iter()
        .flatten()
        .find(|c| PERMANENT_API_CODES.contains(c))
        .map(|c| (*c).to_owned())
        .or_else(|| {
            status
                .filter(|s| status_permanent(*s))
                .map(|s| format!("status {s}"))
        })
}

/// An API error's `agent_error`, not retryable when its `codes` (its `type`, its `code`) or
/// its HTTP `status` say re-running cannot help ([`refusal`]).
pub(crate) fn api_error(
    message: String,
    details: AgentDetails,
    codes: &[Option<&str>],
    status: Option<u64>,
) -> Verdict {
    let f = agent_failure(message, details);
    match refusal(codes, status) {
        Some(c) => Verdict::Failed(f.retryable(false).hint(format!(
            "re-running will not help: the API refused the request ({c}); fix the key, account \
             or request, then run it again"
        ))),
        None => Verdict::Failed(f),
    }
}

/// The failure of [`agent_error`], for a producer that sets `retryable` or the hint from its
/// own error codes.
pub(crate) fn agent_failure(message: impl Into<String>, details: AgentDetails) -> Failure {
    Failure::new(
        crate::error::ErrorKind::AgentError,
        Operation::Extract,
        message,
    )
    .details(Details::Agent(details))
    .hint("the agent run failed; fix the cause named in error.details and run it again")
}

/// A `truncated` failure: the stream ended without the producer's positive terminal marker.
pub(crate) fn truncated(marker: &str) -> Verdict {
    Verdict::Failed(
        Failure::new(
            crate::error::ErrorKind::Truncated,
            Operation::Extract,
            format!("the stream ended without its terminal marker ({marker})"),
        )
        .hint(
            "the run was cut off or is still going; re-run it, or use --timeout to bound the wait",
        ),
    )
}

/// The message inside a provider error that a producer passes on as JSON text (Codex
/// `turn.failed`: `{"type":"error","error":{"type":"invalid_request_error","message":"…"}}`,
/// compact or pretty-printed; Amp: `413 {…}`): the text before the JSON (a status) followed by
/// its `error.message` or `message`. Any other text is returned as it is.
pub(crate) fn provider_message(text: &str) -> String {
    let t = text.trim();
    let Some((brace, v, end)) = provider_json(t) else {
        return text.to_owned();
    };
    let after = &t[brace + end..];
    let message = v
        .pointer("/error/message")
        .or_else(|| v.get("message"))
        .or_else(|| v.get("detail"))
        .and_then(Value::as_str)
        .filter(|m| !m.trim().is_empty());
    match message {
        Some(m) => format!("{}{}{}", &t[..brace], m.trim(), after.trim_end()),
        None => text.to_owned(),
    }
}

/// The JSON value in a provider error passed on as text (`t` trimmed): where it starts, the
/// value, and its length. Codex appends ` (details)` after the JSON: the first value is read
/// and what follows is left.
fn provider_json(t: &str) -> Option<(usize, Value, usize)> {
    let brace = t.find('{')?;
    let (v, end) = crate::json::first_value(&t.as_bytes()[brace..])?;
    Some((brace, v.ok()?, end))
}

/// A provider error body passed on as JSON text (Codex `turn.failed`), by its own codes: the
/// verdict of [`api_error`] with its `error.type` and `error.code` (or a flat body's `type` and
/// `code`) and its `status`, when the text holds such a body.
pub(crate) fn provider_error(text: &str, message: String, details: AgentDetails) -> Verdict {
    let body = provider_json(text.trim()).map(|(_, v, _)| v);
    let codes = body.as_ref().map_or([None, None], body_codes);
    let status = body.as_ref().and_then(|b| u64_at(b, "status"));
    api_error(message, details, &codes, status)
}

/// A provider error body's codes: its `error.type` and `error.code`, or a flat body's `type`
/// and `code`.
fn body_codes(body: &Value) -> [Option<&str>; 2] {
    let error = body.get("error").filter(|e| e.is_object()).unwrap_or(body);
    [str_at(error, "type"), str_at(error, "code")]
}

/// The codes of a provider error passed on as text (`401 {"type": "error", "error": {"type":
/// "authentication_error", …}}`): its body's `error.type` and `error.code` (or a flat body's
/// `type` and `code`), and its HTTP status (the body's `status`, or a status before the body).
pub(crate) fn provider_codes(text: &str) -> (Vec<String>, Option<u64>) {
    let t = text.trim();
    let Some((brace, body, _)) = provider_json(t) else {
        return (Vec::new(), None);
    };
    let codes = body_codes(&body)
        .into_iter()
        .flatten()
        .map(str::to_owned)
        .collect();
    let before = t[..brace].trim();
    let status = u64_at(&body, "status").or_else(|| {
        before
            .split(|c: char| !c.is_ascii_digit())
            .find(|w| w.len() == 3)
            .and_then(|w| w.parse().ok())
    });
    (codes, status)
}

/// Text of the `text` blocks of an Anthropic-style `content` array (or a plain string).
pub(crate) fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let mut out = String::new();
            let mut any = false;
            for b in blocks {
                if str_at(b, "type") == Some("text")
                    && let Some(t) = str_at(b, "text")
                {
                    out.push_str(t);
                    any = true;
                }
            }
            any.then_some(out)
        }
        _ => None,
    }
}

/// Shorten a text for a one-line human description.
pub fn snippet(s: &str, max: usize) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cost_reads_the_same_everywhere_and_never_as_zero_when_it_is_not() {
        assert_eq!(super::usd(0.04213), "$0.0421");
        assert_eq!(super::usd(12.5), "$12.5000");
        assert_eq!(super::usd(0.0), "$0.0000");
        assert_eq!(super::usd(0.0042), "$0.0042");
        assert_eq!(super::usd(0.000_042_13), "$0.000042");
    }

    use super::*;

    #[test]
    fn provider_messages_are_read_out_of_their_json() {
        let cases = [
            (
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad model"}}"#,
                "bad model",
            ),
            (
                "{\n  \"error\": {\n    \"message\": \"quota\"\n  }\n}",
                "quota",
            ),
            (
                r#"413 {"type":"error","message":"too large"}"#,
                "413 too large",
            ),
            (
                r#"unexpected status 401: {"error":{"message":"no key"}}"#,
                "unexpected status 401: no key",
            ),
            ("stream disconnected", "stream disconnected"),
            (r#"see {"a": 1}"#, r#"see {"a": 1}"#),
            (
                r#"{"error":{"message":"overloaded"}} (request id: 7)"#,
                "overloaded (request id: 7)",
            ),
            (r#"{"detail":"Model not supported"}"#, "Model not supported"),
            ("{broken", "{broken"),
        ];
        for (text, want) in cases {
            assert_eq!(provider_message(text), want, "{text}");
        }
    }
}
