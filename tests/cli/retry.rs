//! `sojx run --max-attempts N`: a fake Claude Code (`tests/fixtures/agents/fake-claude.sh`,
//! linked as `claude` so that its resume profile is chosen) answers wrong, then right once it
//! is resumed or given the feedback; it records the argv and the `SOJX_*` variables it got.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{fixture, path_str, run, sojx};

const SCHEMA: &str = "examples/verdict.schema.json";

/// The feedback for the fake agent's wrong answer, when its session is resumed.
const FEEDBACK: &str = "The previous output was invalid:\n\
- /verdict: \"MAYBE\" is not one of \"PASS\" or \"FAIL\"\n\
Return only JSON matching the schema, with no prose and no code fences.";

/// A scratch directory with `claude` linked to the fake agent, and the agent's log.
struct Scratch {
    dir: crate::common::Scratch,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = crate::common::Scratch::new("retry", name);
        std::os::unix::fs::symlink(fixture("agents/fake-claude.sh"), dir.join("claude")).unwrap();
        Self { dir }
    }

    fn claude(&self) -> String {
        path_str(&self.dir.join("claude")).to_owned()
    }

    fn log(&self) -> PathBuf {
        self.dir.join("log")
    }

    /// `sojx run FLAGS -- claude FIRST…`, the fake agent logging here.
    fn run_claude(&self, flags: &[&str]) -> assert_cmd::Command {
        let mut c = sojx();
        c.env("FAKE_AGENT_LOG", self.log())
            .arg("run")
            .args(flags)
            .arg("--")
            .arg(self.claude())
            .args(FIRST);
        c
    }

    /// Each attempt the agent recorded: its arguments, and the rest of its record.
    fn attempts(&self) -> Vec<(Vec<String>, String)> {
        let text = std::fs::read_to_string(self.log()).unwrap_or_default();
        text.split("==\n")
            .filter(|a| !a.is_empty())
            .map(|a| {
                let (args, env) = a.split_once("## env\n").expect("an env section");
                let args = args.lines().map(str::to_owned).collect();
                (args, env.to_owned())
            })
            .collect()
    }
}

/// The fake agent's first argv (after its program): a Claude Code print run with a schema.
const FIRST: [&str; 7] = [
    "-p",
    "review",
    "--output-format",
    "stream-json",
    "--verbose",
    "--json-schema",
    "{\"type\":\"object\"}",
];

