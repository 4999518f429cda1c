//! Shared helpers: a hermetic `sojx` command, envelope parsing and validation, the shared corpus.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use serde_json::Value;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fixture under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// `README.md` and `docs/*.md`, sorted: the documents whose transcripts run as tests.
pub fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// Variables removed from every test run (colors, terminal width).
pub const UNSET: [&str; 6] = [
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "TERM",
    "COLUMNS",
];

/// `sojx` as a plain process with a clean environment (no color variables, no terminal width),
/// in the project root: for tests that spawn it and drive its pipes themselves.
pub fn sojx_process() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("sojx"));
    for k in UNSET {
        c.env_remove(k);
    }
    // No producer files of the developer's config folder: a folder that does not exist.
    c.env("XDG_CONFIG_HOME", NO_CONFIG);
    c.current_dir(root());
    c
}

/// `XDG_CONFIG_HOME` for the tests: a folder that does not exist, so that the producer files of
/// the config folder are none.
pub const NO_CONFIG: &str = "/nonexistent/sojx-tests-config";

/// `sojx` with a clean environment: no color variables, no terminal.
pub fn sojx() -> Command {
    Command::from_std(sojx_process())
}

/// The result of one run: exit code, envelopes (validated), stderr.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub envelopes: Vec<Value>,
}

impl Run {
    /// The only envelope.
    pub fn one(&self) -> &Value {
        assert_eq!(
            self.envelopes.len(),
            1,
            "expected one envelope, got:\n{}",
            self.stdout
        );
        &self.envelopes[0]
    }

    pub fn kind(&self) -> Option<&str> {
        self.one().pointer("/error/kind").and_then(Value::as_str)
    }
}

/// Run a prepared command and parse its stdout as JSON Lines of envelopes, each validated
/// against `schemas/envelope.schema.json` and checked against the exit code.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("sojx runs");
    let code = out.status.code().expect("sojx exited normally (no signal)");
    assert_ne!(
        code,
        101,
        "sojx panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let envelopes: Vec<Value> = stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // Read exactly: serde_json's private number key is a key (issue 39, item 6).
            sojx_core::json::from_str(l)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"))
        })
        .collect();
    for e in &envelopes {
        check_envelope(e);
    }
    Run {
        code,
        stdout,
        stderr,
        envelopes,
    }
}

/// The messages of the only envelope's warnings of `kind`.
#[allow(dead_code)]
pub fn warned(r: &Run, kind: &str) -> Vec<String> {
    r.one()["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == kind)
        .map(|w| w["message"].as_str().unwrap().to_owned())
        .collect()
}

/// Run `sojx ARGS` with `stdin` as input.
pub fn run_stdin(args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
    run(sojx().args(args).write_stdin(stdin.into()))
}

/// Validate an envelope against the published envelope schema.
pub fn check_envelope(e: &Value) {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    let v = V.get_or_init(|| {
        let text = std::fs::read_to_string(root().join("schemas/envelope.schema.json"))
            .expect("envelope schema");
        let schema: Value = serde_json::from_str(&text).expect("envelope schema is JSON");
        jsonschema::validator_for(&schema).expect("envelope schema compiles")
    });
    let errors: Vec<String> = v
        .iter_errors(e)
        .map(|x| format!("{} at {}", x, x.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "envelope does not match schemas/envelope.schema.json: {errors:?}\n{e}"
    );
    let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        &keys[..6],
        [
            "timestamp",
            "command",
            "exit_code",
            "output_format",
            "schema_version",
            "input"
        ]
    );
}

/// The shared acceptance material: `SOJX_SHARED` when set (a test of the skip itself points it
/// elsewhere), else `../shared` next to the project.
fn shared_dir() -> PathBuf {
    std::env::var_os("SOJX_SHARED").map_or_else(|| root().join("../shared"), PathBuf::from)
}

/// `../shared` next to the project, when present. Absent: a skip notice (see [`skip`]) and None,
/// except under `SOJX_REQUIRE_SHARED=1` (which `.ci/run` sets), where its absence fails the test.
pub fn shared() -> Option<PathBuf> {
    let p = shared_dir();
    if p.join("CONTRACT.md").is_file() {
        return Some(p);
    }
    assert!(
        std::env::var_os("SOJX_REQUIRE_SHARED").is_none_or(|v| v != "1"),
        "{} is missing, and SOJX_REQUIRE_SHARED=1 requires it",
        p.display()
    );
    skip(&format!(
        "{} is absent (SOJX_REQUIRE_SHARED=1 makes that a failure)",
        p.display()
    ));
    None
}

/// The shared corpus's cases (`corpus/EXPECTED.json`), each with its command line's words.
pub fn corpus_cases(corpus: &Path) -> Vec<(Value, Vec<String>)> {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("EXPECTED.json")).unwrap())
            .unwrap();
    assert!(
        cases.len() > 100,
        "only {} corpus cases in EXPECTED.json",
        cases.len()
    );
    cases
        .into_iter()
        .map(|c| {
            let args = c["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
                .collect();
            (c, args)
        })
        .collect()
}

