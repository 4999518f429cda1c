//! opencode, `opencode run --format json` (`formats/other-producers.md` §10).
//!
//! Answer: the `text` parts of the last step; when some are marked as the final answer
//! (`metadata.openai.phase: "final_answer"`, OpenAI models), only those, not the
//! `commentary` ones. Terminal: a `step_finish` whose reason is not `tool-calls` (1.x builds
//! print no `done`), or `done`. Failure: an `error` event (`{name, data: {message, statusCode,
//! isRetryable}}`, or `{type, message, status}`); `retryable` is its `isRetryable`.

use serde_json::Value;

use super::EventKind as Kind;
use super::{
    Extractor, LastError, Outcome, Producer, Session, Verdict, add, agent_details, agent_failure,
    snippet, str_at, truncated, u64_at,
};
use crate::framing::Item;

#[derive(Debug, Default)]
pub(super) struct Opencode {
    step_text: String,
    /// The step's text parts marked `final_answer`, and the line of the last one.
    final_text: Option<String>,
    final_line: Option<u64>,
    line: Option<u64>,
    finished: bool,
    error: Option<Value>,
    cost: f64,
    any_cost: bool,
    session: Session,
}

impl Extractor for Opencode {
    fn last_error(&self) -> Option<LastError> {
        self.error.as_ref().map(LastError::api)
    }

    fn held(&self) -> usize {
        self.step_text.len() + self.final_text.as_ref().map_or(0, String::len)
    }

    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value: v } = item else {
            return false;
        };
        let Some(ty) = str_at(v, "type") else {
            return false;
        };
        if v.get("sessionID").is_none() {
            return false;
        }
        self.session.id = str_at(v, "sessionID").map(str::to_owned);
        match ty {
            "step_start" => {
                self.step_text.clear();
                self.final_text = None;
                self.final_line = None;
                self.finished = false;
            }
            "text" => {
                if let Some(t) = v.pointer("/part/text").and_then(Value::as_str) {
                    let phase = v
                        .pointer("/part/metadata/openai/phase")
                        .and_then(Value::as_str);
                    let into = if phase == Some("final_answer") {
                        self.final_line = Some(*line);
                        self.final_text.get_or_insert_with(String::new)
                    } else {
                        self.line = Some(*line);
                        &mut self.step_text
                    };
                    if !into.is_empty() {
                        into.push('\n');
                    }
                    into.push_str(t);
                }
            }
            "step_finish" => {
                let part = v.get("part");
                if let Some(p) = part {
                    if let Some(c) = p.get("cost").and_then(Value::as_f64) {
                        self.cost += c;
                        self.any_cost = true;
                    }
                    if let Some(t) = p.get("tokens") {
                        let u = &mut self.session.usage;
                        add(&mut u.input_tokens, u64_at(t, "input"));
                        add(&mut u.output_tokens, u64_at(t, "output"));
                        add(
                            &mut u.cache_read_input_tokens,
                            t.get("cache").and_then(|c| u64_at(c, "read")),
                        );
                        add(
                            &mut u.cache_creation_input_tokens,
                            t.get("cache").and_then(|c| u64_at(c, "write")),
                        );
                    }
                }
                let reason = part.and_then(|p| str_at(p, "reason"));
                self.finished = reason.is_some_and(|r| r != "tool-calls");
            }
            "done" => self.finished = true,
            "error" => self.error = Some(v.get("error").cloned().unwrap_or(Value::Null)),
            _ => {}
        }
        true
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        match str_at(value, "type")? {
            "tool_use" => Some((
                Kind::Tool,
                format!(
                    "tool {}",
                    value
                        .pointer("/part/tool")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                ),
            )),
            "text" => Some((
                Kind::Text,
                format!(
                    "text: {}",
                    snippet(value.pointer("/part/text").and_then(Value::as_str)?, 80)
                ),
            )),
            "error" => Some((Kind::Error, "error".into())),
            _ => None,
        }
    }

    fn finish(self: Box<Self>) -> Outcome {
        let mut session = self.session;
        if self.any_cost {
            session.cost_usd = serde_json::Number::from_f64(self.cost).map(Value::Number);
        }
        let verdict = if let Some(e) = &self.error {
            let name = str_at(e, "name").or_else(|| str_at(e, "type"));
            let msg = e
                .pointer("/data/message")
                .or_else(|| e.get("message"))
                .and_then(Value::as_str)
                .or(name)
                .unwrap_or("error");
            let status = e
                .pointer("/data/statusCode")
                .or_else(|| e.get("status"))
                .filter(|s| s.is_number());
            let f = agent_failure(
                format!(
                    "opencode reported an error{}: {}",
                    status.map_or(String::new(), |s| format!(" (status {s})")),
                    snippet(msg, 300)
                ),
                agent_details(name, None, Value::Array(vec![e.clone()])),
            );
            Verdict::Failed(
                match e.pointer("/data/isRetryable").and_then(Value::as_bool) {
                    Some(retry) => f.retryable(retry),
                    None => f,
                },
            )
        } else if !self.finished {
            truncated("a final `step_finish` or `done`")
        } else if let Some(text) = self.final_text.filter(|t| !t.is_empty()) {
            Verdict::Text {
                text,
                line: self.final_line,
            }
        } else if self.step_text.is_empty() {
            Verdict::Nothing {
                message: "the last step has no text".into(),
            }
        } else {
            Verdict::Text {
                text: self.step_text,
                line: self.line,
            }
        };
        Outcome {
            producer: Producer::Opencode,
            verdict,
            session,
            warnings: Vec::new(),
        }
    }
}
