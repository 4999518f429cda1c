//! opencode, `opencode run --format json` (`formats/other-producers.md` §10).
//!
//! Answer: the `text` parts of the last step. Terminal: `step_finish` with reason `stop`, or
//! `done`. Failure: an `error` event.

use serde_json::Value;

use super::{
    Extractor, Outcome, Producer, Session, Verdict, add, agent_details, agent_error, snippet,
    str_at, truncated, u64_at,
};
use crate::framing::Item;

#[derive(Debug, Default)]
pub(super) struct Opencode {
    step_text: String,
    line: Option<u64>,
    finished: bool,
    error: Option<Value>,
    cost: f64,
    any_cost: bool,
    session: Session,
}

impl Extractor for Opencode {
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
                self.finished = false;
            }
            "text" => {
                if let Some(t) = v.pointer("/part/text").and_then(Value::as_str) {
                    if !self.step_text.is_empty() {
                        self.step_text.push('\n');
                    }
                    self.step_text.push_str(t);
                    self.line = Some(*line);
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

    fn describe(&self, item: &Item) -> Option<String> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        match str_at(value, "type")? {
            "tool_use" => Some(format!(
                "tool {}",
                value
                    .pointer("/part/tool")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
            )),
            "text" => Some(format!(
                "text: {}",
                snippet(value.pointer("/part/text").and_then(Value::as_str)?, 80)
            )),
            "error" => Some("error".into()),
            _ => None,
        }
    }

    fn finish(self: Box<Self>) -> Outcome {
        let mut session = self.session;
        if self.any_cost {
            session.cost_usd = serde_json::Number::from_f64(self.cost).map(Value::Number);
        }
        let verdict = if let Some(e) = &self.error {
            let name = str_at(e, "name");
            let msg = e
                .pointer("/data/message")
                .and_then(Value::as_str)
                .or(name)
                .unwrap_or("error");
            agent_error(
                format!("opencode reported an error: {}", snippet(msg, 300)),
                agent_details(name, None, Value::Array(vec![e.clone()])),
            )
        } else if !self.finished {
            truncated("a final `step_finish` or `done`")
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
