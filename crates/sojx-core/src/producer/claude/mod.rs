//! Claude Code (`claude -p --output-format stream-json|json`, Agent SDK messages) and the
//! producers that print the same event vocabulary: Qwen Code, Amp and Cursor.
//!
//! Precedence (contract §4): `result.structured_output` → the last accepted `StructuredOutput`
//! tool_use input → the final answer text (Qwen Code's `structured_result` counts as
//! `structured_output`). Failure (§5): no `result` is `truncated`, naming the last API error
//! or `api_retry` notice; a `subtype` other than `success`, or `is_error: true`, is
//! `agent_error`, not retryable when the API error before it is permanent (authentication,
//! billing, …); Qwen Code's `success` result after an `[API Error: …]` text is `agent_error`.

mod calls;
mod failure;
mod inert;
mod lean;
mod rejections;

use serde_json::{Map, Value};

use super::EventKind as Kind;
use super::{
    Extractor, Fast, FastPath, LastError, LineFacts, Outcome, Producer, Session, SourceKind, Usage,
    Verdict, agent_details, agent_error, content_text, detail, field, num, snippet, str_at,
    truncated_after,
};
use crate::framing::Item;
use crate::warning::{Warning, WarningKind};
use calls::{Calls, ToolCall};
use failure::{PERMANENT_API_ERRORS, failure};
pub(crate) use inert::LineClass;
use rejections::Rejections;

/// Tool names that carry the schema-bound answer: Claude Code's and Qwen Code's.
const OUTPUT_TOOLS: [&str; 2] = ["StructuredOutput", "structured_output"];

#[derive(Debug)]
pub(super) struct Claude {
    forced: Producer,
    evidence: Option<Producer>,
    /// The `session_id` of the last `init` (or Qwen `session_start`) event: all the envelope
    /// takes from it.
    init_session: Option<String>,
    model: Option<String>,
    result: Option<(u64, Value)>,
    /// StructuredOutput calls and the tool results that refused calls, bounded ([`calls`]).
    calls: Calls,
    /// The CLI's own schema check refusing structured-output calls: how many, and its words.
    rejections: Rejections,
    /// Text of the last assistant message, and whether no Cursor `tool_call` followed it.
    last_text: Option<(u64, String)>,
    text_after_tool: bool,
    /// Whether the `init` event's `tools` offered the structured-output tool (the run had a
    /// `--json-schema`).
    output_tool: bool,
    /// Whether the last message of the conversation is the model's text with no tool call in
    /// it: the model ended its turn in prose.
    ended_in_text: bool,
    /// The class of the last API error turned into an assistant message (`error`:
    /// `authentication_failed`, `rate_limit`, …).
    api_error: Option<String>,
    /// The last error or retry event, named when the stream is cut off or times out.
    last_error: Option<LastError>,
}

impl Claude {
    pub(super) fn new(producer: Producer) -> Self {
        Self {
            forced: producer,
            evidence: None,
            init_session: None,
            model: None,
            result: None,
            calls: Calls::default(),
            rejections: Rejections::default(),
            last_text: None,
            text_after_tool: false,
            output_tool: false,
            ended_in_text: false,
            api_error: None,
            last_error: None,
        }
    }

    fn event(&mut self, line: u64, v: &Value) -> bool {
        let Some(ty) = str_at(v, "type") else {
            return false;
        };
        match ty {
            "system" => {
                self.system(line, v);
                self.note_session(v);
            }
            "assistant" => {
                self.note_session(v);
                self.assistant(line, v);
            }
            "user" => {
                self.note_session(v);
                self.user(v);
            }
            "result" => {
                self.note_session(v);
                self.result = Some((line, v.clone()));
            }
            "tool_call" => {
                self.evidence = Some(Producer::Cursor);
                self.text_after_tool = false;
            }
            "thinking" | "interaction_query" => self.evidence = Some(Producer::Cursor),
            "stream_event"
            | "rate_limit_event"
            | "control_request"
            | "control_response"
            | "control_cancel_request"
            | "keep_alive" => {}
            _ => return false,
        }
        true
    }

