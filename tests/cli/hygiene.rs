//! What a test run leaves behind and what it says: a skipped test says so under a plain
//! `cargo test` (the notice is not swallowed by the harness's capture), and fails instead under
//! `SOJX_REQUIRE_SHARED=1` / `SOJX_REQUIRE_TOOLS=1`.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::Scratch;

/// This test binary running one test of its own (exactly that one), without `--nocapture`, as
/// `cargo test` runs it: the skip notices must reach its stderr anyway.
fn one_test(name: &str, env: &[(&str, &Path)], require: Option<&str>) -> Output {
    let mut c = Command::new(std::env::current_exe().expect("the test binary"));
    c.args(["--exact", name, "--test-threads", "1"])
        .env_remove("SOJX_REQUIRE_SHARED")
        .env_remove("SOJX_REQUIRE_TOOLS")
        .env_remove("RUST_TEST_NOCAPTURE");
    for (k, v) in env {
        c.env(k, v);
    }
    if let Some(var) = require {
        c.env(var, "1");
    }
    c.output().expect("the test binary runs")
}

#[test]
fn a_test_without_shared_says_it_skips_and_fails_when_shared_is_required() {
    let dir = Scratch::new("hygiene", "no-shared");
    let absent = dir.path().join("shared");
    let name = "layout::no_two_modules_reach_each_other";
    let skipped = one_test(name, &[("SOJX_SHARED", &absent)], None);
    let err = String::from_utf8_lossy(&skipped.stderr);
    assert!(skipped.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "notice: skipping {name}: {} is absent",
            absent.display()
        )),
        "the notice is not on stderr under a plain run:\n{err}"
    );
    let required = one_test(
        name,
        &[("SOJX_SHARED", &absent)],
        Some("SOJX_REQUIRE_SHARED"),
    );
    assert!(
        !required.status.success(),
        "SOJX_REQUIRE_SHARED=1 and no shared directory: the test must fail"
    );
}

#[test]
fn a_test_without_its_tools_says_it_skips_and_fails_when_tools_are_required() {
    let dir = Scratch::new("hygiene", "no-tools");
    let name = "pipelines::shell_transcripts_run_as_documented";
    // A PATH with nothing on it: neither bash nor jq.
    let skipped = one_test(name, &[("PATH", dir.path())], None);
    let err = String::from_utf8_lossy(&skipped.stderr);
    assert!(skipped.status.success(), "{err}");
    assert!(
        err.contains(&format!("notice: skipping {name}: `bash` is missing")),
        "the notice is not on stderr under a plain run:\n{err}"
    );
    let required = one_test(name, &[("PATH", dir.path())], Some("SOJX_REQUIRE_TOOLS"));
    assert!(
        !required.status.success(),
        "SOJX_REQUIRE_TOOLS=1 and no bash: the test must fail"
    );
}

#[test]
fn a_scratch_directory_is_removed_when_dropped_even_by_a_panic() {
    let kept = {
        let s = Scratch::new("hygiene", "dropped");
        std::fs::write(s.path().join("f"), "x").unwrap();
        s.path().to_path_buf()
    };
    assert!(!kept.exists(), "{} is left", kept.display());
    let path = std::sync::Mutex::new(None);
    let unwound = std::panic::catch_unwind(|| {
        let s = Scratch::new("hygiene", "unwound");
        *path.lock().unwrap() = Some(s.path().to_path_buf());
        std::panic::resume_unwind(Box::new("a failing assertion"));
    });
    assert!(unwound.is_err());
    let p = path.lock().unwrap().take().unwrap();
    assert!(!p.exists(), "{} is left after a panic", p.display());
}

/// What sojx itself leaves in the temporary directory: nothing. `sojx run` keeps the retries'
/// files (the schema, the feedback, the previous output) in a directory of its own under
/// `TMPDIR`, which must be gone however the run ends: attempts used up, a signal, a timeout
/// with an agent that ignores SIGTERM.
#[test]
fn sojx_run_leaves_nothing_in_the_temporary_directory() {
    let tmp = Scratch::new("hygiene", "tmpdir");
    let agent = |name: &str| {
        crate::common::fixture(&format!("agents/{name}"))
            .to_string_lossy()
            .into_owned()
    };
    let work = Scratch::new("hygiene", "work");
    let mark = work.join("signal");
    let pidfile = work.join("child.pid");
    let wrong = r#"echo '{"verdict":"MAYBE","confidence":1,"issues":[]}'"#;
    let schema = "examples/verdict.schema.json";
    let runs: [(&str, Vec<String>, i32); 3] = [
        (
            "two attempts, both wrong",
            [
                "run",
                "--max-attempts",
                "2",
                "--schema",
                schema,
                "--",
                "sh",
                "-c",
                wrong,
            ]
            .map(str::to_owned)
            .to_vec(),
            1,
        ),
        (
            "SIGTERM to sojx",
            vec![
                "run".into(),
                "--max-attempts".into(),
                "2".into(),
                "--kill-after".into(),
                "30".into(),
                "--".into(),
                agent("record-signal.sh"),
                mark.to_string_lossy().into_owned(),
            ],
            143,
        ),
        (
            "a timeout, the agent ignoring SIGTERM",
            vec![
                "run".into(),
                "--max-attempts".into(),
                "2".into(),
                "--timeout".into(),
                "0.3".into(),
                "--kill-after".into(),
                "3".into(),
                "--".into(),
                agent("ignore-term.sh"),
                pidfile.to_string_lossy().into_owned(),
            ],
            2,
        ),
    ];
    for (what, args, code) in runs {
        let child = crate::common::sojx_process()
            .args(&args)
            .env("TMPDIR", tmp.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if code == 143 {
            // Once the agent is up (however long a loaded machine takes to start it).
            let ready = mark.with_extension("ready");
            let waited = std::time::Instant::now();
            while !ready.exists() {
                assert!(
                    waited.elapsed() < std::time::Duration::from_secs(60),
                    "the agent never started"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            let sent = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status()
                .unwrap();
            assert!(sent.success());
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{what}: sojx left {left:?} in TMPDIR");
    }
}
