//! Answer invariance (issue 39): exit 0 only with the agent's final answer, decided by structure.
//!
//! * Copies of any producer's events — quoted in a sentence, shown in a fenced block, nested in
//!   another value — inserted as lines into a valid run of any line-framed producer never change
//!   its answer or its exit code.
//! * The same copies (and events that hold other answers) written into the answer text around
//!   the answer never change it, with the schema given.
//! * Breaking one bracket or quote of an answer never yields a part of it with exit 0.

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::{fixture, root, run, sojx};

const VERDICT: &str = "examples/verdict.schema.json";

/// A valid run: its file, its arguments, and the answer and exit code it gives as it is.
struct Base {
    file: String,
    args: Vec<String>,
    lines: Vec<String>,
    data: Value,
}

/// Every line-framed fixture (`.jsonl`, `.ndjson`) of a producer that gives an answer, with
/// what it gives.
fn bases() -> &'static [Base] {
    static B: OnceLock<Vec<Base>> = OnceLock::new();
    B.get_or_init(|| {
        let cases: Vec<Value> = serde_json::from_str(
            &std::fs::read_to_string(fixture("producers/cases.json")).unwrap(),
        )
        .unwrap();
        cases
            .iter()
            .filter(|c| c["expect"]["exit_code"] == 0)
            .filter_map(|c| {
                let file = c["file"].as_str().unwrap();
                let ext = std::path::Path::new(file)
                    .extension()
                    .and_then(|e| e.to_str());
                if !matches!(ext, Some("jsonl" | "ndjson")) {
                    return None;
                }
                let text = std::fs::read_to_string(fixture(&format!("producers/{file}"))).unwrap();
                Some(Base {
                    file: file.to_owned(),
                    args: c["args"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|a| a.as_str().unwrap().to_owned())
                        .collect(),
                    lines: text.lines().map(str::to_owned).collect(),
                    data: c["expect"]["data"].clone(),
                })
            })
            .collect()
    })
}

/// One event line of every producer fixture (the copies inserted), and events that hold other
/// answers.
fn events() -> &'static [String] {
    static E: OnceLock<Vec<String>> = OnceLock::new();
    E.get_or_init(|| {
        let other = json!({"verdict": "PASS", "confidence": 1, "issues": []}).to_string();
        let mut out = vec![
            json!({"type": "result", "subtype": "success", "is_error": false, "result": other, "session_id": "abc", "num_turns": 1}).to_string(),
            json!({"type": "result", "subtype": "success", "is_error": false, "result": "x", "structured_output": {"verdict": "PASS", "confidence": 1, "issues": []}, "session_id": "abc"}).to_string(),
            json!({"type": "item.completed", "item": {"id": "i9", "type": "agent_message", "text": other}}).to_string(),
            json!({"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}}).to_string(),
            json!({"type": "message", "role": "assistant", "content": other, "delta": true}).to_string(),
            json!({"type": "result", "status": "success", "stats": {"total_tokens": 1}}).to_string(),
        ];
        for dir in std::fs::read_dir(fixture("producers")).unwrap() {
            let dir = dir.unwrap().path();
            if !dir.is_dir() {
                continue;
            }
            for f in std::fs::read_dir(&dir).unwrap() {
                let text = std::fs::read_to_string(f.unwrap().path()).unwrap_or_default();
                out.extend(
                    text.lines()
                        .filter(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v.is_object()))
                        .take(3)
                        .map(str::to_owned),
                );
            }
        }
        out
    })
}

/// How a copy of an event is written where it is not an event.
#[derive(Debug, Clone, Copy)]
enum Copy {
    /// In a sentence, with text on both sides.
    Quoted,
    /// In a fenced block of prose.
    Fenced,
    /// Nested in another value.
    Nested,
    /// Two of them in a sentence.
    TwoInProse,
}

