//! The Claude Code extractor's own tests.

use crate::framing::Item;
use crate::producer::{Extractor, FastPath, Producer, Verdict};
use serde_json::{Value, json};

fn answer(events: &[Value]) -> (Value, u64) {
    let mut c = Box::new(super::Claude::new(Producer::ClaudeCode));
    for (i, v) in events.iter().enumerate() {
        c.feed(&Item::Value {
            line: i as u64 + 1,
            value: v.clone(),
        });
    }
    match c.finish().verdict {
        Verdict::Value { value, line, .. } => (value, line.unwrap()),
        v => panic!("{v:?}"),
    }
}

#[test]
fn the_last_call_that_was_not_rejected_wins_even_with_repeated_ids() {
    let call = |id: &str, n: u64| {
        json!({"type":"assistant","message":{"content":[
            {"type":"tool_use","id":id,"name":"StructuredOutput","input":{"n":n}}]}})
    };
    let reject = |id: &str| {
        json!({"type":"user","message":{"content":[
            {"type":"tool_result","tool_use_id":id,"is_error":true}]}})
    };
    let result = json!({"type":"result","subtype":"success","is_error":false});
    let a = [call("t1", 1), call("t2", 2), call("t1", 3), result.clone()];
    assert_eq!(answer(&a), (json!({"n":3}), 3));
    let b = [
        call("t1", 1),
        call("t2", 2),
        call("t1", 3),
        reject("t1"),
        result.clone(),
    ];
    assert_eq!(answer(&b), (json!({"n":2}), 2));
    let c = [
        call("t2", 2),
        call("t1", 1),
        call("t2", 4),
        reject("t1"),
        result,
    ];
    assert_eq!(answer(&c), (json!({"n":4}), 3));
}

/// Lines the lean path takes or leaves to the full parse: each stream must end in the same
/// outcome read either way, whatever came before.
const LEAN_LINES: [&str; 28] = [
    r#"{"type":"system","subtype":"init","model":"m-init","session_id":"s1","tools":["Bash",{"n":1.5e3}]}"#,
    r#"{"type":"system","subtype":"init","model":null,"session_id":7}"#,
    r#"{"type":"system","subtype":"init","model":"m-q","qwen_code_version":"0.2","session_id":"q"}"#,
    r#"{"type":"system","subtype":"init","model":"m-dup","subtype":"api_retry","attempt":2,"max_retries":10,"error":"unknown"}"#,
    r#"{"type":"system","subtype":"init","session_id":"T-7","model":"amp"}"#,
    r#"{"type":"assistant","message":{"model":"m-text","content":[{"type":"text","text":"one"},{"type":"tool_use","id":"b","name":"Bash","input":{"c":"ls"}},{"type":"text","text":" two\n"}]}}"#,
    r#"{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text"},{"type":"thinking","text":"not text"}]}}"#,
    r#"{"type":"assistant","error":"rate_limit","message":{"content":[{"type":"text","text":"API Error: 429"}]}}"#,
    r#"{"type":"assistant","message":{"content":[{"type":"text","text":"a","text":"b"}]}}"#,
    r#"{"type":"assistant","message":{"content":[{"type":"text","text":"dup"}]},"type":"result","subtype":"success"}"#,
    r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"StructuredOutput","input":{"n":1}}]}}"#,
    r#"{"type":"assistant","message":{"content":"plain text"}}"#,
    r#"{"type":"assistant","message":null,"session_id":"T-1"}"#,
    r#"{"type":"assistant","usage":{"outputTokens":1},"message":{"content":[{"type":"text","text":"cursor"}]}}"#,
    r#"{"type":"assistant","message":{"content":[{"type":"text","text":5}]}}"#,
    r#"{"type":"assistant","message":{"content":[{"type":"text","text":"x"}],"n":01}}"#,
    "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"ctl\u{1}\"}]}}",
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"true"}]}]}}"#,
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":false,"is_error":true}]}}"#,
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":"yes"}]}}"#,
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"true"}]}}"#,
    r#"{"type":"assistant","message":["m-array",[["text","from an array"]]]}"#,
    r#"{"type":"user","message":{"content":[["tool_result",null,null,"t1",true]]}}"#,
    r#"{"type":"assistant","sessionID":"o","session_id":"T-5","message":{"content":[{"type":"text","text":"oc"}]}}"#,
    r#"{"type":"result","subtype":"success","is_error":false,"result":"r","structured_output":{"n":1}}"#,
    r#"{"type":"stream_event","event":{}}"#,
    r#"{"type":"system","subtype":"init","session_id":"q2","tools":["read_file","structured_output"]}"#,
    r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,"duration_api_ms":5,"error":{"message":"m"}}"#,
];

