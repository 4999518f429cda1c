//! Meerkat, `rkat run --output json`: one pretty-printed RunResult
//! (`formats/other-producers.md` §7).
//!
//! Answer: `structured_output` (already validated by Meerkat), else the `text`.
//! Failure: `extraction_error` without `structured_output`.

use serde_json::{Map, Value};

use super::{
    Extractor, Outcome, Producer, Session, SourceKind, Verdict, agent_details, agent_error, field,
    num, snippet, str_at,
};
use crate::framing::Item;

#[derive(Debug, Default)]
pub(super) struct Meerkat {
    result: Option<(u64, Value)>,
}

impl Extractor for Meerkat {
    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value } = item else {
            return false;
        };
        let recognized = value.get("session_id").is_some()
            && (value.get("text").is_some()
                || value.get("structured_output").is_some()
                || value.get("extraction_error").is_some());
        if recognized {
            self.result = Some((*line, value.clone()));
        }
        recognized
    }

    fn finish(self: Box<Self>) -> Outcome {
        let mut session = Session::default();
        let verdict = match &self.result {
            None => super::truncated("a RunResult object"),
            Some((line, r)) => {
                session.id = str_at(r, "session_id").map(str::to_owned);
                session.turns = num(r, "turns");
                if let Some(u) = r.get("usage") {
                    session.usage.input_tokens = num(u, "input_tokens");
                    session.usage.output_tokens = num(u, "output_tokens");
                    session.usage.cache_read_input_tokens = num(u, "cache_read_tokens");
                    session.usage.cache_creation_input_tokens = num(u, "cache_creation_tokens");
                }
                if let Some(so) = field(r, "structured_output") {
                    Verdict::Value {
                        kind: SourceKind::StructuredOutput,
                        value: so.clone(),
                        line: Some(*line),
                        detail: Map::new(),
                    }
                } else if let Some(e) = field(r, "extraction_error") {
                    let reason = str_at(e, "reason").unwrap_or("extraction failed");
                    agent_error(
                        format!(
                            "Meerkat could not extract structured output: {}",
                            snippet(reason, 300)
                        ),
                        agent_details(
                            Some("extraction_error"),
                            None,
                            Value::Array(vec![e.clone()]),
                        ),
                    )
                } else if let Some(t) = str_at(r, "text") {
                    Verdict::Text {
                        text: t.to_owned(),
                        line: Some(*line),
                    }
                } else {
                    Verdict::Nothing {
                        message: "the RunResult has no text".into(),
                    }
                }
            }
        };
        Outcome {
            producer: Producer::Meerkat,
            verdict,
            session,
            warnings: Vec::new(),
        }
    }
}