#[test]
fn a_wrong_answer_resumes_the_session_with_the_violations_fed_back() {
    let s = Scratch::new("resume");
    let r = run(&mut s.run_claude(&["--max-attempts", "3", "--schema", SCHEMA]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = r.one();
    assert_eq!(e["data"]["verdict"], "PASS");
    let attempts = e["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["outcome"], "failed");
    assert_eq!(attempts[0]["error_kind"], "validation_failed");
    assert_eq!(attempts[0]["session_id"], "fake-session-1");
    assert_eq!(attempts[0]["via"], "command");
    assert_eq!(attempts[1]["outcome"], "ok");
    assert_eq!(attempts[1]["via"], "resume:claude");
    let got = s.attempts();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0, FIRST);
    // The same session, the output and schema flags re-passed, the feedback as the prompt.
    let mut want: Vec<String> = [
        "-p",
        "--resume",
        "fake-session-1",
        "--output-format",
        "stream-json",
        "--verbose",
        "--json-schema",
        "{\"type\":\"object\"}",
        "--",
    ]
    .map(String::from)
    .to_vec();
    want.extend(FEEDBACK.lines().map(String::from));
    assert_eq!(got[1].0, want);
    let env = &got[1].1;
    assert!(env.starts_with("SOJX_ATTEMPT=2 SOJX_MAX_ATTEMPTS=3 SOJX_SESSION_ID=fake-session-1\n"));
    assert!(
        env.contains(&format!("SOJX_FEEDBACK={FEEDBACK}\n")),
        "{env}"
    );
    assert!(
        env.contains("previous output: {\"verdict\":\"MAYBE\",\"confidence\":0.9,\"issues\":[]}\n")
    );
    assert!(
        got[0]
            .1
            .starts_with("SOJX_ATTEMPT=1 SOJX_MAX_ATTEMPTS=3 SOJX_SESSION_ID=\n")
    );
    // The agent's stderr, then sojx's line on the retry, then the agent's again.
    let retry = r.stderr.find("retry: attempt 1 of 3 failed (validation_failed); attempt 2 resumes session fake-session-1").expect(&r.stderr);
    assert!(r.stderr.find("fake-claude: attempt 1").unwrap() < retry);
    assert!(r.stderr.find("fake-claude: attempt 2").unwrap() > retry);
    // The run's directory for the feedback files is gone.
    let files: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once("_FILE=").map(|(_, p)| p))
        .filter(|p| !p.is_empty())
        .collect();
    assert_eq!(files.len(), 3, "{env}");
    for f in files {
        assert!(!std::path::Path::new(f).exists(), "{f} was left behind");
    }
}

#[test]
fn without_a_profile_command_runs_again_with_the_whole_feedback_in_its_environment() {
    let s = Scratch::new("again");
    let r = run(&mut s.run_claude(&[
        "--max-attempts",
        "2",
        "--resume-profile",
        "none",
        "--schema",
        SCHEMA,
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.one()["attempts"][1]["via"], "command");
    let got = s.attempts();
    assert_eq!(got[1].0, FIRST, "COMMAND again, as given");
    let env = &got[1].1;
    // Not resumed: the feedback carries the schema and the previous output.
    assert!(
        env.contains(&format!(
            "SOJX_FEEDBACK={FEEDBACK}\n\nThe JSON schema:\n{{\n"
        )),
        "{env}"
    );
    assert!(env.contains(
        "\n\nThe previous output:\n{\"verdict\":\"MAYBE\",\"confidence\":0.9,\"issues\":[]}\n"
    ));
}

#[test]
fn retry_command_places_each_value_in_one_argument() {
    let s = Scratch::new("template");
    let template = format!(
        "{} --resume {{session_id}} --attempt={{attempt}} -f {{feedback_file}} '{{feedback}}'",
        s.claude()
    );
    let r = run(&mut s.run_claude(&[
        "--max-attempts",
        "2",
        "--retry-command",
        &template,
        "--feedback-template",
        "fix: {errors}",
        "--schema",
        SCHEMA,
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.one()["attempts"][1]["via"], "retry_command");
    let got = s.attempts();
    let args = &got[1].0;
    assert_eq!(args[..3], ["--resume", "fake-session-1", "--attempt=2"]);
    assert_eq!(args[3], "-f");
    assert!(args[4].ends_with("/feedback.txt"), "{args:?}");
    assert_eq!(
        args[5..],
        ["fix: - /verdict: \"MAYBE\" is not one of \"PASS\" or \"FAIL\""]
    );
    // A template that is not a command line is the caller's error, before any attempt.
    let r = run(sojx().args([
        "run",
        "--max-attempts",
        "2",
        "--retry-command",
        "agent 'open",
        "--",
        "true",
    ]));
    assert_eq!((r.code, r.kind()), (3, Some("usage")));
}

/// A session id from the agent's own output, or feedback that starts with `-`, never becomes an
/// option of the next attempt (issue 44 item 2): the attempt is not made, and a warning says why.
#[test]
fn a_retry_command_never_passes_a_value_as_an_option() {
    let s = Scratch::new("hostile-id");
    let template = format!("{} --resume {{session_id}} -p {{feedback}}", s.claude());
    let r = run(s
        .run_claude(&[
            "--max-attempts",
            "2",
            "--retry-command",
            &template,
            "--schema",
            SCHEMA,
        ])
        .env("FAKE_AGENT_SESSION", "--dangerously-skip-permissions"));
    assert_eq!(
        (r.code, r.kind()),
        (1, Some("validation_failed")),
        "{}",
        r.stderr
    );
    let e = r.one();
    assert_eq!(e["attempts"].as_array().unwrap().len(), 1);
    assert_eq!(s.attempts().len(), 1);
    assert_eq!(e["warnings"][0]["kind"], "retry_refused");
    let msg = e["warnings"][0]["message"].as_str().unwrap();
    assert!(msg.starts_with("attempt 2 was not made: --retry-command's word `{session_id}` would become `--dangerously-skip-permissions`"), "{msg}");
    // Feedback that starts with `-` goes after `--`, where it is the prompt.
    let s = Scratch::new("dash-feedback");
    let flags = |template: &str| {
        vec![
            "--max-attempts".to_owned(),
            "2".into(),
            "--retry-command".into(),
            template.to_owned(),
            "--feedback-template".into(),
            "{errors}".into(),
            "--schema".into(),
            SCHEMA.into(),
        ]
    };
    let bare = flags(&format!("{} -p {{feedback}}", s.claude()));
    let r = run(&mut s.run_claude(&bare.iter().map(String::as_str).collect::<Vec<_>>()));
    assert_eq!(r.one()["warnings"][0]["kind"], "retry_refused");
    assert_eq!(s.attempts().len(), 1);
    let after = flags(&format!("{} -p -- {{feedback}}", s.claude()));
    let r = run(&mut s.run_claude(&after.iter().map(String::as_str).collect::<Vec<_>>()));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let got = s.attempts();
    assert_eq!(got.len(), 3);
    assert_eq!(
        got[2].0[1..],
        [
            "--",
            "- /verdict: \"MAYBE\" is not one of \"PASS\" or \"FAIL\""
        ]
    );
}

#[test]
fn attempts_run_out_with_the_last_failure() {
    let s = Scratch::new("exhausted");
    let r = run(s
        .run_claude(&["--max-attempts", "3", "--schema", SCHEMA])
        .env("FAKE_AGENT_ALWAYS_BAD", "1"));
    assert_eq!(r.code, 1);
    assert_eq!(r.kind(), Some("validation_failed"));
    let a = r.one()["attempts"].as_array().unwrap().clone();
    assert_eq!(a.len(), 3);
    assert!(a.iter().all(|x| x["outcome"] == "failed"));
    assert_eq!(s.attempts().len(), 3);
    // The last attempt's agent.
    assert_eq!(r.one()["agent"]["command"][2], "--resume");
}

#[test]
fn failures_that_another_attempt_cannot_fix_are_not_retried() {
    let auth = path_str(&fixture("agents/auth-fail.sh")).to_owned();
    let r = run(sojx().args(["run", "--max-attempts", "3", "--", &auth]));
    assert_eq!(r.code, 1);
    assert_eq!(r.one()["attempts"].as_array().unwrap().len(), 1);
    assert!(!r.stderr.contains("retry:"));
    // Asked for: an agent that failed is tried again.
    let r = run(sojx().args([
        "run",
        "--max-attempts",
        "2",
        "--retry-on",
        "agent_error",
        "--",
        &auth,
    ]));
    assert_eq!(r.one()["attempts"].as_array().unwrap().len(), 2);
    // One attempt allowed: no `attempts`.
    let r = run(sojx().args(["run", "--", &auth]));
    assert!(r.one().get("attempts").is_none());
    // A producer's own "not retryable" (Claude Code not logged in) is never retried, asked or not.
    let stream = path_str(&fixture("producers/claude-code/not-logged-in.ndjson")).to_owned();
    let r = run(sojx().args([
        "run",
        "--max-attempts",
        "3",
        "--retry-on",
        "agent_error",
        "--",
        "sh",
        "-c",
        "cat \"$0\"; exit 1",
        &stream,
    ]));
    assert_eq!(r.kind(), Some("agent_error"));
    assert_eq!(r.one()["error"]["retryable"], false);
    assert_eq!(r.one()["attempts"].as_array().unwrap().len(), 1);
}

#[test]
fn timeouts_are_retried_only_when_asked() {
    let hang = path_str(&fixture("agents/hang-after-half.sh")).to_owned();
    let r = run(sojx().args([
        "run",
        "--timeout",
        "0.3",
        "--max-attempts",
        "2",
        "--",
        &hang,
        "examples/claude-review.ndjson",
    ]));
    assert_eq!(r.code, 2);
    assert_eq!(r.one()["attempts"].as_array().unwrap().len(), 1);
    let started = Instant::now();
    let r = run(sojx().args([
        "run",
        "--timeout",
        "0.5",
        "--kill-after",
        "0.5",
        "--max-attempts",
        "2",
        "--retry-on",
        "timeout",
        "--",
        &hang,
        "examples/claude-review.ndjson",
    ]));
    assert_eq!(r.code, 2);
    let a = r.one()["attempts"].as_array().unwrap().clone();
    assert_eq!(a.len(), 2);
    assert!(a.iter().all(|x| x["error_kind"] == "timeout"));
    assert!(started.elapsed() < crate::common::patience(Duration::from_secs(4)));
}

#[test]
fn the_tee_separates_attempts_and_reads_back_as_the_last_answer() {
    let s = Scratch::new("tee");
    let tee = s.dir.join("run.ndjson");
    let r = run(&mut s.run_claude(&[
        "--max-attempts",
        "2",
        "--schema",
        SCHEMA,
        "--tee",
        path_str(&tee),
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(&tee).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[2], json!({"type": "sojx_attempt", "attempt": 2}));
    let back = run(sojx().args(["extract", "--schema", SCHEMA, path_str(&tee)]));
    assert_eq!(back.code, 0, "{}", back.stderr);
    assert_eq!(back.one()["data"], r.one()["data"]);
}

/// Issue 39, item 4: attempt 1 answered (invalid), attempt 2 timed out; the copy reads back as
/// attempt 2 (cut off), never as attempt 1's stale answer.
#[test]
fn a_tee_copy_whose_last_attempt_timed_out_is_not_the_earlier_answer() {
    let s = Scratch::new("tee-timeout");
    let tee = s.dir.join("run.ndjson");
    let r = run(s
        .run_claude(&[
            "--max-attempts",
            "2",
            "--retry-on",
            "timeout",
            "--timeout",
            "1",
            "--kill-after",
            "0.5",
            "--schema",
            SCHEMA,
            "--tee",
            path_str(&tee),
        ])
        .env("FAKE_AGENT_RESUMED_HANGS", "1"));
    assert_eq!(r.code, 2, "{}", r.stderr);
    let kinds: Vec<&Value> = r.one()["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["error_kind"])
        .collect();
    assert_eq!(kinds, [&json!("validation_failed"), &json!("timeout")]);
    for args in [&["extract"][..], &["extract", "--schema", SCHEMA]] {
        let back = run(sojx().args(args).arg(path_str(&tee)));
        assert_eq!(back.code, 1, "{}", back.stdout);
        assert_eq!(back.kind(), Some("truncated"), "{}", back.stdout);
    }
}

#[test]
fn without_schema_the_schema_comes_from_the_agents_own_flag() {
    let s = Scratch::new("argv-schema");
    let schema = std::fs::read_to_string(crate::common::root().join(SCHEMA)).unwrap();
    let claude = s.claude();
    let args = [
        "-p",
        "review",
        "--output-format",
        "stream-json",
        "--verbose",
        "--json-schema",
        &schema,
    ];
    let r = run(sojx().args(["run", "--", &claude]).args(args));
    assert_eq!(r.kind(), Some("validation_failed"), "{}", r.stderr);
    assert_eq!(
        r.one()["validation"]["schema"],
        format!("<inline> ({claude} --json-schema)")
    );
    assert!(!r.stderr.contains("in COMMAND so that"), "{}", r.stderr);
    assert!(!r.stderr.contains("to COMMAND so that"), "{}", r.stderr);
    // Both given and different: --schema wins, with a warning.
    let r = run(sojx()
        .args(["run", "--schema", "{\"type\":\"object\"}", "--", &claude])
        .args(args));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.one()["warnings"][0]["kind"], "schema_mismatch");
    // The same schema: no warning.
    let r = run(sojx()
        .args(["run", "--schema", SCHEMA, "--", &claude])
        .args(args));
    assert_eq!(r.one()["warnings"], json!([]));
    // The documented recipe: --schema x.json, and the agent given `sojx compile -r --provider
    // claude-code x.json` (a 2020-12 schema in draft-07's terms): the same schema, no warning,
    // and the answer validated against x.json itself.
    let compiled = sojx()
        .args(["compile", "-r", "--provider", "claude-code", SCHEMA])
        .current_dir(crate::common::root())
        .output()
        .unwrap();
    let compiled = String::from_utf8(compiled.stdout).unwrap();
    assert_ne!(
        compiled.trim(),
        schema.trim(),
        "the compile changed nothing"
    );
    let mut recipe = args;
    recipe[6] = &compiled;
    let r = run(sojx()
        .args(["run", "--schema", SCHEMA, "--", &claude])
        .args(recipe));
    assert_eq!(r.one()["warnings"], json!([]), "{}", r.stderr);
    assert_eq!(r.one()["validation"]["schema"], SCHEMA);
}

#[test]
fn an_agent_started_without_its_stream_flags_gets_a_hint() {
    let s = Scratch::new("hint");
    // -p is there: the hint adds only what is missing (issue 42, item 10).
    let r = run(sojx().args(["run", "--", &s.claude(), "-p", "review"]));
    assert!(
        r.stderr.contains(
            ": hint: add --output-format stream-json --verbose to COMMAND so that it prints a stream sojx reads\n"
        ),
        "{}",
        r.stderr
    );
    // A text format given is replaced, not added to.
    let r = run(sojx().args([
        "run",
        "--",
        &s.claude(),
        "-p",
        "--output-format",
        "text",
        "review",
    ]));
    assert!(
        r.stderr.contains(
            ": hint: replace --output-format text with --output-format stream-json and add --verbose in COMMAND so"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn opencode_is_resumed_with_the_feedback_on_its_stdin() {
    let s = Scratch::new("opencode");
    let opencode = s.dir.join("opencode");
    std::os::unix::fs::symlink(fixture("agents/fake-opencode.sh"), &opencode).unwrap();
    let r = run(sojx().env("FAKE_AGENT_LOG", s.log()).args([
        "run",
        "--max-attempts",
        "2",
        "--schema",
        SCHEMA,
        "--",
        path_str(&opencode),
        "run",
        "--format",
        "json",
        "review it",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.one()["attempts"][1]["via"], "resume:opencode");
    let log = std::fs::read_to_string(s.log()).unwrap();
    let second = log.split("==\n").nth(1).unwrap();
    assert_eq!(
        second,
        format!("run\n--session\nses_fake1\n--format\njson\nstdin: {FEEDBACK}\n")
    );
}

/// Qwen Code 0.24.4 with `--json-schema`, its model answering in plain text: the run ends
/// `error_during_execution` ("Model produced plain text instead of calling the
/// structured_output tool", `tests/fixtures/real/qwen-0.24.4-plain-text-answer.*`). That is an
/// answer failure, as Claude Code's `error_max_structured_output_retries` is: `run` resumes the
/// session with the feedback, and the resumed run (recorded after that one, with that feedback)
/// answers through the tool (issue 40, item 2).
#[test]
fn qwen_answering_in_plain_text_is_resumed_with_the_feedback() {
    let s = Scratch::new("qwen-plain");
    let qwen = s.dir.join("qwen");
    std::os::unix::fs::symlink(fixture("agents/replay.sh"), &qwen).unwrap();
    let schema = crate::common::QWEN_SCHEMA;
    let r = run(sojx()
        .env("FAKE_AGENT_LOG", s.log())
        .env("SOJX_REPLAY", fixture("real/qwen-0.24.4-plain-text-answer"))
        .env(
            "SOJX_REPLAY_NEXT",
            fixture("real/qwen-0.24.4-resumed-answer"),
        )
        .args(["run", "--max-attempts", "2", "--"])
        .arg(&qwen)
        .args(crate::common::QWEN_SCHEMA_RUN));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let e = r.one();
    assert_eq!(e["data"], json!({"verdict": "PASS"}));
    assert_eq!(e["source"]["kind"], "structured_output");
    let attempts = e["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["error_kind"], "agent_error");
    assert_eq!(attempts[1]["via"], "resume:qwen");
    let session = "c83e132a-f711-46ab-921e-7e4bea74fa82";
    assert_eq!(attempts[0]["session_id"], session);
    assert_eq!(attempts[1]["session_id"], session);
    assert!(
        r.stderr
            .contains("attempt 1 of 2 failed (agent_error); attempt 2 resumes session"),
        "{}",
        r.stderr
    );
    let log = std::fs::read_to_string(s.log()).unwrap();
    let second: Vec<&str> = log.split("==\n").nth(1).unwrap().lines().collect();
    assert_eq!(second[..2], ["--resume", session]);
    assert!(second.contains(&"--json-schema") && second.contains(&schema));
    let prompt = log
        .split("==\n")
        .nth(1)
        .unwrap()
        .split_once("--prompt=")
        .expect("the feedback as the prompt")
        .1;
    assert!(
        prompt.starts_with("The previous output was invalid:\n- ")
            && prompt.contains(
                "Model produced plain text instead of calling the structured_output tool"
            ),
        "{prompt}"
    );
}

/// A producer file's `[resume]` (examples/producer-file/acme.toml): chosen by COMMAND's file
/// name (`acme`) or `--resume-profile acme`, its argv with the session id, the carried flags
/// and the feedback after `--`; none with a flag that saves no session.
#[test]
fn a_producer_files_resume_form_resumes_its_cli() {
    let s = Scratch::new("acme");
    let acme = s.dir.join("acme");
    std::os::unix::fs::symlink(
        crate::common::root().join("examples/producer-file/acme"),
        &acme,
    )
    .unwrap();
    let attempt = |extra: &[&str], first: &[&str]| {
        let _ = std::fs::remove_file(s.log());
        let mut cmd = sojx();
        cmd.env("FAKE_AGENT_LOG", s.log()).args([
            "run",
            "--producer-file",
            "examples/producer-file/acme.toml",
            "--max-attempts",
            "2",
            "--schema",
            SCHEMA,
        ]);
        cmd.args(extra).arg("--").args(first);
        let r = run(&mut cmd);
        let log = std::fs::read_to_string(s.log()).unwrap_or_default();
        (r, log)
    };
    let first = [
        path_str(&acme),
        "run",
        "--events",
        "--model",
        "acme-large",
        "review it",
    ];
    let (r, log) = attempt(&[], &first);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.one()["producer"], "acme");
    assert_eq!(r.one()["attempts"][1]["via"], "resume:acme");
    let second = log.split("==\n").nth(1).unwrap();
    assert_eq!(
        second,
        format!("run\n--resume\nrun-7\n--events\n--model\nacme-large\n--\n{FEEDBACK}\n")
    );
    // Another file name: only by --resume-profile.
    let other = s.dir.join("acme-wrapper");
    std::os::unix::fs::symlink(
        crate::common::root().join("examples/producer-file/acme"),
        &other,
    )
    .unwrap();
    let mut renamed = first;
    renamed[0] = path_str(&other);
    let (r, _) = attempt(&[], &renamed);
    assert_eq!(r.one()["attempts"][1]["via"], "command", "{}", r.stdout);
    let (r, _) = attempt(&["--resume-profile", "acme"], &renamed);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.one()["attempts"][1]["via"], "resume:acme");
    // A first attempt that saves no session: COMMAND again.
    let mut unsaved = first.to_vec();
    unsaved.insert(2, "--no-save");
    let (r, _) = attempt(&[], &unsaved);
    assert_eq!(r.one()["attempts"][1]["via"], "command", "{}", r.stdout);
    // An id no loaded file resumes: usage, exit 3.
    let (r, _) = attempt(&["--resume-profile", "nobody"], &first);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.kind(), Some("usage"));
}

/// A session id that cannot be an argument (a NUL byte, or past 4 KiB) is no session to resume
/// (issue 58, item 10): the retry is not made, with a `retry_refused` warning and attempt 1's
/// `validation_failed`, where the resumed attempt once failed to start (`spawn`, exit 3,
/// blaming the command). An id with a newline is printed escaped, on one line.
#[test]
fn a_session_id_that_cannot_be_an_argument_is_not_resumed() {
    let long = "s".repeat(10_000);
    for (id, why) in [
        ("a\\u0000b", "holds a NUL byte"),
        (long.as_str(), "10000 bytes"),
    ] {
        let s = Scratch::new("unusable-id");
        let r = run(s
            .run_claude(&["--schema", SCHEMA, "--max-attempts", "2"])
            .env("FAKE_AGENT_SESSION", id));
        assert_eq!(r.code, 1, "{}", r.stderr);
        let e = r.one();
        assert_eq!(e["error"]["kind"], "validation_failed");
        let warnings = e["warnings"].to_string();
        assert!(
            warnings.contains("retry_refused") && warnings.contains(why),
            "{warnings}"
        );
        assert_eq!(s.attempts().len(), 1);
    }
    let s = Scratch::new("newline-id");
    let r = run(s
        .run_claude(&["--schema", SCHEMA, "--max-attempts", "2"])
        .env("FAKE_AGENT_SESSION", "a\\u000ab"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("resumes session a\\nb with"),
        "{}",
        r.stderr
    );
}