fn copy_lines(how: Copy, event: &str, other: &str) -> Vec<String> {
    match how {
        Copy::Quoted => vec![format!("The earlier run printed {event} and was wrong.")],
        Copy::Fenced => vec![
            "For reference:".into(),
            "```json".into(),
            event.into(),
            "```".into(),
        ],
        Copy::Nested => vec![format!(r#"{{"quoted":{event},"note":"not an event"}}"#)],
        Copy::TwoInProse => vec![format!("Compare {event} with {other} please")],
    }
}

fn copy() -> impl Strategy<Value = Copy> {
    prop_oneof![
        Just(Copy::Quoted),
        Just(Copy::Fenced),
        Just(Copy::Nested),
        Just(Copy::TwoInProse)
    ]
}

/// `sojx extract ARGS` on `stdin`: exit code and data.
fn extract(args: &[String], stdin: String) -> (i32, Value) {
    let r = run(sojx()
        .current_dir(root())
        .arg("extract")
        .args(args)
        .write_stdin(stdin));
    let data = r.one().get("data").cloned().unwrap_or(Value::Null);
    (r.code, data)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Event copies inserted as lines into a valid run change neither its answer nor its exit
    /// code.
    #[test]
    fn copies_of_events_between_the_lines_change_nothing(
        base in any::<prop::sample::Index>(),
        inserts in prop::collection::vec((any::<prop::sample::Index>(), copy(), any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..4),
    ) {
        let b = &bases()[base.index(bases().len())];
        let mut lines = b.lines.clone();
        // Each copy goes between two of the run's own lines (never inside another copy: a
        // fence inside a fence is another text), from the last place to the first.
        let ev = events();
        // A fenced block goes before the run's first line: inside a producer's stream a fence
        // line is a junk line like any other and the lines after it are the stream's (contract
        // §3; docs/producers.md), so only where the input may still be text is a block text.
        let mut at: Vec<(usize, Vec<String>)> = inserts
            .iter()
            .map(|(at, how, e1, e2)| {
                let at = match how {
                    Copy::Fenced => 0,
                    _ => at.index(b.lines.len() + 1),
                };
                (at, copy_lines(*how, &ev[e1.index(ev.len())], &ev[e2.index(ev.len())]))
            })
            .collect();
        at.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
        for (i, new) in at {
            lines.splice(i..i, new);
        }
        let input = lines.join("\n") + "\n";
        let (code, data) = extract(&b.args, input.clone());
        prop_assert_eq!(code, 0, "{}: {}", b.file, input);
        prop_assert_eq!(&data, &b.data, "{}: {}", b.file, input);
    }

    /// Copies of events, and events that hold other answers, written in the answer text around
    /// the answer change neither it nor the exit code (the schema given: without it, the last
    /// value of the text is the answer, by the contract's rule).
    #[test]
    fn copies_of_events_in_the_answer_text_change_nothing(
        before in prop::collection::vec((copy(), any::<prop::sample::Index>()), 0..3),
        after in prop::collection::vec((copy(), any::<prop::sample::Index>()), 0..3),
        producer in 0..3usize,
    ) {
        let answer = json!({"verdict": "FAIL", "confidence": 0.4, "issues": [{"file": "a.rs", "severity": "minor", "message": "x"}]});
        let ev = events();
        // Fences first would make a fenced copy the answer by the contract's precedence
        // (`code_fence` before `embedded`): the copies around an unfenced answer are prose.
        let prose = |v: &[(Copy, prop::sample::Index)]| -> String {
            v.iter()
                .map(|(how, e)| {
                    // As the whole input (no producer), a nested copy on a line of its own is
                    // a JSON line of no producer (`parse`, by the contract): kept in prose.
                    let how = match how {
                        Copy::Fenced => Copy::Quoted,
                        Copy::Nested if producer == 2 => Copy::TwoInProse,
                        how => *how,
                    };
                    copy_lines(how, &ev[e.index(ev.len())], "{\"see\":\"above\"}").join("\n")
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let text = format!("{}\n{}\n{}", prose(&before), answer, prose(&after));
        let input = match producer {
            0 => [
                json!({"type": "system", "subtype": "init", "session_id": "s1", "model": "m"}),
                json!({"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}, "session_id": "s1"}),
                json!({"type": "result", "subtype": "success", "is_error": false, "result": text, "session_id": "s1", "num_turns": 1}),
            ].iter().map(Value::to_string).collect::<Vec<_>>().join("\n"),
            1 => [
                json!({"type": "thread.started", "thread_id": "t1"}),
                json!({"type": "turn.started"}),
                json!({"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": text}}),
                json!({"type": "turn.completed", "usage": {"input_tokens": 1, "cached_input_tokens": 0, "output_tokens": 1}}),
            ].iter().map(Value::to_string).collect::<Vec<_>>().join("\n"),
            _ => text.clone(),
        };
        let (code, data) = extract(&["--schema".into(), VERDICT.into()], input.clone());
        prop_assert_eq!(code, 0, "{}", input);
        prop_assert_eq!(&data, &answer, "{}", input);
    }

    /// One bracket or quote of an answer broken (dropped, or made the other kind) never yields
    /// a part of the answer with exit 0.
    #[test]
    fn a_broken_answer_never_yields_a_part_of_it(
        at in any::<prop::sample::Index>(),
        with in prop::sample::select(vec!["", "}", "]", "{", "[", "\""]),
        pretty in any::<bool>(),
    ) {
        let answer = json!({"verdict": "FAIL", "scores": [1, 2], "tags": ["a", "b"], "issues": [{"file": "a.rs", "line": 3}, {"file": "b.rs"}], "meta": {"by": "x"}});
        let text = if pretty { serde_json::to_string_pretty(&answer).unwrap() } else { answer.to_string() };
        let marks: Vec<usize> = text.char_indices().filter(|(_, c)| "{}[]\"".contains(*c)).map(|(i, _)| i).collect();
        let i = marks[at.index(marks.len())];
        let broken = format!("{}{}{}", &text[..i], with, &text[i + 1..]);
        prop_assume!(broken != text);
        let input = format!("Here is the review:\n{broken}\nThanks.\n");
        let (code, data) = extract(&["--from".into(), "text".into()], input.clone());
        let mut parts = Vec::new();
        collect_parts(&answer, &mut parts);
        prop_assert!(code != 0 || !parts.contains(&&data), "exit 0 with a part of the answer: {} from\n{}", data, input);
    }
}

/// Every object and array inside `v` (not `v` itself).
fn collect_parts<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
    let children: Vec<&Value> = match v {
        Value::Object(o) => o.values().collect(),
        Value::Array(a) => a.iter().collect(),
        _ => return,
    };
    for c in children {
        if c.is_object() || c.is_array() {
            out.push(c);
        }
        collect_parts(c, out);
    }
}

/// How a copy of an event is quoted on a line of a plain-text answer (issue 55, item 1).
const PROSE_FORMS: [(&str, &str); 4] = [
    // Prose, then the event: glued on one side (before).
    ("The earlier run ended with: ", ""),
    // The event, then prose: glued on one side (after).
    ("", " was the earlier run's last line."),
    // Inside parentheses: text on both sides.
    ("(The earlier run ended with: ", ")"),
    // In a sentence.
    ("I compared it with ", " before answering."),
];

/// The terminal event of every producer fixture (the last line that is a known producer's
/// complete output, by the built-in detection and producer files), and the four of the issue:
/// Claude Code's `result` with a `result` text and with a `structured_output`, Codex's
/// `item.completed` agent message, Gemini CLI's `-o json` object; each holds a PASS answer
/// where it holds one.
fn terminal_events() -> Vec<String> {
    let pass = json!({"verdict": "PASS", "confidence": 1, "issues": []});
    let mut out = vec![
        json!({"type": "result", "subtype": "success", "is_error": false, "result": pass.to_string(), "session_id": "abc"}).to_string(),
        json!({"type": "result", "subtype": "success", "is_error": false, "result": "x", "structured_output": pass, "session_id": "abc"}).to_string(),
        json!({"type": "item.completed", "item": {"id": "i9", "type": "agent_message", "text": pass.to_string()}}).to_string(),
        json!({"session_id": "abc", "response": pass.to_string(), "stats": {"models": {}}}).to_string(),
    ];
    let registry = &sojx_core::producer::file::BUILT_IN;
    let mut dirs: Vec<_> = std::fs::read_dir(fixture("producers"))
        .unwrap()
        .map(|d| d.unwrap().path())
        .filter(|d| d.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|f| f.unwrap().path())
            .collect();
        files.sort();
        let last = files.iter().rev().find_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            text.lines()
                .rev()
                .find(|l| {
                    sojx_core::json::from_str(l)
                        .is_ok_and(|v| v.is_object() && registry.detect_output(&v).is_some())
                })
                .map(str::to_owned)
        });
        out.extend(last);
    }
    out
}

/// Copies of every producer's terminal event, quoted in prose at every line of a plain-text
/// answer (glued before or after the event, in parentheses, in a sentence), never change the
/// answer or the exit code, with and without `--schema` (issue 55, item 1): the input is text
/// that quotes an event, and a quoted event is never a candidate.
#[test]
fn copies_of_terminal_events_in_a_plain_text_answer_change_nothing() {
    let answer = json!({"verdict": "FAIL", "confidence": 0.9, "issues": [{"file": "a.rs", "severity": "blocker", "message": "bad"}]});
    let text = [
        "I reviewed the diff.".to_owned(),
        "My verdict:".to_owned(),
        answer.to_string(),
        "That is all.".to_owned(),
    ];
    let events = terminal_events();
    let mut cases = Vec::new();
    for event in &events {
        for (before, after) in PROSE_FORMS {
            for at in 0..=text.len() {
                for schema in [false, true] {
                    let mut lines = text.to_vec();
                    lines.insert(at, format!("{before}{event}{after}"));
                    cases.push((lines.join("\n") + "\n", schema));
                }
            }
        }
    }
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((input, schema)) = cases.get(i) else {
                        break;
                    };
                    let args: Vec<String> = if *schema {
                        vec!["--schema".into(), VERDICT.into()]
                    } else {
                        Vec::new()
                    };
                    let (code, data) = extract(&args, input.clone());
                    if code != 0 || data != answer {
                        failures.lock().unwrap().push(format!(
                            "schema {schema}: exit {code}, data {data}, from\n{input}"
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    eprintln!(
        "{} cases ({} terminal events × {} forms × {} places × with and without --schema), {} failed",
        cases.len(),
        events.len(),
        PROSE_FORMS.len(),
        text.len() + 1,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases changed the answer:\n{}",
        failures.len(),
        cases.len(),
        failures[..failures.len().min(5)].join("\n---\n")
    );
}
