//! Google Gemini CLI, `gemini -p --output-format json|stream-json`
//! (`formats/other-producers.md` §2).
//!
//! json: one object; `response` is the answer text, an `error` object is `agent_error` (with
//! or without a `response`: the error object of a run that failed before answering has only
//! `session_id` and `error`).
//! stream-json: the answer is the assistant `message` text after the last tool event; the
//! terminal is `result` (`status: "error"` is `agent_error`; none is `truncated`, naming the
//! last `error` event). An `error` event with `severity: "error"` is `agent_error` even before a
//! `success` result and even when assistant text exists: the producer's failure marker beats
//! data (contract §5).
//!
//! `retryable` follows Gemini CLI's fatal error classes and exit codes ([`FATAL`],
//! `docs/producers.md`), never the wording of a message.

use serde_json::Value;

use super::EventKind as Kind;
use super::{
    Extractor, LastError, Outcome, Producer, Session, Verdict, add, agent_details, agent_error,
    agent_failure, num, snippet, str_at, truncated_after, u64_at,
};
use crate::details::AgentDetails;
use crate::framing::Item;

/// Gemini CLI's fatal errors (`packages/core/src/utils/errors.ts`, the `FatalError`
/// subclasses): the exit code (`error.code` in `-o json`), the class (`error.type`), what it
/// is about, and whether re-running the same command can help.
pub const FATAL: [(i64, &str, &str, bool); 8] = [
    (41, "FatalAuthenticationError", "authentication", false),
    (42, "FatalInputError", "input", false),
    (44, "FatalSandboxError", "sandbox", false),
    (52, "FatalConfigError", "configuration", false),
    (53, "FatalTurnLimitedError", "turn limit", false),
    (54, "FatalToolExecutionError", "tool execution", false),
    (
        55,
        "FatalUntrustedWorkspaceError",
        "untrusted workspace",
        false,
    ),
    (130, "FatalCancellationError", "cancelled", true),
];

/// What Gemini CLI's error `type` and `code` say: a short name of the cause, and whether
/// re-running can help. `code` is a fatal exit code ([`FATAL`]) or, for an API error, the
/// HTTP status (`extractErrorCode`); either may come as a number or a numeric string.
fn cause(ty: Option<&str>, code: Option<&Value>) -> Option<(&'static str, bool)> {
    let code = code.and_then(|c| c.as_i64().or_else(|| c.as_str()?.trim().parse().ok()));
    if let Some(&(_, _, what, retry)) = FATAL
        .iter()
        .find(|(n, name, ..)| Some(*n) == code || Some(*name) == ty)
    {
        return Some((what, retry));
    }
    match code? {
        408 | 429 => Some(("rate limit or timeout", true)),
        401 | 403 => Some(("authentication", false)),
        400..=499 => Some(("request rejected", false)),
        500..=599 => Some(("server error", true)),
        _ => None,
    }
}

/// The `agent_error` of a Gemini CLI error object (`{type, message, code?}`); `what`: how the
/// run ended (for the message).
fn failed(what: &str, e: &Value, details: AgentDetails) -> Verdict {
    let msg = str_at(e, "message").unwrap_or("the run failed");
    let code = e.get("code").filter(|c| !c.is_null());
    let cause = cause(str_at(e, "type"), code);
    let label = match (code, cause) {
        (Some(c), Some((what, _))) => {
            format!(" (code {}, {what})", c.to_string().trim_matches('"'))
        }
        (Some(c), None) => format!(" (code {})", c.to_string().trim_matches('"')),
        (None, Some((what, _))) => format!(" ({what})"),
        (None, None) => String::new(),
    };
    let f = agent_failure(
        format!("Gemini CLI {what}{label}: {}", snippet(msg, 300)),
        details,
    );
    Verdict::Failed(match cause {
        Some((_, false)) => f.retryable(false).hint(
            "re-running the same command will not help: fix the Gemini CLI setup named in the \
             message (credentials, settings, flags, workspace trust), then run it again",
        ),
        _ => f,
    })
}

/// The model of `-o json`'s `stats.models` whose `roles` has `main` (the one that answered; the
/// others are utilities: the router's classifier, the loop detector…); the last such where a
/// fallback moved the run to another model.
fn main_model(models: &serde_json::Map<String, Value>) -> Option<String> {
    models
        .iter()
        .rfind(|(_, m)| m.pointer("/roles/main").is_some())
        .map(|(name, _)| name.clone())
}

/// The model that answered a stream-json run. `init` names the model asked for, which is an
/// alias (`auto`) when the CLI routes each prompt; the `result`'s `stats.models` names the models
/// used, by first use, without their roles: the router's classifier is asked first, then the model
/// it chose. So: the init model when the stats name it, else the last model the stats name.
fn answered_by(init: Option<String>, models: &serde_json::Map<String, Value>) -> Option<String> {
    match init {
        Some(m) if models.contains_key(&m) || models.is_empty() => Some(m),
        other => models.keys().next_back().cloned().or(other),
    }
}

