//! How `sojx run` starts COMMAND (issue 44, items 1 and 3): what cannot start is said precisely
//! (`tests/fixtures/spawn/`: a missing `#!` interpreter, Windows line endings, env's missing
//! interpreter, another machine's program, …), a script with no `#!` line runs with /bin/sh
//! as a shell runs it, and on Linux the agent dies with a sojx killed by SIGKILL.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{fixture, path_str, patience, run, sojx, sojx_process};

fn spawn_fixture(name: &str) -> String {
    format!("./tests/fixtures/spawn/{name}")
}

/// `sojx run -- COMMAND a b` cannot start COMMAND: a `spawn` envelope (exit 3, not retryable,
/// no pid) whose message holds `said`; the message.
fn refused(command: &str, path: Option<&str>, said: &str) -> String {
    let mut cmd = sojx();
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    let r = run(cmd.args(["run", "--", command, "a", "b"]));
    assert_eq!(
        (r.code, r.kind()),
        (3, Some("spawn")),
        "{command}: {}",
        r.stdout
    );
    let e = r.one();
    assert_eq!(e["error"]["retryable"], false);
    assert!(e["agent"].get("pid").is_none(), "{command}: {}", r.stdout);
    let message = e["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains(said), "{command}: {message}");
    assert!(
        r.stderr.contains(&format!("spawn: {message}")),
        "{command}: {}",
        r.stderr
    );
    message
}

/// Before, a missing interpreter was "no such file; check the path" of a file that is there,
/// and the kernel's "Exec format error" said nothing of what to do.
#[test]
fn what_cannot_start_is_named() {
    let m = refused(
        &spawn_fixture("bad-interpreter.sh"),
        None,
        "its interpreter `/sojx-test/no/such/interpreter` (from its #! line) is not found",
    );
    assert!(!m.contains("no such file"), "{m}");
    // Found on PATH: the file is named too.
    let path = format!("{}:/usr/bin:/bin", path_str(&fixture("spawn")));
    let m = refused(
        "bad-interpreter.sh",
        Some(&path),
        "its interpreter `/sojx-test/no/such/interpreter` (from its #! line) is not found",
    );
    assert!(m.contains("bad-interpreter.sh` (found on PATH): "), "{m}");
    refused(
        &spawn_fixture("crlf-shebang.sh"),
        None,
        "its #! line ends with a carriage return (Windows line endings), so its interpreter is `/bin/sh\\r`",
    );
    if Path::new("/usr/bin/env").exists() {
        refused(
            &spawn_fixture("env-missing.sh"),
            None,
            "its interpreter `sojx-test-no-such-interpreter` (from its #! line, run by /usr/bin/env) is not found on PATH",
        );
    }
    refused(
        &spawn_fixture("not-executable.sh"),
        None,
        "permission denied: it is not executable (no x in its mode)",
    );
    refused(
        &spawn_fixture("dangling-link"),
        None,
        "no such file: it is a symbolic link to `sojx-test-no-such-target`, which does not exist",
    );
    refused("./tests/fixtures/spawn", None, "it is a directory");
    // Neither a program of this system nor a script: the kernel's answer, not /bin/sh's
    // attempt at reading a binary (what execvp would make of it).
    for f in ["unknown-format.bin", "vax.elf"] {
        refused(
            &spawn_fixture(f),
            None,
            "it is not a program this system can run (exec format error)",
        );
    }
    // Only what the kernel runs goes through sojx's start, whose execvp would hand a file the
    // kernel refuses to /bin/sh: a script whose interpreter is a text file with no #! line, and
    // an ELF file that is no program (a relocatable object), are the kernel's to refuse.
    let dir = crate::common::Scratch::new("start", "kernel");
    let write = |name: &str, bytes: &[u8]| {
        use std::os::unix::fs::PermissionsExt;
        let f = dir.join(name);
        std::fs::write(&f, bytes).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
        path_str(&f).to_owned()
    };
    let text_interpreter = write("interp", b"echo '{\"ran\": \"sh\"}'\n");
    let script = write(
        "uses-text",
        format!("#!{text_interpreter}\necho hi\n").as_bytes(),
    );
    refused(&script, None, "exec format error");
    let mut object = std::fs::read(assert_cmd::cargo::cargo_bin("sojx")).unwrap();
    object.truncate(64);
    object[16..18].copy_from_slice(&1u16.to_le_bytes());
    refused(&write("object.o", &object), None, "exec format error");
    // A byte order mark hides the #! line from the kernel.
    let bom = write("bom.sh", b"\xef\xbb\xbf#!/bin/sh\necho '{}'\n");
    refused(&bom, None, "UTF-8 byte order mark before its #! line");
    // Not on PATH, and on PATH but not executable.
    refused("sojx-test-no-such-agent", None, "not found on PATH");
    refused("not-executable.sh", Some(&path), "found as `");
}

/// Before: "Exec format error". A shell runs such a file with itself, and execvp with /bin/sh.
#[test]
fn a_script_without_a_shebang_line_runs_with_sh() {
    let script = spawn_fixture("no-shebang.sh");
    let r = run(sojx().args(["run", "--", &script, "a", "b"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = r.one();
    assert_eq!(e["data"]["ran_as"], script.as_str());
    assert_eq!(e["data"]["args"], "a b");
    // argv as given, not sh's.
    assert_eq!(e["agent"]["command"], serde_json::json!([script, "a", "b"]));
    assert!(
        r.stderr.contains(&format!(
            "sojx: {script}: hint: `{script}` has no #! line, so it runs with /bin/sh"
        )),
        "{}",
        r.stderr
    );
}

/// A file that passed sojx's checks but that the kernel would not execute (open for writing:
/// ETXTBSY) is still `spawn`, from the trampoline's record on Linux, not the agent's exit 126.
#[test]
fn a_command_that_cannot_be_executed_after_its_checks_is_a_spawn_failure() {
    let dir = crate::common::Scratch::new("start", "busy");
    let script = dir.join("busy.sh");
    std::fs::write(&script, "#!/bin/sh\necho '{\"a\": 1}'\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let writer = std::fs::OpenOptions::new()
        .append(true)
        .open(&script)
        .unwrap();
    if std::process::Command::new(&script).output().is_ok() {
        crate::common::skip("this kernel executes a file open for writing (no ETXTBSY)");
        return;
    }
    let r = run(sojx().args(["run", "--"]).arg(&script));
    drop(writer);
    assert_eq!((r.code, r.kind()), (3, Some("spawn")), "{}", r.stdout);
    let e = r.one();
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with(": it is open for writing (text file busy)"),
        "{}",
        r.stdout
    );
    assert!(e["agent"].get("pid").is_none(), "{}", r.stdout);
    assert!(!r.stderr.contains("sojx-exec"), "{}", r.stderr);
}

/// The trampoline's record cannot be written by an agent: it holds a number only the
/// trampoline's own argv had. An agent that writes one of its own and exits 127 is an agent
/// that failed, its stderr passed on.
#[test]
fn an_agent_cannot_pass_for_a_command_that_did_not_start() {
    let r = run(sojx().args([
        "run",
        "--",
        "sh",
        "-c",
        r"printf '\0sojx-exec 0000000000000000 2\n' >&2; exit 127",
    ]));
    assert_eq!((r.code, r.kind()), (1, Some("agent_error")), "{}", r.stdout);
    assert_eq!(r.one()["agent"]["exit_status"], 127);
    assert!(
        r.stderr.contains("\0sojx-exec 0000000000000000 2\n"),
        "{}",
        r.stderr
    );
}

/// Linux: the trampoline, run as sojx runs it. It executes COMMAND when its parent is the one
/// named; when it cannot, it writes its record and exits as a shell does; when its parent is
/// another (sojx died), it runs nothing.
#[cfg(target_os = "linux")]
#[test]
fn the_trampoline_executes_command_or_says_why_not() {
    let me = std::process::id().to_string();
    let tramp = |args: &[&str]| {
        sojx_process()
            .arg("__sojx-exec")
            .args(args)
            .output()
            .unwrap()
    };
    let out = tramp(&[&me, "00000000000000ff", "/bin/echo", "echo", "hi"]);
    assert_eq!(
        (out.status.code(), &out.stdout[..]),
        (Some(0), &b"hi\n"[..])
    );
    let out = tramp(&[&me, "00000000000000ff", "/sojx-test/no/such/file", "x"]);
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(out.stderr, b"\0sojx-exec 00000000000000ff 2\n");
    let out = tramp(&["1", "00000000000000ff", "/bin/echo", "echo", "hi"]);
    assert_eq!((out.status.code(), out.stdout.len()), (Some(1), 0));
}

/// Linux: `sojx run -- sleep 300` killed with SIGKILL left `sleep` running under pid 1 before
/// (issue 44, item 1); the guard in the agent's group now kills the agent (by a pidfd) and what
/// it started (by the group).
#[cfg(target_os = "linux")]
#[test]
fn a_sojx_killed_with_sigkill_leaves_no_agent() {
    // The agent itself.
    sigkilled_sojx_leaves_none_of(r#"echo $$ > "$1.t" && mv "$1.t" "$1"; exec sleep 300"#);
    // And a process it started, in its group.
    sigkilled_sojx_leaves_none_of(r#"sleep 300 & echo "$$ $!" > "$1.t" && mv "$1.t" "$1"; wait"#);
    // The agent itself, out of its group and session (`setsid` calls setsid(2) and executes
    // `sleep` in the same process, which does not lead the guard's group): the group's SIGKILL
    // misses it, the guard's pidfd does not (before issue 60, its parent-death signal did).
    if crate::common::have_tool("setsid", "a_sojx_killed_with_sigkill_leaves_no_agent") {
        sigkilled_sojx_leaves_none_of(
            r#"echo $$ > "$1.t" && mv "$1.t" "$1"; exec setsid sleep 300"#,
        );
    }
}

/// `sojx run -- sh -c SCRIPT sh PIDFILE`, killed with SIGKILL once SCRIPT wrote the pids to
/// watch in PIDFILE: each is gone soon after (or a zombie, pid 1's to reap).
#[cfg(target_os = "linux")]
fn sigkilled_sojx_leaves_none_of(script: &str) {
    let dir = crate::common::Scratch::new("start", "sigkill");
    let pidfile = dir.join("agent.pid");
    let mut child = sojx_process()
        .args(["run", "--", "sh", "-c", script, "sh"])
        .arg(&pidfile)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pids = pids_in(&pidfile);
    child.kill().unwrap();
    child.wait().unwrap();
    all_gone(
        &pids,
        &format!("outlived a sojx killed with SIGKILL ({script})"),
    );
}

/// The pids a script wrote in `file` (whole: it writes another file, then renames it).
#[cfg(target_os = "linux")]
fn pids_in(file: &Path) -> Vec<u64> {
    let waited = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(file) {
            return s.split_whitespace().map(|p| p.parse().unwrap()).collect();
        }
        assert!(
            waited.elapsed() < patience(Duration::from_secs(5)),
            "the script never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Each of `pids` is gone soon (or a zombie, pid 1's to reap); else they are killed, and the
/// test fails saying what the one left did.
#[cfg(target_os = "linux")]
fn all_gone(pids: &[u64], did: &str) {
    let since = Instant::now();
    while let Some(pid) = pids.iter().find(|&&p| !crate::run::gone(p)) {
        if since.elapsed() > patience(Duration::from_secs(1)) {
            for p in pids {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", &p.to_string()])
                    .status();
            }
            panic!("{pid} of {pids:?} {did}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Linux: the guard outlives the signals sent to its group (sojx forwards them; an agent may
/// `kill 0`), and kills its group, what ignores SIGTERM included, once its stdin ends (sojx
/// gone).
#[cfg(target_os = "linux")]
#[test]
fn the_guard_ends_its_group_when_sojx_is_gone_and_not_before() {
    use std::os::unix::process::CommandExt;
    let dir = crate::common::Scratch::new("start", "guard");
    let pidfile = dir.join("pids");
    let sojx = assert_cmd::cargo::cargo_bin("sojx");
    // A group: a shell that starts a child deaf to SIGTERM, then becomes the guard.
    let script = r#"(trap '' INT TERM HUP QUIT USR1 ALRM; exec sleep 300) & echo "$$ $!" > "$1.t" && mv "$1.t" "$1"; exec "$2" __sojx-guard "$3""#;
    let mut guard = std::process::Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(&pidfile)
        .arg(&sojx)
        .arg(std::process::id().to_string())
        .process_group(0)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pids = pids_in(&pidfile);
    let waited = Instant::now();
    // The guard is the group's leader here (the shell became it), once it catches SIGTERM.
    let caught = |pid: u64| {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                let mask = s.lines().find_map(|l| l.strip_prefix("SigCgt:"))?;
                u64::from_str_radix(mask.trim(), 16).ok()
            })
            .is_some_and(|mask| mask & (1 << (15 - 1)) != 0)
    };
    while !caught(pids[0]) {
        assert!(waited.elapsed() < patience(Duration::from_secs(5)));
        std::thread::sleep(Duration::from_millis(20));
    }
    let group = format!("-{}", pids[0]);
    for signal in ["-INT", "-TERM", "-HUP", "-QUIT", "-USR1", "-ALRM"] {
        let sent = std::process::Command::new("kill")
            .args([signal, "--", &group])
            .status()
            .unwrap();
        assert!(sent.success());
    }
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        guard.try_wait().unwrap().is_none() && !crate::run::gone(pids[1]),
        "the guard or its group ended before its stdin did"
    );
    drop(guard.stdin.take());
    let status = guard.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "the guard kills its own group, itself included"
    );
    all_gone(&pids[1..], "was left by the guard of its group");
}

/// The guard holds only the pidfd sojx sends it: a pid written on its stdin names nothing, and
/// the process it names is not killed when the guard ends (the guard's own group is).
#[cfg(target_os = "linux")]
#[test]
fn the_guard_kills_no_process_named_in_text() {
    use std::os::unix::process::CommandExt;
    let sojx = assert_cmd::cargo::cargo_bin("sojx");
    // A process that is not this test's child: `sleep`, started by a shell that exits.
    let out = std::process::Command::new("sh")
        .args(["-c", "sleep 300 >/dev/null 2>&1 & echo $!"])
        .output()
        .unwrap();
    let stranger: u64 = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mut guard = std::process::Command::new(&sojx)
        .arg("__sojx-guard")
        .arg(std::process::id().to_string())
        .process_group(0)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = guard.stdin.take().unwrap();
        writeln!(stdin, "{stranger}").unwrap();
    }
    let status = guard.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    std::thread::sleep(Duration::from_millis(100));
    let alive = !crate::run::gone(stranger);
    let _ = std::process::Command::new("kill")
        .arg(stranger.to_string())
        .status();
    assert!(
        alive,
        "the guard killed a process that was not its parent's child"
    );
}

/// The guard keeps a group only for the sojx that started it, in another group than sojx's:
/// `sojx __sojx-guard` typed in a shell (or with a pid not its parent's) ends at once and kills
/// nothing. Were the check missing, the guard below would kill this test's own group.
#[test]
fn the_guard_refuses_a_group_it_was_not_started_for() {
    let sojx = assert_cmd::cargo::cargo_bin("sojx");
    let me = std::process::id().to_string();
    for args in [
        vec![],
        vec!["1".to_owned()],
        vec![me.clone(), "x".to_owned()],
        vec![me],
    ] {
        let status = std::process::Command::new(&sojx)
            .arg("__sojx-guard")
            .args(&args)
            .stdin(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}");
    }
}

/// sojx started through the dynamic loader (`ld-linux-x86-64.so.2 sojx run …`), where
/// `/proc/self/exe` is the loader (issue 58, item 11): the agent is started directly and its
/// answer stands, where the loader once took the trampoline's arguments for a program and the
/// agent seemed to exit with status 127, `retryable: true`.
#[test]
#[cfg(target_os = "linux")]
fn sojx_started_through_the_dynamic_loader_still_starts_the_agent() {
    if !crate::common::have_tool("readelf", "the loader's path") {
        return;
    }
    let sojx = assert_cmd::cargo::cargo_bin("sojx");
    let headers = std::process::Command::new("readelf")
        .arg("-l")
        .arg(&sojx)
        .output()
        .unwrap();
    let headers = String::from_utf8_lossy(&headers.stdout);
    let Some(loader) = headers
        .split("Requesting program interpreter: ")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
    else {
        crate::common::skip("sojx is linked statically here: no dynamic loader to start it with");
        return;
    };
    let out = std::process::Command::new(loader)
        .arg(&sojx)
        .args([
            "run",
            "--schema",
            "examples/verdict.schema.json",
            "--",
            "cat",
        ])
        .arg("examples/claude-review.ndjson")
        .current_dir(crate::common::root())
        .env("XDG_CONFIG_HOME", crate::common::NO_CONFIG)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(e["data"]["verdict"], "FAIL");
    assert_eq!(e["agent"]["exit_status"], 0);
}