    /// A `system` event: `init` (the model, the session, whether the structured-output tool
    /// is offered), `api_retry`, or Qwen Code's `session_start`.
    fn system(&mut self, line: u64, v: &Value) {
        match str_at(v, "subtype") {
            Some("init") => {
                if let Some(m) = str_at(v, "model") {
                    self.model = Some(m.to_owned());
                }
                self.init_session = str_at(v, "session_id").map(str::to_owned);
                self.output_tool = v.get("tools").is_some_and(offers_output_tool);
            }
            Some("api_retry") => self.last_error = Some(LastError::api_retry(line, v)),
            Some("session_start") => {
                self.evidence = Some(Producer::QwenCode);
                if let Some(m) = str_at(v, "model") {
                    self.model = Some(m.to_owned());
                }
                self.init_session = str_at(v, "session_id").map(str::to_owned);
            }
            _ => {}
        }
    }

    /// An `assistant` message: its model, an API error turned into a message, its
    /// structured-output tool calls and its text.
    fn assistant(&mut self, line: u64, v: &Value) {
        let Some(msg) = v.get("message") else {
            return;
        };
        // Claude Code's own error lines say `model: "<synthetic>"`: not the model.
        if self.model.is_none()
            && let Some(m) = str_at(msg, "model").filter(|m| *m != SYNTHETIC)
        {
            self.model = Some(m.to_owned());
        }
        // An API error turned into an assistant message (`error`: its class).
        if let Some(e) = str_at(v, "error") {
            self.api_error = Some(e.to_owned());
            let words = msg
                .get("content")
                .and_then(content_text)
                .unwrap_or_else(|| e.to_owned());
            self.last_error = Some(
                LastError::error(line, &words, v, &[]).class(e, !PERMANENT_API_ERRORS.contains(&e)),
            );
        }
        let blocks = msg.get("content").and_then(Value::as_array);
        let calls_a_tool =
            blocks.is_some_and(|b| b.iter().any(|b| str_at(b, "type") == Some("tool_use")));
        for b in blocks.into_iter().flatten() {
            if str_at(b, "type") == Some("tool_use")
                && let Some(tool) =
                    str_at(b, "name").and_then(|n| OUTPUT_TOOLS.iter().find(|t| **t == n))
            {
                self.calls.call(ToolCall::new(
                    str_at(b, "id").unwrap_or_default().to_owned(),
                    tool,
                    b.get("input").cloned().unwrap_or(Value::Null),
                    line,
                ));
            }
        }
        let text = msg.get("content").and_then(content_text);
        self.ended_in_text = !calls_a_tool && text.is_some();
        if let Some(t) = text {
            self.text(line, t);
        }
    }

    /// A `user` message: the tool results that refused a structured-output call.
    fn user(&mut self, v: &Value) {
        self.ended_in_text = false;
        let blocks = v.pointer("/message/content").and_then(Value::as_array);
        for b in blocks.into_iter().flatten() {
            if str_at(b, "type") == Some("tool_result")
                && b.get("is_error").and_then(Value::as_bool) == Some(true)
                && let Some(id) = str_at(b, "tool_use_id")
            {
                if let Some(tool) = self.calls.refuse(id) {
                    self.rejections.note(tool, b.get("content"));
                }
            }
        }
    }

    /// An assistant message's answer text.
    fn text(&mut self, line: u64, text: String) {
        self.last_text = Some((line, text));
        self.text_after_tool = true;
    }

    fn note_session(&mut self, v: &Value) {
        if self.evidence.is_none() {
            let p = super::detect(v);
            if matches!(
                p,
                Some(Producer::Amp | Producer::Cursor | Producer::QwenCode)
            ) {
                self.evidence = p;
            }
        }
    }