/// Most `severity: "error"` events listed in an `agent_error`'s `details.errors`; the others
/// are counted (`details.errors_omitted`), as the violations of `sojx run`'s feedback are.
const LISTED_ERRORS: usize = 20;

/// The messages of the `severity: "error"` events: the first [`LISTED_ERRORS`], the last one
/// after them, and how many there were. What a long stream of them keeps is that, not each.
#[derive(Debug, Default)]
struct Fatal {
    first: Vec<String>,
    last: Option<String>,
    count: u64,
    /// The bytes of the messages kept ([`Extractor::held`]).
    bytes: usize,
}

impl Fatal {
    fn push(&mut self, message: &str) {
        self.count += 1;
        if self.first.len() < LISTED_ERRORS {
            self.first.push(message.to_owned());
        } else {
            self.bytes -= self.last.as_ref().map_or(0, String::len);
            self.last = Some(message.to_owned());
        }
        self.bytes += message.len();
    }

    fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The last event's message.
    fn last(&self) -> Option<&str> {
        self.last
            .as_deref()
            .or(self.first.last().map(String::as_str))
    }

    /// How many are not listed.
    fn omitted(&self) -> u64 {
        self.count - self.first.len() as u64
    }
}

#[derive(Debug, Default)]
pub(super) struct Gemini {
    /// The single-object `--output-format json` form.
    doc: Option<(u64, Value)>,
    text: String,
    text_line: Option<u64>,
    result: Option<Value>,
    fatal_events: Fatal,
    /// The message of the last `error` event of any severity (named when the stream is cut).
    last_error: Option<LastError>,
    session: Session,
    streamed: bool,
}

impl Extractor for Gemini {
    fn last_error(&self) -> Option<LastError> {
        self.last_error.clone()
    }

    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value: v } = item else {
            return false;
        };
        let Some(ty) = str_at(v, "type") else {
            if v.get("response").is_some() || v.get("stats").is_some() || v.get("error").is_some() {
                self.doc = Some((*line, v.clone()));
                return true;
            }
            return false;
        };
        self.streamed = true;
        match ty {
            "init" => {
                // A second `init` is a resumed session's new run (`gemini --resume`, as in a
                // `--tee` copy of `sojx run`'s attempts): it starts a new answer, and what came
                // before it was the earlier run's.
                if self.session.id.is_some() || !self.text.is_empty() || self.result.is_some() {
                    *self = Self {
                        streamed: true,
                        ..Self::default()
                    };
                }
                self.session.id = str_at(v, "session_id").map(str::to_owned);
                self.session.model = str_at(v, "model").map(str::to_owned);
            }
            "message" => {
                if str_at(v, "role") == Some("assistant")
                    && let Some(c) = str_at(v, "content")
                {
                    if v.get("delta").and_then(Value::as_bool) != Some(true) {
                        self.text.clear();
                    }
                    self.text.push_str(c);
                    self.text_line = Some(*line);
                }
            }
            "tool_use" | "tool_result" => {
                self.text.clear();
                self.text_line = None;
            }
            "error" => {
                let msg = str_at(v, "message").unwrap_or("error");
                if str_at(v, "severity") == Some("error") {
                    self.fatal_events.push(msg);
                }
                self.last_error = Some(LastError::error(*line, msg, v, &["severity"]));
            }
            "result" => self.result = Some(v.clone()),
            _ => return false,
        }
        true
    }

    fn held(&self) -> usize {
        self.text.len() + self.fatal_events.bytes
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value: v, .. } = item else {
            return None;
        };
        match str_at(v, "type")? {
            "tool_use" => Some((
                Kind::Tool,
                format!("tool {}", str_at(v, "tool_name").unwrap_or("?")),
            )),
            "message" if str_at(v, "role") == Some("assistant") => Some((
                Kind::Text,
                format!("text: {}", snippet(str_at(v, "content")?, 80)),
            )),
            "error" => Some((
                Kind::Error,
                format!("error: {}", snippet(str_at(v, "message")?, 100)),
            )),
            "result" => Some((
                Kind::Result,
                format!("result: {}", str_at(v, "status").unwrap_or("?")),
            )),
            _ => None,
        }
    }

    fn finish(self: Box<Self>) -> Outcome {
        let mut session = self.session;
        let verdict = if let Some((line, doc)) = &self.doc
            && !self.streamed
        {
            if let Some(id) = str_at(doc, "session_id") {
                session.id = Some(id.to_owned());
            }
            if let Some(models) = doc.pointer("/stats/models").and_then(Value::as_object) {
                session.model = main_model(models).or_else(|| models.keys().next().cloned());
                for m in models.values() {
                    let t = m.get("tokens");
                    add(
                        &mut session.usage.input_tokens,
                        t.and_then(|t| u64_at(t, "prompt")),
                    );
                    add(
                        &mut session.usage.output_tokens,
                        t.and_then(|t| u64_at(t, "candidates")),
                    );
                    add(
                        &mut session.usage.cache_read_input_tokens,
                        t.and_then(|t| u64_at(t, "cached")),
                    );
                }
            }
            if let Some(e) = doc.get("error").filter(|e| !e.is_null()) {
                failed(
                    "reported an error",
                    e,
                    agent_details(str_at(e, "type"), None, Value::Array(vec![e.clone()])),
                )
            } else if let Some(r) = str_at(doc, "response") {
                Verdict::Text {
                    text: r.to_owned(),
                    line: Some(*line),
                }
            } else {
                Verdict::Nothing {
                    message: "the Gemini CLI output has no response".into(),
                }
            }
        } else if let Some(r) = &self.result {
            if let Some(stats) = r.get("stats") {
                if let Some(models) = stats.get("models").and_then(Value::as_object) {
                    session.model = answered_by(session.model.take(), models);
                }
                session.usage.input_tokens = num(stats, "input_tokens");
                session.usage.output_tokens = num(stats, "output_tokens");
                session.usage.cache_read_input_tokens = num(stats, "cached");
                session.duration_ms = num(stats, "duration_ms");
            }
            let status = str_at(r, "status");
            if status != Some("success") {
                // An invalid stream ends with `status: "error"` and no `error`: its message is
                // the `error` event before it.
                let fallback = serde_json::json!({
                    "message": self.fatal_events.last().unwrap_or("the run failed")
                });
                let e = r
                    .get("error")
                    .filter(|e| e.is_object())
                    .unwrap_or(&fallback);
                failed(
                    &format!("result status {}", status.unwrap_or("missing")),
                    e,
                    agent_details(
                        status,
                        r.pointer("/error/type").and_then(Value::as_str),
                        Value::Array(r.get("error").cloned().into_iter().collect()),
                    ),
                )
            } else if !self.fatal_events.is_empty() {
                fatal(&self.fatal_events)
            } else if self.text.is_empty() {
                Verdict::Nothing {
                    message: "the Gemini CLI run ended without assistant text".into(),
                }
            } else {
                Verdict::Text {
                    text: self.text,
                    line: self.text_line,
                }
            }
        } else {
            truncated_after("a `result` event", self.last_error.as_ref())
        };
        Outcome {
            producer: Producer::GeminiCli,
            verdict,
            session,
            warnings: Vec::new(),
        }
    }
}

