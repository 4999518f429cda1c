//! The golden test: every byte `sojx` prints (stdout and stderr) and its exit status, for every
//! case of the shared corpus, every fixture under `tests/fixtures/` (the real agent CLIs'
//! recordings in `tests/fixtures/real/` too) and `examples/` with the
//! commands the other tests use, the fast-path inputs (a large generated stream, `--tee`,
//! `--activity`, `--timeout`, batches), `validate`, `compare`, `lint`, `compile` and the usage
//! errors. Each case runs twice, with the fast path and with `SOJX_NO_FAST_PATH=1`; the two
//! runs must print the same bytes (when they do not, the recording shows both and the test
//! fails whatever the recording says: the fast path never changes an output).
//!
//! Each case is one insta snapshot in `tests/cli/golden/`, named after the case, so a failure
//! names it and shows a diff. Only what truly varies is masked, each by one named filter
//! ([`masked`]): `tmp`, the test's scratch directory, and `timestamp`, the envelope's time of
//! the run. Nothing else is.
//!
//! Re-record, after a change an issue asks for (say why in the same commit; a refactor
//! re-records nothing), and review the diff:
//!
//! ```text
//! INSTA_UPDATE=always cargo test --test cli golden
//! git diff --stat tests/cli/golden
//! ```
//!
//! A recording no case produces any more fails the test (delete it); the corpus cases follow the
//! project's rule for `../shared` (skipped with a notice where it is absent, a failure under
//! `SOJX_REQUIRE_SHARED=1`).

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use regex::Regex;
use serde_json::Value;

use crate::common::{fixture, root, shared, sojx_process};

/// The schema most fixtures answer to.
const VERDICT: &str = "examples/verdict.schema.json";
/// The longest a single run may take before it is killed and the case fails (a hang).
const HANG: Duration = Duration::from_secs(60);
/// The recordings, relative to this file (insta's `snapshot_path`).
const RECORDINGS: &str = "golden";

/// The recordings of the cases that need `../shared` (the corpus, and the big streams that
/// `../shared/bench/make-big-stream.sh` builds), by name prefix.
const NEED_SHARED: [&str; 2] = ["corpus__", "scratch__big-"];

/// The placeholder of the `tmp` mask: the test's own scratch directory (generated streams,
/// `--tee` files), which changes with every run.
const TMP: &str = "[tmp]";

/// The `timestamp` mask: the envelope's first field, the time of the run, in the compact and the
/// `--pretty` form. Only at the envelope's top level, so a `timestamp` inside `data` still counts.
/// The field after it must be `command`, so data printed with `-r` that starts with a
/// `timestamp` of its own still counts.
const TIMESTAMP: (&str, &str) = (
    r#"(?m)^(\{"timestamp":|  "timestamp": )"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"(,"command":|,\n  "command": )"#,
    r#"${1}"[timestamp]"${2}"#,
);

/// Where a case runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    /// The project root: paths like `examples/…` and `tests/fixtures/…`.
    Root,
    /// `tests/fixtures/recipes`: the paths of `docs/recipes.md`.
    Recipes,
    /// `../shared/corpus`: the paths of its `EXPECTED.json`.
    Corpus,
    /// The test's scratch directory.
    Tmp,
}

/// What the run reads on standard input.
#[derive(Debug, Clone)]
enum Stdin {
    /// Closed for reading (`/dev/null`), as the corpus's acceptance runner does.
    Null,
    /// A pipe fed these bytes, then closed.
    Bytes(Vec<u8>),
    /// A pipe fed these bytes, then held open until sojx exits (a stuck agent).
    Held(Vec<u8>),
    /// A regular file (relative to the case's directory).
    File(PathBuf),
}

/// One recorded command.
#[derive(Debug, Clone)]
struct Case {
    name: String,
    dir: Dir,
    args: Vec<String>,
    stdin: Stdin,
    env: Vec<(String, String)>,
    /// A file the run writes (relative to the case's directory), recorded after the output,
    /// and the input it must be a copy of.
    writes: Option<(String, String)>,
}

impl Case {
    fn new(name: impl Into<String>, dir: Dir, args: &[&str]) -> Self {
        Self {
            name: name.into(),
            dir,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            stdin: Stdin::Null,
            env: Vec::new(),
            writes: None,
        }
    }

    fn stdin(mut self, stdin: Stdin) -> Self {
        self.stdin = stdin;
        self
    }

    fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    fn writes(mut self, file: &str, copy_of: &str) -> Self {
        self.writes = Some((file.to_owned(), copy_of.to_owned()));
        self
    }

    /// The command as a user would type it, quoted for a POSIX shell.
    fn command_line(&self) -> String {
        let mut line = String::new();
        for (k, v) in &self.env {
            line.push_str(&format!("{k}={} ", quote(v)));
        }
        line.push_str("sojx");
        for a in &self.args {
            line.push(' ');
            line.push_str(&quote(a));
        }
        match &self.stdin {
            Stdin::Null => line.push_str(" < /dev/null"),
            Stdin::File(p) => line.push_str(&format!(" < {}", quote(&p.to_string_lossy()))),
            Stdin::Bytes(_) | Stdin::Held(..) => {}
        }
        line
    }

