//! The install paths, tested offline: the npm packages (`scripts/npm_pack.py`: the launcher
//! `sojx` and this platform's binary package) install from their tarballs into an empty
//! project with no network, and the launcher passes arguments, streams, exit statuses and
//! signals through; every package's version is Cargo.toml's.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{have_tool, path_str, root, scratch_dir};

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[test]
fn every_npm_package_has_cargos_version() {
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("npm/sojx/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["version"], VERSION, "npm/sojx/package.json");
    let deps = manifest["optionalDependencies"].as_object().unwrap();
    assert_eq!(deps.len(), 7, "one package per released target");
    for (name, version) in deps {
        assert_eq!(version, VERSION, "{name}");
    }
    assert_eq!(manifest["bin"]["sojx"], "bin/sojx.js");
}

/// The tarballs of the launcher and of this platform's package, packed from the binary under
/// test (stripped when `strip` is there: packing 150 MB of debug information takes seconds).
fn pack(dir: &Path) -> Vec<PathBuf> {
    let bin = assert_cmd::cargo::cargo_bin("sojx");
    let small = dir.join("sojx");
    std::fs::copy(&bin, &small).unwrap();
    let _ = Command::new("strip").arg(&small).status();
    let out = Command::new("python3")
        .arg(root().join("scripts/npm_pack.py"))
        .args([&small, &dir.join("packed")])
        .output()
        .unwrap();
    succeeded(&out);
    let tarballs: Vec<PathBuf> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    assert_eq!(tarballs.len(), 2, "{tarballs:?}");
    assert!(tarballs[0].ends_with(format!("sojx-{VERSION}.tgz")));
    tarballs
}

/// `npm install` of `tarballs` into a new project at `app`, offline, with a cache of its own.
fn npm_install(app: &Path, tarballs: &[PathBuf]) {
    std::fs::create_dir_all(app).unwrap();
    std::fs::write(app.join("package.json"), r#"{"private": true}"#).unwrap();
    let started = Instant::now();
    let out = npm(app, "npm")
        .args(["install", "--no-audit", "--no-fund"])
        .args(tarballs)
        .current_dir(app)
        .output()
        .unwrap();
    succeeded(&out);
    eprintln!("npm install took {:.2} s", started.elapsed().as_secs_f64());
}

/// The installed `sojx` (the launcher on PATH in a project), run from the repository root.
fn installed(app: &Path) -> Command {
    let mut c = Command::new(app.join("node_modules/.bin/sojx"));
    c.current_dir(root()).env_remove("SOJX_BINARY");
    c
}

#[test]
fn the_npm_packages_install_offline_and_pass_everything_through() {
    let name = "npm packages";
    if !(have_tool("npm", name) && have_tool("node", name) && have_tool("python3", name)) {
        return;
    }
    let dir = scratch_dir("install", "npm");
    let tarballs = pack(&dir);
    let app = dir.join("app");
    npm_install(&app, &tarballs);

    // The README's example through npx, in the project: the envelope the binary prints itself,
    // byte for byte but its timestamp.
    let schema = root().join("examples/verdict.schema.json");
    let example = root().join("examples/claude-review.ndjson");
    let args = ["extract", "--schema", path_str(&schema), path_str(&example)];
    let direct = crate::common::sojx_process().args(args).output().unwrap();
    let npx = npm(&app, "npx")
        .args(["--no-install", "sojx"])
        .args(args)
        .current_dir(&app)
        .output()
        .unwrap();
    assert_eq!(
        npx.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&npx.stderr)
    );
    assert_eq!(without_time(&npx.stdout), without_time(&direct.stdout));

    // The installed command, from elsewhere: stdin in; stdout, stderr and the exit status of a
    // failing answer (1) and of a missing file (3) out, as the binary gives them.
    let failing =
        br#"{"type":"result","subtype":"success","is_error":false,"result":"no JSON here"}"#;
    for (args, stdin, code) in [
        (
            vec!["extract", "--schema", "examples/verdict.schema.json"],
            &failing[..],
            1,
        ),
        (
            vec![
                "extract",
                "--schema",
                "examples/verdict.schema.json",
                "no/such/file",
            ],
            &b""[..],
            3,
        ),
    ] {
        let via = with_stdin(installed(&app).args(&args), stdin);
        let own = with_stdin(crate::common::sojx_process().args(&args), stdin);
        assert_eq!(via.status.code(), Some(code), "{args:?}");
        assert_eq!(via.status.code(), own.status.code());
        assert_eq!(without_time(&via.stdout), without_time(&own.stdout));
        assert_eq!(via.stderr, own.stderr);
    }

    // SIGTERM to the launcher reaches sojx, which ends its agent and says so (exit 143).
    let mut child = installed(&app)
        .args(["run", "--timeout", "60s", "--", "sleep", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    let sent = Command::new("kill")
        .args(["-s", "TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the launcher did not end within 10 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    let e: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(e["error"]["kind"], "interrupted");
    assert_eq!(e["error"]["details"]["signal"], "SIGTERM");

    // The launcher alone (npm left the platform package out): one line naming it, exit 3; with
    // SOJX_BINARY, the binary named.
    let alone = dir.join("alone");
    npm_install(&alone, &tarballs[..1]);
    let out = installed(&alone).arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("sojx-linux-") || err.contains("no prebuilt binary"),
        "{err}"
    );
    let out = installed(&alone)
        .arg("--version")
        .env("SOJX_BINARY", assert_cmd::cargo::cargo_bin("sojx"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains(VERSION));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `npm` or `npx`, offline, with the project's own cache.
fn npm(app: &Path, tool: &str) -> Command {
    let mut c = Command::new(tool);
    c.env("npm_config_offline", "true")
        .env("npm_config_cache", app.join(".npm-cache"))
        .env("npm_config_update_notifier", "false");
    c
}

fn with_stdin(cmd: &mut Command, stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// An envelope without its timestamp.
fn without_time(out: &[u8]) -> Value {
    let mut v: Value = serde_json::from_slice(out).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(out));
    });
    v.as_object_mut().unwrap().remove("timestamp");
    v
}

fn succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The Rust target of this machine (rustc's host).
fn host() -> String {
    let out = Command::new("rustc").arg("-vV").output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .unwrap()
}

#[test]
fn the_wheel_installs_into_a_fresh_venv_offline_and_runs_the_readme_example() {
    let name = "the wheel built here";
    if !(have_tool("maturin", name) && have_tool("python3", name)) {
        return;
    }
    let dir = scratch_dir("install", "wheel");
    let host = host();
    // As the release workflow builds it (but unoptimized: this checks the packaging): on Linux
    // with glibc a static PIE, so that the wheel's manylinux2014 tag (glibc 2.17) holds. The
    // flag only reaches the target's crates with an explicit --target, not proc-macros.
    let mut build = Command::new("maturin");
    build
        .args(["build", "--profile", "dev", "--target", &host, "--out"])
        .arg(dir.join("wheels"))
        .current_dir(root());
    let gnu = host.ends_with("-linux-gnu");
    if gnu {
        build
            .args(["--compatibility", "manylinux2014"])
            .env("RUSTFLAGS", "-C target-feature=+crt-static");
    }
    succeeded(&build.output().unwrap());
    let wheels: Vec<PathBuf> = std::fs::read_dir(dir.join("wheels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(wheels.len(), 1, "{wheels:?}");
    let file = wheels[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        file.starts_with(&format!("sojx-{VERSION}-py3-none-")),
        "{file}"
    );
    if gnu {
        assert!(
            file.contains("manylinux2014_") && file.contains("manylinux_2_17_"),
            "{file}"
        );
    }

    // A fresh venv, no index: the wheel alone.
    let venv = dir.join("venv");
    succeeded(
        &Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .output()
            .unwrap(),
    );
    let started = Instant::now();
    succeeded(
        &Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--no-index",
                "--no-deps",
                "--disable-pip-version-check",
            ])
            .arg(&wheels[0])
            .output()
            .unwrap(),
    );
    eprintln!("pip install took {:.2} s", started.elapsed().as_secs_f64());
    let sojx = venv.join("bin/sojx");
    if gnu {
        // Static: no interpreter, so no glibc symbol version to outgrow the tag.
        let headers = Command::new("readelf")
            .arg("-l")
            .arg(&sojx)
            .output()
            .unwrap();
        let headers = String::from_utf8_lossy(&headers.stdout);
        assert!(headers.contains("Program Headers") && !headers.contains("program interpreter"));
    }
    let version = Command::new(&sojx).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).contains(VERSION));
    let args = [
        "extract",
        "--schema",
        "examples/verdict.schema.json",
        "examples/claude-review.ndjson",
    ];
    let via = Command::new(&sojx)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let own = crate::common::sojx_process().args(args).output().unwrap();
    assert_eq!(via.status.code(), Some(0));
    assert_eq!(without_time(&via.stdout), without_time(&own.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_release_builds_every_target_the_npm_packages_name() {
    let words = |file: &str, re: &str| -> std::collections::BTreeSet<String> {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        regex::Regex::new(re)
            .unwrap()
            .captures_iter(&text)
            .map(|c| c[1].to_owned())
            .collect()
    };
    let released = words(
        ".github/workflows/release.yml",
        r"\{ target: ([a-z0-9_-]+),",
    );
    let packed = words("scripts/npm_pack.py", r#"\n    "([a-z0-9_-]+)": \("#);
    assert_eq!(released.len(), 7, "{released:?}");
    assert_eq!(released, packed);
}

/// `cargo binstall`'s templates (Cargo.toml) name the archives the release workflow makes, for
/// every target: `sojx-VERSION-TARGET.tar.gz` (`.zip` on Windows) with the binary in
/// `sojx-VERSION-TARGET/`.
#[test]
fn binstall_finds_the_release_archives() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let key = |k: &str| {
        let line = manifest
            .lines()
            .find(|l| l.starts_with(&format!("{k} = ")))
            .unwrap_or_else(|| panic!("{k} in Cargo.toml"));
        line[k.len() + 3..].trim_matches('"').to_owned()
    };
    let (pkg_url, bin_dir) = (key("pkg-url"), key("bin-dir"));
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    assert!(workflow.contains(r#"name="sojx-$VERSION-${{ matrix.target }}""#));
    assert!(workflow.contains(r#"7z a -bd "$name.zip" "$name""#));
    assert!(workflow.contains(r#"tar czf "$name.tar.gz" "$name""#));
    assert!(workflow.contains(r#"if [ "v$version" != "$GITHUB_REF_NAME" ]"#));
    let targets: Vec<String> = regex::Regex::new(r"\{ target: ([a-z0-9_-]+),")
        .unwrap()
        .captures_iter(&workflow)
        .map(|c| c[1].to_owned())
        .collect();
    assert_eq!(targets.len(), 7);
    for target in targets {
        let windows = target.contains("windows");
        let (suffix, ext) = if windows {
            (".zip", ".exe")
        } else {
            (".tar.gz", "")
        };
        if windows {
            assert!(manifest.contains(&format!(
                "[package.metadata.binstall.overrides.{target}]\npkg-fmt = \"zip\""
            )));
        }
        let fill = |t: &str| {
            t.replace("{ repo }", "https://github.com/o/sojx")
                .replace("{ version }", "1.2.3")
                .replace("{ name }", "sojx")
                .replace("{ target }", &target)
                .replace("{ archive-suffix }", suffix)
                .replace("{ bin }", "sojx")
                .replace("{ binary-ext }", ext)
        };
        assert_eq!(
            fill(&pkg_url),
            format!(
                "https://github.com/o/sojx/releases/download/v1.2.3/sojx-1.2.3-{target}{suffix}"
            )
        );
        assert_eq!(fill(&bin_dir), format!("sojx-1.2.3-{target}/sojx{ext}"));
    }
}

/// README's npm line on a fresh clone: without the binary, `npm_pack.py` names the step that
/// builds it (scripts/dist.sh), not only the missing file.
#[test]
fn npm_pack_names_the_step_that_builds_a_missing_binary() {
    if !have_tool("python3", "npm_pack.py's missing-binary message") {
        return;
    }
    let dir = scratch_dir("install", "no-binary");
    let out = Command::new("python3")
        .arg(root().join("scripts/npm_pack.py"))
        .arg(dir.join("sojx"))
        .arg(dir.join("npm"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no such file; build it first with scripts/dist.sh"),
        "{err}"
    );
    assert!(!dir.join("npm").exists(), "nothing is packed");
}
