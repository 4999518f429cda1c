//! A command-line citizen, end to end through pipes: `--activity` with a slow writer, `--tee`
//! byte for byte, `--timeout` with a writer that never closes, the text summary, colors, a
//! closed stdout, a full disk, Ctrl-C, and the generated completions and man page.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{
    check_envelope, fixture, have_tool, on_a_terminal, patience, root, run, run_stdin, sojx,
    sojx_process,
};

const SCHEMA: &str = "examples/verdict.schema.json";
const HOSTILE: &str = "citizen/hostile.ndjson";
/// How long a test waits for something that should take milliseconds (a loaded CI machine).
const PATIENCE: Duration = Duration::from_secs(30);

/// `sojx ARGS` as a plain process with piped stdio and the hermetic environment of `sojx()`.
fn spawn(args: &[&str]) -> Child {
    sojx_process()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sojx starts")
}

/// Lines of a stream, as they arrive, on a channel.
fn lines_of(r: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Wait for the child to exit, at most `PATIENCE`; kills it and fails the test otherwise.
fn wait(child: &mut Child) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return s;
        }
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("sojx did not exit within {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn read_all(r: Option<impl Read>) -> String {
    let mut s = String::new();
    if let Some(mut r) = r {
        r.read_to_string(&mut s).expect("read");
    }
    s
}

fn envelope(stdout: &str) -> Value {
    let v: Value = serde_json::from_str(stdout.trim()).expect("one JSON envelope");
    check_envelope(&v);
    v
}