    fn header(&self) -> String {
        let dir = match self.dir {
            Dir::Root => "the project root",
            Dir::Recipes => "tests/fixtures/recipes",
            Dir::Corpus => "../shared/corpus",
            Dir::Tmp => "[tmp]",
        };
        let mut h = format!("$ {}\n# in {dir}\n", self.command_line());
        match &self.stdin {
            Stdin::Bytes(b) => h.push_str(&format!("# stdin: a pipe, {} byte(s)\n", b.len())),
            Stdin::Held(b) => h.push_str(&format!(
                "# stdin: a pipe, {} byte(s), then held open until sojx exits\n",
                b.len()
            )),
            Stdin::Null | Stdin::File(_) => {}
        }
        h
    }
}

/// `s` quoted for a POSIX shell when it needs it.
fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// What one run printed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    status: String,
    stdout: String,
    stderr: String,
    written: Option<String>,
}

/// The directories cases run in.
struct Dirs {
    root: PathBuf,
    recipes: PathBuf,
    corpus: Option<PathBuf>,
    tmp: PathBuf,
}

impl Dirs {
    fn get(&self, dir: Dir) -> &Path {
        match dir {
            Dir::Root => &self.root,
            Dir::Recipes => &self.recipes,
            Dir::Corpus => self
                .corpus
                .as_deref()
                .expect("corpus cases only with ../shared"),
            Dir::Tmp => &self.tmp,
        }
    }
}

/// Bytes as readable text: valid UTF-8 as is, except control characters other than newline and
/// tab, shown as `<0xNN>`, invisible format characters (bidi controls, zero widths, BOM), shown
/// as `<U+NNNN>`, and invalid bytes, shown as `<0xNN!>`. A missing final newline is said, since
/// the recording's trailing whitespace is not compared.
fn visible(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() && c != '\n' && c != '\t' {
                out.push_str(&format!("<0x{:02x}>", u32::from(c)));
            } else if matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
            {
                out.push_str(&format!("<U+{:04X}>", u32::from(c)));
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("<0x{b:02x}!>"));
        }
    }
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        out.push_str("\n[no newline at end]\n");
    }
    out
}

/// The two masks, and nothing else: `tmp` ([`TMP`]) then `timestamp` ([`TIMESTAMP`]).
fn masked(text: &str, tmp: &Path) -> String {
    static TIMESTAMP_RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let timestamp = TIMESTAMP_RE.get_or_init(|| Regex::new(TIMESTAMP.0).expect("timestamp mask"));
    let s = text.replace(tmp.to_str().expect("UTF-8 scratch path"), TMP);
    timestamp.replace_all(&s, TIMESTAMP.1).into_owned()
}

/// Run a case once, with the fast path or without.
fn execute(case: &Case, full_parse: bool, dirs: &Dirs) -> Outcome {
    let dir = dirs.get(case.dir);
    let mut cmd = sojx_process();
    cmd.current_dir(dir).args(&case.args);
    cmd.env_remove("SOJX_NO_FAST_PATH")
        .env_remove("SOJX_READ_AHEAD");
    if full_parse {
        cmd.env("SOJX_NO_FAST_PATH", "1");
    }
    for (k, v) in &case.env {
        cmd.env(k, v);
    }
    // A file a run writes starts absent, or, when it is also the input (named twice: `--tee F F`),
    // as a fresh copy.
    if let Some((w, copy_of)) = &case.writes {
        if case.args.iter().filter(|a| *a == w).count() > 1 {
            std::fs::copy(dir.join(copy_of), dir.join(w)).expect("restore the input");
        } else {
            let _ = std::fs::remove_file(dir.join(w));
        }
    }
    cmd.stdin(match &case.stdin {
        Stdin::Null => Stdio::null(),
        Stdin::File(p) => std::fs::File::open(dir.join(p)).expect("stdin file").into(),
        Stdin::Bytes(_) | Stdin::Held(_) => Stdio::piped(),
    });
    // Dropped when sojx has exited: the writer of a held pipe then closes it.
    let (exited, wait_exit) = std::sync::mpsc::channel::<()>();
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("sojx starts");
    let writer = match (&case.stdin, child.stdin.take()) {
        (Stdin::Held(bytes), Some(mut pipe)) => {
            // Written here, before sojx's clock can run out, not on a thread that a loaded
            // machine may start late: a held input is small enough for the pipe's buffer.
            assert!(bytes.len() <= 4096, "a held input fits a pipe buffer");
            pipe.write_all(bytes).expect("write a held input");
            Some(std::thread::spawn(move || {
                let _ = wait_exit.recv_timeout(HANG);
                drop(pipe);
            }))
        }
        (Stdin::Bytes(bytes), Some(mut pipe)) => {
            let bytes = bytes.clone();
            Some(std::thread::spawn(move || {
                // sojx may stop reading early (a usage error): a broken pipe is fine.
                let _ = pipe.write_all(&bytes);
            }))
        }
        _ => None,
    };
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break match s.code() {
                Some(c) => format!("exit {c}"),
                None => format!("killed by a signal ({s})"),
            };
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            break format!("HUNG: killed after {} s", HANG.as_secs());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    drop(exited);
    let stdout = out.join().expect("stdout reader");
    let stderr = err.join().expect("stderr reader");
    if let Some(w) = writer {
        w.join().expect("stdin writer");
    }
    let written = case
        .writes
        .as_ref()
        .map(|(w, copy_of)| written(dir, w, copy_of, &case.stdin));
    Outcome {
        status,
        stdout: masked(&visible(&stdout), &dirs.tmp),
        stderr: masked(&visible(&stderr), &dirs.tmp),
        written: written.map(|w| masked(&w, &dirs.tmp)),
    }
}

