//! README's install lines, run as written (by bash, one line at a time) in a clean copy of the
//! tree, the files git knows: what a fresh clone has. Offline: Cargo from its registry cache,
//! npm from the tarballs the line packs, pipx from the wheel the line builds; but pipx fetches
//! its own pip from PyPI the first time it runs (kept for later runs). Each line must leave a
//! `sojx` that prints its version and the README's example envelope.
//!
//! The lines compile the release build, so the test runs under `SOJX_INSTALL_LINES=1` only
//! (`.ci/run` sets it); elsewhere it says it skips. It compiles with the release profile's
//! optimizations turned down (`CARGO_PROFILE_*`, as `.ci/run` does for its own release build)
//! and `scripts/dist.sh` on the release profile (`SOJX_DIST_PROFILE=release`), so that the
//! three lines share one build of the dependencies: the lines and the packaging are what it
//! checks, not the optimizer. Its target directory is kept under `CARGO_TARGET_TMPDIR`, so a
//! second run only rebuilds sojx itself.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{Scratch, have_tool, root, skip};

/// The commands of README's `## Install` block (its first ```sh block): every line that is
/// not a comment.
fn install_lines(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## Install\n")
        .nth(1)
        .expect("README has an Install section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("the Install section has a sh block");
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// What one line installs: the tools it needs, and where its `sojx` lands (under `sandbox`).
fn what(line: &str, sandbox: &Path) -> (&'static [&'static str], PathBuf) {
    if line.starts_with("cargo install") {
        (&["cargo"], sandbox.join("cargo-root/bin/sojx"))
    } else if line.contains("npm install -g") {
        (
            &["bash", "python3", "npm", "node", "rustc"],
            sandbox.join("npm-global/bin/sojx"),
        )
    } else if line.contains("pipx install") {
        (&["maturin", "pipx"], sandbox.join("pipx-bin/sojx"))
    } else {
        panic!("README's install line {line:?} is not one this test knows how to check")
    }
}

/// The files of a fresh clone (git's tracked files, and new ones it does not ignore) copied to
/// `to`.
fn clean_copy(to: &Path) {
    let out = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git ls-files failed");
    let mut n = 0;
    for rel in out.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let rel = Path::new(std::str::from_utf8(rel).expect("UTF-8 path"));
        let from = root().join(rel);
        // Deleted in the work tree but still in the index.
        let Ok(meta) = std::fs::symlink_metadata(&from) else {
            continue;
        };
        let dst = to.join(rel);
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&from).unwrap(), &dst).unwrap();
        } else {
            std::fs::copy(&from, &dst).unwrap();
        }
        n += 1;
    }
    assert!(n > 100, "only {n} files in the clean copy");
}

#[test]
fn the_readme_install_lines_run_from_a_clean_copy() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = install_lines(&readme);
    assert_eq!(lines.len(), 3, "README's install lines: {lines:?}");
    if std::env::var_os("SOJX_INSTALL_LINES").is_none_or(|v| v != "1") {
        skip("README's install lines compile the release build; SOJX_INSTALL_LINES=1 runs them");
        return;
    }
    if !have_tool("git", "README's install lines") {
        return;
    }
    let sandbox = Scratch::new("install-lines", "sandbox");
    let tree = sandbox.join("tree");
    clean_copy(&tree);
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("install-lines-target");
    let pipx_shared = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("install-lines-pipx-shared");
    for line in &lines {
        let (tools, installed) = what(line, &sandbox);
        // A missing tool: have_tool says so (a failure under SOJX_REQUIRE_TOOLS=1).
        if !tools.iter().all(|t| have_tool(t, "README's install lines")) {
            continue;
        }
        // maturin asks `cargo metadata`, which reads the crates of every platform, not only
        // this one's: offline they must be in Cargo's cache (`cargo fetch --locked`).
        if line.contains("maturin") && !all_crates_cached(&tree) {
            crate::common::missing(
                "every platform's crates in Cargo's cache (`cargo fetch --locked`)",
                &format!("README's install line {line:?}"),
            );
            continue;
        }
        let started = std::time::Instant::now();
        let out = Command::new("bash")
            .args(["-c", line])
            .current_dir(&tree)
            .env("HOME", sandbox.join("home"))
            .env("CARGO_NET_OFFLINE", "true")
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO_INSTALL_ROOT", sandbox.join("cargo-root"))
            .env("npm_config_prefix", sandbox.join("npm-global"))
            .env("npm_config_cache", sandbox.join("npm-cache"))
            .env("npm_config_offline", "true")
            .env("npm_config_update_notifier", "false")
            .env("PIPX_HOME", sandbox.join("pipx"))
            .env("PIPX_BIN_DIR", sandbox.join("pipx-bin"))
            // pipx sets up its own pip (its "shared libraries") from PyPI the first time it
            // runs: the one download these lines make. Kept between runs (pipx refreshes it
            // after 30 days), so later runs are offline.
            .env("PIPX_SHARED_LIBS", &pipx_shared)
            .envs(cheap_release())
            // dist.sh links the release profile's build (statically, as it links the dist
            // profile's): the three lines then share one build of the dependencies.
            .env("SOJX_DIST_PROFILE", "release")
            .output()
            .expect("bash runs");
        assert!(
            out.status.success(),
            "README's install line failed: {line}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        note(&format!("{line}: {:.0} s", started.elapsed().as_secs_f64()));
        check(&installed, line);
    }
}

/// Whether `cargo metadata` works offline in `tree`: every crate of the lockfile is cached.
fn all_crates_cached(tree: &Path) -> bool {
    Command::new("cargo")
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .current_dir(tree)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The release and dist profiles with their optimizations turned down.
fn cheap_release() -> Vec<(String, &'static str)> {
    let mut vars = Vec::new();
    for profile in ["RELEASE", "DIST"] {
        for (k, v) in [
            ("LTO", "false"),
            ("CODEGEN_UNITS", "16"),
            ("OPT_LEVEL", "0"),
            ("DEBUG", "false"),
            ("INCREMENTAL", "true"),
        ] {
            vars.push((format!("CARGO_PROFILE_{profile}_{k}"), v));
        }
    }
    vars
}

/// A line on stderr past the harness's capture, as the skip notices are: how long a line took.
fn note(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "install line: {text}");
}

/// The installed `sojx`: its version, and the README's example envelope as the binary under
/// test prints it.
fn check(sojx: &Path, line: &str) {
    let version = Command::new(sojx)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("{line}: no {} ({e})", sojx.display()));
    assert!(
        String::from_utf8_lossy(&version.stdout).contains(env!("CARGO_PKG_VERSION")),
        "{line}: {version:?}"
    );
    let args = [
        "extract",
        "--schema",
        "examples/verdict.schema.json",
        "examples/claude-review.ndjson",
    ];
    let via = Command::new(sojx)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let own = crate::common::sojx_process().args(args).output().unwrap();
    assert_eq!(via.status.code(), Some(0), "{line}");
    let parse = |b: &[u8]| -> Value {
        let mut v: Value = serde_json::from_slice(b).unwrap();
        v.as_object_mut().unwrap().remove("timestamp");
        v
    };
    assert_eq!(parse(&via.stdout), parse(&own.stdout), "{line}");
}

#[test]
fn install_lines_are_read_from_the_readme_block() {
    let md = "x\n## Install\n\ntext\n```sh\n# a comment\ncargo install --locked --path .\n\n\
              a && b\n```\n```sh\nnot this\n```\n";
    assert_eq!(
        install_lines(md),
        ["cargo install --locked --path .", "a && b"]
    );
}