/// The outcome of `lines` fed as values, or through the lean path where it takes them.
fn outcome(lines: &[&str], lean: bool) -> String {
    let mut c = Box::new(super::Claude::new(Producer::ClaudeCode));
    for (i, l) in lines.iter().enumerate() {
        let line = i as u64 + 1;
        if lean && c.feed_lean(line, l.as_bytes()) {
            continue;
        }
        if let Ok(value) = serde_json::from_str::<Value>(l) {
            c.feed(&Item::Value { line, value });
        }
    }
    format!("{:?}", c.finish())
}

#[test]
fn the_lean_path_ends_where_the_full_parse_does() {
    let n = LEAN_LINES.len();
    let mut taken = 0;
    for (i, a) in LEAN_LINES.iter().enumerate() {
        taken += usize::from(super::Claude::new(Producer::ClaudeCode).feed_lean(1, a.as_bytes()));
        // Every pair, in both orders, and three in a row, each with a result line after.
        for b in LEAN_LINES.iter().skip(i) {
            let c = LEAN_LINES[(i * 7 + 3) % n];
            let r = LEAN_LINES[24];
            for lines in [[*a, *b, c, r], [*b, *a, c, r], [c, *a, *b, *a]] {
                assert_eq!(outcome(&lines, true), outcome(&lines, false), "{lines:#?}");
            }
        }
    }
    // Nested past serde_json's recursion limit: junk to the full parse, so not read lean.
    let deep = format!(
        r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"deep"}}]}},"x":{}{}}}"#,
        "[".repeat(130),
        "]".repeat(130)
    );
    let lines = [LEAN_LINES[5], deep.as_str(), LEAN_LINES[24]];
    assert_eq!(outcome(&lines, true), outcome(&lines, false));
    assert!(!super::Claude::new(Producer::ClaudeCode).feed_lean(1, deep.as_bytes()));
    // The lean path takes the plain lines and leaves the others.
    assert_eq!(taken, 8, "lines read lean");
}

/// Several tool calls in one assistant turn (contract §4): only a `StructuredOutput` call is an
/// answer, the last accepted one; another tool's input never is, whatever its place, read in
/// full or lean.
#[test]
fn only_structured_output_calls_answer_in_a_turn_of_several_calls() {
    let turn = |blocks: Value| json!({"type":"assistant","message":{"content":blocks}});
    let so = |id: &str, n: u64| json!({"type":"tool_use","id":id,"name":"StructuredOutput","input":{"n":n}});
    let other = |id: &str| json!({"type":"tool_use","id":id,"name":"Read","input":{"path":"x"}});
    let result = json!({"type":"result","subtype":"success","is_error":false,"result":"done"});
    // A StructuredOutput call then another tool's: the StructuredOutput input.
    let a = [turn(json!([so("s1", 1), other("r1")])), result.clone()];
    assert_eq!(answer(&a), (json!({"n":1}), 1));
    // Two StructuredOutput calls in one turn: the last accepted.
    let b = [
        turn(json!([so("s1", 1), so("s2", 2), other("r1")])),
        result.clone(),
    ];
    assert_eq!(answer(&b), (json!({"n":2}), 1));
    let reject = json!({"type":"user","message":{"content":[
        {"type":"tool_result","tool_use_id":"s2","is_error":true}]}});
    let c = [
        turn(json!([so("s1", 1), so("s2", 2)])),
        reject,
        result.clone(),
    ];
    assert_eq!(answer(&c), (json!({"n":1}), 1));
    // Another tool's call alone is no answer: the result text is.
    let lines: Vec<String> = [turn(json!([other("r1"), other("r2")])), result]
        .iter()
        .map(Value::to_string)
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    for lean in [true, false] {
        let got = outcome(&lines, lean);
        assert!(got.contains("Text { text: \"done\""), "{got}");
    }
}