    /// The model's prose that ended a Qwen Code `--json-schema` run which failed
    /// (`error_during_execution`) without calling the structured-output tool: the stream shows
    /// the tool offered (`init`'s `tools`) and the model's last message text without a tool
    /// call, not an API error turned into text. Qwen Code then fails the run with "Model produced
    /// plain text instead of calling the structured_output tool" (0.24.4), an answer failure
    /// like Claude Code's `error_max_structured_output_retries`. Decided on the stream's
    /// structure, not on that message.
    fn prose(&self, producer: Producer, subtype: Option<&str>) -> Option<&str> {
        let (_, text) = self.last_text.as_ref()?;
        (producer == Producer::QwenCode
            && subtype == Some("error_during_execution")
            && self.output_tool
            && self.ended_in_text
            && self.api_error.is_none()
            && !text.trim_start().starts_with(QWEN_API_ERROR))
        .then_some(text.as_str())
    }

    fn producer(&self) -> Producer {
        if self.forced == Producer::ClaudeCode
            && let Some(e) = self.evidence
        {
            // Auto detection starts at claude-code; later lines may show another dialect.
            return e;
        }
        self.forced
    }
}

impl Extractor for Claude {
    fn last_error(&self) -> Option<LastError> {
        self.last_error.clone()
    }

    fn held(&self) -> usize {
        self.calls.held()
    }

    fn feed(&mut self, item: &Item) -> bool {
        match item {
            Item::Value {
                line,
                value: Value::Array(items),
            } => {
                let mut any = false;
                for v in items {
                    any |= self.event(*line, v);
                }
                any
            }
            Item::Value { line, value } => self.event(*line, value),
            Item::Done { .. } | Item::Junk { .. } => false,
        }
    }

    fn fast_path(&mut self) -> Option<&mut dyn FastPath> {
        Some(self)
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        match str_at(value, "type")? {
            "system" if str_at(value, "subtype") == Some("init") => Some((
                Kind::Info,
                format!("init: model {}", str_at(value, "model").unwrap_or("?")),
            )),
            "system" if str_at(value, "subtype") == Some("api_retry") => Some((
                Kind::Retry,
                format!(
                    "retry: attempt {} of {}",
                    value.get("attempt").map_or("?".into(), Value::to_string),
                    value
                        .get("max_retries")
                        .map_or("?".into(), Value::to_string)
                ),
            )),
            "assistant" => {
                let blocks = value.pointer("/message/content")?.as_array()?;
                let parts: Vec<(Kind, String)> = blocks
                    .iter()
                    .filter_map(|b| match str_at(b, "type")? {
                        "text" => Some((
                            Kind::Text,
                            format!("text: {}", snippet(str_at(b, "text")?, 80)),
                        )),
                        "tool_use" => Some((
                            Kind::Tool,
                            format!(
                                "tool {}: {}",
                                str_at(b, "name").unwrap_or("?"),
                                snippet(
                                    &b.get("input").map(Value::to_string).unwrap_or_default(),
                                    60
                                )
                            ),
                        )),
                        _ => None,
                    })
                    .collect();
                // One line for the message, of the kind of its first part.
                let kind = parts.first()?.0;
                let texts: Vec<String> = parts.into_iter().map(|(_, t)| t).collect();
                Some((kind, texts.join("; ")))
            }
            // A tool result that is an error goes back to the agent, which goes on (a rejected
            // StructuredOutput call is called again): the run recovers, not an error of it.
            "user" => {
                let blocks = value.pointer("/message/content")?.as_array()?;
                blocks.iter().find_map(|b| {
                    (b.get("is_error").and_then(Value::as_bool) == Some(true)).then(|| {
                        let c = b
                            .get("content")
                            .map(|c| c.as_str().map_or(c.to_string(), str::to_owned));
                        (
                            Kind::Retry,
                            format!(
                                "tool returned an error: {}",
                                snippet(&c.unwrap_or_default(), 80)
                            ),
                        )
                    })
                })
            }
            "result" => Some((
                Kind::Result,
                format!(
                    "result: {}{}, {} turns, {}",
                    str_at(value, "subtype").unwrap_or("?"),
                    if value.get("is_error").and_then(Value::as_bool) == Some(true) {
                        " (is_error)"
                    } else {
                        ""
                    },
                    value.get("num_turns").map_or("?".into(), Value::to_string),
                    value
                        .get("total_cost_usd")
                        .and_then(Value::as_f64)
                        .map_or("?".into(), super::usd),
                ),
            )),
            _ => None,
        }
    }

