//! The fast path for the Claude Code family: which raw lines `feed` would recognize and
//! otherwise ignore (inert), told from their bytes without parsing them, in any key order.

use std::sync::LazyLock;

use memchr::memmem::Finder;

/// Event types that `event` recognizes and otherwise ignores.
const INERT_TYPES: [&[u8]; 6] = [
    b"stream_event",
    b"rate_limit_event",
    b"control_request",
    b"control_response",
    b"control_cancel_request",
    b"keep_alive",
];

/// `system` subtypes that only feed the dialect evidence (`note_session`) and have no
/// description for `--activity`.
const INERT_SYSTEM: [&[u8]; 9] = [
    b"hook_started",
    b"hook_progress",
    b"hook_response",
    b"status",
    b"thinking_tokens",
    // Subagent tasks (Claude Code 2.1.2xx; the Agent SDK's `SDKTask*Message`).
    b"task_started",
    b"task_progress",
    b"task_updated",
    b"task_notification",
];

/// Whether the raw line is an event that cannot change the outcome (see `Extractor::fast`).
#[cfg(test)]
/// `evidence_known`: the dialect evidence is settled, so `note_session` would do nothing;
/// `model_known`: an assistant message would not set the model.
fn inert(raw: &[u8], evidence_known: bool, model_known: bool) -> bool {
    LineClass(inert_mask(raw)).inert(evidence_known, model_known)
}

/// A Claude Code line's fast-path class, decided from its raw bytes alone (so it can be computed
/// ahead, on another thread): in which extractor states the line is inert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineClass(u8);

impl LineClass {
    pub(crate) fn of(raw: &[u8]) -> Self {
        let mask = inert_mask(raw);
        if mask & LEAN != 0 && ESCAPE.find(raw).is_some() {
            // A `\u` escape the lean parse would only skip (a lone surrogate is an error to
            // the full parse): parsed.
            return Self(mask & !LEAN);
        }
        Self(mask)
    }

    /// Whether the line is parsed in every state (neither inert nor worth the lean path).
    pub(crate) fn always_parsed(self) -> bool {
        self.0 == 0
    }

    /// Whether the lean path ([`super::lean`]) may take the line: an assistant message, or a
    /// `system` `init`, without a `\u` escape.
    pub(super) fn lean(self) -> bool {
        self.0 & LEAN != 0
    }

    pub(super) fn inert(self, evidence_known: bool, model_known: bool) -> bool {
        self.0 & state_bit(evidence_known, model_known) != 0
    }
}

fn state_bit(evidence_known: bool, model_known: bool) -> u8 {
    1 << (u8::from(evidence_known) * 2 + u8::from(model_known))
}

/// The bit of [`inert_mask`] for a line worth the lean path (not a state).
const LEAN: u8 = 1 << 4;

