//! Detection's tests: the collision table, a run's identity per producer and whoever wrote it.

use super::*;
use serde_json::json;

#[test]
fn detects_the_collision_table() {
    let cases = [
        (json!({"type":"error","message":"x"}), None),
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
        (json!({"error":"boom"}), Some(Producer::Ollama)),
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
fn a_sole_event_shaped_answer_is_claimed_only_with_its_producers_identity() {
    let cases = [
        (
            json!({"type":"error","message":"Disk full","severity":"high"}),
            None,
        ),
        (json!({"type":"result","score":3}), None),
        (
            json!({"type":"result","subtype":"error_max_turns"}),
            Some(Producer::ClaudeCode),
        ),
        (
            json!({"type":"result","subtype":"success","session_id":"s","result":"x"}),
            Some(Producer::ClaudeCode),
        ),
        (
            json!({"type":"result","status":"success","stats":{}}),
            Some(Producer::GeminiCli),
        ),
        (json!({"response":"hi"}), None),
        (
            json!({"response":"hi","stats":{}}),
            Some(Producer::GeminiCli),
        ),
        (
            json!({"type":"error","error":{"type":"overloaded_error","message":"m"}}),
            Some(Producer::Anthropic),
        ),
        (
            json!({"type":"message","role":"assistant","content":[]}),
            None,
        ),
        (
            json!({"id":"msg_1","type":"message","role":"assistant","content":[]}),
            Some(Producer::Anthropic),
        ),
        (
            json!({"object":"chat.completion","choices":[]}),
            Some(Producer::OpenaiChat),
        ),
        (
            json!({"model":"m","created_at":"t","done":true}),
            Some(Producer::Ollama),
        ),
    ];
    for (v, want) in cases {
        assert_eq!(detect_output(&v), want, "{v}");
    }
    // Every family with an extractor has its identity in the table (a described producer's
    // identity is its claiming events).
    for &p in Producer::ALL {
        if p.extractor().is_some() && p.family() != Family::Described {
            assert!(
                IDENTITY.iter().any(|i| i.family == p.family()),
                "{}",
                p.id()
            );
        }
    }
}

#[test]
fn a_runs_identity_whoever_wrote_it() {
    let yes = [
        json!({"text":"t","stopReason":"end_turn","sessionId":"s","num_turns":1}),
        json!({"type":"complete","total_tokens":5}),
        json!({"event":"result","result":{"conversation_id":"c","status":"ERROR"}}),
        json!({"answer":1,"usage":{"input_tokens":3}}),
    ];
    let no = [
        json!({"type":"result","score":3}),
        json!({"status":"ok","count":3}),
        json!({"usage":"light"}),
        json!({"usage":{"cpu":3}}),
        json!({"data":{"session_id":"s"}}),
        json!([{"session_id":"s"}]),
        json!("session_id"),
    ];
    for v in yes {
        assert!(run_identity(&v), "{v}");
    }
    for v in no {
        assert!(!run_identity(&v), "{v}");
    }
}

#[test]
fn key_order_does_not_matter() {
    let a: Value =
        serde_json::from_str(r#"{"subtype":"success","type":"result","is_error":false}"#).unwrap();
    assert_eq!(detect(&a), Some(Producer::ClaudeCode));
}
