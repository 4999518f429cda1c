//! Detection: which producer wrote a value, from the value alone, whatever its key order. Each
//! item is looked at until one is decisive (`formats/other-producers.md` §15 lists the
//! collisions this resolves).

use serde_json::{Map, Value};

use super::{Family, Producer};

/// Decide the producer from one value, when the value is decisive.
pub fn detect(v: &Value) -> Option<Producer> {
    match v {
        Value::Array(items) => claude_like_array(items, detect),
        Value::Object(o) => detect_object(o),
        _ => None,
    }
}

/// A JSON array of Claude-style messages (`--output-format json --verbose`, Qwen json): the
/// dialect of the first of its first 64 items that `detect` says is one.
fn claude_like_array(items: &[Value], detect: fn(&Value) -> Option<Producer>) -> Option<Producer> {
    items.iter().take(64).find_map(|i| match detect(i) {
        Some(
            p @ (Producer::ClaudeCode | Producer::QwenCode | Producer::Amp | Producer::Cursor),
        ) => Some(p),
        _ => None,
    })
}

/// [`detect`] for a value that must carry a run's identity to be a producer's output: the
/// whole input when it is one JSON document, a value salvaged from a line with other text on
/// it, or one found inside answer text. The producer [`detect`] names claims the value only when
/// it carries that producer's identity (`IDENTITY`), so that a bare answer shaped like an
/// event (`{"type": "result", "score": 3}`, `{"type": "error", "message": …}`) stays the
/// answer (contract §4).
pub fn detect_output(v: &Value) -> Option<Producer> {
    match v {
        Value::Array(items) => claude_like_array(items, detect_output),
        Value::Object(o) => detect_object(o).filter(|&p| carries_identity(p.family(), o)),
        _ => None,
    }
}