/// Run a prepared command whose stdout is not JSON (text output): exit code and stdout.
fn text_run(cmd: &mut assert_cmd::Command) -> (i32, String) {
    let out = cmd.output().expect("sojx runs");
    let code = out.status.code().expect("exit code");
    assert_ne!(code, 101, "panic: {}", String::from_utf8_lossy(&out.stderr));
    (code, String::from_utf8(out.stdout).expect("UTF-8 stdout"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = root().join("target/tmp/citizen");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(format!("{}-{name}", std::process::id()))
}

fn write_line(stdin: &mut ChildStdin, line: &str) {
    stdin.write_all(line.as_bytes()).expect("write");
    stdin.write_all(b"\n").expect("write");
    stdin.flush().expect("flush");
}

/// The input line number of an activity line (`sojx: <stdin>:3: ...`).
fn activity_line(l: &str) -> Option<u64> {
    l.strip_prefix("sojx: <stdin>:")?
        .split(':')
        .next()?
        .parse()
        .ok()
}

// --- --activity -----------------------------------------------------------------------------

#[test]
fn activity_lines_arrive_before_the_next_input_line_is_written() {
    let input = std::fs::read_to_string(fixture(HOSTILE)).unwrap();
    // Which lines have events: from a whole-file run, so nothing here is hard-coded.
    let whole = run_stdin(&["extract", "--activity"], input.clone());
    let expected: BTreeSet<u64> = whole.stderr.lines().filter_map(activity_line).collect();
    assert!(expected.len() >= 6, "{}", whole.stderr);

    let mut child = spawn(&["extract", "--activity", "--schema", SCHEMA]);
    let mut stdin = child.stdin.take().unwrap();
    let events = lines_of(child.stderr.take().unwrap());
    let mut worst = Duration::ZERO;
    for (i, line) in input.lines().enumerate() {
        let no = i as u64 + 1;
        // A slow writer: the agent thinks between events.
        std::thread::sleep(Duration::from_millis(50));
        let sent = Instant::now();
        write_line(&mut stdin, line);
        if !expected.contains(&no) {
            continue;
        }
        // Every event of this line must be on stderr before the next line is written.
        loop {
            let got = events
                .recv_timeout(PATIENCE)
                .unwrap_or_else(|_| panic!("no activity line for input line {no} in time"));
            let at = activity_line(&got).unwrap_or_else(|| panic!("not an activity line: {got}"));
            assert!(at <= no, "event for line {at} before line {at} was written");
            if at == no {
                break;
            }
        }
        worst = worst.max(sent.elapsed());
    }
    drop(stdin);
    let status = wait(&mut child);
    assert_eq!(status.code(), Some(0));
    let rest: Vec<String> = events.iter().collect();
    assert!(
        rest.last()
            .is_some_and(|l| l.contains("done: ok (structured_output)")),
        "{rest:?}"
    );
    eprintln!("activity latency: worst {worst:?} from writing a line to its activity line");
    assert!(
        worst < patience(Duration::from_secs(2)),
        "worst latency {worst:?}"
    );
}

#[test]
fn activity_shows_tools_text_retries_errors_and_cost_sanitized() {
    let r = run(sojx().args(["extract", "--activity"]).arg(fixture(HOSTILE)));
    assert_eq!(r.code, 0);
    let err = &r.stderr;
    for want in [
        ":1: producer: claude-code",
        ":2: retry: attempt 1 of 10",
        ":4: tool Bash: {\"command\":\"cargo test\"}",
        ":5: tool returned an error: exit 101\\x1b[31m",
        ":8: result: success, 2 turns, $0.0123",
        "done: ok (structured_output), claude-test-model, 2 turns, $0.0123",
        // Model text: escapes and bidi overrides shown escaped, never interpreted.
        "text: Checking \\x1b[2J\\x1b]0;pwned\\x07 the \\u{202e}evil\\u{202c} diff",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert!(
        !err.contains('\x1b') && !err.contains('\u{202e}'),
        "{err:?}"
    );
    // Not a terminal and no --color: no colors; stdout is the envelope only.
    assert_eq!(r.envelopes.len(), 1);
}

#[test]
fn activity_colors_follow_the_color_rules() {
    let f = fixture(HOSTILE);
    let colored = run(sojx()
        .args(["extract", "--activity", "--color", "always"])
        .arg(&f));
    assert!(
        colored.stderr.contains("\x1b[36mtool Bash\x1b[39m"),
        "{:?}",
        colored.stderr
    );
    assert!(
        colored.stderr.contains("\x1b[33mretry"),
        "{:?}",
        colored.stderr
    );
    // The model's own escape is still escaped inside a colored line.
    assert!(colored.stderr.contains("\\x1b[2J"));
    assert!(!colored.stdout.contains('\x1b'), "JSON is never colored");
    let forced = run(sojx()
        .args(["extract", "--activity"])
        .arg(&f)
        .env("FORCE_COLOR", "1"));
    assert!(forced.stderr.contains("\x1b["));
    let no = run(sojx()
        .args(["extract", "--activity"])
        .arg(&f)
        .env("FORCE_COLOR", "1")
        .env("NO_COLOR", "1"));
    assert!(!no.stderr.contains('\x1b'));
    let never = run(sojx()
        .args(["extract", "--activity", "--color", "never"])
        .arg(&f)
        .env("CLICOLOR_FORCE", "1"));
    assert!(!never.stderr.contains('\x1b'));
}

// --- --tee ----------------------------------------------------------------------------------

#[test]
fn tee_copies_every_byte_even_when_the_input_is_invalid() {
    let mut binary: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
    binary.extend_from_slice(b"\xff\xfe not utf-8 \xc3\x28\r\n{\"half\": ");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("valid", std::fs::read(fixture(HOSTILE)).unwrap()),
        ("binary", binary),
        ("empty", Vec::new()),
        ("no-final-newline", b"{\"a\":1}\n{\"b\"".to_vec()),
    ];
    for (name, bytes) in cases {
        let path = tmp(&format!("tee-{name}"));
        let r = run(sojx()
            .args(["extract", "--tee"])
            .arg(&path)
            .write_stdin(bytes.clone()));
        assert!(r.code <= 1, "{name}: {}", r.stdout);
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name}: tee differs");
        // validate tees the same way.
        let r = run(sojx()
            .args(["validate", "--schema", "{}", "--tee"])
            .arg(&path)
            .write_stdin(bytes.clone()));
        assert!(r.code <= 1);
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name}: validate tee");
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn tee_writes_as_the_input_arrives() {
    let path = tmp("tee-live");
    let p = path.to_str().unwrap();
    let mut child = spawn(&["extract", "--tee", p]);
    let mut stdin = child.stdin.take().unwrap();
    let mut sent = Vec::new();
    for line in [
        "{\"type\":\"system\",\"subtype\":\"init\"}",
        "not json \u{1}",
        "{\"x\":",
    ] {
        write_line(&mut stdin, line);
        sent.extend_from_slice(line.as_bytes());
        sent.push(b'\n');
        let start = Instant::now();
        while std::fs::read(&path).unwrap_or_default() != sent {
            assert!(start.elapsed() < PATIENCE, "tee lags behind the input");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    drop(stdin);
    wait(&mut child);
    assert_eq!(std::fs::read(&path).unwrap(), sent);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn tee_to_stdout_is_refused_and_a_bad_path_is_filesystem() {
    let r = run_stdin(&["extract", "--tee", "-"], "{}");
    assert_eq!(r.code, 3);
    assert_eq!(r.kind(), Some("usage"));
    assert!(r.stderr.contains("`-` is not allowed"), "{}", r.stderr);
    let r = run_stdin(&["extract", "--tee", "/nonexistent-dir/x"], "{}");
    assert_eq!(r.code, 3);
    assert_eq!(r.kind(), Some("filesystem"));
    assert_eq!(r.one()["error"]["operation"], "write");
    // Teeing onto an input would truncate it before it is read: refused, the input untouched.
    let path = tmp("tee-self");
    std::fs::copy(fixture(HOSTILE), &path).unwrap();
    let r = run(sojx().arg("extract").arg("--tee").arg(&path).arg(&path));
    assert_eq!(r.kind(), Some("usage"));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(fixture(HOSTILE)).unwrap()
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn several_inputs_are_teed_one_after_the_other() {
    let path = tmp("tee-many");
    let a = fixture(HOSTILE);
    let b = root().join("examples/claude-review.ndjson");
    let r = run(sojx()
        .arg("extract")
        .arg("--tee")
        .arg(&path)
        .arg(&a)
        .arg(&b));
    assert_eq!(r.code, 0);
    let mut want = std::fs::read(&a).unwrap();
    want.extend(std::fs::read(&b).unwrap());
    assert_eq!(std::fs::read(&path).unwrap(), want);
    std::fs::remove_file(&path).unwrap();
}

// --- --timeout ------------------------------------------------------------------------------

#[test]
fn timeout_with_a_writer_that_never_closes() {
    let path = tmp("tee-timeout");
    let p = path.to_str().unwrap();
    let mut child = spawn(&["extract", "--timeout", "0.4", "--tee", p]);
    let mut stdin = child.stdin.take().unwrap();
    let first = "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"m\"}";
    write_line(&mut stdin, first);
    write_line(
        &mut stdin,
        "{\"type\":\"assistant\",\"message\":{\"content\":[]}}",
    );
    let start = Instant::now();
    // stdin stays open: the writer hangs.
    let status = wait(&mut child);
    let took = start.elapsed();
    assert_eq!(status.code(), Some(2));
    assert!(took < patience(Duration::from_secs(3)), "took {took:?}");
    let e = envelope(&read_all(child.stdout.take()));
    assert_eq!(e["exit_code"], 2);
    assert_eq!(e["error"]["kind"], "timeout");
    assert_eq!(e["error"]["details"]["lines"], 2);
    assert_eq!(e["error"]["details"]["producer"], "claude-code");
    assert_eq!(e["error"]["details"]["timeout_seconds"], 0.4);
    assert_eq!(e["producer"], "claude-code");
    // What was read before the deadline is in the tee.
    assert!(std::fs::read_to_string(&path).unwrap().starts_with(first));
    drop(stdin);
    std::fs::remove_file(&path).unwrap();
}

/// A `timeout` names what the agent was last doing, in the producer's words, and for how long
/// nothing came; an error class that re-running cannot fix makes it not retryable.
#[test]
fn timeout_names_the_last_retry_and_the_silence() {
    let retry = |attempt: u32| {
        format!(
            r#"{{"type":"system","subtype":"api_retry","attempt":{attempt},"max_retries":10,"retry_delay_ms":40000,"error_status":null,"error":"unknown","session_id":"s"}}"#
        )
    };
    let mut child = spawn(&["extract", "--timeout", "2.2"]);
    let mut stdin = child.stdin.take().unwrap();
    write_line(
        &mut stdin,
        r#"{"type":"system","subtype":"init","model":"m","session_id":"s"}"#,
    );
    write_line(&mut stdin, &retry(7));
    write_line(&mut stdin, &retry(8));
    assert_eq!(wait(&mut child).code(), Some(2));
    let e = envelope(&read_all(child.stdout.take()));
    let err = &e["error"];
    assert_eq!(err["kind"], "timeout");
    assert_eq!(err["retryable"], true);
    let message = err["message"].as_str().unwrap();
    assert!(
        message.starts_with("the input did not end within 2.2 s (3 line(s), ")
            && message.contains(" byte(s) read); nothing came in its last ")
            && message.ends_with(
                " s; the agent was retrying its API: attempt 8 of 10, error unknown, the next in 40 s (line 3)"
            ),
        "{message}"
    );
    assert_eq!(
        err["details"]["last_error"],
        "api_retry attempt 8 of 10: unknown"
    );
    assert_eq!(err["details"]["last_error_line"], 3);
    assert_eq!(err["details"]["last_event"]["attempt"], 8);
    assert_eq!(err["details"]["last_event"]["retry_delay_ms"], 40000);
    assert!(err["details"]["idle_seconds"].as_f64().unwrap() >= 2.0);
    drop(stdin);

    // An authentication failure and then silence: re-running will not help.
    let mut child = spawn(&["extract", "--timeout", "0.5"]);
    let mut stdin = child.stdin.take().unwrap();
    let cut = std::fs::read_to_string(
        root().join("tests/fixtures/producers/claude-code/not-logged-in-cut.ndjson"),
    )
    .unwrap();
    for l in cut.lines() {
        write_line(&mut stdin, l);
    }
    assert_eq!(wait(&mut child).code(), Some(2));
    let e = envelope(&read_all(child.stdout.take()));
    assert_eq!(e["error"]["kind"], "timeout");
    assert_eq!(e["error"]["retryable"], false);
    assert!(
        e["error"]["message"].as_str().unwrap().ends_with(
            "; its last error (authentication_failed): Not logged in · Please run /login (line 2)"
        ),
        "{}",
        e["error"]["message"]
    );
    assert_eq!(
        e["error"]["details"]["last_event"]["error"],
        "authentication_failed"
    );
    drop(stdin);
}

#[test]
fn timeout_exit_code_with_several_inputs() {
    // A good file, a cut-off file, then stdin that never closes: 2 wins over 1.
    let good = fixture(HOSTILE);
    let bad = fixture("claude-code/truncated.ndjson");
    let mut child = spawn(&[
        "extract",
        "--timeout",
        "0.3",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
        "-",
    ]);
    let stdin = child.stdin.take().unwrap();
    let status = wait(&mut child);
    assert_eq!(status.code(), Some(2));
    let out = read_all(child.stdout.take());
    let codes: Vec<i64> = out
        .lines()
        .map(|l| envelope(l)["exit_code"].as_i64().unwrap())
        .collect();
    assert_eq!(codes, [0, 1, 2]);
    drop(stdin);
    // A file that cannot be read is the caller's error, 3, and wins over a timeout.
    let missing = root().join("tests/fixtures/citizen/no-such-file");
    let mut child = spawn(&[
        "extract",
        "--timeout",
        "0.3",
        missing.to_str().unwrap(),
        "-",
    ]);
    let stdin = child.stdin.take().unwrap();
    assert_eq!(wait(&mut child).code(), Some(3));
    let codes: Vec<i64> = read_all(child.stdout.take())
        .lines()
        .map(|l| envelope(l)["exit_code"].as_i64().unwrap())
        .collect();
    assert_eq!(codes, [3, 2]);
    drop(stdin);
    // An input that ends in time is not a timeout.
    let r = run(sojx().args(["extract", "--timeout", "30"]).arg(&good));
    assert_eq!(r.code, 0);
    // validate has the same deadline.
    let mut child = spawn(&["validate", "--schema", "{}", "--timeout", "0.2"]);
    let mut stdin = child.stdin.take().unwrap();
    write_line(&mut stdin, "{\"a\":1}");
    assert_eq!(wait(&mut child).code(), Some(2));
    let out = read_all(child.stdout.take());
    let kinds: Vec<Value> = out
        .lines()
        .map(|l| envelope(l)["error"]["kind"].clone())
        .collect();
    assert_eq!(kinds, [Value::Null, Value::from("timeout")]);
}

/// When no thread can start (here: every new thread asks for a 1 TiB stack), `--timeout`, which
/// needs one to stop a blocked read, fails with a typed envelope instead of a panic, and reading
/// ahead falls back to reading in place (a large piped input still gives its answer).
#[test]
fn no_thread_to_start_is_an_envelope_not_a_panic() {
    const HUGE_STACK: &str = "1099511627776";
    let example = std::fs::read_to_string(root().join("examples/claude-review.ndjson")).unwrap();
    let r = run(sojx()
        .env("RUST_MIN_STACK", HUGE_STACK)
        .args(["extract", "--timeout", "5", "--schema", SCHEMA])
        .arg(root().join("examples/claude-review.ndjson")));
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.kind(), Some("io"));
    let message = r.one()["error"]["message"].as_str().unwrap();
    assert!(message.contains("--timeout"), "{message}");
    assert_eq!(r.one()["error"]["retryable"], true);

    let (first, rest) = example.split_once('\n').unwrap();
    let filler = format!("{}\n", r#"{"type":"stream_event","event":{"type":"ping"}}"#);
    let piped = format!("{first}\n{}{rest}", filler.repeat(30_000));
    assert!(piped.len() > 1 << 20, "read ahead, were a thread to start");
    let r = run(sojx()
        .env("RUST_MIN_STACK", HUGE_STACK)
        .args(["extract", "--schema", SCHEMA])
        .write_stdin(piped));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["data"]["verdict"], "FAIL");

    // Several inputs, which run on worker threads: done in the main thread instead.
    let example = root().join("examples/claude-review.ndjson");
    let r = run(sojx()
        .env("RUST_MIN_STACK", HUGE_STACK)
        .args(["extract", "--schema", SCHEMA])
        .args([&example, &example, &example]));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.envelopes.len(), 3);
}

#[test]
fn bad_timeouts_are_usage_errors() {
    for bad in ["-1", "soon", "NaN", "inf", "1x", "5 parsecs"] {
        let r = run_stdin(&["extract", "--timeout", bad], "{}");
        assert_eq!(r.code, 3, "{bad}");
        assert_eq!(r.kind(), Some("usage"), "{bad}");
    }
    for bad in ["x", "1.5", "-1", "8 parsecs"] {
        let r = run_stdin(&["extract", "--max-line-bytes", bad], "{}");
        assert_eq!((r.code, r.kind()), (3, Some("usage")), "{bad}");
    }
}

/// Durations and sizes take units: `--timeout 15m`, `--max-line-bytes 8MiB`; a bare number is
/// seconds or bytes, as before.
#[test]
fn durations_and_sizes_take_units() {
    for t in ["30", "2.5", "90s", "15m", "1h 30m", "500ms"] {
        let r = run(sojx()
            .args(["extract", "--timeout", t])
            .arg(fixture(HOSTILE)));
        assert_eq!(r.code, 0, "{t}: {}", r.stdout);
    }
    // A stdin that never ends: the deadline, given with a unit, still fires.
    let mut child = spawn(&["extract", "--timeout", "300ms"]);
    let stdin = child.stdin.take().unwrap();
    assert_eq!(wait(&mut child).code(), Some(2));
    drop(stdin);
    // The longest line of the example is 583 bytes.
    let example = root().join("examples/claude-review.ndjson");
    for (size, code) in [
        ("583", 0),
        ("1KiB", 0),
        ("0.5KiB", 1),
        ("1 KB", 0),
        ("582", 1),
    ] {
        let r = run(sojx()
            .args(["extract", "--max-line-bytes", size])
            .arg(&example));
        assert_eq!(r.code, code, "{size}: {}", r.stdout);
    }
}

// --- --output-format text -------------------------------------------------------------------

#[test]
fn text_summary_for_people() {
    let (code, out) = text_run(
        sojx()
            .args(["extract", "--output-format", "text", "--schema", SCHEMA])
            .arg(fixture(HOSTILE)),
    );
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "✓ {} (claude-code): structured_output, line 8, valid against {SCHEMA}",
            fixture(HOSTILE).display()
        )
    );
    assert_eq!(lines[1], "    {");
    assert_eq!(lines[2], "      \"verdict\": \"PASS\",");
    assert!(out.contains("  session: claude-test-model, 2 turns, $0.0123, 2.5 s"));
    assert!(!out.contains('\x1b'));

    // A failure: the verdict, the violations with their pointers, the hint, the candidate.
    // JSON escapes: the parsed value holds a real ESC and a bidi override.
    let bad = r#"Here it is: {"verdict":"MAYBE \u001b[2J\u202e","confidence":2}"#;
    let (code, out) = text_run(
        sojx()
            .args(["extract", "--output-format", "text", "--schema", SCHEMA])
            .write_stdin(bad),
    );
    assert_eq!(code, 1);
    assert!(
        out.starts_with("✗ <stdin> (text): validation_failed\n"),
        "{out}"
    );
    assert!(
        out.contains("\n  - /: \"issues\" is a required property (/required)\n"),
        "{out}"
    );
    assert!(out.contains("\n  - /confidence: 2 is greater than the maximum of 1 (/properties/confidence/maximum)\n"), "{out}");
    assert!(out.contains("  hint: "));
    assert!(out.contains("  candidate:\n"));
    assert!(
        !out.contains('\x1b') && !out.contains('\u{202e}'),
        "{out:?}"
    );
    assert!(out.contains("\\u{202e}"), "{out}");
}

#[test]
fn text_summary_colors() {
    let f = fixture(HOSTILE);
    let args = ["extract", "--output-format", "text"];
    let (_, c) = text_run(sojx().args(args).args(["--color", "always"]).arg(&f));
    assert!(c.contains("\x1b[32mstructured_output\x1b[39m"), "{c:?}");
    let (_, c) = text_run(sojx().args(args).arg(&f).env("CLICOLOR_FORCE", "1"));
    assert!(c.contains("\x1b["));
    let (_, c) = text_run(
        sojx()
            .args(args)
            .arg(&f)
            .env("CLICOLOR_FORCE", "1")
            .env("NO_COLOR", "1"),
    );
    assert!(!c.contains('\x1b'));
    // JSON output ignores --color always.
    let (_, c) = text_run(
        sojx()
            .args(["extract", "--color", "always", "--pretty"])
            .arg(&f),
    );
    assert!(c.starts_with("{\n") && !c.contains('\x1b'));
}

#[test]
fn help_colors_follow_the_color_flag() {
    let plain = sojx().args(["extract", "--help"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&plain.stdout).contains('\x1b'));
    let colored = sojx()
        .args(["extract", "--color", "always", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&colored.stdout).contains("\x1b["));
    let err = sojx()
        .args(["extract", "--color=always", "--nope"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&err.stderr).contains("\x1b["));
    assert!(!String::from_utf8_lossy(&err.stdout).contains('\x1b'));
    // After --help too, and the last --color wins.
    let after = sojx()
        .args(["extract", "--help", "--color", "always"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&after.stdout).contains("\x1b["));
    let last = sojx()
        .args(["extract", "--color", "never", "--color=always", "--nope"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&last.stderr).contains("\x1b["));
}

// --- pipes and signals ----------------------------------------------------------------------

/// A closed stdout (`sojx … | head -c0`) ends quietly, with the exit status sojx computed: a
/// failed extraction whose envelope outgrows the pipe buffer is still exit 1.
#[test]
fn a_closed_stdout_keeps_the_exit_status() {
    let hostile = std::fs::read(fixture(HOSTILE)).unwrap();
    // A structured_output of ~1 MB that fails the schema: the envelope carries it as candidate.
    let big = serde_json::json!({"verdict": "MAYBE", "notes": "x".repeat(1 << 20)});
    let failing = format!(
        "{}\n{}\n",
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#,
        serde_json::json!({"type":"result","subtype":"success","is_error":false,"result":"","structured_output":big,"session_id":"s"})
    )
    .into_bytes();
    for (args, input, code) in [
        (&["extract", "--schema", SCHEMA][..], &hostile, 0),
        (&["extract", "--output-format", "text"][..], &hostile, 0),
        (&["validate", "--schema", "{}"][..], &hostile, 0),
        (&["extract", "--schema", SCHEMA][..], &failing, 1),
        (
            &["extract", "--schema", SCHEMA, "--pretty"][..],
            &failing,
            1,
        ),
    ] {
        let mut child = spawn(args);
        drop(child.stdout.take()); // the reader went away (`| head -c0`)
        let mut stdin = child.stdin.take().unwrap();
        let err_reader = child.stderr.take();
        let input = input.clone();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let err = read_all(err_reader);
        let status = wait(&mut child);
        writer.join().unwrap();
        assert_eq!(status.code(), Some(code), "{args:?}: {err}");
        assert!(!err.contains("io:"), "{args:?}: {err}");
    }
}

#[test]
fn a_write_error_on_stdout_is_io() {
    if !Path::new("/dev/full").exists() {
        crate::common::missing("/dev/full", "a write-error test");
        return;
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin("sojx"))
        .current_dir(root())
        .arg("extract")
        .arg(fixture(HOSTILE))
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("sojx: io: writing the output failed: "),
        "{err}"
    );
}

/// `--help` and `--version` into a full disk do not claim success.
#[test]
fn help_into_a_full_disk_fails() {
    if !Path::new("/dev/full").exists() {
        crate::common::missing("/dev/full", "a write-error test");
        return;
    }
    for args in [&["--help"][..], &["--version"], &["extract", "--help"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = sojx_process().args(args).stdout(full).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("sojx: io: writing the output failed: "),
            "{err}"
        );
    }
}

#[test]
fn ctrl_c_mid_stream_ends_promptly_by_the_signal() {
    // A shell without job control starts background commands with SIGINT ignored, and the
    // ignored disposition is inherited: then no process of this test run can be interrupted.
    if sigint_ignored_here() {
        crate::common::skip("SIGINT is ignored in this test process (started in the background?)");
        return;
    }
    let path = tmp("tee-sigint");
    let mut child = spawn(&["extract", "--activity", "--tee", path.to_str().unwrap()]);
    let mut stdin = child.stdin.take().unwrap();
    let events = lines_of(child.stderr.take().unwrap());
    let first = "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"m\"}";
    write_line(&mut stdin, first);
    // Mid-stream: the first event was handled.
    events.recv_timeout(PATIENCE).expect("an activity line");
    let start = Instant::now();
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = wait(&mut child);
    assert!(start.elapsed() < patience(Duration::from_secs(2)));
    // Default SIGINT disposition: terminated by signal 2 (a shell reports 130).
    assert_eq!(status.signal(), Some(2), "{status:?}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!("{first}\n")
    );
    drop(stdin);
    std::fs::remove_file(&path).unwrap();
}

/// Whether this process ignores SIGINT (bit 2 of `SigIgn` in /proc/self/status), which the
/// spawned sojx would inherit.
fn sigint_ignored_here() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))
                .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        })
        .is_some_and(|mask| mask & (1 << (2 - 1)) != 0)
}

