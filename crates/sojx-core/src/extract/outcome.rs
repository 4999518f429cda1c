//! The outcome of an input no extractor decided: empty, a cut-off document, one bare JSON
//! document, raw text, or a `--from` that does not match.

use serde_json::{Map, Value};

use crate::error::{ErrorKind, Failure, Operation};
use crate::framing::{Framer, Item, Stats};
use crate::producer::{self, Outcome, Producer, Registry, Session, SourceKind, Verdict};
use crate::repair;
use crate::text;
use crate::warning::{Warning, WarningKind};

use super::Options;

/// The whole input is one JSON document cut off before its end. When what was written is
/// recognizably a producer's output (closing it tentatively shows whose), the run is
/// `truncated` for that producer; otherwise the input is read as text (`json_invalid`).
pub(super) fn cut_document(framer: &Framer, producers: &Registry) -> Option<Outcome> {
    let (line, bytes) = framer.cut.as_ref()?;
    let text = std::str::from_utf8(bytes).ok()?;
    // JSON's own repairs only: this tells whose output the input is, not an answer.
    let rules = repair::Rules {
        lenient: false,
        cut: true,
    };
    let closed = repair::repair_with(text, rules)?;
    let producer = producers.detect(&closed.value)?;
    Some(failed(
        producer,
        Failure::new(
            ErrorKind::Truncated,
            Operation::Extract,
            format!("the input ends inside a JSON document that starts on line {line} (cut off)"),
        )
        .hint("the producer was stopped before it finished writing; re-run it"),
    ))
}

pub(super) fn failed(producer: Producer, f: Failure) -> Outcome {
    decided(producer, Verdict::Failed(f), Vec::new())
}

/// `producer`'s outcome `verdict`, with no session (none was read) and `warnings`.
fn decided(producer: Producer, verdict: Verdict, warnings: Vec<Warning>) -> Outcome {
    Outcome {
        producer,
        verdict,
        session: Session::default(),
        warnings,
    }
}

pub(super) fn mismatch(forced: Producer, detected: Option<Producer>, empty: bool) -> Outcome {
    if empty {
        return failed(
            forced,
            Failure::new(ErrorKind::EmptyInput, Operation::Read, "the input is empty"),
        );
    }
    let f = match detected {
        Some(d) => Failure::new(
            ErrorKind::Parse,
            Operation::Detect,
            format!(
                "--from {} was given, but the input looks like {} output",
                forced.id(),
                d.id()
            ),
        )
        .hint(format!("use --from {} or --from auto", d.id())),
        None => Failure::new(
            ErrorKind::Parse,
            Operation::Detect,
            format!(
                "--from {} was given, but no {} event was found in the input",
                forced.id(),
                forced.id()
            ),
        )
        .hint("use --from auto to detect the producer"),
    };
    failed(forced, f.retryable(false))
}

/// The whole input as one bare JSON value (`json` producer, `document`).
pub(super) fn json_document(
    mut pending: Vec<Item>,
    framer: &mut Framer,
    stats: &Stats,
    opts: &Options<'_>,
) -> Outcome {
    let p = Producer::Json;
    let values = stats.values;
    if values == 1 && stats.text_lines == 0 {
        if let Some(Item::Value { line, value }) =
            pending.drain(..).find(|i| matches!(i, Item::Value { .. }))
        {
            let verdict = Verdict::Value {
                kind: SourceKind::Document,
                value,
                line: Some(line),
                detail: Map::new(),
            };
            return decided(p, verdict, Vec::new());
        }
    }
    if values > 1 {
        return failed(
            p,
            Failure::new(
                ErrorKind::Parse,
                Operation::Parse,
                format!("the input holds {values} JSON values; --from json expects exactly one"),
            )
            .hint("use --from auto, or validate JSON Lines with `sojx validate`")
            .retryable(false),
        );
    }
    // Not one JSON value: read the text as the answer, so that broken JSON is `json_invalid`.
    let text = framer.take_text().unwrap_or_default();
    let text = String::from_utf8_lossy(&text).into_owned();
    if let Some(value) = text::whole(&text) {
        // A bare scalar (`"plain"`, `42`): lines that do not start with `{` or `[` are not framed.
        let verdict = Verdict::Value {
            kind: SourceKind::Document,
            value,
            line: Some(1),
            detail: Map::new(),
        };
        return decided(p, verdict, Vec::new());
    }
    if opts.repair || text::looks_like_json(&text) {
        let verdict = Verdict::ValueText {
            kind: SourceKind::Document,
            text,
            line: Some(1),
            detail: Map::new(),
        };
        return decided(p, verdict, Vec::new());
    }
    failed(
        p,
        Failure::new(
            ErrorKind::Parse,
            Operation::Parse,
            "the input is not a JSON value",
        )
        .hint("use --from text to look for JSON inside text")
        .candidate(Value::from(text)),
    )
}

