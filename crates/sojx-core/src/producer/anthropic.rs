//! Anthropic Messages API: the response body, its SSE stream, and bare event lines
//! (`formats/other-producers.md` §5).
//!
//! Answer: the `tool_use` blocks' `input` (`tool_input`; several calls are chosen among by the
//! decision, `tool_calls`), else the text blocks joined.
//! Stream: text deltas and `input_json_delta` fragments joined per block index. Failure:
//! `stop_reason` `refusal` / `max_tokens` / `model_context_window_exceeded`, an `error` event
//! or body; a stream without `message_stop` is `truncated`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::EventKind as Kind;
use super::{
    CallInput, Extractor, LastError, MAX_PARTS, Outcome, Over, Producer, Session, ToolCall,
    Verdict, agent_details, agent_error, api_error, detail, num, snippet, str_at, tool_calls,
    truncated,
};
use crate::framing::Item;

#[derive(Debug, Default)]
struct Block {
    kind: String,
    text: String,
    json: String,
    input: Option<Value>,
    /// The size of `input`, as JSON text.
    input_bytes: usize,
    name: String,
    id: String,
    /// The line of the block's last part.
    line: u64,
}

impl Block {
    /// The bytes it keeps ([`Extractor::held`]).
    fn size(&self) -> usize {
        self.kind.len()
            + self.text.len()
            + self.json.len()
            + self.input_bytes
            + self.name.len()
            + self.id.len()
    }
}

#[derive(Debug, Default)]
pub(super) struct Anthropic {
    blocks: BTreeMap<u64, Block>,
    stop_reason: Option<String>,
    stop_details: Option<Value>,
    stopped: bool,
    error: Option<Value>,
    line: Option<u64>,
    session: Session,
    /// Bytes the blocks keep: their text, tool JSON and input, names and ids (a running
    /// count: summing the blocks at every event was quadratic in their number).
    held: usize,
    /// A block past [`MAX_PARTS`] came: nothing more is kept.
    over: bool,
}

impl Anthropic {
    fn message(&mut self, line: u64, m: &Value) {
        self.session.id = str_at(m, "id")
            .map(str::to_owned)
            .or(self.session.id.take());
        self.session.model = str_at(m, "model")
            .map(str::to_owned)
            .or(self.session.model.take());
        if let Some(u) = m.get("usage") {
            self.usage(u);
        }
        if let Some(s) = str_at(m, "stop_reason") {
            self.stop_reason = Some(s.to_owned());
        }
        if let Some(d) = m.get("stop_details").filter(|d| !d.is_null()) {
            self.stop_details = Some(d.clone());
        }
        if let Some(content) = m.get("content").and_then(Value::as_array) {
            for (i, b) in content.iter().enumerate() {
                self.start_block(line, i as u64, b);
            }
            if !content.is_empty() {
                self.line = Some(line);
            }
        }
    }

    fn usage(&mut self, u: &Value) {
        let s = &mut self.session.usage;
        for (slot, key) in [
            (&mut s.input_tokens, "input_tokens"),
            (&mut s.output_tokens, "output_tokens"),
            (&mut s.cache_read_input_tokens, "cache_read_input_tokens"),
            (
                &mut s.cache_creation_input_tokens,
                "cache_creation_input_tokens",
            ),
        ] {
            if let Some(n) = num(u, key) {
                *slot = Some(n);
            }
        }
    }

    fn start_block(&mut self, line: u64, idx: u64, b: &Value) {
        if !self.room_for(idx) {
            return;
        }
        let input = b
            .get("input")
            .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
            .cloned();
        let block = Block {
            line,
            kind: str_at(b, "type").unwrap_or("").to_owned(),
            text: str_at(b, "text").unwrap_or("").to_owned(),
            input_bytes: input.as_ref().map_or(0, crate::json::footprint),
            input,
            name: str_at(b, "name").unwrap_or("").to_owned(),
            id: str_at(b, "id").unwrap_or("").to_owned(),
            json: String::new(),
        };
        self.held += block.size();
        if let Some(old) = self.blocks.insert(idx, block) {
            self.held -= old.size();
        }
    }

    /// Whether block `idx` is kept: it is already, or there are fewer than [`MAX_PARTS`]
    /// (past them, `over`).
    fn room_for(&mut self, idx: u64) -> bool {
        if self.blocks.len() >= MAX_PARTS && !self.blocks.contains_key(&idx) {
            self.over = true;
        }
        !self.over
    }
}

impl Extractor for Anthropic {
    fn last_error(&self) -> Option<LastError> {
        self.error.as_ref().map(LastError::api)
    }

    fn held(&self) -> usize {
        self.held
    }

