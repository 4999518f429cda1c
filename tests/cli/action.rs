//! The GitHub Action (`action.yml`), offline: its install step against a release laid out in a
//! directory (download, checksum, unpack, PATH), its run step as the runner runs it (inputs in
//! the environment, outputs to `GITHUB_OUTPUT`, the job summary), and its version.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{have_tool, path_str, root, scratch_dir};

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[test]
fn the_action_installs_the_release_of_cargos_version() {
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let version = action
        .split("\n  version:\n")
        .nth(1)
        .and_then(|rest| {
            rest.lines()
                .find_map(|l| l.trim().strip_prefix("default: "))
        })
        .expect("a version input with a default");
    assert_eq!(version.trim_matches('"'), VERSION);
}

/// The outputs a step wrote to `GITHUB_OUTPUT` (`name=value` lines).
fn outputs(file: &Path) -> std::collections::BTreeMap<String, String> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// `bash action/<step>.sh` as the runner runs it: the repository as the action's path, a fresh
/// `GITHUB_OUTPUT`, `GITHUB_PATH` and job summary under `dir`.
fn step(step: &str, dir: &Path, env: &[(&str, &str)]) -> Output {
    step_in(step, dir, &root(), env)
}

/// [`step`], run in the folder `cwd`.
fn step_in(step: &str, dir: &Path, cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new("bash");
    c.arg(root().join(format!("action/{step}.sh")))
        .current_dir(cwd)
        .env("SOJX_ACTION_PATH", root())
        .env("RUNNER_TEMP", dir)
        .env("GITHUB_OUTPUT", dir.join("output"))
        .env("GITHUB_PATH", dir.join("path"))
        .env("GITHUB_STEP_SUMMARY", dir.join("summary"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// A release of the binary under test for x86_64 Linux, as the release workflow lays it out.
fn release(dir: &Path) -> PathBuf {
    let releases = dir.join("releases");
    let name = format!("sojx-{VERSION}-x86_64-unknown-linux-gnu");
    let inside = releases.join(&name);
    std::fs::create_dir_all(&inside).unwrap();
    std::fs::copy(assert_cmd::cargo::cargo_bin("sojx"), inside.join("sojx")).unwrap();
    let _ = Command::new("strip").arg(inside.join("sojx")).status();
    let tar = Command::new("tar")
        .args(["czf", &format!("{name}.tar.gz"), &name])
        .current_dir(&releases)
        .status()
        .unwrap();
    assert!(tar.success());
    let sums = Command::new("sha256sum")
        .arg(format!("{name}.tar.gz"))
        .current_dir(&releases)
        .output()
        .unwrap();
    std::fs::write(releases.join("SHA256SUMS"), sums.stdout).unwrap();
    releases
}

#[test]
fn the_action_installs_a_checked_release_and_runs_sojx_with_its_inputs() {
    let name = "the GitHub Action";
    let tools = ["bash", "curl", "tar", "sha256sum", "xargs", "jq"];
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        crate::common::skip(&format!("{name}'s test lays out an x86_64 Linux release"));
        return;
    }
    if !tools.iter().all(|t| have_tool(t, name)) {
        return;
    }
    let dir = scratch_dir("action", "steps");
    let releases = release(&dir);
    let base = format!("file://{}", path_str(&releases));
    let cache = dir.join("tools");
    let install_env = [
        ("SOJX_VERSION", VERSION),
        ("SOJX_RELEASES", base.as_str()),
        ("RUNNER_OS", "Linux"),
        ("RUNNER_ARCH", "X64"),
        ("RUNNER_TOOL_CACHE", path_str(&cache)),
    ];
    let out = step("install", &dir, &install_env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bin_dir = std::fs::read_to_string(dir.join("path")).unwrap();
    let bin_dir = PathBuf::from(bin_dir.trim());
    assert!(bin_dir.starts_with(&cache), "{bin_dir:?}");
    let version = Command::new(bin_dir.join("sojx"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).contains(VERSION));

    // A tampered archive is refused: exit 3, an error annotation.
    let sums = releases.join("SHA256SUMS");
    let good = std::fs::read_to_string(&sums).unwrap();
    std::fs::write(&sums, format!("{}{}", "0".repeat(64), &good[64..])).unwrap();
    let out = step("install", &dir, &install_env);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("::error::sojx: sojx-"));
    std::fs::write(&sums, good).unwrap();

    // The run step, with the installed sojx first on PATH.
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |inputs: &[(&str, &str)]| -> (Output, std::collections::BTreeMap<String, String>) {
        let _ = std::fs::remove_file(dir.join("output"));
        let mut env = vec![("PATH", path.as_str())];
        env.extend_from_slice(inputs);
        let out = step("run", &dir, &env);
        (out, outputs(&dir.join("output")))
    };
    let schema = ("INPUT_SCHEMA", "examples/verdict.schema.json");

    // The README's example: the answer in `data`, exit code 0, no error kind, a summary.
    let (out, o) = run(&[schema, ("INPUT_INPUT", "examples/claude-review.ndjson")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(o["exit-code"], "0");
    assert_eq!(o["error-kind"], "");
    let envelope: Value = serde_json::from_str(&o["envelope"]).unwrap();
    let data: Value = serde_json::from_str(&o["data"]).unwrap();
    assert_eq!(data, envelope["data"]);
    assert_eq!(data["verdict"], "FAIL");
    let summary = std::fs::read_to_string(dir.join("summary")).unwrap();
    assert!(summary.contains("claude-code"), "{summary}");

    // A failing answer: exit code 1 and its kind; the step fails unless `fail` is false.
    let failing = dir.join("failing.ndjson");
    std::fs::write(
        &failing,
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"no JSON\"}\n",
    )
    .unwrap();
    let input = ("INPUT_INPUT", path_str(&failing));
    let (out, o) = run(&[schema, input]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(o["exit-code"], "1");
    assert!(!o["error-kind"].is_empty());
    assert_eq!(o["data"], "");
    assert!(String::from_utf8_lossy(&out.stdout).contains("::error"));
    let (out, o) = run(&[schema, input, ("INPUT_FAIL", "false")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(o["exit-code"], "1");

    // `args` is split with shell quotes and never expanded: `$(…)` stays text (a usage error).
    let planted = dir.join("planted");
    let args = format!(
        "--max-line-bytes \"8 MiB\" --from \"$(touch {0})\" --tee \"`touch {0}`\"",
        planted.display()
    );
    let (out, o) = run(&[
        schema,
        ("INPUT_INPUT", "examples/claude-review.ndjson"),
        ("INPUT_ARGS", &args),
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(o["error-kind"], "usage");
    assert!(!planted.exists());
    let (out, _) = run(&[
        schema,
        ("INPUT_INPUT", "x"),
        ("INPUT_ARGS", "--from \"claude"),
    ]);
    assert_eq!(out.status.code(), Some(3));

    // Blank `args` are no arguments; an answer of `false` is an answer.
    let (out, o) = run(&[
        schema,
        ("INPUT_INPUT", "examples/claude-review.ndjson"),
        ("INPUT_ARGS", " \n "),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(o["data"], data.to_string());
    let no = dir.join("false.json");
    std::fs::write(&no, "false\n").unwrap();
    let (out, o) = run(&[
        ("INPUT_INPUT", path_str(&no)),
        ("INPUT_ARGS", "--from json"),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(o["data"], "false");

    // `run`: the agent named after `--` runs once; its output makes the summary.
    let (out, o) = run(&[
        schema,
        ("INPUT_COMMAND", "run"),
        (
            "INPUT_ARGS",
            "--timeout 30s -- cat examples/claude-review.ndjson",
        ),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let envelope: Value = serde_json::from_str(&o["envelope"]).unwrap();
    assert_eq!(envelope["command"], "run");
    assert_eq!(o["data"], data.to_string());

    // `run` with arguments of its own (an --assert that does not hold): the annotations and
    // the summary say what the run said, from the same run (they once came from extracting the
    // agent's output again without those arguments: `sojx ok`, a "✅ ok" row).
    std::fs::write(dir.join("summary"), "").unwrap();
    let (out, o) = run(&[
        schema,
        ("INPUT_COMMAND", "run"),
        (
            "INPUT_ARGS",
            "--assert '.verdict == \"PASS\"' -- cat examples/claude-review.ndjson",
        ),
        ("INPUT_FAIL", "false"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(o["exit-code"], "1");
    assert_eq!(o["error-kind"], "assertion_failed");
    assert_eq!(o["data"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("::error") && stdout.contains("sojx assertion_failed"));
    assert!(!stdout.contains("sojx ok"), "{stdout}");
    let summary = std::fs::read_to_string(dir.join("summary")).unwrap();
    assert!(summary.contains("### sojx run"), "{summary}");
    assert!(summary.contains("assertion_failed"), "{summary}");
    assert!(!summary.contains("✅ ok"), "{summary}");

    // An output format in `args` is the user's (not given twice: a usage error), with the
    // summary or without; the outputs are the same.
    for (summary, args) in [("false", "-q"), ("true", "--output-format json")] {
        let (out, o) = run(&[
            schema,
            ("INPUT_INPUT", "examples/claude-review.ndjson"),
            ("INPUT_SUMMARY", summary),
            ("INPUT_ARGS", args),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(o["data"], data.to_string(), "{args}");
    }
    // A failure before any input is read (a missing schema) names the input in `envelope`,
    // as it does without annotations.
    let (out, o) = run(&[
        ("INPUT_SCHEMA", "missing.schema.json"),
        ("INPUT_INPUT", "examples/claude-review.ndjson"),
    ]);
    assert_eq!(out.status.code(), Some(3));
    let envelope: Value = serde_json::from_str(&o["envelope"]).unwrap();
    assert_eq!(envelope["input"], "examples/claude-review.ndjson");
    assert_eq!(o["error-kind"], "filesystem");

    // `input` is a file, never an option (issue 58, item 4): `--tee=FILE` there once emptied
    // FILE; now it is a file that does not exist, and FILE is left as it was. A file whose name
    // starts with `-` is read.
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep me\n").unwrap();
    let tee = format!("--tee={}", victim.display());
    let (out, o) = run(&[schema, ("INPUT_INPUT", &tee)]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(o["error-kind"], "filesystem");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::copy(
        root().join("examples/claude-review.ndjson"),
        work.join("-x.ndjson"),
    )
    .unwrap();
    let schema_path = root().join("examples/verdict.schema.json");
    let _ = std::fs::remove_file(dir.join("output"));
    let out = step_in(
        "run",
        &dir,
        &work,
        &[
            ("PATH", path.as_str()),
            ("INPUT_SCHEMA", path_str(&schema_path)),
            ("INPUT_INPUT", "-x.ndjson"),
        ],
    );
    let o = outputs(&dir.join("output"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(o["data"], data.to_string());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_action_downloads_from_its_own_repository_named_by_its_path() {
    // The runner checks a used action out at _actions/OWNER/REPO/REF, and leaves
    // `github.action_repository` empty in composite actions: the path names the repository.
    if !(have_tool("bash", "the action's install step") && cfg!(target_os = "linux")) {
        return;
    }
    let dir = scratch_dir("action", "repo");
    let fake = dir.join("bin");
    std::fs::create_dir_all(&fake).unwrap();
    let log = dir.join("curl-args");
    std::fs::write(
        fake.join("curl"),
        format!("#!/bin/sh\necho \"$@\" >> '{}'\nexit 22\n", log.display()),
    )
    .unwrap();
    let chmod = Command::new("chmod")
        .arg("+x")
        .arg(fake.join("curl"))
        .status();
    assert!(chmod.unwrap().success());
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let action_path = dir.join("work/_actions/acme/sojx/v9");
    let out = step(
        "install",
        &dir,
        &[
            ("PATH", path.as_str()),
            ("SOJX_VERSION", VERSION),
            ("SOJX_ACTION_PATH", path_str(&action_path)),
            ("RUNNER_OS", "Linux"),
            ("RUNNER_ARCH", "X64"),
        ],
    );
    assert!(!out.status.success());
    let asked = std::fs::read_to_string(&log).unwrap();
    let want = format!(
        "https://github.com/acme/sojx/releases/download/v{VERSION}/sojx-{VERSION}-x86_64-unknown-linux-gnu.tar.gz"
    );
    assert!(asked.contains(&want), "{asked}");
}

/// README's workflow names the action by a path a reader can use: Cargo.toml's
/// `package.repository` once it is set; until then a placeholder that the line and the text
/// after it say to edit (not an `OWNER/sojx` that reads like a real path).
#[test]
fn the_readme_names_the_action_by_a_real_path_or_a_marked_placeholder() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let uses: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.trim().strip_prefix("uses: "))
        .filter(|u| u.contains("/sojx@"))
        .collect();
    assert_eq!(uses.len(), 1, "{uses:?}");
    let (path, rest) = uses[0].split_once('@').unwrap();
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let repository = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = "))
        .map(|v| v.trim_matches('"').to_owned());
    if let Some(url) = repository {
        assert!(url.ends_with(&format!("github.com/{path}")), "{url} {path}");
        return;
    }
    let tag = rest.split_whitespace().next().unwrap_or_default();
    assert!(rest.contains("# placeholder"), "{}", uses[0]);
    assert!(
        readme.contains(&format!("`{path}@{tag}` is a placeholder to edit")),
        "README does not say that {path} is a placeholder to edit"
    );
}
