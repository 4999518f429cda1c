//! OpenAI Chat Completions: the response body and its SSE stream
//! (`formats/other-producers.md` §3).
//!
//! Answer: the tool calls' `function.arguments` (`tool_input`, JSON strings; several calls are
//! chosen among by the decision, `tool_calls`), else `message.content` (text). Stream: `delta.content` joined, tool-call fragments joined per
//! `index`. Failure: `refusal`, `finish_reason` `length` / `content_filter`, an `{"error": …}`
//! body or the flat `{"object": "error", …}` body of OpenAI-compatible servers; a stream with neither `finish_reason` nor `[DONE]` is `truncated`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::EventKind as Kind;
use super::{
    CallInput, Extractor, LastError, MAX_PARTS, Outcome, Over, Producer, Session, ToolCall,
    Verdict, agent_details, agent_error, api_error, detail, num, snippet, str_at, tool_calls,
    truncated,
};
use crate::framing::Item;

#[derive(Debug, Default)]
struct Call {
    name: String,
    id: String,
    args: String,
    /// The line of the call's last fragment.
    line: u64,
}

#[derive(Debug, Default)]
pub(super) struct Chat {
    content: String,
    refusal: String,
    calls: BTreeMap<u64, Call>,
    finish_reason: Option<String>,
    done: bool,
    error: Option<Value>,
    line: Option<u64>,
    session: Session,
    /// Bytes of content, refusal and tool-call text received, the calls' ids included (a
    /// running count: summing the calls at every event was quadratic in their number).
    held: usize,
    /// A call past [`MAX_PARTS`] came: nothing more is kept.
    over: bool,
}

impl Chat {
    fn choice(&mut self, line: u64, c: &Value) {
        // Only the first choice (`index` 0) is the answer.
        if c.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
            return;
        }
        let part = c.get("message").or_else(|| c.get("delta"));
        if let Some(m) = part {
            if let Some(t) = str_at(m, "content") {
                self.held += t.len();
                self.content.push_str(t);
                self.line = Some(line);
            }
            if let Some(r) = str_at(m, "refusal") {
                self.held += r.len();
                self.refusal.push_str(r);
            }
            if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
                for (i, tc) in calls.iter().enumerate() {
                    let idx = tc.get("index").and_then(Value::as_u64).unwrap_or(i as u64);
                    if self.calls.len() >= MAX_PARTS && !self.calls.contains_key(&idx) {
                        self.over = true;
                        return;
                    }
                    let call = self.calls.entry(idx).or_default();
                    if let Some(n) = tc.pointer("/function/name").and_then(Value::as_str) {
                        self.held += n.len();
                        call.name.push_str(n);
                    }
                    if let Some(id) = str_at(tc, "id") {
                        self.held = self.held - call.id.len() + id.len();
                        id.clone_into(&mut call.id);
                    }
                    let before = call.args.len();
                    match tc.pointer("/function/arguments") {
                        Some(Value::String(a)) => call.args.push_str(a),
                        Some(v @ Value::Object(_)) => call.args.push_str(&v.to_string()),
                        _ => {}
                    }
                    self.held += call.args.len() - before;
                    call.line = line;
                    self.line = Some(line);
                }
            }
        }
        if let Some(f) = str_at(c, "finish_reason") {
            self.finish_reason = Some(f.to_owned());
        }
    }
}

impl Extractor for Chat {
    fn last_error(&self) -> Option<LastError> {
        self.error.as_ref().map(LastError::api)
    }

    fn held(&self) -> usize {
        self.held
    }

    fn over(&self) -> Option<Over> {
        Over::parts(self.over, "tool calls in one turn")
    }

    fn feed(&mut self, item: &Item) -> bool {
        let v = match item {
            Item::Done { .. } => {
                self.done = true;
                return true;
            }
            Item::Value { value, .. } => value,
            Item::Junk { .. } => return false,
        };
        let Item::Value { line, .. } = item else {
            return false;
        };
        if let Some(e) = v.get("error").filter(|e| e.is_object() || e.is_string()) {
            self.error = Some(e.clone());
            return true;
        }
        // The flat error body of OpenAI-compatible servers: `{"object": "error", "message", "type",
        // "param", "code"}` (vLLM's `ErrorResponse`).
        if str_at(v, "object") == Some("error") && str_at(v, "message").is_some() {
            self.error = Some(v.clone());
            return true;
        }
        let Some(choices) = v.get("choices").and_then(Value::as_array) else {
            return v
                .get("object")
                .and_then(Value::as_str)
                .is_some_and(|o| o.starts_with("chat.completion"));
        };
        if let Some(id) = str_at(v, "id") {
            self.session.id = Some(id.to_owned());
        }
        if let Some(m) = str_at(v, "model") {
            self.session.model = Some(m.to_owned());
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.session.usage.input_tokens = num(u, "prompt_tokens");
            self.session.usage.output_tokens = num(u, "completion_tokens");
            self.session.usage.cache_read_input_tokens = u
                .get("prompt_tokens_details")
                .and_then(|d| num(d, "cached_tokens"));
        }
        for c in choices {
            self.choice(*line, c);
        }
        true
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        let c = value.get("choices")?.get(0)?;
        str_at(c, "finish_reason").map(|f| (Kind::Info, format!("finish: {f}")))
    }

