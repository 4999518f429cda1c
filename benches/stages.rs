//! Per-stage micro-benchmarks: line splitting, framing, detection, extraction of a whole stream
//! (with and without the fast path), validation, and the whole `sojx extract` in-process.
//! `cargo bench` runs them; `scripts/bench.sh` measures the binary against its peers.
//!
//! The input is a Claude Code stream built from the project's own files: the
//! `examples/claude-review.ndjson` run with the events of `tests/fixtures/claude-code/*.ndjson`
//! (everything but their `result` lines) repeated in the middle, about 4 MB.

#![allow(unreachable_pub, missing_docs)]

use std::io::Cursor;
use std::path::{Path, PathBuf};

use divan::{Bencher, black_box, counter::BytesCount};
use serde_json::Value;
use sojx_core::extract::Options;
use sojx_core::framing::{Framer, Item};
use sojx_core::input::{CHUNK, LineSplitter, Piece};
use sojx_core::producer;
use sojx_core::schema::{self, Schema};

fn main() {
    divan::main();
}

const TARGET: usize = 4 << 20;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The benchmark stream (built once).
fn stream() -> &'static [u8] {
    static S: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let example = std::fs::read_to_string(root().join("examples/claude-review.ndjson"))
            .expect("the example stream");
        let (head, tail) = example.split_once('\n').expect("several lines");
        let mut filler = Vec::new();
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/fixtures/claude-code"))
            .expect("fixtures")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "ndjson"))
            .collect();
        files.sort();
        for f in files {
            for line in std::fs::read_to_string(f).expect("fixture").lines() {
                let v: Option<Value> = serde_json::from_str(line).ok();
                let ty = v
                    .as_ref()
                    .and_then(|v| v.get("type"))
                    .and_then(Value::as_str);
                if matches!(ty, Some("stream_event" | "assistant" | "user" | "system"))
                    && !line.contains("\"init\"")
                    && !line.contains("StructuredOutput")
                {
                    filler.push(line.to_owned());
                }
            }
        }
        let mut out = format!("{head}\n").into_bytes();
        'fill: loop {
            for l in &filler {
                if out.len() + tail.len() > TARGET {
                    break 'fill;
                }
                out.extend_from_slice(l.as_bytes());
                out.push(b'\n');
            }
        }
        out.extend_from_slice(tail.as_bytes());
        out
    })
}

fn lines() -> Vec<&'static [u8]> {
    stream().split(|&b| b == b'\n').collect()
}

fn schema() -> Schema {
    let settings = schema::Settings {
        schema: Some(path("examples/verdict.schema.json")),
        files: Some(std::sync::Arc::new(sojx::disk::Disk)),
        ..schema::Settings::default()
    };
    schema::load(&settings).expect("schema").expect("given")
}

fn path(rel: &str) -> String {
    Path::new(&root()).join(rel).to_string_lossy().into_owned()
}

fn options(schema: Option<&Schema>) -> Options<'_> {
    Options {
        max_line_bytes: 1 << 30,
        schema,
        ..Options::default()
    }
}

#[divan::bench]
fn line_splitting(b: Bencher) {
    let s = stream();
    b.counter(BytesCount::new(s.len())).bench(|| {
        let mut splitter = LineSplitter::new(1 << 30);
        let mut n = 0usize;
        let mut f = |p: Piece<'_>| {
            if let Piece::Line { bytes, .. } = p {
                n += bytes.len();
            }
        };
        for chunk in s.chunks(CHUNK) {
            splitter.push(chunk, &mut f);
        }
        splitter.finish(&mut f);
        n
    });
}

/// The fast path's raw-byte scan of every line (what the read-ahead thread computes).
#[divan::bench]
fn line_facts(b: Bencher) {
    let lines = lines();
    b.counter(BytesCount::new(stream().len())).bench(|| {
        lines
            .iter()
            .filter(|l| producer::LineFacts::of(black_box(l)).utf8.is_some())
            .count()
    });
}

/// Framing parses every line into a JSON value: the cost the fast path avoids.
#[divan::bench]
fn framing(b: Bencher) {
    let lines = lines();
    b.counter(BytesCount::new(stream().len())).bench(|| {
        let mut framer = Framer::new(1 << 30);
        let mut values = 0usize;
        for (i, l) in lines.iter().enumerate() {
            framer.line(i as u64 + 1, l, &mut |it| {
                values += usize::from(matches!(it, Item::Value { .. }));
            });
        }
        framer.finish();
        values
    });
}

#[divan::bench]
fn detection(b: Bencher) {
    let values: Vec<Value> = lines()
        .iter()
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    b.counter(divan::counter::ItemsCount::new(values.len()))
        .bench(|| {
            values
                .iter()
                .filter(|v| producer::detect(black_box(v)).is_some())
                .count()
        });
}

fn extraction(b: Bencher, fast: bool) {
    let s = stream();
    let schema = schema();
    let opts = Options {
        fast_path: fast,
        ..options(Some(&schema))
    };
    b.counter(BytesCount::new(s.len()))
        .bench(|| sojx_core::extract::read(black_box(s), &opts).expect("read"));
}

/// `extract::read` on the whole stream, with the fast path (the default).
#[divan::bench]
fn extraction_fast_path(b: Bencher) {
    extraction(b, true);
}

/// `extract::read` on the whole stream, every line parsed.
#[divan::bench]
fn extraction_full_parse(b: Bencher) {
    extraction(b, false);
}

#[divan::bench]
fn validation(b: Bencher) {
    let schema = schema();
    let answer: Value = serde_json::from_str(
        r#"{"verdict":"FAIL","confidence":0.82,"issues":[{"file":"src/lib.rs","line":42,"severity":"blocker","message":"unchecked unwrap on user input"}]}"#,
    )
    .expect("JSON");
    let bad: Value =
        serde_json::from_str(r#"{"verdict":"MAYBE","confidence":7,"issues":[{"line":0}]}"#)
            .expect("JSON");
    b.bench(|| {
        (
            schema.violations(black_box(&answer)).map_or(0, |v| v.len()),
            schema.violations(black_box(&bad)).map_or(0, |v| v.len()),
        )
    });
}

/// The whole pipeline in-process: read, extract, validate, build the envelope.
#[divan::bench]
fn extract_validate_envelope(b: Bencher) {
    let s = stream();
    let schema = schema();
    let opts = options(Some(&schema));
    b.counter(BytesCount::new(s.len())).bench(|| {
        let (outcome, warnings) = sojx_core::extract::read(Cursor::new(s), &opts).expect("read");
        let env = sojx_core::extract::decide("<bench>", outcome, warnings, &opts);
        serde_json::to_vec(&env).map_or(0, |v| v.len())
    });
}
