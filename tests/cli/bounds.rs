//! What extraction keeps is bounded (issue 44, items 4 and 5): red-team streams of many small
//! events — tool calls with distinct ids, content blocks with distinct indices, error events,
//! fenced blocks — end in a typed outcome, with a bounded list of events in the envelope, never
//! in memory that grows with the input. `tests/bounds/redteam.py` makes the same streams as large
//! as a measurement of peak memory needs (docs/limits.md has the figures); here they are a few
//! megabytes.

use serde_json::{Value, json};

use crate::common::run_stdin;

/// One envelope with error kind `kind` and exit code 1, with `words` in its message.
fn fails_saying(r: &crate::common::Run, kind: &str, words: &str) {
    assert_eq!(r.kind(), Some(kind), "{}", r.stdout);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let m = r.one()["error"]["message"].as_str().unwrap();
    assert!(m.contains(words), "{m}");
}

/// `head`, then `body(n)` for each `n` in `0..count`, then `tail`, one line each.
fn stream(
    head: Option<&Value>,
    count: usize,
    body: impl Fn(usize) -> String,
    tail: Option<&Value>,
) -> String {
    let mut out = String::new();
    if let Some(v) = head {
        out.push_str(&format!("{v}\n"));
    }
    for n in 0..count {
        out.push_str(&body(n));
        out.push('\n');
    }
    if let Some(v) = tail {
        out.push_str(&format!("{v}\n"));
    }
    out
}

fn claude_call(id: &str, input: &Value) -> String {
    json!({"type":"assistant","message":{"content":[
        {"type":"tool_use","id":id,"name":"StructuredOutput","input":input}]}})
    .to_string()
}

fn claude_refusal(id: &str) -> String {
    json!({"type":"user","message":{"content":[
        {"type":"tool_result","tool_use_id":id,"is_error":true,"content":"no"}]}})
    .to_string()
}

fn claude(body: &str) -> String {
    let init = json!({"type":"system","subtype":"init","session_id":"s","model":"m","tools":["StructuredOutput"]});
    let result = json!({"type":"result","subtype":"success","is_error":false,"result":""});
    format!("{init}\n{body}{result}\n")
}

/// Calls with distinct ids are kept as the newest 64 not refused: the last call not refused is
/// the answer as before, and one that only a dropped call could be is a `parse` failure, never
/// the oldest guessed. A refusal stays remembered for a later call with its id.
#[test]
fn claude_keeps_the_newest_calls_and_never_guesses_a_dropped_one() {
    let calls: String = (0..5_000)
        .map(|n| claude_call(&format!("toolu_{n}"), &json!({"n": n})) + "\n")
        .collect();
    let r = run_stdin(&["extract"], claude(&calls));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"], json!({"n": 4999}));
    assert_eq!(r.one()["source"]["tool_use_id"], "toolu_4999");

    // Every call kept refused (the newest 64): the answer would be call 4935, which was dropped.
    let refusals: String = (4_936..5_000)
        .map(|n| claude_refusal(&format!("toolu_{n}")) + "\n")
        .collect();
    let r = run_stdin(&["extract"], claude(&(calls.clone() + &refusals)));
    fails_saying(&r, "parse", "more than 64 structured-output calls");
    // One more kept call that is not refused: it is the answer.
    let again = claude_call("toolu_late", &json!({"n": "late"})) + "\n";
    let r = run_stdin(&["extract"], claude(&(calls + &refusals + &again)));
    assert_eq!(r.one()["data"], json!({"n": "late"}), "{}", r.stdout);

    // A refused call made again with its id is refused too.
    let replay = claude_call("a", &json!({"n": 1}))
        + "\n"
        + &claude_refusal("a")
        + "\n"
        + &claude_call("a", &json!({"n": 1}))
        + "\n";
    let r = run_stdin(&["extract"], claude(&replay));
    assert_eq!(r.kind(), Some("not_found"), "{}", r.stdout);
}

