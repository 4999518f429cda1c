//! Several tool calls in one turn (contract §4): which call's input is the answer. With
//! `--schema`, each call's input is a candidate and the last one that validates wins, chosen
//! as the text fallback chooses among its candidates ([`pick`]); when none validates, the last
//! call is the answer as a single call is (`validation_failed`, `json_invalid` or repaired).
//! Without a schema only a call to the schema-bound tool is an answer: calls that all name one
//! tool are calls to the only (or the forced) tool, and the last is the answer; calls to
//! different tools are `not_found`, each listed in `candidate`, never whichever came last.

use serde_json::{Value, json};

use crate::error::{ErrorKind, Failure, Operation};
use crate::producer::{SourceKind, ToolCall, Verdict, snippet};
use crate::warning::Warning;

use super::Options;
use super::candidate::{Chosen, coerces_valid, pick};

/// What the calls come to: a chosen value, or the call to take as a single call is taken.
pub(super) enum Pick {
    Chosen(Chosen),
    Call(Verdict),
}

/// Choose among `calls` (two or more, in order).
pub(super) fn choose(
    mut calls: Vec<ToolCall>,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Pick, Failure> {
    let n = calls.len();
    if let Some(schema) = opts.schema {
        let mut surrogates = Vec::new();
        let mut parsed: Vec<(usize, Value)> = calls
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let r = c.read()?;
                surrogates.push(r.lone_surrogates);
                Some((i, r.value))
            })
            .collect();
        let values: Vec<&Value> = parsed.iter().map(|(_, v)| v).collect();
        if let Some((j, checked)) = pick(&values, Some(schema), opts.coerce) {
            let valid = matches!(&checked, Some(Ok(v)) if v.is_empty())
                || opts.coerce && coerces_valid(schema, values[j]);
            // A valid call wins; when none is valid, the last parsed call is the report only
            // when it is the last call (a later call that is not JSON is the broken answer).
            if valid || parsed[j].0 == n - 1 {
                let (i, value) = parsed.swap_remove(j);
                let call = calls.swap_remove(i);
                if surrogates[j] {
                    warnings.push(Warning::lone_surrogate(call.line));
                }
                let detail = numbered(call.detail, i, n);
                return Ok(Pick::Chosen(Chosen {
                    checked,
                    ..Chosen::new(SourceKind::ToolInput, value, call.line, detail)
                }));
            }
        }
    } else if let Some(other) = calls.iter().find(|c| c.name != calls[0].name) {
        return Err(different_tools(&calls, &other.name));
    }
    let mut last = calls.pop().expect("two or more calls");
    last.detail = numbered(last.detail, n - 1, n);
    Ok(Pick::Call(last.into_verdict()))
}

/// `detail` with the call's place among the turn's calls: `candidate` (1-based) of
/// `candidates`.
fn numbered(
    mut detail: serde_json::Map<String, Value>,
    i: usize,
    n: usize,
) -> serde_json::Map<String, Value> {
    detail.insert("candidate".into(), json!(i + 1));
    detail.insert("candidates".into(), json!(n));
    detail
}