/// The states (bits of [`state_bit`]) in which the raw line is inert, and [`LEAN`].
///
/// Assistant and user messages are inert only when bytes that could matter are absent from the
/// whole line: no `"text"`, no `"tool_use"`, no StructuredOutput name (assistant), no `true`
/// that could be an `is_error` (user), and no `\u` escape that could spell any of them.
fn inert_mask(raw: &[u8]) -> u8 {
    use crate::producer::raw::{Raw, members};
    const ALL: u8 = 0b1111;
    // Duplicate keys: the parser keeps the last one, so every occurrence must agree.
    let mut ty: Option<Raw<'_>> = None;
    let mut subtype: Option<Raw<'_>> = None;
    let mut doubt = false;
    let mut dialect_hint = false;
    // Every `message` is an object whose every `content` is an array (not answer text), or
    // whose every `content` is a string (no tool result to reject).
    let mut message_blocks = true;
    let mut message_text = true;
    // An assistant message whose answer bytes stopped the walk at its `type`.
    let mut answer = false;
    let mut init = false;
    let object = members(raw, |k, v| {
        match k {
            b"type" => {
                doubt |= ty.replace(v).is_some_and(|t| t != v);
                // An event that matters (most lines say so early): stop reading. So does an
                // assistant message with answer bytes in it, before its `message` is walked:
                // whatever follows, the line is read lean or parsed.
                let maybe_inert = v.plain().is_some_and(|t| {
                    answer = t == b"assistant" && contains_any(raw, &*ASSISTANT_ANSWER_FINDERS);
                    INERT_TYPES.contains(&t) || (MAYBE_INERT.contains(&t) && !answer)
                });
                if !maybe_inert {
                    return false;
                }
            }
            b"subtype" => doubt |= subtype.replace(v).is_some_and(|t| t != v),
            // What `detect` reads to tell Qwen Code, Amp and Cursor from Claude Code on the
            // types that can be inert. (`request_id` tells Cursor only on a `result`, which is
            // never inert: Claude Code's assistant messages carry one, and must not be parsed
            // for it.)
            b"session_id" => dialect_hint |= v.plain().is_none_or(|s| s.starts_with(b"T-")),
            b"qwen_code_version" | b"usage" => dialect_hint = true,
            b"message" => {
                let (blocks, text) = content_kinds(v);
                message_blocks &= blocks;
                message_text &= text;
            }
            _ => {}
        }
        // A `system` `init` is never inert: the lean parse reads the rest.
        init = !doubt
            && ty.and_then(Raw::plain) == Some(b"system")
            && subtype.and_then(Raw::plain) == Some(b"init");
        !doubt && !init
    });
    if answer || init {
        // The lean parse sees the rest, duplicate keys included.
        return LEAN;
    }
    if !object || doubt {
        return 0;
    }
    let Some(ty) = ty.and_then(Raw::plain) else {
        return 0;
    };
    if INERT_TYPES.contains(&ty) {
        return ALL;
    }
    // With a dialect hint, only once the evidence is settled.
    let states = if dialect_hint {
        state_bit(true, false) | state_bit(true, true)
    } else {
        ALL
    };
    let inert_in = match ty {
        b"system"
            if subtype
                .and_then(Raw::plain)
                .is_some_and(|s| INERT_SYSTEM.contains(&s)) =>
        {
            ALL
        }
        // (The answer bytes were looked for where its `type` was read: `answer` is false here.)
        b"assistant" if message_blocks => {
            // Only while the model is known.
            state_bit(false, true) | state_bit(true, true) | LEAN
        }
        b"assistant" => LEAN,
        // Only a tool result can matter (`is_error: true`), and only in an array.
        b"user" if message_text || !contains_any(raw, &*USER_ERROR_FINDERS) => ALL,
        b"user" => LEAN,
        _ => 0,
    };
    (states | LEAN) & inert_in
}

/// Bytes without which an assistant message holds no answer: no text block, no tool call, no
/// StructuredOutput name, no API error class (`"error"`), and no `\u` escape that could spell
/// one of them.
const ASSISTANT_ANSWER: [&[u8]; 6] = [
    b"\"text\"",
    b"\"tool_use\"",
    b"StructuredOutput",
    b"structured_output",
    b"\"error\"",
    b"\\u",
];