    fn over(&self) -> Option<Over> {
        Over::parts(self.over, "content blocks in one message")
    }

    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value: v } = item else {
            return false;
        };
        let idx = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        match str_at(v, "type") {
            Some("message") => {
                self.message(*line, v);
                self.stopped = true;
            }
            Some("message_start") => {
                if let Some(m) = v.get("message") {
                    self.message(*line, m);
                }
            }
            Some("content_block_start") => {
                if let Some(b) = v.get("content_block") {
                    self.start_block(*line, idx, b);
                }
                self.line = Some(*line);
            }
            Some("content_block_delta") => {
                if !self.room_for(idx) {
                    return true;
                }
                let block = self.blocks.entry(idx).or_default();
                block.line = *line;
                if let Some(d) = v.get("delta") {
                    match str_at(d, "type") {
                        Some("text_delta") => {
                            let t = str_at(d, "text").unwrap_or("");
                            self.held += t.len();
                            block.text.push_str(t);
                        }
                        Some("input_json_delta") => {
                            let j = str_at(d, "partial_json").unwrap_or("");
                            self.held += j.len();
                            block.json.push_str(j);
                        }
                        _ => {}
                    }
                }
                self.line = Some(*line);
            }
            Some("message_delta") => {
                if let Some(s) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(s.to_owned());
                }
                if let Some(d) = v.pointer("/delta/stop_details").filter(|d| !d.is_null()) {
                    self.stop_details = Some(d.clone());
                }
                if let Some(u) = v.get("usage") {
                    self.usage(u);
                }
            }
            Some("message_stop") => self.stopped = true,
            Some("content_block_stop" | "ping") => {}
            Some("error") => {
                self.error = Some(v.get("error").cloned().unwrap_or_else(|| v.clone()));
            }
            _ => return false,
        }
        true
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        match str_at(value, "type")? {
            "content_block_start" => {
                let b = value.get("content_block")?;
                (str_at(b, "type") == Some("tool_use")).then(|| {
                    (
                        Kind::Tool,
                        format!("tool {}", str_at(b, "name").unwrap_or("?")),
                    )
                })
            }
            "message_delta" => value
                .pointer("/delta/stop_reason")
                .and_then(Value::as_str)
                .map(|s| (Kind::Info, format!("stop: {s}"))),
            "error" => Some((
                Kind::Error,
                format!(
                    "error: {}",
                    value
                        .pointer("/error/message")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                ),
            )),
            _ => None,
        }
    }

    fn finish(self: Box<Self>) -> Outcome {
        let verdict = if let Some(e) = &self.error {
            let msg = str_at(e, "message").unwrap_or("error");
            api_error(
                format!("the API returned an error: {}", snippet(msg, 300)),
                agent_details(str_at(e, "type"), None, Value::Array(vec![e.clone()])),
                &[str_at(e, "type")],
                None,
            )
        } else if let Some(
            s @ ("refusal" | "max_tokens" | "model_context_window_exceeded" | "pause_turn"),
        ) = self.stop_reason.as_deref()
        {
            let why = match s {
                "refusal" => "the model refused",
                "max_tokens" => "the model hit max_tokens; the answer is cut off",
                // A paused long-running turn (server tools) is not finished: no final answer yet.
                "pause_turn" => {
                    "the turn was paused before it finished (the request must be continued)"
                }
                _ => "the model ran out of context window; the answer is cut off",
            };
            let mut d = agent_details(Some(s), Some(s), Value::Array(Vec::new()));
            if let Some(sd) = &self.stop_details {
                d.more.insert("stop_details".into(), sd.clone());
            }
            agent_error(format!("{why} (stop_reason: {s})"), d)
        } else if !self.stopped {
            truncated("`message_stop`")
        } else if let Some(v) = tool_calls::verdict(
            self.blocks
                .values()
                .filter(|b| b.kind == "tool_use")
                .map(call)
                .collect(),
        ) {
            v
        } else {
            let text: String = self
                .blocks
                .values()
                .filter(|b| b.kind == "text")
                .map(|b| b.text.as_str())
                .collect();
            if self.blocks.values().any(|b| b.kind == "text") {
                Verdict::Text {
                    text,
                    line: self.line,
                }
            } else {
                Verdict::Nothing {
                    message: "the message has no text or tool_use block".into(),
                }
            }
        };
        Outcome {
            producer: Producer::Anthropic,
            verdict,
            session: self.session,
            warnings: Vec::new(),
        }
    }
}

/// A `tool_use` block as a call: its streamed JSON text, or the `input` object of a whole
/// block (`{}` when it has none).
fn call(b: &Block) -> ToolCall {
    let input = if b.json.trim().is_empty() {
        CallInput::Value(b.input.clone().unwrap_or_else(|| Value::Object(Map::new())))
    } else {
        CallInput::Text(b.json.clone())
    };
    ToolCall {
        name: b.name.clone(),
        input,
        line: Some(b.line),
        detail: detail(&[
            ("tool", Value::from(b.name.clone())),
            ("tool_use_id", Value::from(b.id.clone())),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tool_calls::testing::{calls, verdict};
    use super::Anthropic;

    #[test]
    fn every_tool_use_block_of_the_body_and_of_the_stream_is_kept_in_order() {
        let body = json!({"type":"message","role":"assistant","stop_reason":"tool_use","content":[
            {"type":"tool_use","id":"a","name":"answer","input":{"v":1}},
            {"type":"text","text":"and"},
            {"type":"tool_use","id":"b","name":"read_file","input":{"path":"x"}}]});
        let got = calls(verdict(Box::new(Anthropic::default()), &[Some(body)]));
        assert_eq!(
            got,
            [
                ("answer".into(), Some(json!({"v":1})), Some(1)),
                ("read_file".into(), Some(json!({"path":"x"})), Some(1))
            ]
        );
        let start = |i: u64, name: &str| {
            Some(json!({"type":"content_block_start","index":i,
                "content_block":{"type":"tool_use","id":name,"name":name,"input":{}}}))
        };
        let delta = |i: u64, j: &str| {
            Some(json!({"type":"content_block_delta","index":i,
                "delta":{"type":"input_json_delta","partial_json":j}}))
        };
        let stream = [
            Some(json!({"type":"message_start","message":{"content":[]}})),
            start(0, "answer"),
            delta(0, "{\"v\":"),
            delta(0, "1}"),
            start(1, "read_file"),
            delta(1, "{\"path\":\"x\"}"),
            Some(json!({"type":"message_stop"})),
        ];
        let got = calls(verdict(Box::new(Anthropic::default()), &stream));
        assert_eq!(
            got,
            [
                ("answer".into(), Some(json!({"v":1})), Some(4)),
                ("read_file".into(), Some(json!({"path":"x"})), Some(6))
            ]
        );
    }
}
