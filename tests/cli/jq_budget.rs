//! Hostile jq expressions (issue 17, item 6): whatever `--assert` or a `compare` expression
//! does — recursion without end, loops without data, `halt` — sojx prints one envelope and
//! exits 1 with `assertion_failed`, in bounded time (each case runs under a watchdog).

use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{check_envelope, sojx_process};

/// A hostile case's outcome: exit status, the one envelope, and how long it took.
struct Outcome {
    code: i32,
    envelope: Value,
    took: Duration,
}

/// Run sojx with `args`, killing it (and failing the test) after 30 s.
fn run_bounded(args: &[&str]) -> Outcome {
    let started = Instant::now();
    let mut child = sojx_process()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("sojx starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).map(|_| s)
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > crate::common::patience(Duration::from_secs(30)) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sojx {args:?} did not end within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = started.elapsed();
    let stdout = reader.join().expect("reader").expect("stdout read");
    let code = status
        .code()
        .unwrap_or_else(|| panic!("sojx {args:?} was killed by a signal: {status:?}"));
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "sojx {args:?}: one envelope, got:\n{stdout}"
    );
    let envelope: Value = serde_json::from_str(lines[0]).expect("the envelope is JSON");
    check_envelope(&envelope);
    Outcome {
        code,
        envelope,
        took,
    }
}

/// Each hostile expression, and the words its error must contain.
const HOSTILE: &[(&str, &str)] = &[
    ("def f: [f]; f", "recursion bound"),
    ("def f: def g: [f]; g; f", "recursion bound"),
    ("def f(x): f(x+1); f(0)", "step budget"),
    ("def f(x): [f(x+1)]; f(0)", "recursion bound"),
    ("0 | [recurse(.+1)] | length", "step budget"),
    ("[recurse(.)] | length", "step budget"),
    ("0 | last(recurse(.+1))", "step budget"),
    ("last(range(1e18))", "step budget"),
    ("[limit(1e18; repeat(1))] | length", "step budget"),
    ("[range(1e18)] | length", "step budget"),
    ("\"[\" * 100000 | fromjson", "deeper than 10,000 levels"),
    ("halt", "called halt (exit status 0)"),
    ("halt_error", "called halt_error (exit status 5)"),
    (
        "\"bye\" | halt_error(0)",
        "called halt_error (exit status 0) with \"bye\"",
    ),
    // A panic inside jaq is the expression's failure (it crashed `compare` before).
    (
        "(\"ab\" * 4611686018427387904) | length > 0",
        "failed inside jq: capacity overflow",
    ),
];

fn message(e: &Value) -> &str {
    e["error"]["message"].as_str().unwrap_or("")
}

#[test]
fn hostile_assertions_fail_with_an_envelope() {
    for (expr, why) in HOSTILE {
        let o = run_bounded(&[
            "extract",
            "--from",
            "json",
            "--assert",
            expr,
            "examples/verdict.json",
        ]);
        let e = &o.envelope;
        assert_eq!(o.code, 1, "{expr}: {e}");
        assert_eq!(e["error"]["kind"], "assertion_failed", "{expr}: {e}");
        assert!(message(e).contains(why), "{expr}: {}", message(e));
        let detail = e["error"]["details"]["assertions"][0]["error"]
            .as_str()
            .unwrap_or("");
        assert!(detail.contains(why), "{expr}: {detail}");
        assert!(
            o.took < crate::common::patience(Duration::from_secs(15)),
            "{expr} took {:?}",
            o.took
        );
    }
}

#[test]
fn hostile_compare_expressions_fail_with_an_envelope() {
    let dir = crate::common::Scratch::new("jq-budget", "compare");
    let file = dir.join("a.json");
    std::fs::write(&file, r#"{"findings":[{"id":1,"v":2}]}"#).unwrap();
    let file = file.to_str().unwrap();
    for (expr, why) in HOSTILE {
        let o = run_bounded(&[
            "compare", "--from", "json", "--items", expr, "--key", ".id", "--field", ".v", file,
        ]);
        let e = &o.envelope;
        assert_eq!(o.code, 1, "{expr}: {e}");
        assert_eq!(e["error"]["kind"], "assertion_failed", "{expr}: {e}");
        assert!(message(e).contains(why), "{expr}: {}", message(e));
        assert!(
            o.took < crate::common::patience(Duration::from_secs(15)),
            "{expr} took {:?}",
            o.took
        );
    }
    // In --key, a failure leaves the item out with a warning: the run still ends normally.
    let o = run_bounded(&[
        "compare",
        "--from",
        "json",
        "--items",
        ".findings[]",
        "--key",
        "def f: [f]; f",
        "--field",
        ".v",
        file,
    ]);
    let warnings = o.envelope["warnings"].to_string();
    assert!(warnings.contains("recursion bound"), "{}", o.envelope);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recursion_bounded_by_data_still_works() {
    let o = run_bounded(&[
        "extract",
        "--from",
        "json",
        "--assert",
        "def f($n): if $n == 0 then 0 else f($n - 1) + 1 end; f(1000) == 1000",
        "--assert",
        "[paths] | length > 0",
        "examples/verdict.json",
    ]);
    assert_eq!(o.code, 0, "{}", o.envelope);
    assert_eq!(o.envelope["data"]["verdict"], "PASS");
}

#[test]
fn deeply_nested_expressions_are_refused_at_compile_time() {
    let deep = format!("{}.{}", "[".repeat(33), "]".repeat(33));
    let o = run_bounded(&[
        "extract",
        "--from",
        "json",
        "--assert",
        &deep,
        "examples/verdict.json",
    ]);
    assert_eq!(o.code, 3);
    assert_eq!(o.envelope["error"]["kind"], "usage");
    assert!(
        message(&o.envelope).contains("deeper than 32 levels"),
        "{}",
        o.envelope
    );
    let ok = format!("{}.{} | length == 1", "[".repeat(32), "]".repeat(32));
    let o = run_bounded(&[
        "extract",
        "--from",
        "json",
        "--assert",
        &ok,
        "examples/verdict.json",
    ]);
    assert_eq!(o.code, 0, "{}", o.envelope);
}