/// What a run wrote to `file`: its length, whether it is a byte-for-byte copy of `copy_of` (a
/// file, or `-` for the bytes fed on stdin), and its content when it is short.
fn written(dir: &Path, file: &str, copy_of: &str, stdin: &Stdin) -> String {
    let bytes = match std::fs::read(dir.join(file)) {
        Ok(b) => b,
        Err(e) => return format!("[not written: {}]\n", e.kind()),
    };
    let original = match (copy_of, stdin) {
        ("-", Stdin::Bytes(b) | Stdin::Held(b)) => Some(b.clone()),
        ("-", _) => None,
        (f, _) => std::fs::read(dir.join(f)).ok(),
    };
    let same = if original.as_deref() == Some(&bytes[..]) {
        "a byte-for-byte copy of"
    } else {
        "NOT a copy of"
    };
    let mut s = format!("{} byte(s), {same} {copy_of}\n", bytes.len());
    if bytes.len() <= 4096 {
        s.push_str(&visible(&bytes));
    }
    s
}

fn section(o: &Outcome) -> String {
    let mut s = format!(
        "----- stdout -----\n{}----- stderr -----\n{}",
        o.stdout, o.stderr
    );
    if let Some(w) = &o.written {
        s.push_str(&format!("----- the file written -----\n{w}"));
    }
    s.push_str(&format!("----- {} -----\n", o.status));
    s
}

/// The recording of a case: its command, then what the two runs printed.
fn render(case: &Case, fast: &Outcome, full: &Outcome, tmp: &Path) -> String {
    let mut s = masked(&case.header(), tmp);
    if fast == full {
        s.push_str("# the fast path and SOJX_NO_FAST_PATH=1 print the same bytes\n");
        s.push_str(&section(fast));
    } else {
        s.push_str("# the fast path and SOJX_NO_FAST_PATH=1 differ\n# with the fast path:\n");
        s.push_str(&section(fast));
        s.push_str("# with SOJX_NO_FAST_PATH=1:\n");
        s.push_str(&section(full));
    }
    s
}

/// A snapshot name from a case name: `/` becomes `__`, anything unusual `_`.
fn snapshot_name(name: &str) -> String {
    name.replace('/', "__")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

// --- the cases ---------------------------------------------------------------------------------

fn rel(p: &Path) -> String {
    p.strip_prefix(root())
        .expect("under the project root")
        .to_str()
        .expect("UTF-8 path")
        .to_owned()
}

/// Files of a directory, sorted.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// A JSON array of strings (the `args` of a listed case).
fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|a| a.as_str().expect("a string").to_owned())
        .collect()
}

/// Every case of `../shared/corpus/EXPECTED.json`, as its acceptance runner runs it.
fn corpus_cases(corpus: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(corpus.join("EXPECTED.json")).expect("EXPECTED.json");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("EXPECTED.json is JSON");
    cases
        .iter()
        .map(|c| {
            let args = strings(&c["args"]);
            let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
            args.push(c["file"].as_str().expect("file"));
            Case::new(
                format!("corpus/{}", c["name"].as_str().expect("name")),
                Dir::Corpus,
                &args,
            )
        })
        .collect()
}

/// The Claude Code fixtures and the example stream: with and without the schema, the producer
/// named, and the text summary.
fn claude_cases() -> Vec<Case> {
    let mut files = vec![root().join("examples/claude-review.ndjson")];
    files.extend(files_in(&fixture("claude-code")));
    let mut out = Vec::new();
    for f in files {
        let f = rel(&f);
        let stem = f
            .trim_start_matches("tests/fixtures/")
            .trim_start_matches("examples/");
        let n = |v: &str| format!("fixtures/claude-code/{stem}/{v}");
        out.push(Case::new(n("extract"), Dir::Root, &["extract", &f]));
        out.push(Case::new(
            n("schema"),
            Dir::Root,
            &["extract", "--schema", VERDICT, &f],
        ));
        out.push(Case::new(
            n("from"),
            Dir::Root,
            &["extract", "--from", "claude-code", &f],
        ));
        out.push(Case::new(
            n("text"),
            Dir::Root,
            &[
                "extract",
                "--output-format",
                "text",
                "--schema",
                VERDICT,
                &f,
            ],
        ));
    }
    out
}

/// Every producer fixture: the arguments of `tests/fixtures/producers/cases.json`, detection
/// alone, the producer named, `--strict`, `--repair` and the text summary.
fn producer_cases() -> Vec<Case> {
    let listed: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixture("producers/cases.json")).expect("cases.json"),
    )
    .expect("cases.json is JSON");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixture("producers"))
        .expect("producers")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let producer = dir.file_name().unwrap().to_str().unwrap().to_owned();
        for f in files_in(&dir) {
            let short = rel(&f)
                .trim_start_matches("tests/fixtures/producers/")
                .to_owned();
            let path = rel(&f);
            let n = |v: &str| format!("fixtures/producers/{short}/{v}");
            let mut variants: Vec<(String, Vec<String>)> = vec![
                ("extract".into(), vec![]),
                ("from".into(), vec!["--from".into(), producer.clone()]),
                ("strict".into(), vec!["--strict".into()]),
                ("repair".into(), vec!["--repair".into()]),
                ("text".into(), vec!["--output-format".into(), "text".into()]),
            ];
            for c in listed.iter().filter(|c| c["file"] == short.as_str()) {
                let args = strings(&c["args"]);
                if !variants.iter().any(|(_, v)| *v == args) {
                    variants.push(("listed".into(), args));
                }
            }
            for (v, args) in variants {
                let mut all = vec!["extract"];
                all.extend(args.iter().map(String::as_str));
                all.push(&path);
                out.push(Case::new(n(&v), Dir::Root, &all));
            }
        }
    }
    out
}

