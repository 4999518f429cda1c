//! `sojx validate`: plain JSON documents, or JSON Lines (one document per line), validated
//! against the schema; one envelope per document, streamed as they are read.

use std::io::{self, Read};

use serde_json::{Value, json};

use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure};
use crate::framing::{Framer, Item};
use crate::input::{CHUNK, LineSplitter, Piece, Source};
use crate::schema::Schema;

/// Validate one input; `emit` receives each envelope in order.
pub fn run(
    source: &Source,
    schema: &Schema,
    max_line_bytes: usize,
    emit: &mut dyn FnMut(Envelope) -> io::Result<()>,
) -> io::Result<()> {
    let name = source.name();
    let mut reader = match source.open() {
        Ok(r) => r,
        Err(f) => return emit(envelope::failure("validate", &name, f, Parts::default())),
    };
    let mut splitter = LineSplitter::new(max_line_bytes);
    let mut framer = Framer::new(max_line_bytes);
    framer.drop_text();
    let mut pending: Vec<Envelope> = Vec::new();
    let mut count = 0u64;
    let on_item = |item: Item, pending: &mut Vec<Envelope>| {
        let env = match item {
            Item::Value { line, value } => document(&name, schema, line, value),
            Item::Junk { line } => {
                let f = Failure::new(
                    ErrorKind::Parse,
                    "parse",
                    format!("line {line} is not JSON"),
                )
                .target(format!("{name}:{line}"))
                .retryable(false);
                envelope::failure(
                    "validate",
                    &name,
                    f,
                    Parts {
                        source: Some(json!({"kind": "document", "line": line})),
                        ..Parts::default()
                    },
                )
            }
            Item::Done { .. } => return,
        };
        pending.push(env);
    };
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let f = Failure::new(
                    ErrorKind::Io,
                    "read",
                    format!("reading the input failed: {}", crate::input::io_reason(&e)),
                );
                return emit(envelope::failure("validate", &name, f, Parts::default()));
            }
        };
        splitter.push(&buf[..n], &mut |p| {
            feed(p, &mut framer, &mut |it| on_item(it, &mut pending))
        });
        for env in pending.drain(..) {
            count += 1;
            emit(env)?;
        }
    }
    splitter.finish(&mut |p| feed(p, &mut framer, &mut |it| on_item(it, &mut pending)));
    framer.finish_items(&mut |it| on_item(it, &mut pending));
    for env in pending.drain(..) {
        count += 1;
        emit(env)?;
    }
    if framer.stats.too_long > 0 {
        let f = Failure::new(
            ErrorKind::Parse,
            "read",
            format!(
                "{} line(s) longer than --max-line-bytes {max_line_bytes}",
                framer.stats.too_long
            ),
        )
        .hint("raise --max-line-bytes")
        .retryable(false);
        count += 1;
        emit(envelope::failure("validate", &name, f, Parts::default()))?;
    }
    if count == 0 {
        emit(envelope::failure(
            "validate",
            &name,
            Failure::new(ErrorKind::EmptyInput, "read", "the input is empty").retryable(false),
            Parts::default(),
        ))?;
    }
    Ok(())
}

fn feed(piece: Piece<'_>, framer: &mut Framer, out: &mut dyn FnMut(Item)) {
    match piece {
        Piece::Line { no, bytes } => framer.line(no, bytes, out),
        Piece::TooLong { no } => framer.too_long(no),
    }
}

fn document(name: &str, schema: &Schema, line: u64, value: Value) -> Envelope {
    let source = Some(json!({"kind": "document", "line": line}));
    let violations = schema.violations(&value);
    if violations.is_empty() {
        envelope::success(
            "validate",
            name,
            value,
            Parts {
                source,
                validation: Some(schema.report(true)),
                ..Parts::default()
            },
        )
    } else {
        let f = crate::extract::validation_failed(schema, violations, value)
            .target(format!("{name}:{line}"));
        envelope::failure(
            "validate",
            name,
            f,
            Parts {
                source,
                validation: Some(schema.report(false)),
                ..Parts::default()
            },
        )
    }
}
