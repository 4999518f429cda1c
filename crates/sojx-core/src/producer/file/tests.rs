//! The registry: loading, detection by vocabulary, `reads_like`, `[resume]`.

use super::*;
use crate::files::tests::TestDisk;
use serde_json::json;

const ACME: &str = r#"
sojx_producer = 1
id = "acme"
name = "Acme"
[[event]]
name = "done"
when = { type = "acme.done" }
text = "answer"
end = true
"#;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sojx-registry-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn loaded_files_are_detected_first_and_named_by_id() {
    let d = dir("load");
    let f = d.join("acme.toml");
    std::fs::write(&f, ACME).unwrap();
    // The same file twice (by a second path) is loaded once.
    let twice = [f.clone(), d.join(".").join("acme.toml")];
    let r = Registry::load(&twice, Some(&d.join("none")), &TestDisk).unwrap();
    assert_eq!(r.loaded().len(), 1);
    let p = r.resolve("acme").unwrap();
    assert_eq!(p.id(), "acme");
    assert_eq!(p.family(), Family::Described);
    assert_eq!(
        r.detect(&json!({"type": "acme.done", "answer": "{}"})),
        Some(p)
    );
    assert_eq!(BUILT_IN.detect(&json!({"type": "acme.done"})), None);
    assert_eq!(r.resolve("codex"), Some(Producer::Codex));
    assert_eq!(r.all().len(), Producer::ALL.len() + 1);
    // The config folder's file of the same id: the flag's wins.
    let conf = dir("conf");
    std::fs::write(conf.join("acme.toml"), ACME.replace("Acme", "Other")).unwrap();
    let r = Registry::load(std::slice::from_ref(&f), Some(&conf), &TestDisk).unwrap();
    assert_eq!(r.loaded()[0].name, "Acme");
    let r = Registry::load(&[], Some(&conf), &TestDisk).unwrap();
    assert_eq!(r.loaded()[0].origin.kind(), "config");
}

#[test]
fn a_file_that_shares_a_producers_shapes_decides_where_its_detection_names_it() {
    let droid = BUILT_IN.resolve("droid").unwrap();
    let init = json!({"type": "system", "subtype": "init", "session_id": "s", "tools": []});
    assert_eq!(BUILT_IN.sight(&init), Sight::Decided(Producer::ClaudeCode));
    let mut droid_init = init.clone();
    droid_init["reasoning_effort"] = json!("none");
    assert_eq!(BUILT_IN.sight(&droid_init), Sight::Decided(droid));
    // Droid's `-o json` result is Claude Code's plus `usage.factory_credits`.
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "{}", "session_id": "s", "usage": {"input_tokens": 1}});
    assert_eq!(
        BUILT_IN.sight(&result),
        Sight::Decided(Producer::ClaudeCode)
    );
    let mut droid_result = result.clone();
    droid_result["usage"]["factory_credits"] = json!(0);
    assert_eq!(BUILT_IN.sight(&droid_result), Sight::Decided(droid));
    assert_eq!(BUILT_IN.detect_output(&droid_result), Some(droid));
    assert_eq!(BUILT_IN.detect_output(&result), Some(Producer::ClaudeCode));

    // A fork's file whose init event does not claim: Claude Code's init line is held.
    let f = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/producer-files/claude-fork.toml");
    let r = Registry::load(std::slice::from_ref(&f), None, &TestDisk).unwrap();
    let fork = r.resolve("claude-fork").unwrap();
    let Sight::Held(held, files) = r.sight(&init) else {
        panic!("{:?}", r.sight(&init))
    };
    assert_eq!(
        (held, files.as_slice()),
        (Producer::ClaudeCode, &[fork][..])
    );
    let holds = |v: Value| r.holds(held, &files, &v);
    let claude_assistant = json!({"type": "assistant", "message": {"role": "assistant",
        "content": [{"type": "text", "text": "{}"}]}, "session_id": "s"});
    assert_eq!(holds(claude_assistant), Some(Producer::ClaudeCode));
    assert_eq!(holds(json!({"type": "message", "text": "{}"})), Some(fork));
    // Its error event does not claim a stream alone, but after the init line no producer
    // sojx reads in code prints it.
    let error = json!({"type": "error", "source": "cli", "message": "Exec failed"});
    assert_eq!(holds(error), Some(fork));
    // Both vocabularies: still held.
    assert_eq!(holds(init.clone()), None);
    // Neither: sojx's detection stands.
    assert_eq!(holds(json!({"type": "other"})), Some(Producer::ClaudeCode));
}