/// Most event types named in the failure of an input of no known producer.
const MAX_TYPES_NAMED: usize = 8;

/// JSON events of no known producer (contract §3): `parse`, naming the event types seen (a
/// `type` or `event` member) and the `--from` way out; never an answer guessed from them.
pub(super) fn unknown_events(pending: &[Item], values: u64) -> Outcome {
    let mut types: Vec<&str> = Vec::new();
    let mut more = false;
    for i in pending {
        let Item::Value {
            value: Value::Object(o),
            ..
        } = i
        else {
            continue;
        };
        match producer::event_type(o) {
            Some(t) if !types.contains(&t) => {
                if types.len() == MAX_TYPES_NAMED {
                    more = true;
                    break;
                }
                types.push(t);
            }
            _ => {}
        }
    }
    let seen = if types.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
        format!(
            " (event types: {}{})",
            names.join(", "),
            if more { ", …" } else { "" }
        )
    };
    let what = if values == 1 {
        format!(
            "one JSON value{seen} that carries a run's identity (a session id, usage or turns) and that no known producer writes: a status or result object, not an answer"
        )
    } else {
        format!("{values} JSON values{seen}, none of a known producer")
    };
    failed(
        Producer::Text,
        Failure::new(
            ErrorKind::Parse,
            Operation::Detect,
            format!("the input holds {what}"),
        )
        .hint("describe the producer in a producer file and give it with --producer-file FILE (docs/producer-files.md), name it with --from (--from json if the value is the answer), or use --from text to look for the answer in the raw text")
        .retryable(false),
    )
}

pub(super) fn text_outcome(framer: &mut Framer) -> Outcome {
    let p = Producer::Text;
    match framer.take_text() {
        Some(bytes) => {
            let mut warnings = Vec::new();
            let text = match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    warnings.push(Warning::new(WarningKind::InvalidUtf8, "the input text is not valid UTF-8; invalid bytes were replaced with U+FFFD"));
                    String::from_utf8_lossy(e.as_bytes()).into_owned()
                }
            };
            let line = Some(1);
            let verdict = if text.contains('\0') {
                Verdict::Binary { text, line }
            } else {
                Verdict::Text { text, line }
            };
            decided(p, verdict, warnings)
        }
        None => failed(
            p,
            Failure::new(
                ErrorKind::Parse,
                Operation::Parse,
                "the input is not a known producer's output and is too large to read as text",
            )
            .hint("raise --max-line-bytes, or name the producer with --from"),
        ),
    }
}

/// `--from P` on text whose only `P` events are quoted in prose: the input is not `P`'s
/// stream.
pub(super) fn quoted_mismatch(forced: Producer) -> Outcome {
    failed(
        forced,
        Failure::new(
            ErrorKind::Parse,
            Operation::Detect,
            format!(
                "--from {} was given, but the input's only {} events are quoted in prose (on lines with other text) among lines that are not its events: it is text that quotes an event, not the producer's stream",
                forced.id(),
                forced.id()
            ),
        )
        .hint("give sojx what the agent printed, or --from text to read the answer in the text")
        .retryable(false),
    )
}

/// A loaded file claimed values of a stream that sojx's own reader read (issue 55, item
/// 4): for a config folder's file, a warning on `outcome`; for a `--producer-file`, the
/// usage failure that says why.
pub(super) fn contest(
    contested: Option<(Producer, u64)>,
    forced: Option<Producer>,
    outcome: &mut Outcome,
) -> Option<Failure> {
    let (file, line) = contested?;
    let spec = producer::file::spec_of(file)?;
    if outcome.producer == file || forced.is_some() {
        return None;
    }
    let (own, id) = (outcome.producer.id(), file.id());
    let path = spec.origin.path().unwrap_or_default();
    if matches!(spec.origin, producer::file::Origin::Flag(_)) {
        return Some(
            Failure::new(
                ErrorKind::Usage,
                Operation::Detect,
                format!(
                    "the producer file {path} (`{id}`) claims line {line}, which sojx's own {own} reader reads: a producer file refines {own} only by events or fields {own} never shows"
                ),
            )
            .hint(format!(
                "name the producer with --from {id} to read this input by the file, or make its claiming events ask for a field only `{id}` prints"
            ))
            .retryable(false),
        );
    }
    outcome.warnings.push(Warning::new(
        WarningKind::ProducerConflict,
        format!(
            "the producer file {path} (`{id}`) claims line {line} too; sojx's own {own} reader read the stream (--from {id} reads it by the file)"
        ),
    ));
    None
}