// --- completions, man page, help -----------------------------------------------------------

/// Regenerate every committed file through the binary; `SNAPSHOTS=overwrite` rewrites them.
#[test]
fn completions_and_man_page_do_not_drift() {
    let overwrite = std::env::var("SNAPSHOTS").is_ok_and(|v| v == "overwrite");
    let mut drift = Vec::new();
    for (kind, path) in [
        ("bash", "completions/sojx.bash"),
        ("zsh", "completions/_sojx"),
        ("fish", "completions/sojx.fish"),
        ("powershell", "completions/_sojx.ps1"),
        ("elvish", "completions/sojx.elv"),
        ("man", "man/sojx.1"),
    ] {
        let out = sojx().args(["generate", kind]).output().unwrap();
        assert!(out.status.success(), "sojx generate {kind}");
        assert!(!out.stdout.is_empty());
        let file = root().join(path);
        if overwrite {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &out.stdout).unwrap();
        } else if std::fs::read(&file).ok().as_deref() != Some(&out.stdout[..]) {
            drift.push(path);
        }
    }
    assert!(
        drift.is_empty(),
        "{drift:?} differ from `sojx generate`; run `SNAPSHOTS=overwrite cargo test completions_and_man_page` and commit"
    );
}

#[test]
fn the_man_page_has_the_sections_people_look_for() {
    let out = sojx().args(["generate", "man"]).output().unwrap();
    let man = String::from_utf8(out.stdout).unwrap();
    for s in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH COMMANDS",
        ".SH \"SOJX EXTRACT\"",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH EXAMPLES",
        "NO_COLOR",
        "\\-\\-timeout",
    ] {
        assert!(man.contains(s), "the man page lacks {s}");
    }
    assert!(
        !man.contains("sojx generate") && !man.contains("GENERATE"),
        "hidden commands stay out of the man page"
    );
}

