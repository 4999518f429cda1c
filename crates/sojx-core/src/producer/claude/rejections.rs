//! Structured-output calls the CLI itself refused. Claude Code checks each `StructuredOutput`
//! call against its `--json-schema` and answers a failing one with a tool result `is_error:
//! true` whose text names the violations ("Output does not match required schema: /verdict:
//! must be equal to one of the allowed values"); after `MAX_STRUCTURED_OUTPUT_RETRIES` it ends
//! `error_max_structured_output_retries`, and a model that answers in prose after a refusal ends
//! the run `success` with that prose (Claude Code 2.1.332, recorded against the scripted model:
//! `tests/fixtures/real/claude-2.1.332-e2e-limit.*`, `…-e2e-prose.*`). Those words are what
//! the model must be told next (issue 40, item 3): they go into the failure's message and
//! `details.rejected`, which `sojx run` feeds back.

use serde_json::Value;

use super::{Producer, content_text, snippet};
use crate::details::Details;
use crate::error::{ErrorKind, Failure, Operation};

/// The characters kept of the last refusal: its violations, bounded.
const KEPT: usize = 1000;

#[derive(Debug, Default)]
pub(super) struct Rejections {
    count: u64,
    /// The tool's name and the last refusal's words.
    last: Option<(&'static str, String)>,
}

impl Rejections {
    /// A refused call of `tool`, with its tool result's `content`.
    pub(super) fn note(&mut self, tool: &'static str, content: Option<&Value>) {
        self.count += 1;
        let words = content.and_then(content_text).unwrap_or_default();
        self.last = Some((tool, snippet(&words, KEPT)));
    }

    /// An answer failure (`error_max_structured_output_retries`) with the last refusal's words
    /// added where they are missing (`details.rejected`, and the message); other failures (an
    /// API error, a cancelled run) are left as they are.
    pub(super) fn annotate(&self, f: &mut Failure, subtype: Option<&str>) {
        let Some((tool, words)) = &self.last else {
            return;
        };
        if subtype != Some("error_max_structured_output_retries") {
            return;
        }
        if let Some(Details::Agent(d)) = &mut f.details {
            d.rejected = Some(vec![words.clone()]);
        }
        if !words.is_empty() && !f.message.contains(words.as_str()) {
            f.message
                .push_str(&format!("; the last {tool} call was refused: {words}"));
        }
    }

    /// The failure of a run that had a schema and ended in prose that holds no JSON value.
    pub(super) fn no_answer(&self, producer: Producer) -> Failure {
        let cli = match producer {
            Producer::QwenCode => "Qwen Code",
            _ => "Claude Code",
        };
        let (message, hint) = match &self.last {
            Some((tool, words)) => (
                format!(
                    "{cli} refused {} {tool} call(s) against its schema and the run ended in prose \
                     with no JSON value; the last refusal: {words}",
                    self.count
                ),
                "the model's answer did not match the schema; give it the refusal and ask again \
                 in the same session (sojx run --max-attempts 2 does: it resumes the session \
                 with the violations)"
                    .to_owned(),
            ),
            None => (
                format!(
                    "{cli} was given a schema but the model answered in prose with no JSON \
                     value, without calling the structured-output tool"
                ),
                "ask again in the same session for the answer through the tool (sojx run \
                 --max-attempts 2 resumes the session with feedback)"
                    .to_owned(),
            ),
        };
        let mut f = Failure::new(ErrorKind::NotFound, Operation::Extract, message).hint(hint);
        if let Some((_, words)) = &self.last {
            f.details = Some(Details::Rejected {
                rejected: vec![words.clone()],
            });
        }
        f
    }
}