    fn finish(self: Box<Self>) -> Outcome {
        let producer = self.producer();
        let mut session = Session {
            model: self.model.clone(),
            id: self.init_session.clone(),
            ..Session::default()
        };
        let mut warnings = Vec::new();
        let verdict = match &self.result {
            None => truncated_after("a `result` message", self.last_error.as_ref()),
            Some((line, r)) => {
                fill_session(&mut session, r);
                self.failed(producer, r)
                    .unwrap_or_else(|| self.answer(producer, *line, r, &mut warnings))
            }
        };
        Outcome {
            producer,
            verdict,
            session,
            warnings,
        }
    }
}

impl Claude {
    /// The run's failure, when its `result` says it failed, or it is Qwen Code's `success`
    /// after an API error.
    fn failed(&self, producer: Producer, r: &Value) -> Option<Verdict> {
        let subtype = str_at(r, "subtype");
        let is_error = r.get("is_error").and_then(Value::as_bool) == Some(true);
        if subtype != Some("success") || is_error {
            let mut verdict = failure(
                r,
                subtype,
                is_error,
                self.api_error.as_deref(),
                self.prose(producer, subtype),
            );
            if let Verdict::Failed(f) = &mut verdict {
                self.rejections.annotate(f, subtype);
            }
            return Some(verdict);
        }
        // Qwen Code turns an API failure into assistant text `[API Error: …]` and still ends
        // with a `success` result (QwenLM/qwen-code#8920, `parseAndFormatApiError`).
        let t = str_at(r, "result")
            .or(self.last_text.as_ref().map(|(_, t)| t.as_str()))
            .filter(|t| {
                producer == Producer::QwenCode && t.trim_start().starts_with(QWEN_API_ERROR)
            })?;
        Some(agent_error(
            format!("the agent run hit an API error: {}", snippet(t.trim(), 300)),
            agent_details(
                subtype,
                str_at(r, "terminal_reason"),
                Value::Array(vec![Value::from(t)]),
            ),
        ))
    }

    /// The answer of a run that succeeded, by precedence: `structured_output` (cross-checked
    /// against the last accepted tool call), the last accepted structured-output tool input,
    /// then the final text (line `line` is the `result`'s).
    fn answer(
        &self,
        producer: Producer,
        line: u64,
        r: &Value,
        warnings: &mut Vec<Warning>,
    ) -> Verdict {
        let accepted = self.calls.accepted();
        let structured = field(r, "structured_output").or_else(|| field(r, "structured_result"));
        if let Some(so) = structured {
            // The cross-check is against the last call not refused, when it can be told.
            if let Ok(Some(call)) = accepted
                && call.input != *so
            {
                warnings.push(Warning::new(
                    WarningKind::CrossCheckMismatch,
                    format!(
                        "result.structured_output differs from the last accepted StructuredOutput tool input \
                         (line {}); structured_output wins",
                        call.line
                    ),
                ));
            }
            Verdict::Value {
                kind: SourceKind::StructuredOutput,
                value: so.clone(),
                line: Some(line),
                detail: Map::new(),
            }
        } else {
            match accepted {
                Ok(Some(call)) => Verdict::Value {
                    kind: SourceKind::ToolInput,
                    value: call.input.clone(),
                    line: Some(call.line),
                    detail: detail(&[
                        ("tool", Value::from("StructuredOutput")),
                        ("tool_use_id", Value::from(call.id.clone())),
                    ]),
                },
                Ok(None) => self.final_text(producer, line, r),
                Err(f) => Verdict::Failed(f),
            }
        }
    }