/// A kept call's input counts by what it takes in memory once parsed, not by its text:
/// 8 calls of 100,000 zeros (200 KB of text each, 1.6 MB in all) take about 26 MB parsed, past
/// `--max-answer-bytes 4MiB` (before, counted as text, they were within it: 63 such calls of
/// 1 MiB held 2 GB resident under the default).
#[test]
fn claude_calls_count_by_their_parsed_size() {
    let zeros = json!({ "a": vec![0; 100_000] });
    let calls: String = (0..8)
        .map(|n| claude_call(&format!("toolu_{n}"), &zeros) + "\n")
        .collect();
    let r = run_stdin(&["extract", "--max-answer-bytes", "4MiB"], claude(&calls));
    fails_saying(&r, "parse", "grew past --max-answer-bytes");
    let r = run_stdin(&["extract", "--max-answer-bytes", "64MiB"], claude(&calls));
    assert_eq!(r.code, 0, "{}", r.stdout);
}

/// Tool results refusing calls of other tools (a long session's failed commands) are remembered
/// by id, the first 100,000 exactly and the others in a fixed-size filter, and count toward
/// `--max-answer-bytes`: a call whose refusal may be among the others is not taken (a `parse`
/// failure, never a guess); past the bytes, the input is a `parse` failure naming the flag.
#[test]
fn claude_refusals_are_bounded() {
    let refusals = |count: usize| -> String {
        (0..count)
            .map(|n| claude_refusal(&format!("t{n}")) + "\n")
            .collect()
    };
    let answer = claude_call("toolu_last", &json!({"verdict": "PASS"})) + "\n";
    let r = run_stdin(&["extract"], claude(&(refusals(150_000) + &answer)));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"], json!({"verdict": "PASS"}));
    // The call made again after a refusal sojx did not keep exactly: it may be refused.
    let refused = claude_refusal("toolu_last") + "\n";
    let r = run_stdin(
        &["extract"],
        claude(&(refusals(100_000) + &refused + &answer)),
    );
    fails_saying(&r, "parse", "more than 100000 tool calls were refused");
    fails_saying(
        &r,
        "parse",
        "call (id \"toolu_last\") was one of the others",
    );

    let r = run_stdin(
        &["extract", "--max-answer-bytes", "64KiB"],
        claude(&(refusals(20_000) + &answer)),
    );
    fails_saying(&r, "parse", "grew past --max-answer-bytes 65536");
}

/// Anthropic content blocks with distinct indices: at most 10,000 per message, then a `parse`
/// failure (an answer among the blocks cannot be chosen without them all).
#[test]
fn anthropic_blocks_are_bounded() {
    let start = json!({"type":"message_start","message":{"id":"msg","model":"m","content":[]}});
    let stop = json!({"type":"message_stop"});
    let delta = |n: usize| {
        json!({"type":"content_block_delta","index":n,"delta":{"type":"text_delta","text":""}})
            .to_string()
    };
    let r = run_stdin(
        &["extract"],
        stream(Some(&start), 10_001, delta, Some(&stop)),
    );
    fails_saying(&r, "parse", "more than 10000 content blocks in one message");
    assert_eq!(r.one()["producer"], "anthropic");
    // 10,000 are read as ever (empty text: no answer).
    let r = run_stdin(
        &["extract"],
        stream(Some(&start), 10_000, delta, Some(&stop)),
    );
    assert_eq!(r.kind(), Some("not_found"), "{}", r.stdout);
    // Tool blocks' names and ids count toward --max-answer-bytes.
    let tool = |n: usize| {
        json!({"type":"content_block_start","index":n,"content_block":{
            "type":"tool_use","id":format!("toolu_{n:030}"),"name":"t","input":{}}})
        .to_string()
    };
    let r = run_stdin(
        &["extract", "--max-answer-bytes", "64KiB"],
        stream(Some(&start), 5_000, tool, Some(&stop)),
    );
    fails_saying(&r, "parse", "grew past --max-answer-bytes 65536");
}

/// OpenAI tool calls with distinct indices: at most 10,000 per turn, and their ids count toward
/// `--max-answer-bytes` (they were kept outside it: 860 MB of them took 852 MB).
#[test]
fn openai_tool_calls_are_bounded() {
    let call = |n: usize| {
        format!(
            "data: {}\n",
            json!({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[
                {"index":n,"id":format!("call_{n:030}"),"function":{"arguments":""}}]}}]})
        )
    };
    let done = "data: [DONE]\n\n";
    let r = run_stdin(&["extract"], stream(None, 10_001, call, None) + done);
    fails_saying(&r, "parse", "more than 10000 tool calls in one turn");
    assert_eq!(r.one()["producer"], "openai-chat");
    let r = run_stdin(
        &["extract", "--max-answer-bytes", "64KiB"],
        stream(None, 5_000, call, None) + done,
    );
    fails_saying(&r, "parse", "grew past --max-answer-bytes 65536");
}