#[test]
fn every_command_help_has_examples() {
    let out = sojx().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section")
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.contains(&"extract") && commands.contains(&"validate"));
    for c in commands {
        let out = sojx().args([c, "--help"]).output().unwrap();
        let h = String::from_utf8(out.stdout).unwrap();
        assert!(
            h.contains("\nExamples:\n  sojx ") || h.contains("\nExamples:\n  "),
            "`sojx {c} --help` has no examples"
        );
    }
}

// --- terminal safety ------------------------------------------------------------------------

/// A model-written answer with an 8-bit CSI (U+009B), OSC (U+009D) with its terminator
/// (U+009C) and a bidi override, printed on a terminal (pretty JSON and `-r`): every one is
/// escaped, none reaches the terminal raw. Into a pipe, the JSON stays byte-exact.
#[test]
fn model_text_on_a_terminal_is_escaped_in_every_format() {
    if !have_tool("script", "the terminal escaping test") {
        return;
    }
    let path = tmp("c1-answer");
    let answer = "{\"note\": \"\u{9b}31mred \u{9d}0;title\u{9c} \u{202e}txt.exe\"}";
    std::fs::write(&path, answer).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("sojx");
    let raw = ["\u{9b}", "\u{9d}", "\u{9c}", "\u{202e}"];
    for args in [
        "extract",
        "extract -r",
        "extract --output-format text",
        "validate --schema {}",
    ] {
        let tty = on_a_terminal(&format!("{} {args} {}", bin.display(), path.display()));
        for c in raw {
            assert!(
                !tty.contains(c),
                "{args}: {c:?} reached the terminal: {tty}"
            );
        }
        assert!(
            tty.contains("\\u009b") || tty.contains("\\x9b"),
            "{args}: {tty}"
        );
    }
    // Not a terminal: the JSON is serde_json's, unchanged.
    let piped = run(sojx().arg("extract").arg(&path));
    assert!(piped.stdout.contains("\u{9b}31mred"), "{}", piped.stdout);
}

