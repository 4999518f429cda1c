//! `sojx run -- COMMAND`: fake agents under `tests/fixtures/agents/` play the ways a real one
//! ends (a recorded stream, a refused key, a hang, a grandchild that keeps the pipe, SIGTERM
//! ignored, a signal to sojx), and each test checks the exit status, the envelope's `agent`,
//! the wall time against `--timeout` + `--kill-after` + 1 s, and that no process of the agent's
//! group is left.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{fixture, path_str, patience, run};

thread_local! {
    /// The mark of this test's last sojx: in its environment, so in its agent's and in every
    /// process the agent started ([`group_gone`]).
    static MARK: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// A new mark for the next sojx of this test.
fn mark() -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let m = format!("{}-{n}", std::process::id());
    MARK.with(|c| c.borrow_mut().clone_from(&m));
    m
}

/// `sojx` as `crate::common::sojx`, marked.
fn sojx() -> assert_cmd::Command {
    let mut c = crate::common::sojx();
    c.env("SOJX_TEST_MARK", mark());
    c
}

/// `crate::common::sojx_process`, marked.
fn sojx_process() -> std::process::Command {
    let mut c = crate::common::sojx_process();
    c.env("SOJX_TEST_MARK", mark());
    c
}

/// The recorded Claude Code run of the README (`examples/`).
const REVIEW: &str = "examples/claude-review.ndjson";

fn agent(name: &str) -> String {
    path_str(&fixture(&format!("agents/{name}"))).to_owned()
}

/// The live processes (not zombies), from `/proc`: each pid, its `/proc` folder and its
/// group id.
fn live_processes() -> Vec<(u64, std::path::PathBuf, u64)> {
    let mut live = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return live;
    };
    for e in dir.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u64>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() > 3
            && f[0] != "Z"
            && f[0] != "X"
            && let Ok(pgid) = f[2].parse::<u64>()
        {
            live.push((pid, e.path(), pgid));
        }
    }
    live
}

/// The processes of group `pgid` still alive (not zombies).
fn alive_in_group(pgid: u64) -> Vec<u64> {
    live_processes()
        .into_iter()
        .filter(|(_, _, g)| *g == pgid)
        .map(|(pid, ..)| pid)
        .collect()
}

/// Whether process `pid` is gone (or a zombie waiting for a parent that no longer cares).
pub(crate) fn gone(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
        s.rfind(')')
            .is_some_and(|i| matches!(s[i + 1..].split_whitespace().next(), Some("Z" | "X")))
    })
}

/// A new empty directory for one test, removed when dropped.
fn scratch(name: &str) -> crate::common::Scratch {
    crate::common::Scratch::new("run", name)
}

