//! Ollama `/api/chat` and `/api/generate`, streaming NDJSON or one object
//! (`formats/other-producers.md` §6).
//!
//! Answer: the last tool call's `arguments` object (`tool_input`), else `message.content` /
//! `response` joined over the lines. Terminal: `done: true`. Failure: an `{"error": …}` line,
//! `done_reason: "length"`.

use serde_json::{Map, Value};

use super::EventKind as Kind;
use super::{
    Extractor, LastError, Outcome, Producer, Session, SourceKind, Verdict, agent_details,
    agent_error, detail, num, snippet, str_at, truncated,
};
use crate::framing::Item;

#[derive(Debug, Default)]
pub(super) struct Ollama {
    text: String,
    tool: Option<(u64, Value, String)>,
    done: Option<Value>,
    error: Option<Value>,
    line: Option<u64>,
    model: Option<String>,
}

impl Extractor for Ollama {
    fn last_error(&self) -> Option<LastError> {
        self.error.as_ref().map(LastError::api)
    }

    fn held(&self) -> usize {
        self.text.len() + self.tool.as_ref().map_or(0, |t| t.2.len())
    }

    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value: v } = item else {
            return false;
        };
        let Some(o) = v.as_object() else { return false };
        if let Some(e) = o.get("error").filter(|e| !e.is_null()) {
            self.error = Some(e.clone());
            return true;
        }
        if !o.contains_key("done") {
            return false;
        }
        if let Some(m) = str_at(v, "model") {
            self.model = Some(m.to_owned());
        }
        let msg = v.get("message");
        if let Some(t) = msg
            .and_then(|m| str_at(m, "content"))
            .or_else(|| str_at(v, "response"))
        {
            self.text.push_str(t);
            if !t.is_empty() {
                self.line = Some(*line);
            }
        }
        if let Some(calls) = msg
            .and_then(|m| m.get("tool_calls"))
            .and_then(Value::as_array)
            && let Some(c) = calls.last()
        {
            let args = c
                .pointer("/function/arguments")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            let name = c
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            self.tool = Some((*line, args, name));
        }
        if o.get("done").and_then(Value::as_bool) == Some(true) {
            self.done = Some(v.clone());
        }
        true
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        if let Some(e) = value.get("error") {
            return Some((Kind::Error, format!("error: {e}")));
        }
        (value.get("done").and_then(Value::as_bool) == Some(true))
            .then(|| (Kind::Result, "done".to_owned()))
    }

    fn finish(self: Box<Self>) -> Outcome {
        let mut session = Session {
            model: self.model.clone(),
            ..Session::default()
        };
        let verdict = if let Some(e) = &self.error {
            let msg = e.as_str().map_or_else(|| e.to_string(), str::to_owned);
            agent_error(
                format!("Ollama returned an error: {}", snippet(&msg, 300)),
                agent_details(Some("error"), None, Value::Array(vec![e.clone()])),
            )
        } else if let Some(d) = &self.done {
            session.usage.input_tokens = num(d, "prompt_eval_count");
            session.usage.output_tokens = num(d, "eval_count");
            session.duration_ms = d
                .get("total_duration")
                .and_then(Value::as_u64)
                .map(|ns| Value::from(ns / 1_000_000));
            match str_at(d, "done_reason") {
                Some(r @ "length") => agent_error(
                    "the model hit its token limit; the answer is cut off (done_reason: length)",
                    agent_details(Some(r), Some(r), Value::Array(Vec::new())),
                ),
                _ => {
                    if let Some((line, args, name)) = self.tool {
                        Verdict::Value {
                            kind: SourceKind::ToolInput,
                            value: args,
                            line: Some(line),
                            detail: detail(&[("tool", Value::from(name))]),
                        }
                    } else if self.text.is_empty() {
                        Verdict::Nothing {
                            message: "the response has no content".into(),
                        }
                    } else {
                        Verdict::Text {
                            text: self.text,
                            line: self.line,
                        }
                    }
                }
            }
        } else {
            truncated("`done: true`")
        };
        Outcome {
            producer: Producer::Ollama,
            verdict,
            session,
            warnings: Vec::new(),
        }
    }
}
