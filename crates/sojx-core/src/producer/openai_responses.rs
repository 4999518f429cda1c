//! OpenAI Responses API: the response body and its SSE stream
//! (`formats/other-producers.md` §4).
//!
//! Answer: the `function_call` items' `arguments` (`tool_input`; several calls are chosen among
//! by the decision, `tool_calls`), else the text of the
//! `final_answer`-phase message (or the last message). Stream: the `response` object of the
//! terminal `response.completed` / `response.failed` / `response.incomplete` event.
//! Failure: `status` other than `completed`, a refusal part, an `error` event or body.

use serde_json::Value;

use super::EventKind as Kind;
use super::{
    CallInput, Extractor, LastError, MAX_PARTS, Outcome, Over, Producer, Session, ToolCall,
    Verdict, agent_details, agent_error, api_error, detail, field, num, snippet, str_at,
    tool_calls, truncated,
};
use crate::framing::Item;

#[derive(Debug, Default)]
pub(super) struct Responses {
    response: Option<(u64, Value)>,
    terminal: bool,
    streamed: bool,
    items: Vec<Value>,
    /// The size of `items`, as JSON text.
    items_bytes: usize,
    error: Option<Value>,
}

impl Extractor for Responses {
    fn last_error(&self) -> Option<LastError> {
        self.error.as_ref().map(LastError::api)
    }

    fn held(&self) -> usize {
        self.items_bytes
    }

    fn over(&self) -> Option<Over> {
        Over::parts(self.items.len() > MAX_PARTS, "output items in one response")
    }

    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value: v } = item else {
            return self.streamed;
        };
        match str_at(v, "type") {
            None if str_at(v, "object") == Some("response") => {
                self.response = Some((*line, v.clone()));
                self.terminal = true;
                true
            }
            None => {
                if let Some(e) = field(v, "error") {
                    self.error = Some(e.clone());
                    return true;
                }
                false
            }
            Some("error") => {
                self.error = Some(
                    v.get("error")
                        .filter(|e| e.is_object())
                        .cloned()
                        .unwrap_or_else(|| v.clone()),
                );
                true
            }
            Some(
                t @ ("response.completed"
                | "response.failed"
                | "response.incomplete"
                | "response.cancelled"),
            ) => {
                self.streamed = true;
                self.terminal = true;
                if let Some(r) = v.get("response") {
                    self.response = Some((*line, r.clone()));
                } else {
                    self.response = Some((
                        *line,
                        serde_json::json!({"status": t.trim_start_matches("response.")}),
                    ));
                }
                true
            }
            Some("response.output_item.done") => {
                self.streamed = true;
                if let Some(it) = v.get("item") {
                    self.items_bytes += crate::json::footprint(it);
                    self.items.push(it.clone());
                }
                true
            }
            Some(t) if t.starts_with("response.") => {
                self.streamed = true;
                true
            }
            _ => false,
        }
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        match str_at(value, "type")? {
            "response.output_item.added" => {
                let it = value.get("item")?;
                (str_at(it, "type") == Some("function_call")).then(|| {
                    (
                        Kind::Tool,
                        format!("tool {}", str_at(it, "name").unwrap_or("?")),
                    )
                })
            }
            "response.completed" => Some((Kind::Info, "completed".into())),
            "response.failed" | "error" => Some((Kind::Error, "error".into())),
            _ => None,
        }
    }

    fn finish(self: Box<Self>) -> Outcome {
        let mut session = Session::default();
        let verdict = match (&self.error, &self.response) {
            (Some(e), _) => {
                let msg = str_at(e, "message").unwrap_or("error").to_owned();
                api_error(
                    format!("the API returned an error: {}", snippet(&msg, 300)),
                    agent_details(
                        str_at(e, "code").or_else(|| str_at(e, "type")),
                        None,
                        Value::Array(vec![e.clone()]),
                    ),
                    &[str_at(e, "code"), str_at(e, "type")],
                    None,
                )
            }
            (None, None) => truncated("`response.completed`"),
            (None, Some(_)) if !self.terminal => truncated("`response.completed`"),
            (None, Some((line, r))) => {
                session.id = str_at(r, "id").map(str::to_owned);
                session.model = str_at(r, "model").map(str::to_owned);
                if let Some(u) = r.get("usage") {
                    session.usage.input_tokens = num(u, "input_tokens");
                    session.usage.output_tokens = num(u, "output_tokens");
                    session.usage.cache_read_input_tokens = u
                        .get("input_tokens_details")
                        .and_then(|d| num(d, "cached_tokens"));
                }
                let output = match r.get("output").and_then(Value::as_array) {
                    Some(o) if !o.is_empty() => o.clone(),
                    _ => self.items.clone(),
                };
                from_response(*line, r, &output)
            }
        };
        Outcome {
            producer: Producer::OpenaiResponses,
            verdict,
            session,
            warnings: Vec::new(),
        }
    }
}