    /// The final answer text when no structured answer was given: Cursor's last text after a
    /// tool call, the `result`'s text, or the last assistant text.
    fn final_text(&self, producer: Producer, line: u64, r: &Value) -> Verdict {
        let cursor_text = (producer == Producer::Cursor && self.text_after_tool)
            .then(|| self.last_text.clone())
            .flatten();
        match (cursor_text, str_at(r, "result")) {
            (Some((l, t)), _) => Verdict::Text {
                text: t,
                line: Some(l),
            },
            // The run had a schema and ended in prose: when the prose holds no answer,
            // say what the CLI did with the schema.
            (None, Some(t)) if self.output_tool => Verdict::Prose {
                text: t.to_owned(),
                line: Some(line),
                why: self.rejections.no_answer(producer),
            },
            (None, Some(t)) => Verdict::Text {
                text: t.to_owned(),
                line: Some(line),
            },
            (None, None) => match &self.last_text {
                Some((l, t)) => Verdict::Text {
                    text: t.clone(),
                    line: Some(*l),
                },
                None => Verdict::Nothing {
                    message: "the run succeeded but printed no answer text".into(),
                },
            },
        }
    }
}

/// Inert lines skipped, and the lines `lean.rs` reads taken from their bytes.
impl FastPath for Claude {
    fn fast(&self, raw: &[u8], facts: Option<LineFacts>) -> Fast {
        let class = facts.map_or_else(|| LineClass::of(raw), |f| f.claude);
        if class.inert(self.evidence.is_some(), self.model.is_some()) {
            Fast::Skip
        } else if class.lean() {
            Fast::Lean
        } else {
            Fast::Parse
        }
    }

    fn feed_lean(&mut self, line: u64, raw: &[u8]) -> bool {
        self.lean(line, raw)
    }
}

/// Whether an `init` event's `tools` list the structured-output tool.
fn offers_output_tool(tools: &Value) -> bool {
    tools.as_array().is_some_and(|t| {
        t.iter()
            .any(|n| n.as_str().is_some_and(|n| OUTPUT_TOOLS.contains(&n)))
    })
}

/// The `model` of the assistant messages Claude Code writes itself (API errors).
const SYNTHETIC: &str = "<synthetic>";

/// How Qwen Code's assistant text starts when it reports an API failure.
const QWEN_API_ERROR: &str = "[API Error:";

fn fill_session(s: &mut Session, r: &Value) {
    if let Some(id) = str_at(r, "session_id") {
        s.id = Some(id.to_owned());
    }
    if s.model.is_none()
        && let Some(Value::Object(mu)) = r.get("modelUsage")
    {
        s.model = mu.keys().next().cloned();
    }
    s.turns = num(r, "num_turns");
    s.duration_ms = num(r, "duration_ms");
    s.cost_usd = num(r, "total_cost_usd").or_else(|| num(r, "cost_usd"));
    if let Some(u) = r.get("usage") {
        s.usage = Usage {
            input_tokens: num(u, "input_tokens").or_else(|| num(u, "inputTokens")),
            output_tokens: num(u, "output_tokens").or_else(|| num(u, "outputTokens")),
            cache_read_input_tokens: num(u, "cache_read_input_tokens")
                .or_else(|| num(u, "cacheReadTokens")),
            cache_creation_input_tokens: num(u, "cache_creation_input_tokens")
                .or_else(|| num(u, "cacheWriteTokens")),
        };
    }
}

#[cfg(test)]
mod tests;
