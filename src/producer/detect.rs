//! Detection: which producer wrote a value, from the value alone, whatever its key order. Each
//! item is looked at until one is decisive (`formats/other-producers.md` §15 lists the
//! collisions this resolves).

use serde_json::{Map, Value};

use super::Producer;

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

/// [`detect`] for a value that was not read as an event of a stream: one salvaged from a line
/// with other text on it, or found inside answer text. Only shapes that carry a run's identity
/// count — a dotted event type (`turn.completed`), a session, thread, message or request id, a
/// timestamp, an `object` or `stats` member, or an error object with a message — so that prose
/// quoting a small `{"type": "result", "value": 3}` stays prose.
pub fn detect_output(v: &Value) -> Option<Producer> {
    const IDENTITY: [&str; 12] = [
        "session_id",
        "sessionID",
        "thread_id",
        "uuid",
        "id",
        "request_id",
        "timestamp",
        "created_at",
        "sequence_number",
        "object",
        "stats",
        "response",
    ];
    match v {
        Value::Array(items) => claude_like_array(items, detect_output),
        Value::Object(o) => {
            let p = detect_object(o)?;
            let dotted = o
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.contains('.'));
            // An HTTP error body is `{"error": {…, "message"}}` and nothing else; an answer
            // such as `{"ok": false, "error": {"message": "3 tests failed"}}` is an answer.
            let error_object = o.len() == 1
                && o.get("error")
                    .is_some_and(|e| e.get("message").is_some_and(Value::is_string));
            (dotted || error_object || IDENTITY.iter().any(|k| o.contains_key(*k))).then_some(p)
        }
        _ => None,
    }
}

fn detect_object(o: &Map<String, Value>) -> Option<Producer> {
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
        return match head {
            "thread" | "turn" | "item" => Some(Producer::Codex),
            "response" => Some(Producer::OpenaiResponses),
            _ => None,
        };
    }
    match ty {
        "system" => {
            let sub = o.get("subtype").and_then(Value::as_str);
            if sub == Some("session_start") || o.contains_key("qwen_code_version") {
                Some(Producer::QwenCode)
            } else {
                Some(claude_like_variant(o))
            }
        }
        "assistant"
        | "user"
        | "stream_event"
        | "rate_limit_event"
        | "control_request"
        | "control_response"
        | "control_cancel_request"
        | "keep_alive" => Some(claude_like_variant(o)),
        "tool_call" | "thinking" | "interaction_query" => Some(Producer::Cursor),
        "result" => {
            if o.contains_key("status") && !o.contains_key("subtype") {
                Some(Producer::GeminiCli)
            } else {
                Some(claude_like_variant(o))
            }
        }
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
        "message_start"
        | "content_block_start"
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
    if o.contains_key("severity") {
        return Some(Producer::GeminiCli);
    }
    if o.contains_key("sequence_number") {
        return Some(Producer::OpenaiResponses);
    }
    if let Some(e) = o.get("error").and_then(Value::as_object) {
        if e.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.ends_with("_error") || t == "error")
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
    // Codex's bare error event is `{"type": "error", "message": …}` and nothing else
    // (`ThreadErrorEvent`).
    if o.get("message").is_some_and(Value::is_string) && o.len() == 2 {
        return Some(Producer::Codex);
    }
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
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_the_collision_table() {
        let cases = [
            (json!({"type":"error","message":"x"}), Some(Producer::Codex)),
            (
                json!({"type":"error","timestamp":"t","severity":"error","message":"x"}),
                Some(Producer::GeminiCli),
            ),
            (
                json!({"type":"error","error":{"type":"overloaded_error","message":"x"}}),
                Some(Producer::Anthropic),
            ),
            (
                json!({"type":"error","sequence_number":2,"error":{"code":"c"}}),
                Some(Producer::OpenaiResponses),
            ),
            (
                json!({"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"E"}}),
                Some(Producer::Opencode),
            ),
            (json!({"error":"boom"}), Some(Producer::Ollama)),
            (
                json!({"session_id":"s","error":{"type":"Error","message":"m","code":41}}),
                Some(Producer::GeminiCli),
            ),
            (
                json!({"error":{"type":"BadRequestError","message":"m","code":400}}),
                Some(Producer::OpenaiChat),
            ),
            (
                json!({"object":"error","message":"m","type":"NotFoundError","param":null,"code":404}),
                Some(Producer::OpenaiChat),
            ),
            (
                json!({"error":{"message":"m","type":"t","param":null,"code":"invalid_api_key"}}),
                Some(Producer::OpenaiChat),
            ),
            (
                json!({"error":{"message":"m","type":"t","code":"c","param":null}}),
                Some(Producer::OpenaiChat),
            ),
            (
                json!({"type":"result","status":"success","stats":{}}),
                Some(Producer::GeminiCli),
            ),
            (
                json!({"type":"result","subtype":"success","request_id":"1"}),
                Some(Producer::Cursor),
            ),
            (
                json!({"type":"result","subtype":"success","session_id":"T-1"}),
                Some(Producer::Amp),
            ),
            (
                json!({"type":"system","subtype":"session_start"}),
                Some(Producer::QwenCode),
            ),
            (
                json!({"type":"system","subtype":"init","claude_code_version":"2"}),
                Some(Producer::ClaudeCode),
            ),
            (
                json!({"type":"message","role":"assistant","content":[]}),
                Some(Producer::Anthropic),
            ),
            (
                json!({"type":"message","role":"assistant","content":"hi","timestamp":"t"}),
                Some(Producer::GeminiCli),
            ),
            (
                json!({"model":"m","created_at":"t","done":false}),
                Some(Producer::Ollama),
            ),
            (json!({"name":"Rex","age":3}), None),
            (json!([1, 2]), None),
        ];
        for (v, want) in cases {
            assert_eq!(detect(&v), want, "{v}");
        }
    }

    #[test]
    fn outputs_need_a_runs_identity() {
        let cases = [
            (json!({"type":"error","message":"Disk full"}), None),
            (json!({"type":"result","value":3}), None),
            (json!({"error":"boom"}), None),
            (
                json!({"ok":false,"error":{"message":"3 tests failed"}}),
                None,
            ),
            (json!({"type":"error","message":"x","timestamp":"t"}), None),
            (json!([{"type":"user","message":"x"}]), None),
            (
                json!({"type":"init","timestamp":"t","session_id":"s","model":"m"}),
                Some(Producer::GeminiCli),
            ),
            (
                json!({"type":"user","message":{},"session_id":"s"}),
                Some(Producer::ClaudeCode),
            ),
            (json!({"type":"turn.completed"}), Some(Producer::Codex)),
            (
                json!({"session_id":"s","error":{"type":"Error","message":"m","code":41}}),
                Some(Producer::GeminiCli),
            ),
            (
                json!({"error":{"message":"m","type":"t","param":null,"code":"c"}}),
                Some(Producer::OpenaiChat),
            ),
            (
                json!([{"type":"result","subtype":"success","session_id":"s"}]),
                Some(Producer::ClaudeCode),
            ),
        ];
        for (v, want) in cases {
            assert_eq!(detect_output(&v), want, "{v}");
        }
    }

    #[test]
    fn key_order_does_not_matter() {
        let a: Value =
            serde_json::from_str(r#"{"subtype":"success","type":"result","is_error":false}"#)
                .unwrap();
        assert_eq!(detect(&a), Some(Producer::ClaudeCode));
    }
}