/// What the real agent CLIs printed as they failed (`tests/fixtures/real/`, recorded by
/// `scripts/real-agents.sh --record`): each stdout through `extract`, and its text summary.
fn real_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for f in files_in(&fixture("real")) {
        let path = rel(&f);
        let Some(stem) = path
            .strip_prefix("tests/fixtures/real/")
            .and_then(|p| p.strip_suffix(".stdout"))
        else {
            continue;
        };
        let n = |v: &str| format!("fixtures/real/{stem}/{v}");
        out.push(Case::new(n("extract"), Dir::Root, &["extract", &path]));
        out.push(Case::new(
            n("text"),
            Dir::Root,
            &["extract", "--output-format", "text", &path],
        ));
    }
    out
}

/// The recipes of `docs/recipes.md` and `docs/teams.md`: markers and a handoff, a batch of user
/// stories, code reviews with an assertion, and `compare`.
fn recipe_cases() -> Vec<Case> {
    let ops = [
        "extract",
        "--schema",
        "ops/escalation.schema.json",
        "--markers",
        "--handoff",
        "ops/handoff.json",
    ];
    let mut out = Vec::new();
    for f in [
        "ops/structured.ndjson",
        "ops/legacy.ndjson",
        "ops/failed.ndjson",
    ] {
        let mut args = ops.to_vec();
        args.push(f);
        out.push(Case::new(
            format!("recipes/{f}/markers"),
            Dir::Recipes,
            &args,
        ));
        out.push(Case::new(
            format!("recipes/{f}/plain"),
            Dir::Recipes,
            &["extract", f],
        ));
    }
    let stories: Vec<String> = (1..=6)
        .map(|i| format!("stories/prompt-{i}.json"))
        .collect();
    let mut args = vec!["extract", "--schema", "stories/stories.schema.json"];
    args.extend(stories.iter().map(String::as_str));
    out.push(Case::new("recipes/stories/batch", Dir::Recipes, &args));
    let reviews = [
        "review/security.ndjson",
        "review/style.json",
        "review/perf.json",
    ];
    let assert = ".counts.blocker == ([.findings[] | select(.severity == \"blocker\")] | length)";
    let mut args = vec![
        "extract",
        "--schema",
        "review/review.schema.json",
        "--assert",
        assert,
    ];
    args.extend(reviews);
    out.push(Case::new("recipes/review/assert", Dir::Recipes, &args));
    let compare = [
        "compare",
        "--items",
        ".findings[]",
        "--key",
        "[.file, .line]",
        "--field",
        ".severity",
    ];
    let mut args = compare.to_vec();
    args.extend(reviews);
    out.push(Case::new(
        "recipes/review/compare-three",
        Dir::Recipes,
        &args,
    ));
    let mut args = compare.to_vec();
    args.extend(["review/security.ndjson", "review/perf.json"]);
    out.push(Case::new("recipes/review/compare-two", Dir::Recipes, &args));
    let mut args = compare.to_vec();
    args.extend([
        "--output-format",
        "text",
        "review/security.ndjson",
        "review/style.json",
    ]);
    out.push(Case::new(
        "recipes/review/compare-text",
        Dir::Recipes,
        &args,
    ));
    let mut args = compare.to_vec();
    args.extend(["--schema", "review/review.schema.json"]);
    args.extend(reviews);
    out.push(Case::new(
        "recipes/review/compare-schema",
        Dir::Recipes,
        &args,
    ));
    out.push(
        Case::new(
            "recipes/text-handoff-stdin",
            Dir::Recipes,
            &[
                "extract",
                "--from",
                "text",
                "--markers",
                "--handoff",
                "ops/handoff.json",
            ],
        )
        .stdin(Stdin::Bytes(
            b"[EVENT:critical:db] disk full\n[MEMORY:note] the cache was cold\n".to_vec(),
        )),
    );
    out
}

