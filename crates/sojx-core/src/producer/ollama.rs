//! Ollama `/api/chat` and `/api/generate`, streaming NDJSON or one object
//! (`formats/other-producers.md` §6).
//!
//! Answer: the tool calls' `arguments` objects (`tool_input`; several calls are chosen among
//! by the decision, `tool_calls`), else `message.content` /
//! `response` joined over the lines. Terminal: `done: true`. Failure: an `{"error": …}` line,
//! `done_reason: "length"`.

use serde_json::{Map, Value};

use super::EventKind as Kind;
use super::{
    CallInput, Extractor, LastError, MAX_PARTS, Outcome, Over, Producer, Session, ToolCall,
    Verdict, agent_details, agent_error, detail, num, snippet, str_at, tool_calls, truncated,
};
use crate::framing::Item;

#[derive(Debug, Default)]
pub(super) struct Ollama {
    text: String,
    /// The tool calls, in order (`message.tool_calls` of every line: a stream sends each call
    /// whole, not in fragments).
    calls: Vec<ToolCall>,
    /// Bytes of the calls' arguments, as JSON text.
    calls_bytes: usize,
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
        self.text.len() + self.calls_bytes
    }

    fn over(&self) -> Option<Over> {
        Over::parts(self.calls.len() > MAX_PARTS, "tool calls in one turn")
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
        for c in msg
            .and_then(|m| m.get("tool_calls"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if self.calls.len() > MAX_PARTS {
                // Past the bound (`over`): nothing more is kept.
                break;
            }
            let args = c
                .pointer("/function/arguments")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            let name = c
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            self.calls_bytes += name.len() + args.to_string().len();
            self.calls.push(ToolCall {
                detail: detail(&[("tool", Value::from(name.clone()))]),
                name,
                input: CallInput::Value(args),
                line: Some(*line),
            });
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
                    if let Some(v) = tool_calls::verdict(self.calls) {
                        v
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::Extractor;
    use super::super::tool_calls::testing::{calls, verdict};
    use super::Ollama;

    #[test]
    fn every_tool_call_of_every_line_is_kept_and_counted() {
        let line = |calls: serde_json::Value, done: bool| {
            Some(
                json!({"model":"m","message":{"role":"assistant","content":"","tool_calls":calls},"done":done}),
            )
        };
        let stream = [
            line(
                json!([{"function":{"name":"answer","arguments":{"v":1}}}]),
                false,
            ),
            line(
                json!([{"function":{"name":"read_file","arguments":{"path":"x"}}},
                       {"function":{"name":"answer","arguments":{"v":2}}}]),
                false,
            ),
            line(json!([]), true),
        ];
        let got = calls(verdict(Box::new(Ollama::default()), &stream));
        assert_eq!(
            got,
            [
                ("answer".into(), Some(json!({"v":1})), Some(1)),
                ("read_file".into(), Some(json!({"path":"x"})), Some(2)),
                ("answer".into(), Some(json!({"v":2})), Some(2))
            ]
        );
        // The calls' arguments count toward --max-answer-bytes.
        let mut o = Ollama::default();
        o.feed(&crate::framing::Item::Value {
            line: 1,
            value: stream[1].clone().expect("a line"),
        });
        assert!(o.held() >= r#"{"path":"x"}{"v":2}"#.len(), "{}", o.held());
    }
}