/// Qwen Code's `--json-schema` run that failed after its model answered in text is an answer
/// failure (`details.cause: no_structured_output`, the text as `candidate`), decided by the
/// stream's structure: the tool offered, the model's last message text without a tool call, not
/// an API error; a run with no turn and no API time never reached the model (not retryable).
/// Read in full or lean alike (issue 40, items 2 and 6).
#[test]
fn qwen_prose_under_a_schema_and_a_run_that_never_reached_the_model() {
    let init = |tools: &str| {
        format!(
            r#"{{"type":"system","subtype":"init","session_id":"q","qwen_code_version":"0.24.4","tools":{tools}}}"#
        )
    };
    let text = |t: &str| {
        format!(
            r#"{{"type":"assistant","session_id":"q","message":{{"content":[{{"type":"text","text":"{t}"}}]}}}}"#
        )
    };
    let call = r#"{"type":"assistant","session_id":"q","message":{"content":[{"type":"text","text":"let me look"},{"type":"tool_use","id":"c1","name":"read_file","input":{}}]}}"#;
    let tool_result = r#"{"type":"user","session_id":"q","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":"x"}]}}"#;
    let failed = r#"{"type":"result","subtype":"error_during_execution","session_id":"q","is_error":true,"num_turns":1,"duration_api_ms":281,"error":{"message":"Model produced plain text"}}"#;
    let schema_tools = r#"["read_file","structured_output"]"#;
    let prose = "cause: Some(\"no_structured_output\")";
    let cases: [(Vec<String>, Option<&str>); 6] = [
        (
            vec![init(schema_tools), text("I think it passes."), failed.into()],
            Some(prose),
        ),
        // The same text after a tool call ended the turn: still prose.
        (
            vec![
                init(schema_tools),
                call.into(),
                tool_result.into(),
                text("It passes."),
                failed.into(),
            ],
            Some(prose),
        ),
        // Offline: an API error turned into text is no answer of the model's.
        (
            vec![
                init(schema_tools),
                text("[API Error: Connection error. (cause: fetch failed)]"),
                failed.into(),
            ],
            None,
        ),
        // No schema: the tool was not offered.
        (
            vec![init(r#"["read_file"]"#), text("I think it passes."), failed.into()],
            None,
        ),
        // The run failed while a tool ran, not on the model's text.
        (
            vec![init(schema_tools), call.into(), tool_result.into(), failed.into()],
            None,
        ),
        // No turn and no API time (Qwen Code without an auth type): never reached the model.
        (
            vec![r#"{"type":"result","subtype":"error_during_execution","session_id":"q","is_error":true,"duration_ms":0,"duration_api_ms":0,"num_turns":0,"error":{"message":"No auth type is selected."}}"#.into()],
            Some("cause: Some(\"never_reached_model\")"),
        ),
    ];
    for (lines, cause) in cases {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        for lean in [true, false] {
            let got = outcome(&lines, lean);
            match cause {
                Some(c) => assert!(got.contains(c), "{lines:#?}\n{got}"),
                None => assert!(!got.contains("cause: Some("), "{lines:#?}\n{got}"),
            }
            assert_eq!(
                got.contains("candidate: Some(String(\"I think it passes.\"))"),
                cause == Some(prose) && lines[1].contains("I think"),
                "{got}"
            );
            assert_eq!(
                got.contains("retryable: false"),
                cause.is_some_and(|c| c.contains("never")),
                "{got}"
            );
        }
    }
}

/// A StructuredOutput call the CLI's own check refused, then prose (issue 40, item 3): the
/// refusal's words are kept, read lean or in full, and name the failure when the prose holds no
/// JSON value; a run without a schema stays plain text.
#[test]
fn a_refused_structured_output_call_names_the_failure_of_the_prose_after_it() {
    let init = r#"{"type":"system","subtype":"init","session_id":"s","tools":["Bash","StructuredOutput"]}"#;
    let call = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"StructuredOutput","input":{"verdict":"MAYBE"}}]}}"#;
    let refused = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Output does not match required schema: /verdict: must be equal to one of the allowed values"}]}}"#;
    let prose = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"I could not decide."}]}}"#;
    let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"I could not decide.","session_id":"s"}"#;
    let lines = [init, call, refused, prose, result];
    let full = outcome(&lines, false);
    assert_eq!(outcome(&lines, true), full);
    assert!(full.contains("Prose"), "{full}");
    assert!(
        full.contains("refused 1 StructuredOutput call(s)") && full.contains("/verdict: must be"),
        "{full}"
    );
    // The refusal is left to the full parse; an ordinary tool error is read lean.
    let mut c = super::Claude::new(Producer::ClaudeCode);
    c.feed(&Item::Value {
        line: 2,
        value: serde_json::from_str(call).unwrap(),
    });
    assert!(!c.feed_lean(3, refused.as_bytes()));
    assert!(c.feed_lean(3, refused.replace("t1", "t2").as_bytes()));
    // No schema offered: the prose is plain text, as before.
    let plain = outcome(&[prose, result], false);
    assert!(
        plain.contains("Text") && !plain.contains("Prose"),
        "{plain}"
    );
}

/// A refusal is named in the failure it explains (`error_max_structured_output_retries`), not
/// in another failure after it (a cancelled run, an API error).
#[test]
fn a_refusal_is_named_only_where_it_is_the_cause() {
    let init =
        r#"{"type":"system","subtype":"init","session_id":"s","tools":["StructuredOutput"]}"#;
    let call = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"StructuredOutput","input":{}}]}}"#;
    let refused = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Output does not match required schema: /verdict: required"}]}}"#;
    let ended = |subtype: &str| {
        format!(
            r#"{{"type":"result","subtype":"{subtype}","is_error":true,"errors":["gave up"],"num_turns":2,"duration_api_ms":10,"session_id":"s"}}"#
        )
    };
    let max = ended("error_max_structured_output_retries");
    let out = outcome(&[init, call, refused, &max], false);
    assert!(
        out.contains("/verdict: required") && out.contains("rejected"),
        "{out}"
    );
    let other = ended("error_during_execution");
    let out = outcome(&[init, call, refused, &other], false);
    assert!(!out.contains("/verdict: required"), "{out}");
}
