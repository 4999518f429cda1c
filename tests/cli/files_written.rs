//! The files sojx writes beside its output (`--tee`, `--envelope-file`) are never files it reads
//! in the run, never a FIFO it waits on past `--timeout`, never its own output written through
//! two descriptors (issue 58, items 1–3).

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{have_tool, path_str, patience, scratch_dir, sojx_process};

const INPUT: &str = "examples/claude-review.ndjson";

fn run(args: &[&str]) -> Output {
    sojx_process().args(args).output().unwrap()
}

/// The run was refused as `usage` (exit 3) with `why` in its message, and `file` is unchanged.
fn refused(out: &Output, why: &str, file: &Path, before: &[u8]) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("\"kind\":\"usage\""), "{stdout}");
    assert!(stdout.contains(why), "{why}: {stdout}");
    assert_eq!(
        std::fs::read(file).unwrap(),
        before,
        "{} changed",
        file.display()
    );
}

/// A file the schema's `$ref` reads, and a producer file (named by the flag or found in the
/// config folder), are read before the tee and the envelope file are opened, and refused as
/// either: they once were truncated (the `$ref`'s after the schema was compiled, exit 0).
#[test]
fn a_file_sojx_read_for_the_run_is_never_written() {
    let dir = scratch_dir("files-written", "read");
    let defs = dir.join("defs.json");
    let defs_text = br#"{"type": "object", "required": ["verdict"]}"#;
    std::fs::write(&defs, defs_text).unwrap();
    let main = dir.join("main.json");
    std::fs::write(&main, r#"{"$ref": "defs.json"}"#).unwrap();
    let why = "a file sojx read for this run";
    for flag in ["--tee", "--envelope-file"] {
        let out = run(&[
            "extract",
            "--schema",
            path_str(&main),
            flag,
            path_str(&defs),
            INPUT,
        ]);
        refused(&out, why, &defs, defs_text);
    }
    // The schema still reads and answers without the clash.
    let out = run(&["extract", "--schema", path_str(&main), INPUT]);
    assert_eq!(out.status.code(), Some(0));

    let acme = dir.join("acme.toml");
    let acme_text = std::fs::read("examples/producer-file/acme.toml").unwrap();
    std::fs::write(&acme, &acme_text).unwrap();
    let out = run(&[
        "extract",
        "--producer-file",
        path_str(&acme),
        "--tee",
        path_str(&acme),
        INPUT,
    ]);
    refused(&out, why, &acme, &acme_text);
    // The config folder's producer files too (`$XDG_CONFIG_HOME/sojx/producers/`).
    let config = dir.join("config");
    let folder = config.join("sojx/producers");
    std::fs::create_dir_all(&folder).unwrap();
    let found = folder.join("acme.toml");
    std::fs::write(&found, &acme_text).unwrap();
    let out = sojx_process()
        .env("XDG_CONFIG_HOME", &config)
        .args(["extract", "--envelope-file", path_str(&found), INPUT])
        .output()
        .unwrap();
    refused(&out, why, &found, &acme_text);
}

/// COMMAND's own files (its program, a script given to its interpreter) are not `run`'s tee:
/// `run --tee agent.sh -- ./agent.sh` once emptied the script before it ran.
#[test]
fn run_never_writes_the_agents_own_files() {
    if !have_tool("bash", "run's COMMAND files") {
        return;
    }
    let dir = scratch_dir("files-written", "command");
    let script = dir.join("agent.sh");
    let text = format!(
        "#!/usr/bin/env bash\ncat {}\n",
        crate::common::root().join(INPUT).display()
    );
    std::fs::write(&script, &text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for (flag, command) in [
        ("--tee", vec![path_str(&script)]),
        ("--envelope-file", vec!["bash", path_str(&script)]),
    ] {
        let mut args = vec!["run", flag, path_str(&script), "--"];
        args.extend(&command);
        let out = run(&args);
        refused(&out, "is the COMMAND file", &script, text.as_bytes());
    }
    // The feedback template's file, which a retry reads.
    let template = dir.join("feedback.txt");
    std::fs::write(&template, "fix: {errors}").unwrap();
    let at = format!("@{}", template.display());
    let out = run(&[
        "run",
        "--feedback-template",
        &at,
        "--envelope-file",
        path_str(&template),
        "--",
        "cat",
        INPUT,
    ]);
    refused(
        &out,
        "is the --feedback-template file",
        &template,
        b"fix: {errors}",
    );
    let out = run(&["run", "--", path_str(&script)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A FIFO no one reads, as `--tee` or `--envelope-file`, is given up at `--timeout` with a
/// `timeout` envelope (exit 2): sojx once waited for a reader forever, before its deadline
/// started.
#[test]
fn a_fifo_without_a_reader_is_given_up_at_the_timeout() {
    if !have_tool("mkfifo", "a FIFO as --tee") {
        return;
    }
    let dir = scratch_dir("files-written", "fifo");
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for flag in ["--tee", "--envelope-file"] {
        let start = Instant::now();
        let out = sojx_process()
            .args(["extract", "--timeout", "1s", flag, path_str(&fifo), INPUT])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(start.elapsed() < patience(Duration::from_secs(1)), "{flag}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{flag}: {stdout}");
        assert!(stdout.contains("\"kind\":\"timeout\""), "{stdout}");
        assert!(stdout.contains("a FIFO that no one read"), "{stdout}");
    }
}

/// `--envelope-file out.jsonl > out.jsonl`: two descriptors writing one file from their own
/// offsets overwrote each other (exit 0). Refused, unless stdout appends (`>>`), when both
/// lines are kept.
#[test]
fn sojxs_own_output_is_written_through_one_offset_or_refused() {
    let dir = scratch_dir("files-written", "stdout");
    let out_file = dir.join("out.jsonl");
    for flag in ["--envelope-file", "--tee"] {
        std::fs::write(&out_file, "").unwrap();
        let stdout = std::fs::File::create(&out_file).unwrap();
        let status = sojx_process()
            .args(["extract", flag, path_str(&out_file), INPUT])
            .stdout(stdout)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(3), "{flag}");
        let text = std::fs::read_to_string(&out_file).unwrap();
        assert!(text.contains("without append"), "{flag}: {text}");
    }
    std::fs::write(&out_file, "").unwrap();
    let stdout = std::fs::OpenOptions::new()
        .append(true)
        .open(&out_file)
        .unwrap();
    let status = sojx_process()
        .args(["extract", "--envelope-file", path_str(&out_file), INPUT])
        .stdout(stdout)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(&out_file).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0]["data"], lines[1]["data"]);
    // Each of sojx's streams that is the file must append: `>>f 2>f` is refused.
    std::fs::write(&out_file, "").unwrap();
    let appending = std::fs::OpenOptions::new()
        .append(true)
        .open(&out_file)
        .unwrap();
    let status = sojx_process()
        .args(["extract", "--envelope-file", path_str(&out_file), INPUT])
        .stdout(appending)
        .stderr(std::fs::File::create(&out_file).unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(3));
}

/// A character device is written without destroying what is read from it: `--tee /dev/null`
/// with standard input `/dev/null` is no clash (it was refused as "standard input").
#[test]
fn a_character_device_is_no_clash() {
    let out = sojx_process()
        .args(["extract", "--tee", "/dev/null"])
        .stdin(std::fs::File::open("/dev/null").unwrap())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("\"kind\":\"empty_input\""), "{stdout}");
}
