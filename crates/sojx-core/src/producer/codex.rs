//! OpenAI Codex CLI, `codex exec --json` (`formats/other-producers.md` §1).
//!
//! Answer: the text of the last completed `agent_message` item (or, when there is none, the
//! last `plan` item, as `--output-last-message` does). `turn.failed` discards it
//! (`agent_error`); no `turn.completed` is `truncated`, naming the last `error` event. Bare
//! `error` events are retry notices unless a `turn.failed` follows. A provider error passed on
//! as JSON text is shown by its message, and its type, code or status decide `retryable`.

use serde_json::Value;

use super::EventKind as Kind;
use super::{
    Extractor, LastError, Outcome, Producer, Session, Verdict, add, agent_details, provider_error,
    provider_message, snippet, str_at, truncated_after, u64_at,
};
use crate::framing::Item;

#[derive(Debug, Default)]
pub(super) struct Codex {
    thread: Option<String>,
    message: Option<(u64, String)>,
    plan: Option<(u64, String)>,
    completed: bool,
    failed: Option<Value>,
    last_error: Option<LastError>,
    session: Session,
}

impl Extractor for Codex {
    fn last_error(&self) -> Option<LastError> {
        self.last_error.clone()
    }

    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value: v } = item else {
            return false;
        };
        let Some(ty) = str_at(v, "type") else {
            return false;
        };
        match ty {
            "thread.started" => {
                self.thread = str_at(v, "thread_id").map(str::to_owned);
            }
            "turn.started" => {
                // A new turn: its answer replaces the previous one.
                self.completed = false;
                self.message = None;
                self.plan = None;
            }
            "item.completed" => {
                let Some(it) = v.get("item") else { return true };
                match (str_at(it, "type"), str_at(it, "text")) {
                    (Some("agent_message"), Some(t)) => self.message = Some((*line, t.to_owned())),
                    (Some("plan"), Some(t)) => self.plan = Some((*line, t.to_owned())),
                    _ => {}
                }
            }
            "turn.completed" => {
                self.completed = true;
                if let Some(u) = v.get("usage") {
                    let s = &mut self.session.usage;
                    add(&mut s.input_tokens, u64_at(u, "input_tokens"));
                    add(&mut s.output_tokens, u64_at(u, "output_tokens"));
                    add(
                        &mut s.cache_read_input_tokens,
                        u64_at(u, "cached_input_tokens"),
                    );
                    add(
                        &mut s.cache_creation_input_tokens,
                        u64_at(u, "cache_write_input_tokens"),
                    );
                }
            }
            "turn.failed" => {
                self.failed = Some(v.clone());
                self.message = None;
            }
            "error" => {
                self.last_error = str_at(v, "message").map(|m| LastError::error(*line, m, v, &[]));
            }
            t if t.starts_with("item.") || t.starts_with("turn.") || t.starts_with("thread.") => {}
            "request_user_input" => {}
            _ => return false,
        }
        true
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value: v, .. } = item else {
            return None;
        };
        match str_at(v, "type")? {
            "item.started" | "item.completed" => {
                let it = v.get("item")?;
                match str_at(it, "type")? {
                    "command_execution" if str_at(v, "type") == Some("item.started") => Some((
                        Kind::Tool,
                        format!("command: {}", snippet(str_at(it, "command")?, 80)),
                    )),
                    "agent_message" => Some((
                        Kind::Text,
                        format!("text: {}", snippet(str_at(it, "text")?, 80)),
                    )),
                    "mcp_tool_call" if str_at(v, "type") == Some("item.started") => Some((
                        Kind::Tool,
                        format!("tool {}", str_at(it, "tool").unwrap_or("?")),
                    )),
                    _ => None,
                }
            }
            "error" => Some((
                Kind::Error,
                format!(
                    "error: {}",
                    snippet(&provider_message(str_at(v, "message")?), 100)
                ),
            )),
            "turn.failed" => Some((Kind::Error, "turn failed".into())),
            "turn.completed" => Some((Kind::Result, "turn completed".into())),
            _ => None,
        }
    }

    fn finish(self: Box<Self>) -> Outcome {
        let mut session = self.session;
        session.id = self.thread;
        let verdict = if let Some(f) = &self.failed {
            let msg = f
                .pointer("/error/message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| self.last_error.as_ref().map(|e| e.words().to_owned()))
                .unwrap_or_else(|| "turn failed".into());
            let errors = Value::Array(vec![Value::from(msg.clone())]);
            // The provider's error body, passed on as text, carries its codes.
            provider_error(
                &msg,
                format!(
                    "the Codex turn failed: {}",
                    snippet(&provider_message(&msg), 300)
                ),
                agent_details(Some("turn.failed"), None, errors),
            )
        } else if !self.completed {
            truncated_after("`turn.completed`", self.last_error.as_ref())
        } else if let Some((line, text)) = self.message.or(self.plan) {
            Verdict::Text {
                text,
                line: Some(line),
            }
        } else {
            Verdict::Nothing {
                message: "the Codex turn completed without an agent message".into(),
            }
        };
        Outcome {
            producer: Producer::Codex,
            verdict,
            session,
            warnings: Vec::new(),
        }
    }
}
