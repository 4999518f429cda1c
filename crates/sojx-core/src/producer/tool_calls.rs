//! The tool calls of a turn (contract §4, "several tool calls in one turn"): the API producers
//! (OpenAI Chat Completions and Responses, the Anthropic Messages API, Ollama) hand every call
//! of the final turn to the decision, which chooses among them: with `--schema`, the last call
//! whose input validates; without, the last call when every call names the same tool (the
//! forced or the only tool), and `not_found` when they name different tools.

use serde_json::{Map, Value};

use super::{SourceKind, Verdict};

/// A tool call's input, as the producer gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum CallInput {
    /// Already a JSON value (Anthropic `tool_use.input`, Ollama `arguments`).
    Value(Value),
    /// JSON text (OpenAI `arguments`, Anthropic `input_json_delta` fragments joined): parsed,
    /// never mined.
    Text(String),
}

/// One tool call of the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name, as the call gives it (empty when it gives none).
    pub name: String,
    pub input: CallInput,
    /// The input line of the call's last part.
    pub line: Option<u64>,
    /// The producer's own facts for `source` (`tool`, `tool_call_id`, `tool_use_id`, `call_id`).
    pub detail: Map<String, Value>,
}

impl ToolCall {
    /// The verdict of this call alone (`tool_input`).
    pub fn into_verdict(self) -> Verdict {
        match self.input {
            CallInput::Value(value) => Verdict::Value {
                kind: SourceKind::ToolInput,
                value,
                line: self.line,
                detail: self.detail,
            },
            CallInput::Text(text) => Verdict::ValueText {
                kind: SourceKind::ToolInput,
                text,
                line: self.line,
                detail: self.detail,
            },
        }
    }

    /// The input as a value, when it is one or its text parses.
    pub fn value(&self) -> Option<Value> {
        self.read().map(|r| r.value)
    }

    /// [`ToolCall::value`] as `crate::json` reads it: serde_json's private number key is a
    /// key, and a lone surrogate is U+FFFD (said in `lone_surrogates`), as everywhere.
    pub fn read(&self) -> Option<crate::json::Read> {
        match &self.input {
            CallInput::Value(v) => Some(crate::json::Read {
                value: v.clone(),
                lone_surrogates: false,
            }),
            CallInput::Text(t) => crate::json::from_str_lenient(t.trim()).ok(),
        }
    }

    /// `{name, input}` for a `not_found` envelope's `candidate`: the input as a value when it
    /// parses, else its text.
    pub fn listed(&self) -> Value {
        let input = match (&self.input, self.value()) {
            (_, Some(v)) => v,
            (CallInput::Text(t), None) => Value::from(t.as_str()),
            (CallInput::Value(v), None) => v.clone(),
        };
        let mut m = Map::new();
        m.insert("name".into(), Value::from(self.name.as_str()));
        m.insert("input".into(), input);
        Value::Object(m)
    }
}

/// The verdict of a turn's tool calls (`None` when there are none): one call is that call's
/// `tool_input` as ever; several are [`Verdict::Calls`], for the decision to choose among.
pub(super) fn verdict(mut calls: Vec<ToolCall>) -> Option<Verdict> {
    match calls.len() {
        0 => None,
        1 => calls.pop().map(ToolCall::into_verdict),
        _ => Some(Verdict::Calls(calls)),
    }
}

/// Test helpers for the producers' own tests.
#[cfg(test)]
pub(super) mod testing {
    use serde_json::Value;

    use crate::framing::Item;
    use crate::producer::{Extractor, Verdict};

    /// Feed `items` (a `None` is SSE's `[DONE]`), one per line, and finish.
    pub(in crate::producer) fn verdict(
        mut ex: Box<dyn Extractor>,
        items: &[Option<Value>],
    ) -> Verdict {
        for (i, v) in items.iter().enumerate() {
            let line = i as u64 + 1;
            ex.feed(&match v {
                Some(value) => Item::Value {
                    line,
                    value: value.clone(),
                },
                None => Item::Done { line },
            });
        }
        ex.finish().verdict
    }

    /// The calls of a [`Verdict::Calls`] as `(name, input, line)`; one call's verdict as a list
    /// of one (without its name, which its `source.tool` gives).
    pub(in crate::producer) fn calls(v: Verdict) -> Vec<(String, Option<Value>, Option<u64>)> {
        match v {
            Verdict::Calls(calls) => calls
                .iter()
                .map(|c| (c.name.clone(), c.value(), c.line))
                .collect(),
            Verdict::Value {
                value,
                line,
                detail,
                ..
            } => {
                vec![(tool(&detail), Some(value), line)]
            }
            Verdict::ValueText {
                text, line, detail, ..
            } => {
                vec![(tool(&detail), serde_json::from_str(&text).ok(), line)]
            }
            v => panic!("not tool calls: {v:?}"),
        }
    }

    fn tool(detail: &serde_json::Map<String, Value>) -> String {
        detail
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    }
}