/// What carries a run's identity in one family's output (contract §4; `docs/producers.md`,
/// "A run's identity"): a member of `members` (a session, thread, message or request id, the
/// run's usage, turns, cost or timestamp), a dotted event type of the family's own vocabulary
/// (`turn.completed`, `response.completed`), or a status member whose value is of the family's
/// vocabulary. A real output of each family carries one: a Claude Code result its
/// `session_id`, an API response body its `id`, a Gemini CLI `-o json` object its `stats`.
struct Identity {
    family: Family,
    members: &'static [&'static str],
    dotted_type: bool,
    /// A status member and the values the family gives it.
    status: Option<(&'static str, &'static [&'static str])>,
}

/// Each family's identity, as data.
const IDENTITY: &[Identity] = &[
    Identity {
        family: Family::Claude,
        members: &[
            "session_id",
            "uuid",
            "usage",
            "num_turns",
            "duration_ms",
            "total_cost_usd",
            "request_id",
            "parent_tool_use_id",
        ],
        dotted_type: false,
        status: Some((
            "subtype",
            &[
                "success",
                "error_max_turns",
                "error_during_execution",
                "error_max_budget_usd",
                "error_max_structured_output_retries",
                "init",
                "session_start",
            ],
        )),
    },
    Identity {
        family: Family::Codex,
        members: &["thread_id", "usage", "item"],
        dotted_type: true,
        status: None,
    },
    Identity {
        family: Family::Gemini,
        members: &["session_id", "stats", "timestamp"],
        dotted_type: false,
        status: Some(("status", &["success", "error"])),
    },
    Identity {
        family: Family::Opencode,
        members: &["sessionID"],
        dotted_type: false,
        status: None,
    },
    Identity {
        family: Family::OpenaiChat,
        members: &["id", "object", "created", "usage", "system_fingerprint"],
        dotted_type: false,
        status: None,
    },
    Identity {
        family: Family::OpenaiResponses,
        members: &[
            "id",
            "object",
            "created_at",
            "sequence_number",
            "response",
            "usage",
        ],
        dotted_type: true,
        status: None,
    },
    Identity {
        family: Family::Anthropic,
        members: &["id", "model", "usage", "stop_reason", "message", "index"],
        dotted_type: false,
        status: None,
    },
    Identity {
        family: Family::Ollama,
        members: &["model", "created_at", "done"],
        dotted_type: false,
        status: None,
    },
    Identity {
        // A recorded JSON-RPC message is the protocol's, never an answer.
        family: Family::Acp,
        members: &["message"],
        dotted_type: false,
        status: None,
    },
    Identity {
        family: Family::Meerkat,
        members: &["session_id"],
        dotted_type: false,
        status: None,
    },
];

/// Whether `o`, which [`detect`] gave to a producer of `family`, carries that family's
/// identity; or is an HTTP error body (`{"error": {…, "message"}}`, Ollama's `{"error": "…"}`,
/// and nothing else) or an
/// Anthropic error event (its `error.type` of the API's vocabulary, `overloaded_error`): a
/// producer's error object is its output, never an answer. An answer such as `{"ok": false,
/// "error": {"message": "3 tests failed"}}` is an answer.
fn carries_identity(family: Family, o: &Map<String, Value>) -> bool {
    let error = o.get("error").and_then(Value::as_object);
    let body = match o.get("error") {
        Some(Value::String(_)) => family == Family::Ollama,
        Some(Value::Object(e)) => e.get("message").is_some_and(Value::is_string),
        _ => false,
    };
    if body && o.len() == 1 {
        return true;
    }
    let Some(id) = IDENTITY.iter().find(|i| i.family == family) else {
        return false;
    };
    let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
    id.members.iter().any(|k| o.contains_key(*k))
        || (id.dotted_type && ty.contains('.'))
        || id.status.is_some_and(|(k, values)| {
            o.get(k)
                .and_then(Value::as_str)
                .is_some_and(|s| values.contains(&s))
        })
        || (family == Family::Anthropic
            && error
                .and_then(|e| e.get("type"))
                .and_then(Value::as_str)
                .is_some_and(anthropic_error_type))
}

/// Whether `t` is of the Anthropic API's error types: `…_error` (`overloaded_error`), and
/// `request_too_large` (413), the one that does not end so.
fn anthropic_error_type(t: &str) -> bool {
    t.ends_with("_error") || t == "request_too_large"
}

/// Members that name a run whoever wrote it: a session, conversation or thread id.
const RUN_IDS: &[&str] = &[
    "session_id",
    "sessionId",
    "sessionID",
    "conversation_id",
    "conversationId",
    "thread_id",
    "threadId",
];

/// Members that account for a run whoever wrote it: its turns, tokens, cost, stop reason.
const RUN_TOTALS: &[&str] = &[
    "num_turns",
    "numTurns",
    "total_tokens",
    "totalTokens",
    "total_cost_usd",
    "totalCostUsd",
    "modelUsage",
    "stopReason",
    "stop_reason",
];

/// Token counts, the members that make a `usage` object a run's usage.
const TOKEN_COUNTS: &[&str] = &[
    "input_tokens",
    "output_tokens",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "inputTokens",
    "outputTokens",
    "totalTokens",
];

/// Whether `v` carries a run's identity, whoever wrote it (contract §4): a session,
/// conversation or thread id, the run's turns, token total, cost or stop reason, or a `usage`
/// object of token counts — at its top, or, for an event (an object with a `type` or `event`
/// string), in one of its members (Antigravity's `{"event": "result", "result":
/// {"conversation_id", "status", …}}`). Such a value is a producer's status or result object,
/// never an answer: one that no known producer claims ([`detect_output`]) is the output of a
/// producer sojx does not read (xAI's Grok CLI, goose, Google Antigravity).
pub fn run_identity(v: &Value) -> bool {
    let Value::Object(o) = v else {
        return false;
    };
    let own = |o: &Map<String, Value>| {
        RUN_IDS
            .iter()
            .any(|k| o.get(*k).is_some_and(|id| id.is_string() || id.is_number()))
            || RUN_TOTALS.iter().any(|k| o.contains_key(*k))
            || o.get("usage")
                .and_then(Value::as_object)
                .is_some_and(|u| TOKEN_COUNTS.iter().any(|k| u.contains_key(*k)))
    };
    own(o) || (event_type(o).is_some() && o.values().any(|m| m.as_object().is_some_and(own)))
}

/// An event's type: its `type` or `event` member, when a string.
pub fn event_type(o: &Map<String, Value>) -> Option<&str> {
    o.get("type")
        .or_else(|| o.get("event"))
        .and_then(Value::as_str)
}

/// Codex's dotted event types (`codex exec --json`, `ThreadEvent`).
const CODEX_EVENTS: &[&str] = &[
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
];

/// The subtypes of Cursor's `tool_call` and `thinking` events.
const CURSOR_SUBTYPES: &[&str] = &["started", "completed", "delta"];

fn detect_object(o: &Map<String, Value>) -> Option<Producer> {
    if super::acp::is_recorded(o) {
        return Some(Producer::Acp);
    }
    // The flat error body of OpenAI-compatible servers (vLLM's `ErrorResponse`: `object`,
    // `message`, `type`, `param`, `code`).
    if o.get("object").and_then(Value::as_str) == Some("error")
        && o.get("message").is_some_and(Value::is_string)
    {
        return Some(Producer::OpenaiChat);
    }
    let ty = o.get("type").and_then(Value::as_str);
    let Some(ty) = ty else {
        return detect_untyped(o);
    };
    if o.contains_key("sessionID") {
        return Some(Producer::Opencode);
    }
    if let Some((head, _)) = ty.split_once('.') {
        // Codex claims its own dotted events only: Kimi Code's `turn.step.retrying` is not
        // Codex's (contract §3).
        return match head {
            _ if CODEX_EVENTS.contains(&ty) => Some(Producer::Codex),
            "response" => Some(Producer::OpenaiResponses),
            _ => None,
        };
    }
    match ty {
        "system" => Some(detect_system(o)),
        "assistant"
        | "user"
        | "stream_event"
        | "rate_limit_event"
        | "control_request"
        | "control_response"
        | "control_cancel_request"
        | "keep_alive" => Some(claude_like_variant(o)),
        // Cursor's `tool_call` and `thinking` events carry a `subtype` (`started`,
        // `completed`, `delta`); xAI Grok CLI's ACP-like `tool_call` has none.
        "tool_call" | "thinking"
            if o.get("subtype")
                .and_then(Value::as_str)
                .is_some_and(|s| CURSOR_SUBTYPES.contains(&s)) =>
        {
            Some(Producer::Cursor)
        }
        "interaction_query" => Some(Producer::Cursor),
        "result" => detect_result(o),
        "init" if o.get("timestamp").is_some_and(Value::is_string) => Some(Producer::GeminiCli),
        "tool_use" | "tool_result" if o.contains_key("tool_id") => Some(Producer::GeminiCli),
        "message" => {
            if o.get("content").is_some_and(Value::is_array) || o.contains_key("stop_reason") {
                Some(Producer::Anthropic)
            } else if o.get("content").is_some_and(Value::is_string) && o.contains_key("role") {
                Some(Producer::GeminiCli)
            } else {
                None
            }
        }
        // pi's `message_start` carries its own message (no `"type": "message"` in it).
        "message_start"
            if o.get("message")
                .and_then(|m| m.get("type"))
                .and_then(Value::as_str)
                == Some("message") =>
        {
            Some(Producer::Anthropic)
        }
        "content_block_start"
        | "content_block_delta"
        | "content_block_stop"
        | "message_delta"
        | "message_stop"
        | "ping" => Some(Producer::Anthropic),
        "error" => detect_error(o),
        "request_user_input" => Some(Producer::Codex),
        _ => None,
    }
}

/// A `system` event: Qwen Code's (its `session_start`, or its version named), else the Claude
/// Code family's.
fn detect_system(o: &Map<String, Value>) -> Producer {
    let sub = o.get("subtype").and_then(Value::as_str);
    if sub == Some("session_start") || o.contains_key("qwen_code_version") {
        Producer::QwenCode
    } else {
        claude_like_variant(o)
    }
}

/// A `result` event: Gemini CLI's, the Claude Code family's, or one sojx does not know.
fn detect_result(o: &Map<String, Value>) -> Option<Producer> {
    // Gemini CLI's result has a `status` and its `stats` or `timestamp`; IBM Bob Shell's
    // adds a `last_message`, which Gemini CLI never prints.
    if o.contains_key("status")
        && !o.contains_key("subtype")
        && (o.contains_key("stats") || o.get("timestamp").is_some_and(Value::is_string))
        && !o.contains_key("last_message")
    {
        return Some(Producer::GeminiCli);
    }
    // The Claude Code family's result has a `subtype` or `is_error`; GitHub Copilot CLI's
    // `{"type": "result", "sessionId", "exitCode", "usage"}` has neither.
    if o.get("subtype").is_some_and(Value::is_string)
        || o.get("is_error").is_some_and(Value::is_boolean)
    {
        return Some(claude_like_variant(o));
    }
    None
}

/// Claude Code, Amp, Cursor and Qwen Code share one event vocabulary; tell them apart by the
/// fields the collision table lists (`formats/other-producers.md` §15).
fn claude_like_variant(o: &Map<String, Value>) -> Producer {
    let sid = o.get("session_id").and_then(Value::as_str).unwrap_or("");
    if sid.starts_with("T-") {
        return Producer::Amp;
    }
    if o.contains_key("request_id") && o.get("type").and_then(Value::as_str) == Some("result") {
        return Producer::Cursor;
    }
    if let Some(u) = o.get("usage").and_then(Value::as_object)
        && (u.contains_key("inputTokens") || u.contains_key("outputTokens"))
    {
        return Producer::Cursor;
    }
    Producer::ClaudeCode
}

fn detect_error(o: &Map<String, Value>) -> Option<Producer> {
    // Gemini CLI's error event has a `severity` and a `timestamp`; IBM Bob Shell's has no
    // `timestamp`.
    if o.contains_key("severity") && o.get("timestamp").is_some_and(Value::is_string) {
        return Some(Producer::GeminiCli);
    }
    if o.contains_key("sequence_number") {
        return Some(Producer::OpenaiResponses);
    }
    if let Some(e) = o.get("error").and_then(Value::as_object) {
        if e.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| anthropic_error_type(t) || t == "error")
        {
            return Some(Producer::Anthropic);
        }
        if e.contains_key("code") || e.contains_key("param") {
            return Some(Producer::OpenaiResponses);
        }
        return Some(Producer::Anthropic);
    }
    if o.contains_key("errorText") {
        return None;
    }
    // Codex's bare error event (`{"type": "error", "message": …}`, `ThreadErrorEvent`) is
    // xAI Grok CLI's too: it claims nothing alone; a Codex stream is claimed by its dotted
    // events (`thread.started`), and its error events are read as Codex's then.
    None
}

