//! Hostile and broken inputs, end to end: each gets exactly one envelope that validates, with
//! its expected kind and exit code; nothing panics (exit 101), hangs or reaches its limits.

use std::io::Write;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{fixture, path_str, run, run_stdin, sojx};

/// One envelope with error kind `kind` and exit code 1.
fn fails(r: &crate::common::Run, kind: &str) {
    assert_eq!(r.kind(), Some(kind), "{}", r.stdout);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(r.one()["exit_code"], 1);
}

fn warning_kinds(e: &Value) -> Vec<&str> {
    e["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w["kind"].as_str())
        .collect()
}

#[test]
fn empty_input() {
    fails(&run_stdin(&["extract"], ""), "empty_input");
}

#[test]
fn only_whitespace() {
    fails(&run_stdin(&["extract"], " \n\t\r\n\n  "), "empty_input");
}

#[test]
fn binary_noise() {
    // A fixed pseudo-random byte string (xorshift), the same on every run.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Bits 24-31.
            x.to_le_bytes()[3]
        })
        .collect();
    let r = run_stdin(&["extract"], noise);
    assert_eq!(r.code, 1, "{}", r.stdout);
    // Noise holds NUL bytes: a binary input, which no re-run fixes (issue 42, item 11).
    assert_eq!(r.kind(), Some("parse"), "{}", r.stdout);
    assert_eq!(r.one()["error"]["retryable"], false);
}