/// The `not_found` of calls to different tools without a schema: which call is the answer is
/// not known, so none is taken; `candidate` lists every call (name and input).
fn different_tools(calls: &[ToolCall], other: &str) -> Failure {
    let message = format!(
        "the turn called {} tools, not all the same ({} and {}), and without --schema none is \
         known to be the answer",
        calls.len(),
        snippet(&calls[0].name, 60),
        snippet(other, 60),
    );
    Failure::new(ErrorKind::NotFound, Operation::Extract, message)
        .hint(
            "pass --schema: the last call whose input validates is then the answer (or force \
             one tool in the request)",
        )
        .candidate(Value::Array(calls.iter().map(ToolCall::listed).collect()))
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::super::Options;
    use super::super::decide;
    use super::super::tests::schema;
    use crate::producer::{CallInput, Outcome, Producer, Session, ToolCall, Verdict};

    fn call(name: &str, input: CallInput) -> ToolCall {
        let mut detail = Map::new();
        detail.insert("tool".into(), Value::from(name));
        ToolCall {
            name: name.to_owned(),
            input,
            line: Some(4),
            detail,
        }
    }

    fn text(name: &str, t: &str) -> ToolCall {
        call(name, CallInput::Text(t.to_owned()))
    }

    fn run(calls: Vec<ToolCall>, opts: &Options<'_>) -> Value {
        let outcome = Outcome {
            producer: Producer::OpenaiChat,
            verdict: Verdict::Calls(calls),
            session: Session::default(),
            warnings: Vec::new(),
        };
        decide("r.json", outcome, Vec::new(), opts).into_value()
    }

    const PASS: &str = r#"{"verdict":"PASS"}"#;

    #[test]
    fn different_tools_without_a_schema_are_not_found_and_listed() {
        let calls = vec![
            text("answer", PASS),
            call("read_file", CallInput::Value(json!({"path": "x"}))),
        ];
        let env = run(calls, &Options::default());
        assert_eq!(env["error"]["kind"], "not_found", "{env}");
        assert_eq!(env["found"], false);
        assert!(env.get("data").is_none());
        assert_eq!(
            env["candidate"],
            json!([
                {"name": "answer", "input": {"verdict": "PASS"}},
                {"name": "read_file", "input": {"path": "x"}}
            ])
        );
        assert!(
            env["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("--schema"))
        );
        // An input that does not parse is listed as its text.
        let env = run(
            vec![text("a", "{\"x\":"), text("b", "{}")],
            &Options::default(),
        );
        assert_eq!(
            env["candidate"][0],
            json!({"name": "a", "input": "{\"x\":"})
        );
    }

    #[test]
    fn calls_to_one_tool_without_a_schema_give_the_last() {
        let env = run(
            vec![
                text("answer", PASS),
                text("answer", r#"{"verdict":"FAIL"}"#),
            ],
            &Options::default(),
        );
        assert_eq!(env["data"], json!({"verdict": "FAIL"}), "{env}");
        assert_eq!(
            env["source"],
            json!({"kind": "tool_input", "line": 4, "tool": "answer", "candidate": 2, "candidates": 2})
        );
    }

    #[test]
    fn with_a_schema_the_last_call_that_validates_wins() {
        let s = schema();
        let opts = Options {
            schema: Some(&s),
            ..Options::default()
        };
        let calls = || {
            vec![
                text("answer", PASS),
                call("read_file", CallInput::Value(json!({"path": "x"}))),
            ]
        };
        let env = run(calls(), &opts);
        assert_eq!(env["data"], json!({"verdict": "PASS"}), "{env}");
        assert_eq!(env["source"]["candidate"], 1);
        assert_eq!(env["source"]["candidates"], 2);
        assert_eq!(env["source"]["tool"], "answer");
        assert_eq!(env["validation"]["valid"], true);
        // A later valid call wins over an earlier one.
        let mut later = calls();
        later.push(text("answer", r#"{"verdict":"FAIL"}"#));
        let env = run(later, &opts);
        assert_eq!(env["data"], json!({"verdict": "FAIL"}));
        assert_eq!(env["source"]["candidate"], 3);
        // None valid: the last call fails validation, as a single call would.
        let env = run(
            vec![
                text("a", r#"{"verdict":"MAYBE"}"#),
                text("b", r#"{"path":"x"}"#),
            ],
            &opts,
        );
        assert_eq!(env["error"]["kind"], "validation_failed", "{env}");
        assert_eq!(env["candidate"], json!({"path": "x"}));
        assert_eq!(env["source"]["candidate"], 2);
        // None valid and the last call is not JSON: that call is json_invalid.
        let env = run(
            vec![text("a", r#"{"verdict":"MAYBE"}"#), text("b", "{")],
            &opts,
        );
        assert_eq!(env["error"]["kind"], "json_invalid", "{env}");
        // A valid call before a call that is not JSON still wins.
        let env = run(vec![text("a", PASS), text("b", "{")], &opts);
        assert_eq!(env["data"], json!({"verdict": "PASS"}), "{env}");
    }
}