/// [`ASSISTANT_ANSWER`]'s searchers, built once (building one took as long as a search of a
/// short line).
static ASSISTANT_ANSWER_FINDERS: LazyLock<[Finder<'static>; 6]> =
    LazyLock::new(|| ASSISTANT_ANSWER.map(Finder::new));

/// Bytes without which a user message holds no failed tool result: no `true` (`is_error`), and
/// no `\u` escape that could spell it.
static USER_ERROR_FINDERS: LazyLock<[Finder<'static>; 2]> =
    LazyLock::new(|| [Finder::new(b"true"), Finder::new(b"\\u")]);

/// A `\u` escape.
static ESCAPE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\u"));

/// Types whose lines are inert only under conditions (`inert`).
const MAYBE_INERT: [&[u8]; 3] = [b"system", b"assistant", b"user"];

/// Whether a raw `message` value is an object whose every `content` member is an array, and
/// whether it is one whose every `content` member is a string.
fn content_kinds(message: crate::producer::raw::Raw<'_>) -> (bool, bool) {
    use crate::producer::raw::Raw;
    let Raw::Other(m) = message else {
        return (false, false);
    };
    let (mut arrays, mut strings) = (true, true);
    let object = crate::producer::raw::members(m, |k, v| {
        if k == b"content" {
            arrays &= matches!(v, Raw::Other([b'[', ..]));
            strings &= matches!(v, Raw::Plain(_) | Raw::Other([b'"', ..]));
        }
        arrays || strings
    });
    (object && arrays, object && strings)
}

fn contains_any(hay: &[u8], needles: &[Finder<'static>]) -> bool {
    needles.iter().any(|n| n.find(hay).is_some())
}

#[cfg(test)]
mod tests {
    use super::inert;

    #[test]
    fn inert_events_are_recognized_in_any_key_order() {
        for line in [
            r#"{"type":"stream_event","event":{"type":"content_block_delta"}}"#,
            r#"{"event":{"type":"message_stop"},"session_id":"s","type":"stream_event"}"#,
            r#"{"uuid":"u","type":"rate_limit_event","rate_limit_info":{}}"#,
            r#"{"subtype":"hook_response","output":"{\"type\":\"result\"}","type":"system"}"#,
            r#"{"type":"system","subtype":"status","session_id":"abc"}"#,
            r#"{"message":{"content":[{"type":"thinking","thinking":"hm"}],"model":"m"},"type":"assistant"}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"thinking"}]},"parent_tool_use_id":null}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","is_error":false}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":"a prompt"}}"#,
            // A prompt: no tool result, whatever else is `true`.
            r#"{"type":"user","message":{"role":"user","content":"is it true?"},"isReplay":true}"#,
            // As Claude Code prints a thinking block: with a `request_id`.
            r#"{"type":"assistant","message":{"content":[{"type":"thinking"}]},"request_id":"req_1"}"#,
        ] {
            assert!(inert(line.as_bytes(), false, true), "{line}");
        }
    }

    #[test]
    fn lines_that_can_matter_are_not_inert() {
        for line in [
            r#"{"type":"result","subtype":"success","event":{"type":"stream_event"}}"#,
            r#"{"type":"result","subtype":"success","request_id":"r"}"#,
            r#"{"type":"stream_event","type":"result"}"#,
            r#"{"type":"system","subtype":"init","model":"m"}"#,
            r#"{"type":"system","subtype":"api_retry","attempt":1}"#,
            r#"{"type":"system","subtype":"status","session_id":"T-1"}"#,
            r#"{"type":"system","subtype":"status","usage":{"inputTokens":1}}"#,
            r#"{"type":"system","subtype":"status"#,
            r#"{"type":"assistant","message":{"content":[{"type":"thinking"}]},"usage":{}}"#,
            r#"{"type":"stre\u0061m_event"}"#,
            r#"{"type":"assistant","message":{"content":"answer text"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"t\u0065xt","text":"x"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"t\u0065xt","t\u0065xt":"x"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool\u005fuse","name":"Structured\u004futput"}]}}"#,
            r#"{"type":"assistant","message":{"content":[]},"message":"x"}"#,
            r#"{"type":"assistant","message":{"content":[],"content":"x"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","is_error":true}]}}"#,
            r#"{"type":"user","message":{"content":"x","content":[{"type":"tool_result","is_error":true}]}}"#,
            r#"{"type":"user","message":{"content":"x"},"message":{"content":[{"is_error":true}]}}"#,
        ] {
            assert!(!inert(line.as_bytes(), false, true), "{line}");
        }
        // Nested past serde_json's recursion limit (the full parse's junk).
        let deep = format!(
            r#"{{"type":"stream_event","event":{}{}}}"#,
            "[".repeat(130),
            "]".repeat(130)
        );
        assert!(!inert(deep.as_bytes(), true, true));
        let shallow = format!(
            r#"{{"type":"stream_event","event":{}{}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(inert(shallow.as_bytes(), true, true));
        // An assistant message sets the model while it is unknown.
        assert!(!inert(
            br#"{"type":"assistant","message":{"content":[],"model":"m"}}"#,
            true,
            false
        ));
        // Once the dialect is settled, dialect hints no longer matter.
        assert!(inert(
            br#"{"type":"system","subtype":"status","session_id":"T-1"}"#,
            true,
            true
        ));
    }

    #[test]
    fn lines_worth_the_lean_path() {
        use super::LineClass;
        for line in [
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_use","name":"Bash"}]},"type":"assistant"}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","is_error":true}]}}"#,
            r#"{"type":"system","subtype":"init","model":"m","tools":["a"]}"#,
            r#"{"subtype":"init","session_id":"s","type":"system"}"#,
        ] {
            assert!(LineClass::of(line.as_bytes()).lean(), "{line}");
        }
        for line in [
            r#"{"type":"result","subtype":"success"}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"\u00e9"}]}}"#,
            r#"{"type":"system","subtype":"api_retry","attempt":1}"#,
            r#"{"type":"system","subtype":"status","subtype":"init"}"#,
            r#"{"type":"stream_event","event":{}}"#,
        ] {
            assert!(!LineClass::of(line.as_bytes()).lean(), "{line}");
        }
    }
}
