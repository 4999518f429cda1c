//! Google Gemini CLI, `gemini -p --output-format json|stream-json`
//! (`formats/other-producers.md` §2).
//!
//! json: one object; `response` is the answer text, an `error` object is `agent_error`.
//! stream-json: the answer is the assistant `message` text after the last tool event; the
//! terminal is `result` (`status: "error"` is `agent_error`; none is `truncated`). An `error`
//! event with `severity: "error"` is `agent_error` even before a `success` result and even when
//! assistant text exists: the producer's failure marker beats data (contract §5).

use serde_json::Value;

use super::{
    Extractor, Outcome, Producer, Session, Verdict, add, agent_details, agent_error, num, snippet,
    str_at, truncated, u64_at,
};
use crate::framing::Item;

#[derive(Debug, Default)]
pub(super) struct Gemini {
    /// The single-object `--output-format json` form.
    doc: Option<(u64, Value)>,
    text: String,
    text_line: Option<u64>,
    result: Option<Value>,
    fatal_events: Vec<String>,
    session: Session,
    streamed: bool,
}

impl Extractor for Gemini {
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
                if str_at(v, "severity") == Some("error") {
                    self.fatal_events
                        .push(str_at(v, "message").unwrap_or("error").to_owned());
                }
            }
            "result" => self.result = Some(v.clone()),
            _ => return false,
        }
        true
    }

    fn describe(&self, item: &Item) -> Option<String> {
        let Item::Value { value: v, .. } = item else {
            return None;
        };
        match str_at(v, "type")? {
            "tool_use" => Some(format!("tool {}", str_at(v, "tool_name").unwrap_or("?"))),
            "message" if str_at(v, "role") == Some("assistant") => {
                Some(format!("text: {}", snippet(str_at(v, "content")?, 80)))
            }
            "error" => Some(format!("error: {}", snippet(str_at(v, "message")?, 100))),
            "result" => Some(format!("result: {}", str_at(v, "status").unwrap_or("?"))),
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
                session.model = models.keys().next().cloned();
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
                let msg = str_at(e, "message").unwrap_or("error").to_owned();
                agent_error(
                    format!("Gemini CLI reported an error: {}", snippet(&msg, 300)),
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
                session.usage.input_tokens = num(stats, "input_tokens");
                session.usage.output_tokens = num(stats, "output_tokens");
                session.usage.cache_read_input_tokens = num(stats, "cached");
                session.duration_ms = num(stats, "duration_ms");
            }
            let status = str_at(r, "status");
            if status != Some("success") {
                let msg = r
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("the run failed")
                    .to_owned();
                agent_error(
                    format!(
                        "Gemini CLI result status {}: {}",
                        status.unwrap_or("missing"),
                        snippet(&msg, 300)
                    ),
                    agent_details(
                        status,
                        r.pointer("/error/type").and_then(Value::as_str),
                        Value::Array(r.get("error").cloned().into_iter().collect()),
                    ),
                )
            } else if !self.fatal_events.is_empty() {
                agent_error(
                    format!(
                        "Gemini CLI reported an error: {}",
                        snippet(&self.fatal_events[0], 300)
                    ),
                    agent_details(
                        Some("error"),
                        None,
                        self.fatal_events
                            .iter()
                            .map(|s| Value::from(s.as_str()))
                            .collect(),
                    ),
                )
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
            truncated("a `result` event")
        };
        Outcome {
            producer: Producer::GeminiCli,
            verdict,
            session,
            warnings: Vec::new(),
        }
    }
}