/// `validate`, `lint` and `compile` on the schema fixtures and the example schemas.
fn schema_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let order = "tests/fixtures/schema/order.schema.json";
    let remote = "tests/fixtures/schema/remote.schema.json";
    let resource = "https://schemas.example.com/catalog/=tests/fixtures/schema/defs/";
    let v = |name: &str, args: &[&str]| Case::new(format!("validate/{name}"), Dir::Root, args);
    out.push(v(
        "example",
        &["validate", "--schema", VERDICT, "examples/verdict.json"],
    ));
    out.push(v(
        "order-valid-invalid",
        &[
            "validate",
            "--schema",
            order,
            "tests/fixtures/schema/order.valid.json",
            "tests/fixtures/schema/order.invalid.json",
        ],
    ));
    out.push(v(
        "order-text",
        &[
            "validate",
            "--output-format",
            "text",
            "--schema",
            order,
            "tests/fixtures/schema/order.invalid.json",
        ],
    ));
    out.push(v(
        "remote-without-resource",
        &[
            "validate",
            "--schema",
            remote,
            "tests/fixtures/schema/order.valid.json",
        ],
    ));
    out.push(
        v(
            "remote-with-resource",
            &["validate", "-r", "--schema", remote, "--resource", resource],
        )
        .stdin(Stdin::Bytes(
            br#"{"item":{"sku":"ABC-1","price":2}}"#.to_vec(),
        )),
    );
    out.push(
        v(
            "json-lines",
            &["validate", "--schema", r#"{"type":"integer"}"#],
        )
        .stdin(Stdin::Bytes(b"1\n\"x\"\n\n2.5\n{\"broken\"\n7\n".to_vec())),
    );
    out.push(
        v("json-lines-raw", &["validate", "-r", "--schema", VERDICT]).stdin(Stdin::Bytes(
            concat!(
                "{\"verdict\":\"PASS\",\"confidence\":1,\"issues\":[]}\n",
                "{\"verdict\":\"MAYBE\",\"confidence\":2,\"issues\":[]}\n",
                "{\"verdict\":\"FAIL\",\"confidence\":0.5,\"issues\":[]}\n",
            )
            .as_bytes()
            .to_vec(),
        )),
    );
    out.push(
        v(
            "ignore-formats",
            &[
                "validate",
                "--ignore-formats",
                "--schema",
                r#"{"type":"string","format":"email"}"#,
            ],
        )
        .stdin(Stdin::Bytes(b"\"not an email\"\n".to_vec())),
    );
    let mut examples = files_in(&root().join("schemas/examples"));
    examples.push(root().join("examples/verdict.schema.json"));
    examples.push(fixture("schema/order.schema.json"));
    for s in &examples {
        let s = rel(s);
        let stem = Path::new(&s)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        out.push(Case::new(
            format!("lint/{stem}/all"),
            Dir::Root,
            &["lint", "--provider", "all", &s],
        ));
        out.push(Case::new(
            format!("lint/{stem}/text"),
            Dir::Root,
            &["lint", "--output-format", "text", "--provider", "all", &s],
        ));
        for p in ["openai", "anthropic", "gemini"] {
            out.push(Case::new(
                format!("compile/{stem}/{p}"),
                Dir::Root,
                &["compile", "--provider", p, &s],
            ));
            out.push(Case::new(
                format!("compile/{stem}/{p}-strict"),
                Dir::Root,
                &["compile", "--compat", "strict", "--provider", p, &s],
            ));
        }
    }
    out.push(Case::new(
        "lint/inline-typo",
        Dir::Root,
        &[
            "lint",
            "--provider",
            "openai",
            r#"{"type":"object","properties":{"a":{"type":"string","maxLenght":3}}}"#,
        ],
    ));
    out.push(Case::new(
        "lint/draft4",
        Dir::Root,
        &[
            "lint",
            "--draft",
            "4",
            r#"{"type":"object","exclusiveMinimum":3}"#,
        ],
    ));
    out.push(Case::new(
        "lint/not-json",
        Dir::Root,
        &["lint", "{not json"],
    ));
    out.push(Case::new(
        "lint/missing-file",
        Dir::Root,
        &["lint", "tests/fixtures/schema/missing.json"],
    ));
    out.push(Case::new(
        "compile/array-openai-raw",
        Dir::Root,
        &[
            "compile",
            "-r",
            "--provider",
            "openai",
            r#"{"type":"array","items":{"type":"string"}}"#,
        ],
    ));
    // `--provider` (issue 56): an answer lifted, and one whose map repeats a key.
    for (name, answer) in [
        (
            "lifted",
            r#"{"verdict":"PASS","service":null,"tags":[{"key":"p95_ms","value":180}]}"#,
        ),
        (
            "key-twice",
            r#"{"verdict":"FAIL","service":"api","tags":[{"key":"a","value":1},{"key":"a","value":2}]}"#,
        ),
    ] {
        out.push(
            Case::new(
                format!("lift/openai-{name}"),
                Dir::Root,
                &[
                    "extract",
                    "--schema",
                    "examples/service-verdict.schema.json",
                    "--provider",
                    "openai",
                ],
            )
            .stdin(Stdin::Bytes(format!("{answer}\n").into_bytes())),
        );
    }
    out
}