/// The `agent_error` of a run whose `error` events of `severity: "error"` are `fatal`: the first
/// [`LISTED_ERRORS`] listed, the others counted.
fn fatal(fatal: &Fatal) -> Verdict {
    let first = fatal.first.first().map_or("", String::as_str);
    let mut message = format!("Gemini CLI reported an error: {}", snippet(first, 300));
    let omitted = fatal.omitted();
    if omitted > 0 {
        message.push_str(&format!(
            " (and {} more error events; error.details lists the first {LISTED_ERRORS})",
            fatal.count - 1
        ));
    }
    let mut details = agent_details(
        Some("error"),
        None,
        fatal
            .first
            .iter()
            .map(|s| Value::from(s.as_str()))
            .collect(),
    );
    if omitted > 0 {
        details
            .more
            .insert("errors_omitted".into(), Value::from(omitted));
    }
    agent_error(message, details)
}

#[cfg(test)]
mod tests {
    use super::{answered_by, main_model};
    use serde_json::{Map, Value, json};

    fn models(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn the_main_role_names_the_model_that_answered_a_json_run() {
        // Gemini CLI 0.61.0 `-o json` behind its router (tests/fixtures/real/gemini-0.61.0-e2e-json).
        let m = models(json!({
            "gemini-3.5-flash-lite": {"roles": {"utility_router": {}}},
            "gemini-3.1-pro-preview": {"roles": {"main": {}}},
        }));
        assert_eq!(main_model(&m).as_deref(), Some("gemini-3.1-pro-preview"));
        assert_eq!(
            main_model(&models(json!({"gemini-2.5-pro": {"tokens": {}}}))),
            None
        );
    }

    #[test]
    fn an_alias_in_init_gives_way_to_the_model_the_stats_name_last() {
        let routed = models(json!({"gemini-3.5-flash-lite": {}, "gemini-3.1-pro-preview": {}}));
        let init = |m: &str| Some(m.to_owned());
        assert_eq!(
            answered_by(init("auto"), &routed).as_deref(),
            Some("gemini-3.1-pro-preview")
        );
        // A model asked for by name, and used, stays.
        assert_eq!(
            answered_by(init("gemini-3.5-flash-lite"), &routed).as_deref(),
            Some("gemini-3.5-flash-lite")
        );
        assert_eq!(
            answered_by(init("auto"), &Map::new()).as_deref(),
            Some("auto")
        );
        assert_eq!(
            answered_by(None, &routed).as_deref(),
            Some("gemini-3.1-pro-preview")
        );
    }
}