/// No FILE and stdin a terminal: one line on stderr, exit 3, no envelope, no wait.
#[test]
fn stdin_on_a_terminal_is_one_line_and_exit_3() {
    if !have_tool("script", "the stdin-terminal test") {
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("sojx");
    for command in [
        "extract",
        "validate --schema {}",
        "compare --items . --key . --field .",
    ] {
        let cmd = format!("{} {command}; echo \"rc=$?\"", bin.display());
        let tty = on_a_terminal(&cmd).replace('\r', "");
        let name = command.split(' ').next().unwrap();
        assert_eq!(
            tty,
            format!(
                "sojx: usage: no input: stdin is a terminal; pipe an agent's output in, or name a FILE ('-' reads the terminal anyway; `sojx {name} --help`)\nrc=3\n"
            ),
            "{command}"
        );
    }
}

/// A file name with a newline cannot start a line of its own: not a forged `✓` on stdout, not
/// a forged message on stderr.
#[test]
fn a_file_name_cannot_forge_a_line() {
    let dir = tmp("forge-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let forged = dir.join("x\n✓ all.json (claude-code): structured_output");
    std::fs::write(&forged, "not json at all").unwrap();
    let out = sojx()
        .args(["extract", "--output-format", "text"])
        .arg(&forged)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    for line in stdout.lines().chain(stderr.lines()) {
        assert!(!line.starts_with('✓'), "forged: {line:?}");
    }
    assert!(stdout.contains("\\x0a✓ all.json"), "{stdout}");
    let r = run(sojx().arg("extract").arg(&forged));
    assert!(
        r.stderr
            .lines()
            .all(|l| l.starts_with("sojx: ") || l.starts_with("  ")),
        "{}",
        r.stderr
    );
}

// --- --tee never destroys what sojx reads ---------------------------------------------------

/// `--tee` onto the input under another name (a hard link, standard input), onto the schema,
/// the handoff or a resource file is refused before anything is truncated; files are compared
/// by device and inode.
#[test]
fn tee_never_truncates_a_file_sojx_reads() {
    let dir = tmp("tee-clash");
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("run.ndjson");
    let original = std::fs::read(fixture("claude-code/noisy.ndjson")).unwrap();
    std::fs::write(&input, &original).unwrap();
    let link = dir.join("hard.ndjson");
    let _ = std::fs::remove_file(&link);
    std::fs::hard_link(&input, &link).unwrap();
    let schema = dir.join("s.json");
    std::fs::write(&schema, r#"{"type":"object"}"#).unwrap();
    let handoff = dir.join("handoff.json");
    std::fs::write(&handoff, "{}").unwrap();
    let (i, l, s, h) = (
        input.to_str().unwrap(),
        link.to_str().unwrap(),
        schema.to_str().unwrap(),
        handoff.to_str().unwrap(),
    );
    let resource = format!("https://example.com/s.json={s}");
    let cases: [(&[&str], &str); 5] = [
        (&["extract", "--tee", l, i], "is also an input"),
        (
            &["extract", "--schema", s, "--tee", s, i],
            "is the --schema file",
        ),
        (
            &[
                "validate",
                "--schema",
                "{}",
                "--resource",
                &resource,
                "--tee",
                s,
                i,
            ],
            "is the --resource file",
        ),
        (
            &["extract", "--markers", "--handoff", h, "--tee", h, i],
            "is the --handoff file",
        ),
        (&["extract", "--tee", l], "is standard input"),
    ];
    for (args, why) in cases {
        let stdin = std::fs::File::open(&input).unwrap();
        let out = sojx_process().args(args).stdin(stdin).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {stdout}");
        let e: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
        assert_eq!(e["error"]["kind"], "usage", "{args:?}");
        assert!(
            e["error"]["message"].as_str().unwrap().contains(why),
            "{args:?}: {e}"
        );
        assert_eq!(
            std::fs::read(&input).unwrap(),
            original,
            "{args:?} truncated the input"
        );
        assert_eq!(
            std::fs::read_to_string(&schema).unwrap(),
            r#"{"type":"object"}"#
        );
        assert_eq!(std::fs::read_to_string(&handoff).unwrap(), "{}");
    }
}

/// `--tee /dev/stderr` with stderr appended to a log (`2>>log`) appends the copy to the log,
/// never truncates it; `--tee /dev/null` works.
#[test]
fn tee_onto_its_own_stderr_appends() {
    let log = tmp("tee-stderr.log");
    std::fs::write(&log, "earlier line\n").unwrap();
    let append = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let input = fixture("claude-code/noisy.ndjson");
    let out = sojx_process()
        .args(["extract", "--tee", "/dev/stderr"])
        .arg(&input)
        .stderr(append)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("earlier line\n"), "{text}");
    assert!(
        text.ends_with(&std::fs::read_to_string(&input).unwrap()),
        "{text}"
    );
    let out = sojx_process()
        .args(["extract", "--tee", "/dev/null"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

// --- --timeout holds whatever the outputs do ------------------------------------------------

/// `--activity` into a stderr pipe nobody reads fills the pipe and blocks sojx's writes; the
/// input never ends. `--timeout 1` still ends sojx with status 2, within the grace period.
#[test]
fn timeout_holds_when_stderr_is_blocked() {
    let mut child = sojx_process()
        .args(["extract", "--activity", "--timeout", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped()) // never read
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let started = Instant::now();
    let (ended, until_ended) = std::sync::mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        let init = r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#;
        let _ = writeln!(stdin, "{init}");
        let text = "y".repeat(70);
        for i in 0..5000 {
            let line = format!(
                r#"{{"type":"assistant","message":{{"model":"m","content":[{{"type":"text","text":"{i} {text}"}}]}}}}"#
            );
            if writeln!(stdin, "{line}").is_err() {
                break;
            }
        }
        // Keep the input open until sojx has ended, however long that takes on a busy
        // machine: the agent is stuck, and only the deadline can end sojx.
        let _ = until_ended.recv();
        drop(stdin);
    });
    let status = wait(&mut child);
    let took = started.elapsed();
    let _ = ended.send(());
    assert_eq!(status.code(), Some(2), "{status:?}");
    assert!(took < patience(Duration::from_secs(6)), "took {took:?}");
    drop(child.stderr.take());
    writer.join().unwrap();
}

/// A FIFO with no writer blocks whoever opens it; `--timeout` covers opening the input too.
#[test]
fn timeout_covers_opening_a_fifo_without_a_writer() {
    let fifo = tmp("no-writer.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        crate::common::missing("`mkfifo`", "the FIFO timeout test");
        return;
    }
    for cmd in [&["extract"][..], &["validate", "--schema", "{}"]] {
        let started = Instant::now();
        let out = sojx_process()
            .args(cmd)
            .args(["--timeout", "1"])
            .arg(&fifo)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        assert!(started.elapsed() < patience(Duration::from_secs(6)));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let e: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(e["error"]["kind"], "timeout", "{e}");
    }
    let _ = std::fs::remove_file(&fifo);
}

/// The watchdog covers reading only: a slow `--assert` after a quick read is bounded by its own
/// budget, and still gets its envelope, whatever `--timeout` says.
#[test]
fn timeout_does_not_cut_the_work_after_the_read() {
    let input = root().join("examples/verdict.json");
    let out = sojx_process()
        .args(["extract", "--from", "json", "--timeout", "0.2", "--assert"])
        .arg(r#"("x " * 3000000) | test("\\b\\w+\\b\\s+\\bz") | not"#)
        .arg(&input)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let e: Value = serde_json::from_str(stdout.trim()).expect("an envelope");
    assert_eq!(
        out.status.code(),
        e["exit_code"].as_i64().map(|c| i32::try_from(c).unwrap()),
        "{e}"
    );
    assert_ne!(out.status.code(), Some(2), "{e}");
}
