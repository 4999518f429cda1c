//! The decision, with no I/O: an extraction's outcome in, the envelope out (the candidate
//! chosen, parsed or repaired, validated once, `--assert` checked).

use serde_json::{Map, Value};

use crate::cli::From;
use crate::envelope::{self, Envelope, MAX_DATA_DEPTH, Parts, depth};
use crate::error::{ErrorKind, Failure};
use crate::framing::Item;
use crate::producer::{self, Outcome, Producer, SourceKind, Verdict, Warning};

use super::Options;
use super::candidate::{Chosen, json_invalid, not_found, too_deep, try_repair};
use super::fallback::{from_markers, from_text};

/// Turn an outcome into the envelope: choose the candidate, parse, repair, validate.
pub fn decide(
    name: &str,
    outcome: Outcome,
    mut warnings: Vec<Warning>,
    opts: &Options<'_>,
) -> Envelope {
    let Outcome {
        producer,
        verdict,
        session,
        warnings: w,
    } = outcome;
    warnings.extend(w);
    let parts = |source: Option<Value>, warnings: Vec<Warning>| Parts {
        producer: Some(producer),
        source,
        session: Some(session.clone()),
        warnings,
        validation: None,
    };
    let chosen = match verdict {
        Verdict::Failed(f) => return envelope::failure("extract", name, f, parts(None, warnings)),
        Verdict::Nothing { message } => {
            return envelope::failure(
                "extract",
                name,
                not_found(message, producer, opts),
                parts(None, warnings),
            );
        }
        Verdict::Value {
            kind,
            value,
            line,
            detail,
        } => Chosen {
            kind,
            value,
            line,
            detail,
            repaired: false,
        },
        Verdict::ValueText {
            kind,
            text,
            line,
            detail,
        } => match serde_json::from_str::<Value>(text.trim()) {
            Ok(value) => Chosen {
                kind,
                value,
                line,
                detail,
                repaired: false,
            },
            Err(e) => match try_repair(&text, opts, &mut warnings) {
                Some(value) => Chosen {
                    kind,
                    value,
                    line,
                    detail,
                    repaired: true,
                },
                None => {
                    let f = json_invalid(&e.to_string(), &text, kind);
                    return envelope::failure(
                        "extract",
                        name,
                        f,
                        parts(Some(source_of(kind, line, &detail)), warnings),
                    );
                }
            },
        },
        Verdict::Text { text, line } => {
            match from_text(&text, line, producer, opts, &mut warnings) {
                Ok(c) => c,
                Err(f) if f.kind == ErrorKind::NotFound && opts.markers => {
                    match from_markers(&text, line, opts, &mut warnings) {
                        Some(c) => c,
                        None => {
                            let f = Failure {
                                message: format!(
                                    "{}, and it has no [EVENT:…] or [MEMORY:…] markers",
                                    f.message
                                ),
                                ..f
                            };
                            return envelope::failure("extract", name, f, parts(None, warnings));
                        }
                    }
                }
                Err(f) => return envelope::failure("extract", name, f, parts(None, warnings)),
            }
        }
    };
    // A value found in text that is itself a producer's output (a Gemini CLI error object after
    // a `[ERROR] ` prefix, an API error body in a log) is that producer's output, never the
    // answer. (`--from json` and `--from text` take the input literally: the shared corpus
    // expects `--from json` on a Claude Code array to return the array.)
    if opts.from == From::Auto
        && matches!(producer, Producer::Json | Producer::Text)
        && let Some(inner) = as_producer_output(&chosen.value, chosen.line)
    {
        return decide(name, inner, warnings, opts);
    }
    if depth(&chosen.value) > MAX_DATA_DEPTH {
        let f = too_deep(&chosen.value.to_string(), chosen.kind, MAX_DATA_DEPTH);
        let source = source_of(chosen.kind, chosen.line, &chosen.detail);
        return envelope::failure("extract", name, f, parts(Some(source), warnings));
    }
    let mut source = source_of(chosen.kind, chosen.line, &chosen.detail);
    if chosen.repaired
        && let Value::Object(m) = &mut source
    {
        m.insert("repaired".into(), Value::Bool(true));
    }
    let mut p = parts(Some(source), warnings);
    if let Some(schema) = opts.schema {
        let violations = match schema.violations(&chosen.value) {
            Ok(v) => v,
            Err(f) => return envelope::failure("extract", name, f, p),
        };
        p.validation = Some(schema.report(violations.is_empty()));
        if !violations.is_empty() {
            let f = schema.failure(violations, chosen.value);
            return envelope::failure("extract", name, f, p);
        }
    }
    if let Some(a) = opts.assertions
        && let Err(f) = a.check(&chosen.value)
    {
        return envelope::failure("extract", name, f.target(name), p);
    }
    envelope::success("extract", name, chosen.value, p)
}

/// What a producer's extractor says of `value` alone, when `value` is a complete output of a
/// known producer (an error or status object, a result, a response body); `None` when no
/// producer claims it or it is only a fragment of a stream (its extractor calls it
/// `truncated`), which leaves it an ordinary value.
fn as_producer_output(value: &Value, line: Option<u64>) -> Option<Outcome> {
    let mut ex = producer::detect_output(value)?.extractor()?;
    let item = Item::Value {
        line: line.unwrap_or(1),
        value: value.clone(),
    };
    if !ex.feed(&item) {
        return None;
    }
    let outcome = ex.finish();
    match &outcome.verdict {
        Verdict::Failed(f) if f.kind == ErrorKind::Truncated => None,
        _ => Some(outcome),
    }
}

fn source_of(kind: SourceKind, line: Option<u64>, detail: &Map<String, Value>) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), Value::from(kind.as_str()));
    if let Some(l) = line {
        m.insert("line".into(), Value::from(l));
    }
    for (k, v) in detail {
        m.insert(k.clone(), v.clone());
    }
    Value::Object(m)
}