fn pid_in(file: &Path) -> u64 {
    for _ in 0..50 {
        if let Ok(s) = std::fs::read_to_string(file)
            && let Ok(pid) = s.trim().parse()
        {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} holds no pid", file.display())
}

/// The process whose pid a fake agent wrote in `file` is gone.
fn assert_gone(file: &Path, what: &str) {
    let pid = pid_in(file);
    assert!(gone(pid), "{what} {pid} outlived sojx");
}

/// `sojx ARGS`, and how long it took.
fn timed(args: &[&str]) -> (crate::common::Run, Duration) {
    let started = Instant::now();
    let r = run(sojx().args(args));
    (r, started.elapsed())
}

/// Nothing the agent started is left: no live process of the agent's group (its id the
/// agent's pid, or, on Linux, its guard's) nor any process with this test's sojx's mark in its
/// environment (the agent and all it started inherit it, whatever their group).
fn group_gone(e: &Value) {
    let pgid = e["agent"]["pid"].as_u64().expect("agent.pid");
    let mut left = alive_in_group(pgid);
    let mark = MARK.with(|c| c.borrow().clone());
    assert!(!mark.is_empty(), "the test's sojx was not marked");
    left.extend(alive_with_mark(&mark));
    assert!(
        left.is_empty(),
        "processes of the agent's group left: {left:?}"
    );
}

/// The live processes (not zombies) whose environment holds `SOJX_TEST_MARK=mark`.
fn alive_with_mark(mark: &str) -> Vec<u64> {
    let want = format!("SOJX_TEST_MARK={mark}");
    live_processes()
        .into_iter()
        .filter(|(_, dir, _)| {
            std::fs::read(dir.join("environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == want.as_bytes()))
        })
        .map(|(pid, ..)| pid)
        .collect()
}

/// An envelope without what differs between `run` and `extract`.
fn comparable(mut e: Value) -> Value {
    let o = e.as_object_mut().unwrap();
    for k in ["timestamp", "command", "input", "agent"] {
        o.remove(k);
    }
    if let Some(err) = o.get_mut("error").and_then(Value::as_object_mut) {
        err.remove("target");
    }
    e
}

#[test]
fn run_cat_gives_the_envelope_extract_gives() {
    let files = [
        REVIEW,
        "tests/fixtures/claude-code/max-structured-retries.ndjson",
        "tests/fixtures/claude-code/error-with-structured-output.ndjson",
        "tests/fixtures/claude-code/partial-messages.ndjson",
        "tests/fixtures/claude-code/rejected-only.ndjson",
    ];
    for f in files {
        for schema in [None, Some("examples/verdict.schema.json")] {
            let mut args = vec![];
            if let Some(s) = schema {
                args.extend(["--schema", s]);
            }
            let x = run(sojx().arg("extract").args(&args).arg(f));
            let r = run(sojx().arg("run").args(&args).args(["--", "cat", f]));
            assert_eq!(r.code, x.code, "{f} {schema:?}");
            let e = r.one();
            assert_eq!(e["command"], "run");
            assert_eq!(e["input"], "cat");
            assert_eq!(e["agent"]["command"], serde_json::json!(["cat", f]));
            assert_eq!(e["agent"]["exit_status"], 0);
            assert!(e["agent"].get("stopped").is_none());
            assert_eq!(
                comparable(e.clone()),
                comparable(x.one().clone()),
                "{f} {schema:?}"
            );
        }
    }
}

#[test]
fn the_agent_reads_sojx_stdin() {
    let stream = std::fs::read(crate::common::root().join(REVIEW)).unwrap();
    let r = run(sojx()
        .args(["run", "--", &agent("stdin-echo.sh")])
        .write_stdin(stream));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.one()["data"]["verdict"], "FAIL");
}

#[test]
fn an_agent_whose_key_is_refused_is_an_agent_error_that_says_so() {
    let r = run(sojx().args(["run", "--", &agent("auth-fail.sh")]));
    assert_eq!(r.code, 1);
    let e = r.one();
    assert_eq!(r.kind(), Some("agent_error"));
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("the agent exited with status 1 without a valid answer")
            && msg.contains("Invalid API key"),
        "{msg}"
    );
    assert_eq!(e["error"]["details"]["exit_status"], 1);
    assert_eq!(e["error"]["details"]["output"]["kind"], "empty_input");
    assert_eq!(e["agent"]["exit_status"], 1);
    assert!(
        e["agent"]["stderr_tail"]
            .as_str()
            .unwrap()
            .contains("Invalid API key")
    );
    // The agent's own stderr passed through, before sojx's line about it.
    let agent_line = r
        .stderr
        .find("Error: Invalid API key")
        .expect("passed through");
    let sojx_line = r.stderr.find("sojx: ").expect("told");
    assert!(agent_line < sojx_line, "{}", r.stderr);
}

#[test]
fn a_command_that_cannot_start_is_spawn_exit_3() {
    let r = run(sojx().args(["run", "--", "sojx-no-such-agent", "-p", "hi"]));
    assert_eq!(r.code, 3);
    assert_eq!(r.kind(), Some("spawn"));
    let e = r.one();
    assert_eq!(e["error"]["retryable"], false);
    assert!(e["agent"].get("pid").is_none());
    assert!(r.stderr.contains("not found on PATH"), "{}", r.stderr);
    // A file that is not a program.
    let r = run(sojx().args(["run", "--", "./examples/verdict.schema.json"]));
    assert_eq!((r.code, r.kind()), (3, Some("spawn")));
    // No COMMAND at all is a usage error.
    let r = run(sojx().args(["run", "--schema", "examples/verdict.schema.json"]));
    assert_eq!((r.code, r.kind()), (3, Some("usage")));
}

#[test]
fn timeout_stops_a_hung_agent_and_its_group() {
    let (r, took) = timed(&[
        "run",
        "--timeout",
        "1",
        "--kill-after",
        "1",
        "--",
        &agent("hang-after-half.sh"),
        REVIEW,
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.kind(), Some("timeout"));
    let e = r.one();
    assert_eq!(e["producer"], "claude-code");
    assert_eq!(e["error"]["details"]["lines"], 2);
    assert_eq!(e["agent"]["signal"], "SIGTERM");
    assert_eq!(e["agent"]["stopped"], "timeout");
    assert!(took < patience(Duration::from_secs(3)), "took {took:?}");
    group_gone(e);
}

/// Linux: an agent that left its group (`setsid`) is still stopped by `--timeout`: sojx signals
/// it as well as the group. Before issue 60 sojx signalled the group alone, which the agent had
/// left (its guard leads it), and waited 30 s for `sleep` to end by itself.
#[cfg(target_os = "linux")]
#[test]
fn timeout_stops_an_agent_that_left_its_group() {
    if !crate::common::have_tool("setsid", "timeout_stops_an_agent_that_left_its_group") {
        return;
    }
    let (r, took) = timed(&[
        "run",
        "--timeout",
        "0.5",
        "--kill-after",
        "1",
        "--",
        "setsid",
        "sleep",
        "30",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let e = r.one();
    assert_eq!(e["agent"]["stopped"], "timeout");
    assert_eq!(e["agent"]["signal"], "SIGTERM");
    assert!(took < patience(Duration::from_secs(5)), "took {took:?}");
}

/// An ignored SIGCHLD inherited from whoever started sojx (Python's `signal(SIGCHLD, SIG_IGN)`
/// survives exec) had the kernel reap the agent as soon as it exited: its exit status was lost,
/// and its pid free while sojx could still signal it. sojx now handles SIGCHLD in `run`.
#[test]
fn an_ignored_sigchld_inherited_keeps_the_agents_exit_status() {
    if !crate::common::have_tool(
        "python3",
        "an_ignored_sigchld_inherited_keeps_the_agents_exit_status",
    ) {
        return;
    }
    let script = "import signal, subprocess, sys\n\
                  signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n\
                  sys.stdout.write(subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout)";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(assert_cmd::cargo::cargo_bin("sojx"))
        .args(["run", "--", "sh", "-c", "echo not json; exit 3"])
        .output()
        .unwrap();
    let e: Value = serde_json::from_slice(&out.stdout).expect("one envelope");
    assert_eq!(e["error"]["kind"], "agent_error", "{e}");
    assert_eq!(e["agent"]["exit_status"], 3, "{e}");
}

#[test]
fn an_agent_that_ignores_sigterm_gets_sigkill_after_kill_after() {
    let dir = scratch("ignore-term");
    let pidfile = dir.join("child.pid");
    let (r, took) = timed(&[
        "run",
        "--timeout",
        "0.5",
        "--kill-after",
        "1",
        "--",
        &agent("ignore-term.sh"),
        path_str(&pidfile),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let e = r.one();
    assert_eq!(e["agent"]["signal"], "SIGKILL");
    assert_eq!(e["agent"]["stopped"], "timeout");
    assert!(
        took >= Duration::from_millis(1400),
        "SIGKILL came early: {took:?}"
    );
    assert!(took < patience(Duration::from_secs(5)), "took {took:?}");
    assert_gone(&pidfile, "the agent's child");
    group_gone(e);
}

#[test]
fn a_grandchild_that_holds_the_pipe_is_killed_after_the_agent_exits() {
    let dir = scratch("grandchild");
    let pidfile = dir.join("grandchild.pid");
    let (r, took) = timed(&[
        "run",
        "--kill-after",
        "1",
        "--schema",
        "examples/verdict.schema.json",
        "--",
        &agent("grandchild-holds-stdout.sh"),
        REVIEW,
        path_str(&pidfile),
    ]);
    // The stream was whole and the agent exited 0: the answer stands.
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = r.one();
    assert_eq!(e["agent"]["exit_status"], 0);
    assert!(took < patience(Duration::from_secs(3)), "took {took:?}");
    assert_gone(&pidfile, "the grandchild");
    group_gone(e);
}

#[test]
fn a_grandchild_that_holds_the_pipe_cannot_hold_sojx_past_its_timeout() {
    let dir = scratch("grandchild");
    let pidfile = dir.join("grandchild.pid");
    // --kill-after longer than --timeout: the timeout ends it.
    let (r, took) = timed(&[
        "run",
        "--timeout",
        "1",
        "--kill-after",
        "30",
        "--",
        &agent("grandchild-holds-stdout.sh"),
        REVIEW,
        path_str(&pidfile),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(took < patience(Duration::from_secs(3)), "took {took:?}");
    assert_gone(&pidfile, "the grandchild");
}

/// Send `signal` to a running `sojx run` once its agent is ready; the run's output.
fn interrupt(signal: &str) -> (crate::common::Run, String) {
    let dir = scratch(&format!("signal-{signal}"));
    let mark = dir.join("signal");
    let child = sojx_process()
        .args(["run", "--kill-after", "2", "--", &agent("record-signal.sh")])
        .arg(&mark)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ready = mark.with_extension("ready");
    let waited = Instant::now();
    while !ready.exists() {
        assert!(
            waited.elapsed() < patience(Duration::from_secs(10)),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < patience(Duration::from_secs(3)));
    let got = std::fs::read_to_string(&mark).unwrap_or_default();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let envelopes: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for e in &envelopes {
        crate::common::check_envelope(e);
    }
    let r = crate::common::Run {
        code: out.status.code().expect("sojx exits, not killed"),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        envelopes,
    };
    (r, got.trim().to_owned())
}

#[test]
fn signals_to_sojx_are_forwarded_and_end_it_as_a_shell_reports() {
    for (signal, code, name) in [
        ("INT", 130, "SIGINT"),
        ("TERM", 143, "SIGTERM"),
        ("HUP", 129, "SIGHUP"),
        // Ctrl-\ (issue 44, item 1): it ended sojx with no envelope, and never reached the
        // agent, in a group of its own.
        ("QUIT", 131, "SIGQUIT"),
    ] {
        let (r, got) = interrupt(signal);
        assert_eq!(got, signal, "the agent got {got:?}");
        assert_eq!(r.code, code, "{}", r.stderr);
        assert_eq!(r.kind(), Some("interrupted"));
        let e = r.one();
        assert_eq!(e["exit_code"], code);
        assert_eq!(e["error"]["details"]["signal"], name);
        assert_eq!(e["agent"]["exit_status"], code);
        assert_eq!(e["agent"]["stopped"], "interrupted");
        assert!(
            r.stderr.contains(&format!("agent: got {name}")),
            "{}",
            r.stderr
        );
        group_gone(e);
    }
}

/// The other signals that end a process by default ended sojx with no envelope, its agent's
/// group left running (issue 44, item 1): they end the run as the others do, the agent's group
/// asked to stop with SIGTERM (SIGUSR1 would open Node's inspector instead).
#[test]
fn other_ending_signals_stop_the_agent_with_sigterm() {
    // Linux's numbers.
    for (signal, code, name) in [("USR1", 138, "SIGUSR1"), ("ALRM", 142, "SIGALRM")] {
        let (r, got) = interrupt(signal);
        assert_eq!(got, "TERM", "the agent got {got:?}");
        assert_eq!(r.code, code, "{}", r.stderr);
        let e = r.one();
        assert_eq!(e["error"]["details"]["signal"], name);
        assert_eq!(
            e["error"]["message"],
            format!(
                "sojx got {name} while the agent ran; the agent was sent SIGTERM to stop, and it exited with status 143"
            )
        );
        assert_eq!(e["agent"]["stopped"], "interrupted");
        group_gone(e);
    }
}

#[test]
fn a_kill_after_too_long_to_count_means_never_and_no_panic() {
    let r = run(sojx().args(["run", "--kill-after", "1e19", "--", "true"]));
    assert_eq!(r.kind(), Some("empty_input"));
    let (r, took) = timed(&[
        "run",
        "--timeout",
        "0.3",
        "--kill-after",
        "1e19",
        "--",
        &agent("hang-after-half.sh"),
        REVIEW,
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.one()["agent"]["signal"], "SIGTERM");
    assert!(took < patience(Duration::from_secs(5)));
}

/// A recording, the argv after the program, and what sojx must say: exit status, error kind,
/// `retryable`, `agent.exit_class`, and a part of the message.
type Replayed = (
    &'static str,
    &'static [&'static str],
    i32,
    &'static str,
    bool,
    Option<&'static str>,
    &'static str,
);

/// The schema of the Claude Code recordings (draft-07: no `$schema` 2020-12, which Claude Code
/// 2.1 drops).
const CLAUDE_SCHEMA: &str = r#"{"type":"object","properties":{"verdict":{"type":"string","enum":["PASS","FAIL"]}},"required":["verdict"]}"#;

/// Claude Code's argv of the `--output-format json` recordings (the unknown model's had
/// `--model claude-nope` too: the replay does not need it).
const CLAUDE_JSON_RUN: &[&str] = &[
    "-p",
    "Review",
    "--output-format",
    "json",
    "--json-schema",
    CLAUDE_SCHEMA,
];

/// Claude Code's argv of the stream-json recordings with `--json-schema`.
const CLAUDE_SCHEMA_RUN: &[&str] = &[
    "-p",
    "Review",
    "--output-format",
    "stream-json",
    "--verbose",
    "--json-schema",
    CLAUDE_SCHEMA,
];

/// The real agent CLIs as they failed, replayed (`tests/fixtures/real/`, recorded with
/// `scripts/real-agents.sh --record`): each ends within `--timeout` + `--kill-after` + 1 s,
/// leaves nothing of its group, and its envelope names the cause (the exit status's class, the
/// stderr line without terminal escapes, the last retry), with `retryable` from the CLI's own
/// codes. The profile comes from the program's name, as with the real CLIs.
#[test]
fn the_real_clis_failures_name_their_cause() {
    let cases: &[Replayed] = &[
        (
            "claude-2.1.197-not-logged-in",
            &[
                "-p",
                "Say hi",
                "--output-format",
                "stream-json",
                "--verbose",
            ],
            1,
            "agent_error",
            false,
            None,
            "Not logged in · Please run /login",
        ),
        (
            "claude-2.1.197-api-retry-offline",
            &[
                "-p",
                "Say hi",
                "--output-format",
                "stream-json",
                "--verbose",
            ],
            2,
            "timeout",
            true,
            None,
            "; the agent was retrying its API: attempt ",
        ),
        (
            "codex-0.171.0-untrusted-dir",
            &["exec", "--json", "Say hi"],
            1,
            "agent_error",
            true,
            None,
            "Not inside a trusted directory and --skip-git-repo-check was not specified.",
        ),
        (
            "codex-0.171.0-offline",
            &["exec", "--json", "--skip-git-repo-check", "Say hi"],
            2,
            "timeout",
            true,
            None,
            "; its last error: Reconnecting... ",
        ),
        (
            "codex-0.171.0-stdin-never-closes",
            &["exec", "--json", "--skip-git-repo-check", "Say hi"],
            2,
            "timeout",
            true,
            None,
            "; the agent's stderr last said: Reading additional input from stdin...",
        ),
        (
            "gemini-0.61.0-no-auth",
            &["-p", "Say hi", "-o", "stream-json"],
            1,
            "agent_error",
            false,
            Some("FatalAuthenticationError"),
            "Please set an Auth method",
        ),
        (
            "gemini-0.61.0-untrusted-dir",
            &["-p", "Say hi", "-o", "stream-json"],
            1,
            "agent_error",
            false,
            Some("FatalUntrustedWorkspaceError"),
            ": Gemini CLI is not running in a trusted directory.",
        ),
        (
            "gemini-0.61.0-offline",
            &["-p", "Say hi", "-o", "stream-json", "--skip-trust"],
            2,
            "timeout",
            true,
            None,
            "; the agent's stderr last said: Attempt ",
        ),
        (
            "gemini-0.61.0-resume-unknown",
            &[
                "--resume",
                "0f5e3c1a-1111-4222-8333-944445555666",
                "-p",
                "Say hi",
            ],
            1,
            "agent_error",
            false,
            Some("FatalInputError"),
            "Error resuming session",
        ),
        // Issue 40, item 6: Qwen Code without an auth type never reached the model (no turn, no
        // API time): a configuration error, not retryable.
        (
            "qwen-0.24.4-no-auth",
            &["-p", "Review", "-o", "stream-json"],
            1,
            "agent_error",
            false,
            None,
            "No auth type is selected.",
        ),
        // Item 2: the model answered in text under --json-schema: an answer failure, retried
        // with feedback (`retry.rs`); once allowed only, its agent_error.
        (
            "qwen-0.24.4-plain-text-answer",
            crate::common::QWEN_SCHEMA_RUN,
            1,
            "agent_error",
            true,
            None,
            "Model produced plain text instead of calling the structured_output tool",
        ),
        // Item 5: the API refused the request (400 prompt too long, 404 unknown model): not
        // retryable, from the assistant message's class (stream-json) or from the result's
        // `api_error_type` and `api_error_status` (json: the result alone).
        (
            "claude-2.1.332-prompt-too-long",
            CLAUDE_SCHEMA_RUN,
            1,
            "agent_error",
            false,
            None,
            "Prompt is too long",
        ),
        (
            "claude-2.1.332-prompt-too-long-json",
            CLAUDE_JSON_RUN,
            1,
            "agent_error",
            false,
            None,
            "Prompt is too long",
        ),
        (
            "claude-2.1.332-unknown-model",
            CLAUDE_SCHEMA_RUN,
            1,
            "agent_error",
            false,
            None,
            "There's an issue with the selected model (claude-nope).",
        ),
        (
            "claude-2.1.332-unknown-model-json",
            CLAUDE_JSON_RUN,
            1,
            "agent_error",
            false,
            None,
            "There's an issue with the selected model (claude-nope).",
        ),
        // Item 5: Codex passes the provider's 400 body on; its type says the request is wrong.
        // (Recorded with `--output-schema schema.json`, left out here: `run` would read it.)
        (
            "codex-0.171.0-invalid-request",
            &["exec", "--json", "--skip-git-repo-check", "Review"],
            1,
            "agent_error",
            false,
            None,
            "Invalid schema for response_format 'codex_output_schema'",
        ),
    ];
    let bin = scratch("real");
    for &(recording, args, code, kind, retryable, class, said) in cases {
        let program = recording.split('-').next().unwrap();
        let link = bin.join(program);
        if !link.exists() {
            std::os::unix::fs::symlink(fixture("agents/replay.sh"), &link).unwrap();
        }
        let started = Instant::now();
        let r = run(sojx()
            .env(
                "SOJX_REPLAY",
                fixture(&format!("real/{recording}")).as_os_str(),
            )
            .args(["run", "--timeout", "1.5s", "--kill-after", "1s", "--"])
            .arg(&link)
            .args(args));
        let took = started.elapsed();
        assert!(
            took < patience(Duration::from_millis(3500)),
            "{recording}: {took:?}"
        );
        let e: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{recording}"));
        assert_eq!(r.code, code, "{recording}: {}", r.stdout);
        assert_eq!(e["error"]["kind"], kind, "{recording}");
        assert_eq!(e["error"]["retryable"], retryable, "{recording}");
        assert_eq!(e["agent"]["exit_class"].as_str(), class, "{recording}");
        let message = e["error"]["message"].as_str().unwrap();
        assert!(message.contains(said), "{recording}: {message}");
        let tail = e["agent"]["stderr_tail"].as_str().unwrap();
        assert!(
            !tail.contains('\u{1b}') && !message.contains('\u{1b}'),
            "{recording}"
        );
        group_gone(&e);
    }
}

/// Claude Code's `--json-schema` validator is Ajv's draft-07 default: 2.1.332 refuses a schema
/// whose `$schema` is 2020-12 (exit 1, nothing on stdout), and a schema it does not take leaves
/// the init event's `tools` without `StructuredOutput` and the answer in prose (issue 40, §2
/// item 1; recorded against the real CLI, docs/run.md). `run` names the cause and the fix.
#[test]
fn claude_code_refusing_or_dropping_the_json_schema_is_named_with_the_fix() {
    let schema =
        std::fs::read_to_string(crate::common::root().join("examples/verdict.schema.json"))
            .unwrap();
    let bin = scratch("claude-schema");
    let link = bin.join("claude");
    if !link.exists() {
        std::os::unix::fs::symlink(fixture("agents/replay.sh"), &link).unwrap();
    }
    let replay = |recording: &str, schema_flag: &[&str]| {
        run(sojx()
            .env(
                "SOJX_REPLAY",
                fixture(&format!("real/{recording}")).as_os_str(),
            )
            .args(["run", "--"])
            .arg(&link)
            .args([
                "-p",
                "Review",
                "--output-format",
                "stream-json",
                "--verbose",
            ])
            .args(schema_flag))
    };
    let given = ["--json-schema", schema.as_str()];
    // Refused: the error says why and what to run instead; re-running the same will not help.
    let r = replay("claude-2.1.332-json-schema-2020-12", &given);
    let e = r.one();
    assert_eq!(
        (r.code, e["error"]["kind"].as_str()),
        (1, Some("agent_error"))
    );
    assert_eq!(e["error"]["retryable"], false, "{}", r.stdout);
    let message = e["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("--json-schema is not a valid JSON Schema"),
        "{message}"
    );
    let hint = e["error"]["hint"].as_str().unwrap();
    let names_the_fix = |said: &str| {
        for part in [
            "draft-07",
            "$schema",
            "sojx compile -r --provider claude-code",
        ] {
            assert!(said.contains(part), "{part}: {said}");
        }
    };
    names_the_fix(hint);
    assert!(r.stderr.contains(&format!("hint: {hint}")), "{}", r.stderr);
    // Dropped: the answer came back as text (valid here), with a warning naming cause and fix.
    let r = replay("claude-2.1.332-json-schema-empty", &given);
    let e = r.one();
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(e["source"]["kind"], "final_text");
    let w = &e["warnings"][0];
    assert_eq!(w["kind"], "json_schema_dropped", "{}", r.stdout);
    let said = w["message"].as_str().unwrap();
    assert!(said.contains("no StructuredOutput tool"), "{said}");
    names_the_fix(said);
    assert!(
        r.stderr.contains("/claude: warning: json_schema_dropped: "),
        "{}",
        r.stderr
    );
    // Without --json-schema nothing was asked for, so nothing was dropped.
    let r = replay("claude-2.1.332-json-schema-empty", &[]);
    assert_eq!(r.one()["warnings"], serde_json::json!([]), "{}", r.stdout);
}
