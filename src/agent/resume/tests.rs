//! Resume profiles: their argv, their checks.

use super::*;

fn argv(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

fn strings(v: &[OsString]) -> Vec<String> {
    v.iter().map(|a| a.to_string_lossy().into_owned()).collect()
}

#[test]
fn a_file_word_is_filled_in_one_pass() {
    assert_eq!(fill("--resume={session_id}", "s1", "fb"), "--resume=s1");
    // A session id that reads `{feedback}` stays as it is.
    assert_eq!(fill("{session_id}", "{feedback}", "fb"), "{feedback}");
    assert_eq!(
        fill("--prompt={feedback}", "s", "{session_id}"),
        "--prompt={session_id}"
    );
    assert_eq!(fill("{x}", "s", "f"), "{x}");
}

#[test]
fn profiles_come_from_the_program_file_name() {
    assert_eq!(
        Profile::for_program(OsStr::new("/opt/bin/claude")),
        Some(Profile::Claude)
    );
    assert_eq!(
        Profile::for_program(OsStr::new("cursor-agent")),
        Some(Profile::CursorAgent)
    );
    assert_eq!(Profile::for_program(OsStr::new("claude.sh")), None);
    assert!(Profile::Qwen.confirms(Some(Producer::ClaudeCode)));
    assert!(!Profile::Codex.confirms(Some(Producer::ClaudeCode)));
    assert!(!Profile::Codex.confirms(None));
}

#[test]
fn feedback_that_starts_with_a_dash_is_never_an_option() {
    let feedback = "- /verdict: \"MAYBE\" is not one of \"PASS\" or \"FAIL\"";
    for p in Profile::ALL {
        let first = [OsString::from(p.name()), OsString::from("-p")];
        let r = p.resume(&first, "s1", feedback);
        let argv = strings(&r.argv);
        match argv.iter().position(|a| a.ends_with(feedback)) {
            // As a positional, only after `--`; else a flag's attached value or stdin.
            Some(i) if argv[i] == feedback => {
                assert!(
                    argv[..i].contains(&"--".to_owned()),
                    "{}: {argv:?}",
                    p.name()
                );
            }
            Some(i) => assert!(argv[i].starts_with("--prompt="), "{argv:?}"),
            None => assert_eq!(r.stdin.as_deref(), Some(feedback), "{argv:?}"),
        }
    }
}

#[test]
fn claude_resumes_with_the_flags_that_shape_its_output() {
    let first = argv(&[
        "claude",
        "-p",
        "Review the diff",
        "--output-format",
        "stream-json",
        "--verbose",
        "--json-schema",
        "{\"type\":\"object\"}",
        "--allowedTools",
        "Read",
        "Grep",
        "--session-id",
        "aaaa",
        "--model=opus",
    ]);
    let got = Profile::Claude.resume(&first, "sess-1", "fix it");
    assert_eq!(got.stdin, None);
    assert_eq!(
        strings(&got.argv),
        [
            "claude",
            "-p",
            "--resume",
            "sess-1",
            "--output-format",
            "stream-json",
            "--verbose",
            "--json-schema",
            "{\"type\":\"object\"}",
            "--allowedTools",
            "Read",
            "Grep",
            "--model=opus",
            "--",
            "fix it"
        ]
    );
    assert!(!Profile::Claude.resumable(&argv(&["claude", "--no-session-persistence"])));
}

#[test]
fn codex_resumes_by_thread_id_with_its_schema_file() {
    let first = argv(&[
        "codex",
        "exec",
        "--json",
        "--sandbox",
        "read-only",
        "--output-schema",
        "x.json",
        "do it",
    ]);
    let id = "019a0000-0000-7000-8000-0000000000ab";
    assert_eq!(
        strings(&Profile::Codex.resume(&first, id, "again").argv),
        [
            "codex",
            "exec",
            "--json",
            "--sandbox",
            "read-only",
            "--output-schema",
            "x.json",
            "resume",
            "--",
            id,
            "again"
        ]
    );
    assert!(Profile::Codex.takes_id(id));
    assert!(!Profile::Codex.takes_id("my-thread"));
    assert!(!Profile::Gemini.takes_id(""));
}

#[test]
fn the_schema_is_read_from_the_argv() {
    let claude = argv(&["claude", "-p", "q", "--json-schema={\"type\":\"object\"}"]);
    assert_eq!(
        Profile::Claude.schema_arg(&claude),
        Some(("--json-schema", "{\"type\":\"object\"}".to_owned()))
    );
    let codex = argv(&["codex", "exec", "--output-schema", "x.json", "q"]);
    assert_eq!(
        Profile::Codex.schema_arg(&codex),
        Some(("--output-schema", "x.json".to_owned()))
    );
    let ok = argv(&[
        "claude",
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "q",
    ]);
    assert_eq!(Profile::Claude.schema_arg(&ok), None);
    let gemini = argv(&["gemini", "-p", "q", "-o", "json"]);
    assert_eq!(Profile::Gemini.schema_arg(&gemini), None);
}

#[test]
fn gemini_and_opencode_resume_by_session_id() {
    let first = argv(&["gemini", "-p", "q", "-o", "stream-json", "--skip-trust"]);
    assert_eq!(
        strings(&Profile::Gemini.resume(&first, "g-1", "-again").argv),
        [
            "gemini",
            "--resume",
            "g-1",
            "-o",
            "stream-json",
            "--skip-trust",
            "--prompt=-again"
        ]
    );
    let first = argv(&["opencode", "run", "--format", "json", "q"]);
    let got = Profile::Opencode.resume(&first, "ses_1", "again");
    assert_eq!(
        strings(&got.argv),
        ["opencode", "run", "--session", "ses_1", "--format", "json"]
    );
    assert_eq!(got.stdin.as_deref(), Some("again"));
    let first = argv(&["amp", "-x", "q", "--stream-json"]);
    let got = Profile::Amp.resume(&first, "T-1", "again");
    assert_eq!(
        strings(&got.argv),
        [
            "amp",
            "threads",
            "continue",
            "T-1",
            "--execute",
            "--stream-json"
        ]
    );
    assert_eq!(got.stdin.as_deref(), Some("again"));
}

/// The built-in producer files' resume forms, on first argvs like those recorded: the argv each
/// CLI was seen to resume with (tests/fixtures/real/RECORDED-2026-11.md, "Resume"), the feedback
/// `FB`.
const FB: &str = "- /verdict: \"MAYBE\" is not one of ...";

/// The resume profile of the built-in file `id`, which its program's name chooses.
fn built_in(id: &str) -> Profile {
    let p = Profile::of_files(&crate::producer::file::BUILT_IN)
        .into_iter()
        .find(|p| p.name() == id)
        .unwrap_or_else(|| panic!("no resume form for {id}"));
    assert_eq!(
        Profile::for_program_in(
            OsStr::new(&format!("/usr/bin/{}", p.form().split(' ').next().unwrap())),
            &[p]
        ),
        Some(p)
    );
    p
}

/// The built-in file `id` resumes session `S-1` after `first` as `want` (`FB` the feedback),
/// with the feedback on stdin when `stdin`.
fn resumes_as(id: &str, first: &[&str], want: &[&str], stdin: bool) {
    let r = built_in(id).resume(&argv(first), "S-1", FB);
    let want: Vec<String> = want.iter().map(|w| w.replace("FB", FB)).collect();
    assert_eq!(strings(&r.argv), want, "{id}");
    assert_eq!(r.stdin.as_deref(), stdin.then_some(FB), "{id}");
}

/// Factory Droid: `--session-id`, the feedback after `--`.
#[test]
fn droid_resumes_as_it_was_seen_to() {
    resumes_as(
        "droid",
        &[
            "droid",
            "exec",
            "-o",
            "stream-json",
            "-m",
            "custom:m",
            "--auto",
            "high",
            "Review it",
        ],
        &[
            "droid",
            "exec",
            "-o",
            "stream-json",
            "-m",
            "custom:m",
            "--auto",
            "high",
            "--session-id",
            "S-1",
            "--",
            "FB",
        ],
        false,
    );
}

/// GitHub Copilot CLI: `--resume=ID`, the feedback as `--prompt=`.
#[test]
fn copilot_resumes_as_it_was_seen_to() {
    resumes_as(
        "copilot-cli",
        &[
            "copilot",
            "-p",
            "Review it",
            "--output-format",
            "json",
            "--allow-all-tools",
        ],
        &[
            "copilot",
            "--resume=S-1",
            "--output-format",
            "json",
            "--allow-all-tools",
            "--prompt=FB",
        ],
        false,
    );
}

/// The pi coding agent: `--session`, the feedback on stdin; not resumed after `--no-session`.
#[test]
fn pi_resumes_as_it_was_seen_to() {
    resumes_as(
        "pi",
        &[
            "pi",
            "-p",
            "--mode",
            "json",
            "--provider",
            "p",
            "--model",
            "m",
            "Review it",
        ],
        &[
            "pi",
            "-p",
            "--mode",
            "json",
            "--provider",
            "p",
            "--model",
            "m",
            "--session",
            "S-1",
        ],
        true,
    );
    assert!(!built_in("pi").resumable(&argv(&["pi", "-p", "--no-session", "q"])));
}

/// Kilo, an opencode fork: `--session`, the feedback after `--`; its profile is
/// confirmed by the producer detection names for it.
#[test]
fn kilo_resumes_as_it_was_seen_to() {
    resumes_as(
        "kilo",
        &["kilo", "run", "--format", "json", "--auto", "Review it"],
        &[
            "kilo",
            "run",
            "--format",
            "json",
            "--auto",
            "--session",
            "S-1",
            "--",
            "FB",
        ],
        false,
    );
    assert!(built_in("kilo").confirms(Some(Producer::Opencode)));
    assert!(!built_in("kilo").confirms(Some(Producer::ClaudeCode)));
}

/// Auggie: `--resume ID`, the feedback after `--`.
#[test]
fn auggie_resumes_as_it_was_seen_to() {
    resumes_as(
        "auggie",
        &["auggie", "--print", "--output-format", "json", "Review it"],
        &[
            "auggie",
            "--print",
            "--output-format",
            "json",
            "--resume",
            "S-1",
            "--",
            "FB",
        ],
        false,
    );
}