#[test]
fn reads_like_names_a_producer_read_in_code_for_a_file_without_events() {
    let d = dir("reads-like");
    let f = d.join("a.toml");
    let look_alike =
        |id: &str| format!("sojx_producer = 1\nid = \"a\"\nname = \"A\"\nreads_like = \"{id}\"\n");
    for (id, ok) in [
        ("claude-code", true),
        ("json", false),
        ("droid", false),
        ("x", false),
    ] {
        std::fs::write(&f, look_alike(id)).unwrap();
        let r = Registry::load(std::slice::from_ref(&f), None, &TestDisk);
        assert_eq!(r.is_ok(), ok, "{id}: {r:?}");
        // With events, any `reads_like` loads: one of sojx's own refines its detection,
        // another is for people.
        let text = ACME.replace(
            "name = \"Acme\"\n",
            &format!("name = \"Acme\"\nreads_like = \"{id}\"\n"),
        );
        std::fs::write(&f, text).unwrap();
        assert!(
            Registry::load(std::slice::from_ref(&f), None, &TestDisk).is_ok(),
            "{id}"
        );
    }
}

#[test]
fn a_resume_form_names_the_session_and_never_passes_the_feedback_as_an_option() {
    let d = dir("resume");
    let f = d.join("a.toml");
    let load = |resume: &str| {
        std::fs::write(&f, format!("{ACME}\n[resume]\n{resume}\n")).unwrap();
        Registry::load(std::slice::from_ref(&f), None, &TestDisk)
    };
    let r = load(r#"argv = ["run", "--resume", "{session_id}", "--", "{feedback}"]"#).unwrap();
    let form = r.loaded()[0].resume.as_ref().unwrap();
    assert!(!form.stdin);
    assert!(load(r#"argv = ["--resume={session_id}", "--prompt={feedback}"]"#).is_ok());
    assert!(load("argv = [\"-r\", \"{session_id}\"]\nstdin = true").is_ok());
    for (resume, place, says) in [
        (
            r#"argv = ["run", "--", "{feedback}"]"#,
            "/resume/argv",
            "never names the session",
        ),
        (
            r#"argv = ["-r", "{session_id}", "{feedback}"]"#,
            "/resume/argv/2",
            "after a `--`",
        ),
        (
            r#"argv = ["-r", "{session_id}", "-p", "{feedback}"]"#,
            "/resume/argv/3",
            "attached",
        ),
        (
            r#"argv = ["-r", "{session_id}"]"#,
            "/resume/argv",
            "nowhere",
        ),
        (
            "argv = [\"-r\", \"{session_id}\", \"--\", \"{feedback}\"]\nstdin = true",
            "/resume/argv",
            "on stdin",
        ),
        (
            r#"argv = ["-r", "{session}", "--", "{feedback}"]"#,
            "/resume/argv/1",
            "one of",
        ),
        (
            r#"argv = ["-r={session_id}", "--x={carried}", "--", "{feedback}"]"#,
            "/resume/argv/1",
            "word of its own",
        ),
        (
            "argv = [\"-r\", \"{session_id}\", \"--\", \"{feedback}\"]\ncarry = { model = 1 }",
            "/resume/carry/model",
            "starts with `-`",
        ),
        (
            "argv = [\"-r\", \"{session_id}\", \"--\", \"{feedback}\"]\nprograms = [\"/bin/acme\"]",
            "/resume/programs/0",
            "without a folder",
        ),
    ] {
        let e = load(resume).unwrap_err();
        assert_eq!(e.place, place, "{resume}: {e}");
        assert!(e.message.contains(says), "{resume}: {e}");
    }
}

#[test]
fn ids_must_not_collide() {
    let d = dir("collide");
    let (a, b) = (d.join("a.toml"), d.join("b.json"));
    std::fs::write(&a, ACME).unwrap();
    let json = r#"{"sojx_producer": 1, "id": "acme", "name": "B",
        "event": [{"name": "x", "when": {"type": "x"}, "end": true}]}"#;
    std::fs::write(&b, json).unwrap();
    let e = Registry::load(&[a.clone(), b.clone()], None, &TestDisk).unwrap_err();
    assert_eq!(e.place, "/id", "{e}");
    assert!(
        e.message.contains("each producer file needs its own id"),
        "{e}"
    );
    std::fs::write(&b, json.replace("acme", "codex")).unwrap();
    let e = Registry::load(&[b], None, &TestDisk).unwrap_err();
    assert!(e.message.contains("reads in code"), "{e}");
    // A built-in file's id may be taken: the user's file replaces it.
    let c = d.join("c.toml");
    std::fs::write(&c, ACME.replace("\"acme\"", "\"grok-cli\"")).unwrap();
    let r = Registry::load(&[c], None, &TestDisk).unwrap();
    assert!(matches!(r.resolve("grok-cli"), Some(Producer::File(_))));
    assert_eq!(r.all().len(), Producer::ALL.len());
}

/// `auto` and `none` are the flags' keywords (`--from auto`, `--resume-profile none`): a file of
/// either id could never be named, so it is refused (issue 58, item 12).
#[test]
fn the_flags_keywords_are_no_ids() {
    for id in ["auto", "none"] {
        let d = dir(&format!("keyword-{id}"));
        let f = d.join("k.toml");
        std::fs::write(&f, ACME.replace("\"acme\"", &format!("\"{id}\""))).unwrap();
        let e = Registry::load(std::slice::from_ref(&f), None, &TestDisk).unwrap_err();
        assert_eq!(e.place, "/id");
        assert!(e.message.contains("no flag could name"), "{}", e.message);
    }
}

/// A file's events and each event's conditions are bounded (docs/limits.md), so that matching a
/// stream's lines against them stays linear in its lines (issue 58, item 12).
#[test]
fn events_and_conditions_are_bounded() {
    let d = dir("bounds");
    let event = |i: usize, conds: usize| {
        let when: Vec<String> = (0..conds).map(|j| format!("k{j} = {j}")).collect();
        format!(
            "[[event]]\nname = \"e{i}\"\nwhen = {{ {} }}\ntext = \"t\"\nend = true\n",
            when.join(", ")
        )
    };
    let file = |events: usize, conds: usize| {
        let body: Vec<String> = (0..events).map(|i| event(i, conds)).collect();
        format!(
            "sojx_producer = 1\nid = \"big\"\nname = \"Big\"\n{}",
            body.join("\n")
        )
    };
    let load = |text: String| {
        let f = d.join("big.toml");
        std::fs::write(&f, text).unwrap();
        Registry::load(std::slice::from_ref(&f), None, &TestDisk)
    };
    assert!(load(file(compile::MAX_EVENTS, compile::MAX_CONDITIONS)).is_ok());
    let e = load(file(compile::MAX_EVENTS + 1, 1)).unwrap_err();
    assert_eq!(e.place, "/event");
    assert!(e.message.contains("65 events"), "{}", e.message);
    let e = load(file(1, compile::MAX_CONDITIONS + 1)).unwrap_err();
    assert_eq!(e.place, "/event/0/when");
    assert!(e.message.contains("17 conditions"), "{}", e.message);
    // One condition's list of values too (110,000 values once took 48 s over 20,000 lines).
    let values: Vec<String> = (0..=compile::MAX_VALUES)
        .map(|v| format!("\"v{v}\""))
        .collect();
    let e = load(format!(
        "sojx_producer = 1\nid = \"big\"\nname = \"Big\"\n[[event]]\nname = \"e\"\n\
         when = {{ type = [{}] }}\ntext = \"t\"\nend = true\n",
        values.join(", ")
    ))
    .unwrap_err();
    assert_eq!(e.place, "/event/0/when/type");
    assert!(e.message.contains("65 values"), "{}", e.message);
    // And the values all conditions compare: 17 events of one 64-value condition.
    let list: Vec<String> = (0..compile::MAX_VALUES)
        .map(|v| format!("\"v{v}\""))
        .collect();
    let events: Vec<String> = (0..17)
        .map(|i| {
            format!(
                "[[event]]\nname = \"e{i}\"\nwhen = {{ type = [{}] }}\ntext = \"t\"\nend = true\n",
                list.join(", ")
            )
        })
        .collect();
    let e = load(format!(
        "sojx_producer = 1\nid = \"big\"\nname = \"Big\"\n{}",
        events.join("\n")
    ))
    .unwrap_err();
    assert_eq!(e.place, "/event");
    assert!(e.message.contains("compare 1088 values"), "{}", e.message);
}