fn detect_untyped(o: &Map<String, Value>) -> Option<Producer> {
    match o.get("object").and_then(Value::as_str) {
        Some("chat.completion" | "chat.completion.chunk") => return Some(Producer::OpenaiChat),
        Some("response") => return Some(Producer::OpenaiResponses),
        _ => {}
    }
    if o.get("done").is_some_and(Value::is_boolean) && o.contains_key("model") {
        return Some(Producer::Ollama);
    }
    if o.get("choices").is_some_and(Value::is_array) && o.contains_key("id") {
        return Some(Producer::OpenaiChat);
    }
    let gemini_keys = ["session_id", "response", "stats", "error", "warnings"];
    let gemini_shape = o.keys().all(|k| gemini_keys.contains(&k.as_str()));
    match o.get("error") {
        Some(Value::String(_)) if o.len() == 1 => return Some(Producer::Ollama),
        // Gemini CLI's `-o json` error object: `{session_id, error: {type, message, code?}}`.
        // Without `session_id` it is an HTTP error body (OpenAI, vLLM: `{error: {message, type,
        // param?, code}}`).
        Some(Value::Object(e))
            if gemini_shape
                && o.contains_key("session_id")
                && e.get("message").is_some_and(Value::is_string) =>
        {
            return Some(Producer::GeminiCli);
        }
        Some(Value::Object(e)) if !o.contains_key("session_id") && e.contains_key("message") => {
            return Some(Producer::OpenaiChat);
        }
        _ => {}
    }
    let meerkat_keys = o.contains_key("session_id")
        && o.contains_key("text")
        && (o.contains_key("turns") || o.contains_key("tool_calls"));
    if meerkat_keys
        || (o.contains_key("session_id")
            && (o.contains_key("structured_output") || o.contains_key("extraction_error"))
            && o.contains_key("text"))
    {
        return Some(Producer::Meerkat);
    }
    if (o.get("response").is_some_and(Value::is_string)
        || o.get("stats").is_some_and(Value::is_object))
        && gemini_shape
    {
        return Some(Producer::GeminiCli);
    }
    None
}

#[cfg(test)]
mod tests;