/// The one way a test says it skips (all or part of itself): a line `notice: skipping TEST: WHY`
/// (TEST is the harness's name for the running test) written to the process's stderr itself.
/// The harness captures `eprintln!` and shows it only for a failing test, so a notice printed
/// that way vanished under a plain `cargo test`; this one is shown whatever the result.
pub fn skip(why: &str) {
    use std::io::Write;
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let line = format!("notice: skipping {test}: {why}\n");
    // One write of the whole line, so that notices of tests running at once do not interleave.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Whether `tool` (run with `--version`) is on PATH; when it is not, a notice that `test` is
/// skipped, or a failure when `SOJX_REQUIRE_TOOLS=1` (which `.ci/run` sets, after installing
/// them). Never keyed on `CI`: a fork's CI or a plain clone without the tool still passes.
#[allow(dead_code)]
pub fn have_tool(tool: &str, test: &str) -> bool {
    let have = std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        missing(&format!("`{tool}`"), test);
    }
    have
}

/// Run the shell command `cmd` on a pseudo-terminal (`script`, util-linux), as a person would,
/// with no colors, at most 20 s; its terminal output (stdout and stderr both). Check
/// `have_tool("script", …)` first.
#[allow(dead_code)]
pub fn on_a_terminal(cmd: &str) -> String {
    let out = std::process::Command::new("timeout")
        .args(["20", "script", "-qec", cmd, "/dev/null"])
        .env("NO_COLOR", "1")
        .env("TERM", "dumb")
        .output()
        .expect("timeout and script run");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A test (or part of one) cannot run here because `what` is missing: a skip notice (see
/// [`skip`]), or a failure when `SOJX_REQUIRE_TOOLS=1` (which `.ci/run` sets), so that CI never
/// passes by skipping.
#[allow(dead_code)]
pub fn missing(what: &str, test: &str) {
    assert!(
        std::env::var_os("SOJX_REQUIRE_TOOLS").is_none_or(|v| v != "1"),
        "{test} needs {what}, and SOJX_REQUIRE_TOOLS=1 requires it"
    );
    skip(&format!("{what} is missing, needed by {test}"));
}

#[allow(dead_code)]
pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// A new empty directory for one test, `sojx-<kind>-<pid>-<n>-<name>` in the temporary
/// directory (`n` counts the directories of this process: no two tests share one), removed with
/// everything in it when dropped: when the test ends, and when it fails, as its panic unwinds.
/// Hold it for as long as the test uses the directory (`let dir = Scratch::new(…)`).
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(kind: &str, name: &str) -> Self {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("sojx-{kind}-{}-{n}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A [`Scratch`] directory for one test.
#[allow(dead_code)]
pub fn scratch_dir(kind: &str, name: &str) -> Scratch {
    Scratch::new(kind, name)
}

/// The most a test waits for what takes `expected` on an idle machine: that and 20 s more, for a
/// machine whose cores are busy with other work (the suite holds beside two CPU hogs; see the
/// README's Testing). A test's bound tells a run that ends from one that hangs (an agent that
/// sleeps 60 s or more, an input that never ends), never a fast run from a slow one: what it
/// checks is the kind of outcome, within the bound.
#[allow(dead_code)]
pub fn patience(expected: std::time::Duration) -> std::time::Duration {
    expected + std::time::Duration::from_secs(20)
}

/// `sojx extract ARGS FILE` in the project root, for a case of a `cases.json` (its `args`).
pub fn run_case(file: &Path, case: &Value) -> Run {
    let args: Vec<&str> = case["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("an argument"))
        .collect();
    run(sojx()
        .current_dir(root())
        .arg("extract")
        .args(&args)
        .arg(file))
}

/// How one run's envelope differs from a case's `expect` (the format of
/// `tests/fixtures/producers/cases.json`): `exit_code` and `producer`; `source_kind` and `data`
/// for an answer, else `error_kind`; and, when given, `retryable`, `message_contains`,
/// `hint_contains` and the warning kinds in order. Empty when it matches.
pub fn expect_mismatches(r: &Run, x: &Value) -> Vec<String> {
    let e = r.one();
    let mut why = Vec::new();
    if i64::from(r.code) != x["exit_code"].as_i64().expect("expect.exit_code") {
        why.push(format!("exit {}", r.code));
    }
    if e["producer"] != x["producer"] {
        why.push(format!("producer {}", e["producer"]));
    }
    if let Some(k) = x.get("source_kind") {
        if e["source"]["kind"] != *k {
            why.push(format!("source.kind {}", e["source"]["kind"]));
        }
        if e["data"] != x["data"] {
            why.push(format!("data {}", e["data"]));
        }
    } else if e["error"]["kind"] != x["error_kind"] {
        why.push(format!(
            "error.kind {} ({})",
            e["error"]["kind"], e["error"]["message"]
        ));
    }
    if let Some(r) = x.get("retryable")
        && e["error"]["retryable"] != *r
    {
        why.push(format!("error.retryable {}", e["error"]["retryable"]));
    }
    if let Some(m) = x.get("message_contains").and_then(Value::as_str)
        && !e["error"]["message"].as_str().unwrap_or("").contains(m)
    {
        why.push(format!("error.message {}", e["error"]["message"]));
    }
    if let Some(h) = x.get("hint_contains").and_then(Value::as_str)
        && !e["error"]["hint"].as_str().unwrap_or("").contains(h)
    {
        why.push(format!("error.hint {}", e["error"]["hint"]));
    }
    // The warning kinds, in order (absent: not checked).
    if let Some(w) = x.get("warnings") {
        let kinds: Vec<Value> = e["warnings"]
            .as_array()
            .map(|a| a.iter().map(|w| w["kind"].clone()).collect())
            .unwrap_or_default();
        if kinds != *w.as_array().expect("expect.warnings is an array") {
            why.push(format!("warnings {}", e["warnings"]));
        }
    }
    why
}

/// The schema Qwen Code 0.24.4 was given in `tests/fixtures/real/qwen-0.24.4-*` (with
/// `--json-schema`).
pub const QWEN_SCHEMA: &str = r#"{"type":"object","properties":{"verdict":{"type":"string","enum":["PASS","FAIL"]}},"required":["verdict"],"additionalProperties":false}"#;

/// Qwen Code's argv (after the program) of those recordings.
pub const QWEN_SCHEMA_RUN: &[&str] = &[
    "-p",
    "Review",
    "-o",
    "stream-json",
    "--auth-type",
    "openai",
    "--json-schema",
    QWEN_SCHEMA,
];
