//! `sojx validate --jobs N` on a file large enough to be validated on several cores: the same
//! bytes on stdout and stderr, and the same exit status, as on one thread, with failing and bad
//! documents at every position of a batch, and multi-line documents inside a batch and across
//! two (where the workers hand the rest of the input back to the reading thread).

use crate::common::{check_envelope, root, sojx_process};

const SCHEMA: &str = "examples/verdict.schema.json";

/// One document of the generated file: mostly valid verdicts of varying length (so that reads
/// end at every place of a line), or short ones (`pretty_every` 0), some of other kinds; every
/// `pretty_every`-th pretty-printed.
fn document(i: usize, pretty_every: Option<usize>) -> String {
    let words = "null check missing before dereferencing pointer buffer overflow".repeat(i % 5 + 1);
    let valid = if pretty_every == Some(0) {
        // Short lines: more than a batch's 1,024 lines in one read.
        r#"{"verdict":"PASS","confidence":0.5,"issues":[]}"#.to_owned()
    } else {
        format!(
            r#"{{"verdict":"PASS","confidence":0.5,"issues":[{{"file":"src/f{i}.rs","line":{},"severity":"minor","message":"{words}"}}]}}"#,
            i % 900 + 1
        )
    };
    if pretty_every.is_some_and(|n| n > 0 && i % n == n / 2) {
        // A pretty-printed document: several lines.
        let v: serde_json::Value = serde_json::from_str(&valid).unwrap();
        return serde_json::to_string_pretty(&v).unwrap();
    }
    match i % 37 {
        0 => valid.replace("PASS", "MAYBE"),
        5 => format!("not json {i}"),
        11 => valid.replace(r#""verdict":"PASS","#, r#""verdict" : "PASS", "#),
        17 => valid.replace("src/", r"src\/\u0041"),
        23 => valid.replace(
            r#""verdict":"PASS""#,
            r#""verdict":"FAIL","verdict":"PASS""#,
        ),
        29 => String::new(),
        31 => valid.replace("0.5", "5E-1"),
        _ => valid,
    }
}

/// `docs` documents in `name`, in a scratch directory removed when the first value is dropped.
fn file(
    name: &str,
    docs: usize,
    pretty_every: Option<usize>,
) -> (crate::common::Scratch, std::path::PathBuf) {
    let dir = crate::common::Scratch::new("jobs", name);
    let path = dir.join(name);
    let mut text = String::new();
    for i in 0..docs {
        text.push_str(&document(i, pretty_every));
        text.push('\n');
    }
    std::fs::write(&path, &text).unwrap();
    assert!(
        text.len() > 1 << 20,
        "the file must be large enough for the workers"
    );
    (dir, path)
}

/// stdout with the timestamps set to one, stderr, and the exit status.
fn validate(path: &std::path::Path, extra: &[&str]) -> (String, String, i32) {
    let out = sojx_process()
        .current_dir(root())
        .args(["validate", "--schema", SCHEMA])
        .args(extra)
        .arg(path)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let blank = |l: &str| {
        let at = l.find(r#""timestamp":""#).map_or(0, |i| i + 13);
        format!(
            "{}2000-01-01T00:00:00.000Z{}",
            &l[..at],
            &l[(at + 24).min(l.len())..]
        )
    };
    let stdout: Vec<String> = stdout.lines().map(blank).collect();
    (
        stdout.join("\n"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap(),
    )
}

fn same_on_any_number_of_threads(path: &std::path::Path, extra: &[&str]) {
    let one = validate(path, &[&["--jobs", "1"], extra].concat());
    assert_eq!(one.2, 1, "{}", one.1);
    let lines: Vec<&str> = one.0.lines().collect();
    if extra.contains(&"-q") {
        assert!(lines.is_empty());
    } else {
        assert!(lines.len() > 5_000, "{} lines", lines.len());
    }
    if extra.is_empty() {
        // Every kind of envelope the file gives, checked against the envelope schema once.
        let mut kinds = std::collections::BTreeSet::new();
        for l in &lines {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let kind = v.pointer("/error/kind").map(ToString::to_string);
            if kinds.insert(kind) {
                check_envelope(&v);
            }
        }
        assert!(kinds.len() >= 3, "{kinds:?}");
    }
    for jobs in ["2", "5"] {
        let many = validate(path, &[&["--jobs", jobs], extra].concat());
        assert!(
            many == one,
            "--jobs {jobs} differs from --jobs 1 (first difference at envelope {:?})",
            many.0.lines().zip(one.0.lines()).position(|(a, b)| a != b)
        );
    }
}

/// A one-line document is validated and written without a `Value` when the tape takes it
/// (`schema::tape`), a pretty-printed one always through a `Value`: each document gives the
/// same envelope both ways, but for its line number.
#[test]
fn a_document_gives_the_same_envelope_on_one_line_as_pretty_printed() {
    let valid = r#"{"verdict":"PASS","confidence":0.5,"issues":[{"file":"src/a.rs","line":7,"severity":"minor","message":"m"}]}"#;
    let mut docs: Vec<String> = [
        ("0.5", "1"),
        ("0.5", "-0"),
        ("0.5", "0"),
        ("0.5", "7.0"),
        ("0.5", "7.5"),
        ("0.5", "1e2"),
        ("1", "7"),
        ("1.0", "7"),
        ("1.01", "7"),
        ("-0.0", "7"),
        ("0", "12345678901234567890123"),
    ]
    .iter()
    .map(|(c, l)| {
        valid
            .replace("0.5", c)
            .replace(r#""line":7"#, &format!(r#""line":{l}"#))
    })
    .collect();
    for (from, to) in [
        ("\"m\"", r#""tab\there \"quoted\" back\\slash\n""#),
        ("\"m\"", r#""caf\u00e9 \ud83e\udd80""#),
        ("\"m\"", "\"café 🦀\""),
        ("\"m\"", r#""a\/b""#),
        ("src/a.rs", "src/\\u0041.rs"),
        ("\"minor\"", r#""min\u006fr""#),
        ("\"minor\"", r#""MINOR""#),
        ("\"PASS\"", r#""FAIL","verdict":"PASS""#),
        ("\"PASS\"", r#""PASS","extra":{"a":[1,{"b":null}]}"#),
        (r#","line":7"#, ""),
        (r#""issues":["#, r#""issues":[],"x":["#),
    ] {
        docs.push(valid.replacen(from, to, 1));
    }
    docs.push(valid.replace(':', " : "));
    let dir = crate::common::Scratch::new("tape", "documents");
    let (lines, pretty) = (dir.join("lines.jsonl"), dir.join("pretty.jsonl"));
    std::fs::write(&lines, docs.join("\n") + "\n").unwrap();
    let spread: Vec<String> = docs
        .iter()
        .map(|d| {
            let v: serde_json::Value = serde_json::from_str(d).unwrap();
            serde_json::to_string_pretty(&v).unwrap()
        })
        .collect();
    std::fs::write(&pretty, spread.join("\n") + "\n").unwrap();
    let (a, _, code_a) = validate(&lines, &[]);
    let (b, _, code_b) = validate(&pretty, &[]);
    assert_eq!((code_a, code_b), (1, 1));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    assert_eq!(a.len(), docs.len());
    assert_eq!(b.len(), docs.len());
    let mut valid_docs = 0;
    for ((x, y), doc) in a.iter().zip(&b).zip(&docs) {
        assert_eq!(without_line(x), without_line(y), "{doc}");
        valid_docs += usize::from(x.contains(r#""exit_code":0"#));
    }
    assert_eq!(valid_docs, 16, "{a:#?}");
}

/// An envelope's text without its line numbers (`source.line`, `error.target`'s) and the input
/// file's name.
fn without_line(envelope: &str) -> String {
    let mut text = envelope.replace("pretty.jsonl", "lines.jsonl");
    for (mark, stop) in [
        (r#""source":{"kind":"document","line":"#, '}'),
        ("lines.jsonl:", '"'),
    ] {
        if let Some(at) = text.find(mark).map(|i| i + mark.len()) {
            let end = at + text[at..].find(stop).unwrap();
            text.replace_range(at..end, "0");
        }
    }
    text
}

#[test]
fn json_lines_give_the_same_envelopes_in_the_same_order_on_any_number_of_threads() {
    let (_dir, path) = file("lines.jsonl", 12_000, None);
    same_on_any_number_of_threads(&path, &[]);
    // Lines past the limit, every kind of output, and nothing printed with -q.
    same_on_any_number_of_threads(&path, &["--max-line-bytes", "500"]);
    same_on_any_number_of_threads(&path, &["--output-format", "text"]);
    same_on_any_number_of_threads(&path, &["-q"]);
    let _ = std::fs::remove_file(path);
    let (_dir, path) = file("short.jsonl", 25_000, Some(0));
    same_on_any_number_of_threads(&path, &[]);
    let _ = std::fs::remove_file(path);
}

#[test]
fn multi_line_documents_inside_and_across_batches_are_framed_as_on_one_thread() {
    // One pretty document every 101: some fall inside a read, some across two.
    let (_dir, path) = file("pretty.jsonl", 12_000, Some(101));
    same_on_any_number_of_threads(&path, &[]);
    // A document cut off mid-line swallows the lines after it until the framer recovers.
    let mut text = std::fs::read_to_string(&path).unwrap();
    let at = text.len() / 2;
    let at = text[at..].find("\n{").unwrap() + at + 1;
    text.insert_str(at, "{\"verdict\": \"cut\n");
    std::fs::write(&path, text).unwrap();
    same_on_any_number_of_threads(&path, &[]);
    let _ = std::fs::remove_file(path);
}