/// OpenAI Responses output items and Ollama tool calls: at most 10,000 per turn.
#[test]
fn responses_items_and_ollama_calls_are_bounded() {
    let item = |_| json!({"type":"response.output_item.done","item":{}}).to_string();
    let completed = json!({"type":"response.completed","response":{"object":"response","status":"completed","output":[]}});
    let r = run_stdin(&["extract"], stream(None, 10_001, item, Some(&completed)));
    fails_saying(&r, "parse", "more than 10000 output items in one response");

    let call = |_| {
        json!({"model":"m","done":false,"message":{"role":"assistant",
            "tool_calls":[{"function":{"name":"","arguments":{}}}]}})
        .to_string()
    };
    let done = json!({"model":"m","done":true,"done_reason":"stop","message":{"role":"assistant","content":""}});
    let r = run_stdin(&["extract"], stream(None, 10_001, call, Some(&done)));
    fails_saying(&r, "parse", "more than 10000 tool calls in one turn");
}

/// Gemini CLI `error` events of `severity: "error"`: the envelope lists the first 20 and counts
/// the others (it listed them all: 108 MB of events made a 101 MB envelope); a failed result
/// still names the last one.
#[test]
fn gemini_error_events_are_listed_up_to_20() {
    let t = "2026-11-27T08:39:10.465Z";
    let init = json!({"type":"init","timestamp":t,"session_id":"s","model":"m"});
    let error = |n: usize| {
        json!({"type":"error","timestamp":t,"severity":"error","message":format!("quota exceeded, attempt {n}")})
            .to_string()
    };
    let success = json!({"type":"result","timestamp":t,"status":"success"});
    let r = run_stdin(
        &["extract"],
        stream(Some(&init), 50_000, error, Some(&success)),
    );
    fails_saying(
        &r,
        "agent_error",
        "quota exceeded, attempt 0 (and 49999 more error events; error.details lists the first 20)",
    );
    let details = &r.one()["error"]["details"];
    let errors = details["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 20);
    assert_eq!(errors[19], "quota exceeded, attempt 19");
    assert_eq!(details["errors_omitted"], 49_980);
    assert!(r.stdout.len() < 4096, "{}", r.stdout.len());

    // Twenty are listed whole, without a count.
    let r = run_stdin(&["extract"], stream(Some(&init), 20, error, Some(&success)));
    assert!(
        r.one()["error"]["details"].get("errors_omitted").is_none(),
        "{}",
        r.stdout
    );

    let failed = json!({"type":"result","timestamp":t,"status":"error"});
    let r = run_stdin(
        &["extract"],
        stream(Some(&init), 50_000, error, Some(&failed)),
    );
    fails_saying(&r, "agent_error", "quota exceeded, attempt 49999");
}

/// Fenced blocks count toward `--max-candidates` as the prose scan's regions do: past it the
/// rest are not tried (1,600,000 blocks were all tried), and the run fails, since the last
/// block, the answer, was not reached (before, the last block tried was taken: exit 0 with an
/// earlier draft).
#[test]
fn fenced_blocks_count_toward_max_candidates() {
    let text = "Here are the values:\n".to_owned()
        + &(0..20_000)
            .map(|n| format!("```json\n{{\"n\":{n}}}\n```\n"))
            .collect::<String>();
    let r = run_stdin(&["extract", "--from", "text"], text.as_str());
    fails_saying(
        &r,
        "parse",
        "more fenced blocks of JSON than --max-candidates allows (10000)",
    );
    assert!(r.one().get("data").is_none(), "{}", r.stdout);

    let r = run_stdin(
        &["extract", "--from", "text", "--max-candidates", "20000"],
        text.as_str(),
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["source"]["kind"], "code_fence");
    assert_eq!(e["data"], json!({"n": 19_999}));
}