fn from_response(line: u64, r: &Value, output: &[Value]) -> Verdict {
    let status = str_at(r, "status");
    if let Some(e) = field(r, "error") {
        let msg = str_at(e, "message").unwrap_or("error");
        return api_error(
            format!("the response failed: {}", snippet(msg, 300)),
            agent_details(status, str_at(e, "code"), Value::Array(vec![e.clone()])),
            &[str_at(e, "code"), str_at(e, "type")],
            None,
        );
    }
    if status.is_some_and(|s| s != "completed") {
        let reason = r
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str);
        return agent_error(
            format!(
                "the response ended with status {}{}",
                status.unwrap_or("?"),
                reason.map(|r| format!(" ({r})")).unwrap_or_default()
            ),
            agent_details(status, reason, Value::Array(Vec::new())),
        );
    }
    let mut refusal = None;
    for it in output {
        for part in it
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if str_at(part, "type") == Some("refusal") {
                refusal = Some(str_at(part, "refusal").unwrap_or("").to_owned());
            }
        }
    }
    if let Some(r) = refusal {
        return agent_error(
            format!("the model refused: {}", snippet(&r, 300)),
            agent_details(Some("refusal"), None, Value::Array(vec![Value::from(r)])),
        );
    }
    let calls = output
        .iter()
        .filter(|it| str_at(it, "type") == Some("function_call"))
        .map(|call| {
            let name = str_at(call, "name").unwrap_or("");
            ToolCall {
                name: name.to_owned(),
                input: CallInput::Text(str_at(call, "arguments").unwrap_or("").to_owned()),
                line: Some(line),
                detail: detail(&[
                    ("tool", Value::from(name)),
                    (
                        "call_id",
                        Value::from(str_at(call, "call_id").unwrap_or("")),
                    ),
                ]),
            }
        })
        .collect();
    if let Some(v) = tool_calls::verdict(calls) {
        return v;
    }
    let messages: Vec<&Value> = output
        .iter()
        .filter(|it| str_at(it, "type") == Some("message"))
        .collect();
    let chosen = messages
        .iter()
        .rev()
        .find(|m| str_at(m, "phase") == Some("final_answer"))
        .or(messages.last());
    let Some(m) = chosen else {
        return Verdict::Nothing {
            message: "the response has no message".into(),
        };
    };
    let text: String = m
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| str_at(p, "type") == Some("output_text"))
        .filter_map(|p| str_at(p, "text"))
        .collect();
    Verdict::Text {
        text,
        line: Some(line),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tool_calls::testing::{calls, verdict};
    use super::Responses;

    fn call(name: &str, args: &str) -> serde_json::Value {
        json!({"type":"function_call","call_id":name,"name":name,"arguments":args})
    }

    #[test]
    fn every_function_call_of_the_body_and_of_the_stream_is_kept_in_order() {
        let output = json!([
            call("answer", "{\"v\":1}"),
            call("read_file", "{\"path\":\"x\"}")
        ]);
        let want = [
            ("answer".to_owned(), Some(json!({"v":1})), Some(1)),
            ("read_file".to_owned(), Some(json!({"path":"x"})), Some(1)),
        ];
        let body = json!({"object":"response","status":"completed","output":output});
        assert_eq!(
            calls(verdict(Box::new(Responses::default()), &[Some(body)])),
            want
        );
        // A stream whose terminal response lists no output: the items it streamed.
        let done =
            |it: &serde_json::Value| Some(json!({"type":"response.output_item.done","item":it}));
        let stream = [
            done(&output[0]),
            done(&output[1]),
            Some(
                json!({"type":"response.completed","response":{"status":"completed","output":[]}}),
            ),
        ];
        let got = calls(verdict(Box::new(Responses::default()), &stream));
        assert_eq!(
            got.iter().map(|c| &c.0).collect::<Vec<_>>(),
            ["answer", "read_file"]
        );
        assert_eq!(got[1].1, Some(json!({"path":"x"})));
    }
}