/// The example and the hostile fixture through every output and reading mode.
fn mode_cases() -> Vec<Case> {
    let ex = "examples/claude-review.ndjson";
    let hostile = "tests/fixtures/citizen/hostile.ndjson";
    let example = std::fs::read(root().join(ex)).expect("example");
    let first_two: Vec<u8> = {
        let text = String::from_utf8(example.clone()).expect("UTF-8");
        text.lines()
            .take(2)
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect()
    };
    let m = |name: &str, args: &[&str]| Case::new(format!("modes/{name}"), Dir::Root, args);
    let mut out = vec![
        m("pretty", &["extract", "--pretty", "--schema", VERDICT, ex]),
        m("raw", &["extract", "-r", "--schema", VERDICT, ex]),
        m(
            "raw-failure",
            &[
                "extract",
                "-r",
                "--schema",
                r#"{"type":"object","required":["summary"]}"#,
                ex,
            ],
        ),
        m(
            "text-color-always",
            &[
                "extract",
                "--output-format",
                "text",
                "--color",
                "always",
                "--schema",
                VERDICT,
                ex,
            ],
        ),
        m(
            "text-validation-failed",
            &[
                "extract",
                "--output-format",
                "text",
                "--schema",
                r#"{"type":"object","required":["summary"],"properties":{"confidence":{"maximum":0.5}}}"#,
                ex,
            ],
        ),
        m(
            "activity",
            &["extract", "--activity", "--schema", VERDICT, ex],
        ),
        m(
            "activity-color",
            &["extract", "--activity", "--color", "always", ex],
        ),
        m("hostile", &["extract", hostile]),
        m("hostile-activity", &["extract", "--activity", hostile]),
        m(
            "hostile-activity-color",
            &["extract", "--activity", "--color", "always", hostile],
        ),
        m(
            "hostile-text",
            &["extract", "--output-format", "text", hostile],
        ),
        m("hostile-pretty", &["extract", "--pretty", hostile]),
        m("tee-stderr", &["extract", "--tee", "-", ex]),
        m(
            "max-line-bytes",
            &["extract", "--max-line-bytes", "200", ex],
        ),
        m(
            "max-candidates",
            &[
                "extract",
                "--max-candidates",
                "1",
                "tests/fixtures/claude-code/several-json-in-result.ndjson",
            ],
        ),
        m(
            "assert-true",
            &[
                "extract",
                "--assert",
                ".verdict == \"FAIL\"",
                "--schema",
                VERDICT,
                ex,
            ],
        ),
        m(
            "assert-false",
            &["extract", "--assert", ".confidence > 0.9", ex],
        ),
        m(
            "draft-7",
            &["extract", "--draft", "7", "--schema", VERDICT, ex],
        ),
        m(
            "github",
            &[
                "extract",
                "--output-format",
                "github",
                "--schema",
                r#"{"required":["summary","risk"]}"#,
                ex,
                "tests/fixtures/claude-code/cross-check-mismatch.ndjson",
                "tests/fixtures/claude-code/truncated.ndjson",
            ],
        ),
        m(
            "github-lint",
            &["lint", "--output-format", "github", VERDICT],
        ),
        m(
            "quiet",
            &["extract", "-q", "--schema", r#"{"type":"string"}"#, ex],
        ),
        m(
            "timeout-not-reached",
            &["extract", "--timeout", "30", "--schema", VERDICT, ex],
        ),
        m("stdin-pipe", &["extract", "--schema", VERDICT]).stdin(Stdin::Bytes(example.clone())),
        m("stdin-dash", &["extract", "--schema", VERDICT, "-"])
            .stdin(Stdin::Bytes(example.clone())),
        m("stdin-file", &["extract", "--schema", VERDICT]).stdin(Stdin::File(ex.into())),
        m("stdin-activity", &["extract", "--activity"]).stdin(Stdin::Bytes(example.clone())),
        m("timeout", &["extract", "--timeout", "1"]).stdin(Stdin::Held(first_two.clone())),
        m(
            "timeout-text",
            &["extract", "--timeout", "1", "--output-format", "text"],
        )
        .stdin(Stdin::Held(first_two.clone())),
        m(
            "timeout-activity",
            &["extract", "--timeout", "1", "--activity"],
        )
        .stdin(Stdin::Held(first_two)),
        m("empty-stdin", &["extract"]).stdin(Stdin::Bytes(Vec::new())),
        m("binary-stdin", &["extract"]).stdin(Stdin::Bytes(
            b"\xff\xfe not utf-8 \xc3\x28\r\n{\"half\": ".to_vec(),
        )),
        m(
            "text-stdin",
            &["extract", "--output-format", "text", "--schema", VERDICT],
        )
        .stdin(Stdin::Bytes(
            b"Verdict: {\"verdict\":\"MAYBE\",\"confidence\":2}\n".to_vec(),
        )),
        m(
            "control-chars-text",
            &["extract", "--output-format", "text"],
        )
        .stdin(Stdin::Bytes(
            b"{\"note\":\"\\u001b[2J\\u202eevil\"}\n".to_vec(),
        )),
        m("no-color-env", &["extract", "--output-format", "text", ex])
            .env("NO_COLOR", "1")
            .env("FORCE_COLOR", "1"),
        m(
            "force-color-env",
            &["extract", "--output-format", "text", ex],
        )
        .env("FORCE_COLOR", "1"),
        m("clicolor-force-env", &["extract", "--activity", ex]).env("CLICOLOR_FORCE", "1"),
    ];
    // Batches: several inputs, one of them missing, one of them stdin.
    let mut batch = vec!["extract", "--schema", VERDICT, ex];
    let claude: Vec<String> = files_in(&fixture("claude-code"))
        .iter()
        .map(|p| rel(p))
        .collect();
    batch.extend(claude.iter().map(String::as_str));
    out.push(m("batch-claude", &batch));
    out.push(m(
        "batch-text",
        &[
            "extract",
            "--output-format",
            "text",
            ex,
            "tests/fixtures/claude-code/truncated.ndjson",
            "tests/fixtures/no/such/file.ndjson",
        ],
    ));
    out.push(m(
        "batch-activity",
        &[
            "extract",
            "--activity",
            ex,
            "tests/fixtures/claude-code/noisy.ndjson",
        ],
    ));
    out.push(
        m(
            "batch-with-stdin",
            &[
                "extract",
                ex,
                "-",
                "tests/fixtures/claude-code/truncated.ndjson",
            ],
        )
        .stdin(Stdin::Bytes(b"{\"bare\": true}\n".to_vec())),
    );
    out.push(m(
        "batch-timeout",
        &[
            "extract",
            "--timeout",
            "30",
            ex,
            "tests/fixtures/claude-code/noisy.ndjson",
        ],
    ));
    out.push(m("directory-input", &["extract", "tests/fixtures"]));
    out
}

/// Usage errors and the other things a caller can get wrong.
fn usage_cases() -> Vec<Case> {
    let ex = "examples/claude-review.ndjson";
    let u = |name: &str, args: &[&str]| Case::new(format!("usage/{name}"), Dir::Root, args);
    vec![
        u("no-arguments", &[]),
        u("unknown-command", &["bogus"]),
        u("unknown-flag", &["extract", "--no-such-flag", ex]),
        u("bad-timeout", &["extract", "--timeout", "soon", ex]),
        u("bad-from", &["extract", "--from", "nobody", ex]),
        u("bad-color", &["extract", "--color", "sometimes", ex]),
        u("strict-repair", &["extract", "--strict", "--repair", ex]),
        u("strict-markers", &["extract", "--strict", "--markers", ex]),
        u(
            "handoff-without-markers",
            &["extract", "--handoff", "h.json", ex],
        ),
        u(
            "missing-handoff",
            &[
                "extract",
                "--markers",
                "--handoff",
                "no/such/handoff.json",
                ex,
            ],
        ),
        u("missing-input", &["extract", "no/such/input.ndjson"]),
        u(
            "missing-schema",
            &["extract", "--schema", "no/such/schema.json", ex],
        ),
        u("schema-not-json", &["extract", "--schema", "{not json", ex]),
        u(
            "schema-invalid",
            &["extract", "--schema", r#"{"type":"nonsense"}"#, ex],
        ),
        u("bad-assert", &["extract", "--assert", ".[", ex]),
        u(
            "bad-resource",
            &[
                "validate",
                "--schema",
                VERDICT,
                "--resource",
                "nothing-to-map",
            ],
        ),
        u(
            "compare-one-input",
            &[
                "compare",
                "--items",
                ".findings[]",
                "--key",
                ".k",
                "--field",
                ".v",
                ex,
            ],
        ),
        u(
            "compare-bad-items",
            &[
                "compare",
                "--items",
                ".findings[",
                "--key",
                ".k",
                "--field",
                ".v",
                "a.ndjson",
                "b.ndjson",
            ],
        ),
        u("validate-no-schema", &["validate", "examples/verdict.json"]),
        u("lint-no-schema", &["lint"]),
        u("compile-no-provider", &["compile", VERDICT]),
        u("help", &["--help"]),
        u("extract-help", &["extract", "--help"]),
        u("validate-help", &["validate", "--help"]),
        u("compare-help", &["compare", "--help"]),
        u("lint-help", &["lint", "--help"]),
        u("compile-help", &["compile", "--help"]),
        u("run-help", &["run", "--help"]),
        u("run-no-command", &["run", "--schema", VERDICT]),
        u(
            "run-not-found",
            &["run", "--", "sojx-no-such-agent", "-p", "hi"],
        ),
        // Issue 44, item 3: the interpreter named, not "no such file" of a file that is there.
        u(
            "run-bad-interpreter",
            &["run", "--", "tests/fixtures/spawn/bad-interpreter.sh"],
        ),
        u(
            "run-schema-invalid",
            &["run", "--schema", r#"{"type":"nonsense"}"#, "--", "true"],
        ),
        u(
            "run-bad-kill-after",
            &["run", "--kill-after", "soon", "--", "true"],
        ),
        u("short-help", &["extract", "-h"]),
        u("version", &["--version"]),
    ]
}

/// Cases in the scratch directory: `--tee` to a file, and large generated streams (the fast
/// path's home ground) read from a file, from a pipe and from a regular file on stdin.
fn scratch_cases(dirs: &Dirs) -> Vec<Case> {
    let ex = std::fs::read(root().join("examples/claude-review.ndjson")).expect("example");
    std::fs::write(dirs.tmp.join("example.ndjson"), &ex).expect("scratch write");
    std::fs::copy(root().join(VERDICT), dirs.tmp.join("verdict.schema.json")).expect("copy");
    let t = |name: &str, args: &[&str]| Case::new(format!("scratch/{name}"), Dir::Tmp, args);
    let mut out = vec![
        t(
            "tee-file",
            &["extract", "--tee", "copy.ndjson", "example.ndjson"],
        )
        .writes("copy.ndjson", "example.ndjson"),
        t("tee-file-stdin", &["extract", "--tee", "copy-stdin.bin"])
            .stdin(Stdin::Bytes(
                b"cut off {\"verdict\": \"PA\xff\xfe\n".to_vec(),
            ))
            .writes("copy-stdin.bin", "-"),
        t(
            "tee-absolute",
            &[
                "extract",
                "--tee",
                "@ABS@/copy-abs.ndjson",
                "example.ndjson",
            ],
        )
        .writes("copy-abs.ndjson", "example.ndjson"),
        t(
            "tee-missing-dir",
            &[
                "extract",
                "--tee",
                "no/such/dir/copy.ndjson",
                "example.ndjson",
            ],
        ),
        // Refused before anything is written: the input stays whole.
        t(
            "tee-onto-input",
            &["extract", "--tee", "input.ndjson", "input.ndjson"],
        )
        .writes("input.ndjson", "example.ndjson"),
    ];
    for c in &mut out {
        for a in &mut c.args {
            *a = a.replace("@ABS@", dirs.tmp.to_str().expect("UTF-8"));
        }
    }
    let Some(shared) = dirs.corpus.as_ref().and_then(|c| c.parent()) else {
        return out;
    };
    let make = shared.join("bench/make-big-stream.sh");
    let sources = [
        ("example", root().join("examples/claude-review.ndjson")),
        (
            "capture",
            shared.join("corpus/claude-code/jonasthim__styr__internal__harness__claude__testdata__06_json_schema.jsonl"),
        ),
    ];
    for (name, src) in sources {
        let big = format!("big-{name}.ndjson");
        let status = Command::new("bash")
            .arg(&make)
            .arg(&src)
            .arg("3")
            .arg(dirs.tmp.join(&big))
            .status()
            .expect("bash runs make-big-stream.sh");
        assert!(status.success(), "make-big-stream.sh {}", src.display());
        let bytes = std::fs::read(dirs.tmp.join(&big)).expect("big stream");
        let b = |v: &str| format!("big-{name}/{v}");
        out.push(t(&b("file"), &["extract", &big]));
        out.push(t(
            &b("file-schema"),
            &["extract", "--schema", "verdict.schema.json", &big],
        ));
        out.push(t(&b("pipe"), &["extract"]).stdin(Stdin::Bytes(bytes.clone())));
        out.push(t(&b("stdin-file"), &["extract"]).stdin(Stdin::File(big.clone().into())));
        if name == "capture" {
            // The example repeated has an event on every line: 680 KB of activity.
            out.push(t(&b("activity"), &["extract", "--activity", &big]));
        }
        out.push(
            t(
                &b("tee"),
                &["extract", "--tee", &format!("tee-{name}.ndjson"), &big],
            )
            .writes(&format!("tee-{name}.ndjson"), &big),
        );
        out.push(t(&b("timeout"), &["extract", "--timeout", "60"]).stdin(Stdin::Bytes(bytes)));
        out.push(t(&b("read-ahead-0"), &["extract", &big]).env("SOJX_READ_AHEAD", "0"));
        out.push(t(&b("read-ahead-1"), &["extract", &big]).env("SOJX_READ_AHEAD", "1"));
    }
    out
}

/// The wrong-data corpus (`tests/fixtures/wrong-data/`, issue 39): each case with its own
/// arguments, numbered within its input.
fn wrong_data_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (dir, c) in crate::wrong_data::cases() {
        let path = rel(&dir.join(c["file"].as_str().expect("file")));
        let short = path
            .trim_start_matches("tests/fixtures/wrong-data/")
            .to_owned();
        let n = seen.entry(short.clone()).or_default();
        *n += 1;
        let args = strings(&c["args"]);
        let mut all = vec!["extract"];
        all.extend(args.iter().map(String::as_str));
        all.push(&path);
        out.push(Case::new(
            format!("fixtures/wrong-data/{short}/{n}"),
            Dir::Root,
            &all,
        ));
    }
    out
}

fn all_cases(dirs: &Dirs) -> Vec<Case> {
    let mut cases = Vec::new();
    if let Some(corpus) = &dirs.corpus {
        cases.extend(corpus_cases(corpus));
    }
    cases.extend(claude_cases());
    cases.extend(producer_cases());
    cases.extend(real_cases());
    cases.extend(wrong_data_cases());
    cases.extend(recipe_cases());
    cases.extend(schema_cases());
    cases.extend(mode_cases());
    cases.extend(usage_cases());
    cases.extend(scratch_cases(dirs));
    cases
}

#[test]
fn golden() {
    let tmp =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("golden-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("scratch directory");
    let tmp = tmp.canonicalize().expect("scratch path");
    let dirs = Dirs {
        root: root(),
        recipes: fixture("recipes"),
        corpus: shared().map(|s| s.join("corpus")),
        tmp: tmp.clone(),
    };
    let cases = all_cases(&dirs);
    let mut names = BTreeSet::new();
    for c in &cases {
        assert!(
            names.insert(snapshot_name(&c.name)),
            "two cases named {}",
            c.name
        );
    }

    // Run every case twice, with the fast path then without (one after the other, since both
    // may write the same file), cases in parallel on a few threads: most runs wait on pipes.
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, std::num::NonZero::get) * 2;
    let mut results: Vec<(usize, Outcome, Outcome)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(case) = cases.get(i) else {
                            break mine;
                        };
                        let fast = execute(case, false, &dirs);
                        let full = execute(case, true, &dirs);
                        mine.push((i, fast, full));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    results.sort_by_key(|(i, _, _)| *i);

    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(RECORDINGS);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let mut failed = Vec::new();
    let mut disagree = Vec::new();
    settings.bind(|| {
        for (i, fast, full) in &results {
            let case = &cases[*i];
            if fast != full {
                disagree.push(case.name.clone());
            }
            let body = render(case, fast, full, &tmp);
            let name = snapshot_name(&case.name);
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                insta::assert_snapshot!(name.as_str(), body);
            }));
            if ok.is_err() {
                failed.push(case.name.clone());
            }
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);

    // Recordings no case made any more (those that need ../shared are kept when it is absent).
    let dir = root().join("tests/cli").join(RECORDINGS);
    let stale: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter_map(|f| f.strip_suffix(".snap").map(str::to_owned))
                .filter(|n| !names.contains(n))
                .filter(|n| dirs.corpus.is_some() || !NEED_SHARED.iter().any(|p| n.starts_with(p)))
                .collect()
        })
        .unwrap_or_default();
    eprintln!(
        "golden: {} case(s), {} run(s)",
        cases.len(),
        2 * cases.len()
    );
    assert!(
        failed.is_empty(),
        "{} of {} golden case(s) differ from their recording (diffs above): {failed:#?}\n\
         re-record with `INSTA_UPDATE=always cargo test --test cli golden` if the change is meant",
        failed.len(),
        cases.len()
    );
    assert!(
        disagree.is_empty(),
        "the fast path and SOJX_NO_FAST_PATH=1 print different bytes in {} case(s) (both are in \
         their recordings): {disagree:#?}",
        disagree.len()
    );
    assert!(
        stale.is_empty(),
        "recordings in tests/cli/{RECORDINGS} that no case makes any more; delete them: {stale:#?}"
    );
}