    fn finish(self: Box<Self>) -> Outcome {
        let verdict = if let Some(e) = &self.error {
            let msg = e
                .as_str()
                .map(str::to_owned)
                .or_else(|| str_at(e, "message").map(str::to_owned))
                .unwrap_or_default();
            api_error(
                format!("the API returned an error: {}", snippet(&msg, 300)),
                agent_details(
                    str_at(e, "type").or_else(|| str_at(e, "code")),
                    None,
                    Value::Array(vec![e.clone()]),
                ),
                &[str_at(e, "code"), str_at(e, "type")],
                None,
            )
        } else if !self.refusal.is_empty() {
            agent_error(
                format!("the model refused: {}", snippet(&self.refusal, 300)),
                agent_details(
                    Some("refusal"),
                    self.finish_reason.as_deref(),
                    Value::Array(vec![Value::from(self.refusal.clone())]),
                ),
            )
        } else if let Some(f @ ("length" | "content_filter")) = self.finish_reason.as_deref() {
            let why = if f == "length" {
                "hit the token limit; the answer is cut off"
            } else {
                "was stopped by the content filter"
            };
            agent_error(
                format!("the model {why} (finish_reason: {f})"),
                agent_details(Some(f), Some(f), Value::Array(Vec::new())),
            )
        } else if self.finish_reason.is_none() && !self.done {
            truncated("a `finish_reason` or `data: [DONE]`")
        } else if let Some(v) = tool_calls::verdict(
            self.calls
                .into_values()
                .map(|c| ToolCall {
                    detail: detail(&[
                        ("tool", Value::from(c.name.clone())),
                        ("tool_call_id", Value::from(c.id)),
                    ]),
                    name: c.name,
                    input: CallInput::Text(c.args),
                    line: Some(c.line),
                })
                .collect(),
        ) {
            v
        } else if self.content.is_empty() {
            Verdict::Nothing {
                message: "the response has no content".into(),
            }
        } else {
            Verdict::Text {
                text: self.content,
                line: self.line,
            }
        };
        Outcome {
            producer: Producer::OpenaiChat,
            verdict,
            session: self.session,
            warnings: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tool_calls::testing::{calls, verdict};
    use super::Chat;

    #[test]
    fn every_tool_call_of_the_body_and_of_the_stream_is_kept_in_order() {
        let body = json!({"object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",
            "message":{"tool_calls":[
                {"id":"a","function":{"name":"answer","arguments":"{\"v\":1}"}},
                {"id":"b","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}}]}}]});
        let got = calls(verdict(Box::new(Chat::default()), &[Some(body)]));
        assert_eq!(
            got,
            [
                ("answer".into(), Some(json!({"v":1})), Some(1)),
                ("read_file".into(), Some(json!({"path":"x"})), Some(1))
            ]
        );
        let chunk = |tc: serde_json::Value, fr: Option<&str>| {
            Some(
                json!({"object":"chat.completion.chunk","choices":[{"index":0,
                "delta":{"tool_calls":[tc]},"finish_reason":fr}]}),
            )
        };
        let stream = [
            chunk(
                json!({"index":0,"id":"a","function":{"name":"answer","arguments":"{\"v\""}}),
                None,
            ),
            chunk(
                json!({"index":1,"id":"b","function":{"name":"read_file","arguments":"{}"}}),
                None,
            ),
            chunk(
                json!({"index":0,"function":{"arguments":":1}"}}),
                Some("tool_calls"),
            ),
            None,
        ];
        let got = calls(verdict(Box::new(Chat::default()), &stream));
        assert_eq!(
            got,
            [
                ("answer".into(), Some(json!({"v":1})), Some(3)),
                ("read_file".into(), Some(json!({})), Some(2))
            ]
        );
        // One call is that call's tool input, as ever.
        let got = calls(verdict(
            Box::new(Chat::default()),
            &stream[..1]
                .iter()
                .cloned()
                .chain([None])
                .collect::<Vec<_>>(),
        ));
        assert_eq!(got.len(), 1);
    }
}
