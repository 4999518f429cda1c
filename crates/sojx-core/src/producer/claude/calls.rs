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
//!   them still refuses a kept call, and is remembered in a fixed-size filter ([`Forgotten`],
//!   1 MiB) that may say yes to an id never refused but never no to one refused: the last call,
//!   when made after such a refusal and the filter says its id may have been refused, is not
//!   taken as the answer (a `parse` failure) unless a `structured_output` is.
//!
//! Kept calls (their id and input as JSON text) and refused ids count toward
//! `--max-answer-bytes` ([`Calls::held`]).

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

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
    /// Its id's bytes and its input's in memory ([`crate::json::footprint`]).
    bytes: usize,
}

impl ToolCall {
    pub(super) fn new(id: String, tool: &'static str, input: Value, line: u64) -> Self {
        let bytes = id.len() + crate::json::footprint(&input);
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
    /// The refusals past [`KEPT_REFUSALS`], and how many calls were seen at the first.
    forgotten: Option<(Forgotten, u64)>,
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
                let seen = self.seen;
                self.forgotten
                    .get_or_insert_with(|| (Forgotten::default(), seen))
                    .0
                    .insert(id);
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
        match &self.forgotten {
            Some((f, at)) if key > *at && f.may_hold(&call.id) => Err(unknown(format!(
                "more than {KEPT_REFUSALS} tool calls were refused, and sojx remembers the ids of the \
                 first {KEPT_REFUSALS}: it cannot tell whether the last structured-output call (id \
                 {:?}) was one of the others",
                call.id
            ))),
            _ => Ok(Some(call)),
        }
    }
}

/// The ids of the refusals past [`KEPT_REFUSALS`], as a Bloom filter of [`Forgotten::BITS`]
/// bits: whether an id may be among them (never "no" for one that is). With a million ids in
/// it, about 2 in 100 other ids are "maybe".
#[derive(Debug)]
pub(super) struct Forgotten {
    bits: Vec<u64>,
}

impl Default for Forgotten {
    fn default() -> Self {
        Self {
            bits: vec![0; Self::BITS / 64],
        }
    }
}

impl Forgotten {
    /// 1 MiB.
    const BITS: usize = 1 << 23;
    /// Bits set per id.
    const PROBES: u64 = 4;

    /// The bits of `id`: double hashing of one 64-bit hash (the same in every run).
    fn probes(id: &str) -> impl Iterator<Item = usize> {
        let mut h = std::hash::DefaultHasher::new();
        id.hash(&mut h);
        let h = h.finish();
        let (a, b) = (h & 0xffff_ffff, (h >> 32) | 1);
        (0..Self::PROBES).map(move |i| {
            let bit = a.wrapping_add(i.wrapping_mul(b)) % Self::BITS as u64;
            usize::try_from(bit).expect("a bit of the filter")
        })
    }

    fn insert(&mut self, id: &str) {
        for p in Self::probes(id) {
            self.bits[p / 64] |= 1 << (p % 64);
        }
    }

    fn may_hold(&self, id: &str) -> bool {
        Self::probes(id).all(|p| self.bits[p / 64] & (1 << (p % 64)) != 0)
    }
}

/// The `parse` failure of a run whose answer cannot be told from what was kept.
fn unknown(message: String) -> Failure {
    Failure::new(ErrorKind::Parse, Operation::Extract, message)
        .hint("a run makes far fewer calls; check that the input is one run's stream")
        .retryable(false)
}

#[cfg(test)]
mod tests {
    use super::Forgotten;

    /// The filter never says "no" for an id in it, and rarely "maybe" for another.
    #[test]
    fn the_filter_of_forgotten_refusals_has_no_false_no() {
        let mut f = Forgotten::default();
        let n = 300_000;
        for i in 0..n {
            f.insert(&format!("toolu_{i}"));
        }
        assert!((0..n).all(|i| f.may_hold(&format!("toolu_{i}"))));
        let maybe = (n..2 * n)
            .filter(|i| f.may_hold(&format!("toolu_{i}")))
            .count();
        // About 0.1 % with 300,000 ids in 2^23 bits and 4 probes.
        assert!(maybe < n / 200, "{maybe}");
    }
}