#[test]
fn nul_bytes() {
    fails(&run_stdin(&["extract"], vec![0u8; 4096]), "parse");
    // NUL bytes around a value in text do not hide it.
    let r = run_stdin(&["extract"], &b"\0\0answer: {\"ok\": true}\0\n"[..]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"]["ok"], true);
}

#[test]
fn invalid_utf8_inside_a_json_string() {
    let r = run_stdin(&["extract"], &b"{\"a\":\"\xff\xfe ok\"}\n"[..]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["data"]["a"], "\u{fffd}\u{fffd} ok");
    assert!(warning_kinds(e).contains(&"invalid_utf8"), "{e}");
}

#[test]
fn invalid_utf8_outside_json() {
    let r = run_stdin(&["extract"], &b"\xc3\x28 prose \xff then {\"ok\": 1}\n"[..]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let e = r.one();
    assert_eq!(e["data"]["ok"], 1);
    assert_eq!(e["source"]["kind"], "embedded");
    assert!(warning_kinds(e).contains(&"invalid_utf8"), "{e}");
}

#[test]
fn bom_and_crlf() {
    let stream = std::fs::read(fixture("claude-code/retry-then-accepted.ndjson")).unwrap();
    let plain = run(sojx()
        .arg("extract")
        .arg(fixture("claude-code/retry-then-accepted.ndjson")));
    let mut crlf = b"\xEF\xBB\xBF".to_vec();
    for line in stream.split(|&b| b == b'\n') {
        crlf.extend_from_slice(line);
        crlf.extend_from_slice(b"\r\n");
    }
    let r = run_stdin(&["extract"], crlf);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"], plain.one()["data"]);
    assert_eq!(r.one()["source"], plain.one()["source"]);
    // A BOM before one bare document.
    let r = run_stdin(&["extract"], &b"\xEF\xBB\xBF{\"a\": 1}\r\n"[..]);
    assert_eq!(r.one()["data"]["a"], 1);
}

/// Peak resident memory of a finished child, from `/usr/bin/time -v`, when available.
fn time_v() -> Option<StdCommand> {
    let ok = StdCommand::new("/usr/bin/time")
        .args(["-v", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| {
        let mut c = StdCommand::new("/usr/bin/time");
        c.arg("-v");
        c
    })
}

/// Start `cmd` with piped stdio; the caller writes stdin from a thread.
fn spawn_piped(cmd: &mut StdCommand) -> (std::process::Child, std::process::ChildStdin) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sojx starts");
    let stdin = child.stdin.take().expect("piped stdin");
    (child, stdin)
}

/// The peak resident set size `/usr/bin/time -v` reported on stderr, in KB.
fn peak_kb(stderr: &[u8]) -> u64 {
    String::from_utf8_lossy(stderr)
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse().ok())
        .expect("time -v reports the peak")
}

#[test]
fn a_200_mb_single_line() {
    let bin = assert_cmd::cargo::cargo_bin("sojx");
    let (mut cmd, measured) = if let Some(mut t) = time_v() {
        t.arg(&bin);
        (t, true)
    } else {
        crate::common::missing("`/usr/bin/time -v`", "the 200 MB line's memory check");
        (StdCommand::new(&bin), false)
    };
    let (child, mut stdin) = spawn_piped(cmd.arg("extract"));
    // A Claude-like result line whose text is 200 MB, streamed from a thread in 1 MiB pieces.
    let writer = std::thread::spawn(move || {
        let piece = vec![b'a'; 1 << 20];
        let _ =
            stdin.write_all(br#"{"type":"result","subtype":"success","is_error":false,"result":""#);
        for _ in 0..200 {
            if stdin.write_all(&piece).is_err() {
                return;
            }
        }
        let _ = stdin.write_all(b"\"}\n");
    });
    let started = Instant::now();
    let out = child.wait_with_output().expect("sojx ends");
    writer.join().unwrap();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(120), "took {elapsed:?}");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let e: Value = serde_json::from_str(stdout.trim()).expect("one envelope");
    crate::common::check_envelope(&e);
    // Past the default 64 MiB line limit: skipped with a warning, never read into memory.
    assert_eq!(e["error"]["kind"], "parse", "{e}");
    assert!(warning_kinds(&e).contains(&"line_too_long"), "{e}");
    if measured {
        let kb = peak_kb(&out.stderr);
        // The line is dropped as it streams: peak memory stays near the 64 MiB limit, far
        // below the line's 200 MB.
        assert!(kb < 128 * 1024, "peak {kb} KB");
    }
}

/// Lines of 12 MiB, one after the other, through a pipe (read ahead on a second thread, which
/// hands each finished line to the pipeline and assembles the next): peak memory grows by one
/// line and a few reads, as when one thread reads, and the answer after them is found.
#[test]
fn long_lines_back_to_back_keep_memory_at_one_line() {
    let Some(mut time) = time_v() else {
        crate::common::missing(
            "`/usr/bin/time -v`",
            "the back-to-back long lines memory test",
        );
        return;
    };
    const LINE: usize = 12 << 20;
    // What the same run costs without the long lines (a debug build maps more).
    let base = time
        .arg(assert_cmd::cargo::cargo_bin("sojx"))
        .args(["extract", "--schema", "examples/verdict.schema.json"])
        .arg("examples/claude-review.ndjson")
        .current_dir(crate::common::root())
        .output()
        .expect("sojx runs");
    let base_kb = peak_kb(&base.stderr);
    time = time_v().expect("still there");
    for mode in ["1", ""] {
        let mut cmd = time;
        cmd.arg(assert_cmd::cargo::cargo_bin("sojx"))
            .args(["extract", "--schema", "examples/verdict.schema.json"])
            .current_dir(crate::common::root())
            .env("SOJX_READ_AHEAD", mode);
        let (child, mut stdin) = spawn_piped(&mut cmd);
        let writer = std::thread::spawn(move || {
            let example = std::fs::read_to_string(
                crate::common::root().join("examples/claude-review.ndjson"),
            )
            .unwrap();
            let (first, rest) = example.split_once('\n').unwrap();
            let _ = writeln!(stdin, "{first}");
            let text = "x".repeat(LINE);
            for _ in 0..6 {
                let _ = writeln!(
                    stdin,
                    r#"{{"type":"stream_event","event":{{"type":"content_block_delta","delta":{{"text":"{text}"}}}}}}"#
                );
            }
            let _ = stdin.write_all(rest.as_bytes());
        });
        let out = child.wait_with_output().expect("sojx ends");
        writer.join().unwrap();
        let e: Value = serde_json::from_slice(&out.stdout).expect("one envelope");
        crate::common::check_envelope(&e);
        assert_eq!(out.status.code(), Some(0), "{e}");
        // One line's worth above the base, and a few reads in flight: not two lines' worth.
        let kb = peak_kb(&out.stderr);
        assert!(
            kb < base_kb + ((LINE >> 10) + 6 * 1024) as u64,
            "SOJX_READ_AHEAD={mode:?}: peak {kb} KB (base {base_kb} KB) for lines of {} KB",
            LINE >> 10
        );
        time = time_v().expect("still there");
    }
}

#[test]
fn a_100000_deep_nested_array() {
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let r = run_stdin(&["extract"], deep.clone());
    fails(&r, "json_invalid");
    assert!(
        r.one()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("deeper than 126 levels"),
        "{}",
        r.stdout
    );
    // The same inside a Claude result, and with --repair and --from json.
    let line = format!(
        r#"{{"type":"result","subtype":"success","is_error":false,"result":"x","structured_output":{deep}}}"#
    );
    let r = run_stdin(&["extract"], line);
    assert_eq!(r.code, 1);
    fails(
        &run_stdin(&["extract", "--repair"], deep.clone()),
        "json_invalid",
    );
    fails(
        &run_stdin(&["extract", "--from", "json"], deep.clone()),
        "json_invalid",
    );
    let unclosed = "[".repeat(100_000);
    let r = run_stdin(&["extract", "--repair"], unclosed);
    assert_eq!(r.code, 1, "{}", r.stdout);
}

#[test]
fn nesting_at_the_limit_is_read() {
    // `data` may nest 126 levels: the envelope around it then has 127, which serde_json (and so
    // sojx, reading envelopes back) accepts.
    let nest = |n: usize| "[".repeat(n) + "\"x\"" + &"]".repeat(n);
    let r = run_stdin(&["extract", "--schema", r#"{"type":"array"}"#], nest(126));
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = run_stdin(&["extract"], nest(127));
    fails(&r, "json_invalid");
    assert!(r.stdout.contains("deeper than 126 levels"), "{}", r.stdout);
    let past = nest(128);
    let r = run_stdin(&["extract", "--from", "claude-code"], past);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(warning_kinds(r.one()).contains(&"too_deep"), "{}", r.stdout);
}

#[test]
fn duplicate_keys_the_last_one_wins() {
    let r = run_stdin(&["extract"], r#"{"verdict": "FAIL", "verdict": "PASS"}"#);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"], serde_json::json!({"verdict": "PASS"}));
}

#[test]
fn numbers_beyond_f64_are_kept_exact() {
    let r = run_stdin(
        &["extract"],
        r#"{"big": 123456789012345678901234567890.123456789, "tiny": 1e-400, "huge": -1e400}"#,
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout
            .contains(r#""big":123456789012345678901234567890.123456789"#),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("1e-400"), "{}", r.stdout);
    assert!(
        r.stdout.contains("1e+400") || r.stdout.contains("1e400"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_stream_cut_mid_line() {
    let stream = std::fs::read(fixture("claude-code/retry-then-accepted.ndjson")).unwrap();
    let text = String::from_utf8(stream).unwrap();
    let last = text.trim_end().rfind('\n').unwrap();
    // Cut in the middle of the final `result` line.
    let cut = &text[..last + 40];
    fails(&run_stdin(&["extract"], cut.to_owned()), "truncated");
}

#[test]
fn a_stream_cut_after_a_rejected_structured_output_call() {
    let f = fixture("claude-code/cut-after-rejected-call.ndjson");
    let r = run(sojx().args(["extract", path_str(&f)]));
    fails(&r, "truncated");
    assert_eq!(r.one()["producer"], "claude-code");
}

#[test]
fn sse_without_data_lines() {
    let r = run_stdin(
        &["extract"],
        ": keep-alive\n\nevent: message_start\nid: 1\nretry: 100\n\nevent: ping\n\n",
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    // Only SSE fields, no data: not an answer and not empty, an unreadable event stream.
    assert_eq!(r.kind(), Some("parse"), "{}", r.stdout);
    // `data:` lines that never form JSON.
    let r = run_stdin(
        &["extract"],
        "event: x\ndata: hello\ndata: [\n\ndata: {\"a\":\n\n",
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
}

#[test]
fn a_long_sse_event_that_never_closes_is_not_quadratic() {
    let input = "data: [\n".to_owned() + &"data: 1,\n".repeat(300_000);
    let started = Instant::now();
    let r = run_stdin(&["extract"], input);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(started.elapsed() < crate::common::patience(Duration::from_secs(30)));
}

#[test]
fn many_candidates_after_long_prose_are_not_quadratic() {
    let input = "x".repeat(5_000_000) + "\n" + &" {\"a\":1}".repeat(10_000);
    let started = Instant::now();
    let r = run_stdin(&["extract"], input);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["source"]["candidates"], 10_000);
    assert!(started.elapsed() < crate::common::patience(Duration::from_secs(30)));
}

#[test]
fn an_endless_stream_with_timeout() {
    let bin = assert_cmd::cargo::cargo_bin("sojx");
    let (child, mut stdin) = spawn_piped(StdCommand::new(bin).args(["extract", "--timeout", "1"]));
    // An endless Claude stream: events keep coming and the result never does.
    let writer = std::thread::spawn(move || {
        let line = br#"{"type":"assistant","message":{"content":[{"type":"text","text":"still working"}]}}"#;
        loop {
            if stdin.write_all(line).is_err() || stdin.write_all(b"\n").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    let started = Instant::now();
    let out = child.wait_with_output().expect("sojx ends");
    assert!(started.elapsed() < crate::common::patience(Duration::from_secs(10)));
    assert_eq!(out.status.code(), Some(2));
    let e: Value = serde_json::from_slice(&out.stdout).expect("one envelope");
    crate::common::check_envelope(&e);
    assert_eq!(e["error"]["kind"], "timeout");
    assert_eq!(e["exit_code"], 2);
    writer.join().unwrap();
}

#[test]
fn max_line_bytes_skips_a_long_line_and_keeps_the_rest() {
    let stream =
        std::fs::read_to_string(fixture("claude-code/retry-then-accepted.ndjson")).unwrap();
    let longest = stream.lines().map(str::len).max().unwrap();
    // A recorder's echo longer than the limit, in the middle of a stream that fits.
    let noisy = stream.replacen('\n', &format!("\n{}\n", "#".repeat(longest + 10)), 1);
    let limit = (longest + 1).to_string();
    let r = run_stdin(&["extract", "--max-line-bytes", &limit], noisy);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["source"]["kind"], "structured_output");
    assert!(
        warning_kinds(r.one()).contains(&"line_too_long"),
        "{}",
        r.stdout
    );
    // Only a line past the limit: a typed `parse` error with the flag in its hint.
    let r = run_stdin(
        &["extract", "--max-line-bytes", "100"],
        "{\"a\": 1}".repeat(20),
    );
    fails(&r, "parse");
    assert!(r.stdout.contains("--max-line-bytes"), "{}", r.stdout);
    // A pretty-printed document past the limit is not assembled.
    let doc = serde_json::to_string_pretty(&serde_json::json!({"a": vec!["x"; 50]})).unwrap();
    let r = run_stdin(&["extract", "--max-line-bytes", "64"], doc);
    assert_eq!(r.code, 1, "{}", r.stdout);
}

#[test]
fn max_candidates_stops_the_scan_and_fails() {
    let text = (1..=5)
        .map(|i| format!("option {i}: {{\"n\": {i}}}"))
        .collect::<Vec<_>>()
        .join("\n");
    // The last value, the answer, is past the limit: no earlier one stands in for it.
    let r = run_stdin(&["extract", "--max-candidates", "2"], text.clone());
    fails(&r, "parse");
    assert!(
        r.stdout.contains("--max-candidates allows (2)"),
        "{}",
        r.stdout
    );
    // Capped in the prose, fenced blocks (all tried) still decide.
    let fenced = format!("```json\n{{\"n\": 0}}\n```\n{text}");
    let r = run_stdin(&["extract", "--max-candidates", "2"], fenced);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"]["n"], 0);
    let r = run_stdin(&["extract"], text);
    assert_eq!(r.one()["data"]["n"], 5);
    // Found in prose with no schema: that warning only.
    assert_eq!(warning_kinds(r.one()), ["unchecked_answer"], "{}", r.stdout);
}

#[test]
fn json_no_producer_claims_is_not_all_kept_in_memory() {
    let Some(mut time) = time_v() else {
        crate::common::missing("`/usr/bin/time -v`", "the unclaimed JSON memory test");
        return;
    };
    // 30 MB of JSON Lines of tiny values (about 60 times their size once parsed) that no
    // producer claims: only --max-line-bytes worth of them is kept while detection goes on.
    let line = format!("{{\"k\":[{}1]}}\n", "1,".repeat(500));
    let input = line.repeat(30_000_000 / line.len());
    let path = std::env::temp_dir().join(format!("sojx-unknown-{}.jsonl", std::process::id()));
    std::fs::write(&path, input).unwrap();
    let out = time
        .arg(assert_cmd::cargo::cargo_bin("sojx"))
        .args(["extract", "--max-line-bytes", "1048576"])
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e: Value = serde_json::from_slice(&out.stdout).expect("one envelope");
    crate::common::check_envelope(&e);
    let kb = peak_kb(&out.stderr);
    assert!(kb < 300 * 1024, "peak {kb} KB");
}

#[test]
fn validate_reports_a_cut_off_last_document() {
    // The unclosed last document used to be dropped: exit 0 for a cut-off input, or
    // `empty_input` when it was the only one.
    let r = run(sojx()
        .args(["validate", "--schema", "{}"])
        .write_stdin("{\"a\": 1}\n{\"b\":\n  2,\n"));
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(r.envelopes.len(), 2, "{}", r.stdout);
    assert_eq!(r.envelopes[1]["error"]["kind"], "parse");
    assert_eq!(r.envelopes[1]["source"]["line"], 2);
    let r = run_stdin(&["validate", "--schema", "{}"], "[".repeat(100_000));
    fails(&r, "parse");
    // An SSE event whose data never forms JSON is reported too.
    let r = run_stdin(&["validate", "--schema", "{}"], "data: {\"a\":\n\n");
    fails(&r, "parse");
}

/// Deltas accumulate into one answer; `--max-answer-bytes` bounds it, for every producer that
/// streams deltas, with a typed error naming the flag. Under the bound, the same streams work.
#[test]
fn streamed_answers_are_bounded_by_max_answer_bytes() {
    let chunk = "x".repeat(1000);
    let ollama: String = (0..300)
        .map(|_| {
            serde_json::json!({"model":"m","created_at":"t","message":{"role":"assistant","content":chunk},"done":false})
                .to_string()
                + "\n"
        })
        .collect::<String>()
        + "{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\"}\n";
    let chat: String = (0..300)
        .map(|_| {
            format!(
                "data: {}\n\n",
                serde_json::json!({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":chunk}}]})
            )
        })
        .collect::<String>()
        + "data: [DONE]\n\n";
    let gemini: String = (0..300)
        .map(|_| {
            serde_json::json!({"type":"message","timestamp":"t","role":"assistant","content":chunk,"delta":true})
                .to_string()
                + "\n"
        })
        .collect::<String>()
        + "{\"type\":\"result\",\"timestamp\":\"t\",\"status\":\"success\"}\n";
    for (name, input) in [
        ("ollama", &ollama),
        ("openai-chat", &chat),
        ("gemini-cli", &gemini),
    ] {
        let r = run_stdin(&["extract", "--max-answer-bytes", "100000"], input.as_str());
        fails(&r, "parse");
        let e = r.one();
        assert_eq!(e["producer"], name, "{e}");
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--max-answer-bytes 100000"),
            "{e}"
        );
        // The default bound leaves the answer alone (it is not JSON: not_found).
        let r = run_stdin(&["extract"], input.as_str());
        assert_eq!(r.kind(), Some("not_found"), "{name}: {}", r.stdout);
    }
}
