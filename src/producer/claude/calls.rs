//! The structured-output tool calls of a Claude Code run, and the tool results that refused
//! calls, bounded (issue 44, item 4: a stream of calls with distinct ids grew memory with the
//! input).
//!
//! The answer is the last call not refused. A tool result with `is_error: true` refuses the call
//! of its `tool_use_id`, and any later call with that id (a replayed call is refused alike).
//! What is kept for that:
//!
//! - the newest [`KEPT_CALLS`] calls not refused, one per id (a later call with an earlier one's
//!   id replaces it). An older call is dropped: it can be the answer only if every later call is
//!   refused, and then the run is a `parse` failure, never the older call guessed;
//! - the ids of the first [`KEPT_REFUSALS`] refused calls, whatever their tool. A refusal past
//!   them still refuses a kept call, but is not remembered for a later call with its id: a call
//!   made after one was forgotten is not taken as the answer (a `parse` failure) unless a
//!   `structured_output` is.
//!
//! Kept calls (their id and input as JSON text) and refused ids count toward
//! `--max-answer-bytes` ([`Calls::held`]).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::error::{ErrorKind, Failure, Operation};

/// The newest calls not refused that are kept.
pub(super) const KEPT_CALLS: usize = 64;

/// The refused tool-call ids that are remembered: a run makes a few hundred tool calls, a long
/// one thousands (each is a turn of the model); 100,000 ids take about 10 MB.
pub(super) const KEPT_REFUSALS: usize = 100_000;

#[derive(Debug)]
pub(super) struct ToolCall {
    pub(super) id: String,
    /// `StructuredOutput` or `structured_output`.
    pub(super) tool: &'static str,
    pub(super) input: Value,
    pub(super) line: u64,
    /// Its id and input as JSON text, in bytes.
    bytes: usize,
}

impl ToolCall {
    pub(super) fn new(id: String, tool: &'static str, input: Value, line: u64) -> Self {
        let bytes = id.len() + input.to_string().len();
        Self {
            id,
            tool,
            input,
            line,
            bytes,
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct Calls {
    /// Calls not refused, by the order they came in (the newest [`KEPT_CALLS`]).
    kept: BTreeMap<u64, ToolCall>,
    /// Each kept call's key in `kept`, by its id.
    keys: HashMap<String, u64>,
    /// Calls seen.
    seen: u64,
    /// Refused ids, with the structured-output tool of the call when the id is one's.
    refused: HashMap<String, Option<&'static str>>,
    /// A call not refused was dropped (past [`KEPT_CALLS`]).
    dropped: bool,
    /// Calls seen when a refusal was first not remembered (past [`KEPT_REFUSALS`]).
    forgotten: Option<u64>,
    /// The bytes of the kept calls and of the refused ids.
    held: usize,
}

impl Calls {
    /// A structured-output call.
    pub(super) fn call(&mut self, call: ToolCall) {
        self.seen += 1;
        if let Some(tool) = self.refused.get_mut(&call.id) {
            // Its id was refused: so is this call (a later refusal of it is the tool's).
            *tool = Some(call.tool);
            return;
        }
        if let Some(old) = self.keys.insert(call.id.clone(), self.seen) {
            self.remove(old);
        }
        self.held += call.bytes;
        self.kept.insert(self.seen, call);
        if self.kept.len() > KEPT_CALLS
            && let Some((&oldest, _)) = self.kept.first_key_value()
        {
            let old = self.remove(oldest);
            self.keys.remove(&old.id);
            self.dropped = true;
        }
    }

    /// Drop the call of key `key` (it is kept).
    fn remove(&mut self, key: u64) -> ToolCall {
        let old = self.kept.remove(&key).expect("kept calls have keys");
        self.held -= old.bytes;
        old
    }

    /// A tool result that refused the call `id`: the structured-output tool of that call, when it
    /// is one's (whose refusal's words are kept).
    pub(super) fn refuse(&mut self, id: &str) -> Option<&'static str> {
        let tool = match self.keys.remove(id) {
            Some(key) => Some(self.remove(key).tool),
            None => self.refused.get(id).copied().flatten(),
        };
        let room = self.refused.len() < KEPT_REFUSALS;
        match self.refused.get_mut(id) {
            Some(t) => *t = tool.or(*t),
            None if room => {
                self.held += id.len();
                self.refused.insert(id.to_owned(), tool);
            }
            None => {
                self.forgotten.get_or_insert(self.seen);
            }
        }
        tool
    }

    /// Whether a refusal of `id` refuses a structured-output call (its words are then kept).
    pub(super) fn of_output_tool(&self, id: &str) -> bool {
        self.keys.contains_key(id) || matches!(self.refused.get(id), Some(Some(_)))
    }

    pub(super) fn held(&self) -> usize {
        self.held
    }

    /// The last call not refused: `Ok(None)` when there is none, and a `parse` failure when it
    /// cannot be told (a call that may be it was dropped, or a refusal that may be its was not
    /// remembered).
    pub(super) fn accepted(&self) -> Result<Option<&ToolCall>, Failure> {
        let Some((&key, call)) = self.kept.last_key_value() else {
            if self.dropped {
                return Err(unknown(format!(
                    "the run made more than {KEPT_CALLS} structured-output calls that were not refused when \
                     later calls were; sojx keeps the newest {KEPT_CALLS}, and every one of them was \
                     refused: the answer would be an older call, which was not kept"
                )));
            }
            return Ok(None);
        };
        match self.forgotten {
            Some(at) if key > at => Err(unknown(format!(
                "more than {KEPT_REFUSALS} tool calls were refused, and sojx remembers the ids of the \
                 first {KEPT_REFUSALS}: it cannot tell whether the last structured-output call (id \
                 {:?}) was refused",
                call.id
            ))),
            _ => Ok(Some(call)),
        }
    }
}

/// The `parse` failure of a run whose answer cannot be told from what was kept.
fn unknown(message: String) -> Failure {
    Failure::new(ErrorKind::Parse, Operation::Extract, message)
        .hint("a run makes far fewer calls; check that the input is one run's stream")
        .retryable(false)
}
