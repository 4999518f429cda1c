//! The decision, with no I/O: an extraction's outcome in, the envelope out (the candidate
//! chosen, parsed or repaired, validated once, `--assert` checked).

use serde_json::Value;

use crate::coerce::Coercion;
use crate::envelope::{self, Envelope, MAX_DATA_DEPTH, Parts, Source, depth};
use crate::error::{ErrorKind, Failure, Operation};
use crate::framing::Item;
use crate::names::Command;
use crate::producer::{self, Outcome, Producer, Registry, SourceKind, Verdict};
use crate::warning::{Warning, WarningKind};

use super::Options;
use super::calls::Pick;
use super::candidate::{
    Chosen, binary_input, json_invalid, not_found, source_of, too_deep, try_repair,
};
use super::fallback::from_answer;

/// A stream that looks cut off, or holds no answer, after lines past `--max-line-bytes` were
/// skipped: the skipped lines are the likely cause (the `result` line was the long one), so it
/// is a `parse` failure of the caller's limit, not a retryable `truncated` or `not_found`.
fn blame_long_lines(mut f: Failure, warnings: &[Warning]) -> Failure {
    let Some(w) = warnings.iter().find(|w| w.kind == WarningKind::LineTooLong) else {
        return f;
    };
    if !matches!(f.kind, ErrorKind::Truncated | ErrorKind::NotFound) {
        return f;
    }
    f.message = format!("{}; {}, and may have held it", f.message, w.message);
    f.kind = ErrorKind::Parse;
    f.retryable = false;
    f.hint = Some("raise --max-line-bytes to the longest line the producer writes".to_owned());
    f
}

/// Turn an outcome into the envelope: choose the candidate, parse, repair, validate, assert.
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
    let parts = |source: Option<Source>, warnings: Vec<Warning>| Parts {
        producer: Some(producer),
        source,
        session: Some(session.clone()),
        warnings,
        validation: None,
    };
    let chosen = match choose(verdict, producer, opts, &mut warnings) {
        Ok(c) => c,
        Err((f, source)) => {
            let f = blame_long_lines(f, &warnings);
            return envelope::failure(
                Command::Extract,
                name,
                f,
                parts(source.map(|s| *s), warnings),
            );
        }
    };
    // A value found in text that is itself a producer's output (a Gemini CLI error object after
    // a `[ERROR] ` prefix, an API error body in a log) is that producer's output, never the
    // answer. (`--from json` and `--from text` take the input literally: the shared corpus
    // expects `--from json` on a Claude Code array to return the array.)
    if opts.from.is_none()
        && matches!(producer, Producer::Json | Producer::Text)
        && let Some(inner) = as_producer_output(opts.producers, &chosen.value, chosen.line)
    {
        return decide(name, inner, warnings, opts);
    }
    // A value found in text that carries a run's identity but that no known producer claims
    // (xAI Grok CLI's result object quoted after a log prefix) is an unknown producer's status
    // or result object, never the answer (contract §4).
    if opts.from.is_none()
        && matches!(producer, Producer::Json | Producer::Text)
        && producer::run_identity(&chosen.value)
    {
        let f = unknown_output(&chosen.value);
        let source = source_of(chosen.kind, chosen.line, &chosen.detail);
        return envelope::failure(Command::Extract, name, f, parts(Some(source), warnings));
    }
    if depth(&chosen.value) > MAX_DATA_DEPTH {
        let f = too_deep(&chosen.value.to_string(), chosen.kind, MAX_DATA_DEPTH);
        let source = source_of(chosen.kind, chosen.line, &chosen.detail);
        return envelope::failure(Command::Extract, name, f, parts(Some(source), warnings));
    }
    let mut p = parts(Some(chosen.source()), warnings);
    p.warnings.extend(unchecked(&chosen, opts));
    match check(name, chosen, opts, &mut p) {
        Ok(data) => envelope::success(Command::Extract, name, data, p),
        Err(f) => envelope::failure(Command::Extract, name, f, p),
    }
}

/// The candidate a verdict names, or the failure (with the `source` to report, when the
/// candidate was found but is not JSON).
fn choose(
    verdict: Verdict,
    producer: Producer,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Chosen, (Failure, Option<Box<Source>>)> {
    match verdict {
        Verdict::Failed(f) => Err((f, None)),
        Verdict::Nothing { message } => Err((not_found(message, producer, opts), None)),
        // `--strict`'s own not_found says why the text was not taken; it stays.
        Verdict::Prose { text, line, why } => {
            match choose(Verdict::Text { text, line }, producer, opts, warnings) {
                Err((f, source)) if f.kind == ErrorKind::NotFound && !opts.strict => {
                    Err((why, source))
                }
                other => other,
            }
        }
        Verdict::Binary { text, line } => {
            match choose(Verdict::Text { text, line }, producer, opts, warnings) {
                Err((f, _)) if matches!(f.kind, ErrorKind::NotFound | ErrorKind::JsonInvalid) => {
                    Err((binary_input(), None))
                }
                other => other,
            }
        }
        Verdict::Value {
            kind,
            value,
            line,
            detail,
        } => Ok(Chosen::new(kind, value, line, detail)),
        Verdict::ValueText {
            kind,
            text,
            line,
            detail,
        } => {
            let err = match crate::json::from_str_lenient(text.trim()) {
                Ok(read) => {
                    if read.lone_surrogates {
                        warnings.push(Warning::lone_surrogate(line));
                    }
                    return Ok(Chosen::new(kind, read.value, line, detail));
                }
                Err(e) => e,
            };
            match try_repair(&text, 0, true, kind, opts, warnings) {
                Some(mended) => Ok(Chosen {
                    detail,
                    ..Chosen::repaired(kind, mended, line)
                }),
                None => Err((
                    json_invalid(&err, text.trim(), &text, kind),
                    Some(Box::new(source_of(kind, line, &detail))),
                )),
            }
        }
        Verdict::Calls(calls) => match super::calls::choose(calls, opts, warnings) {
            Ok(Pick::Chosen(c)) => Ok(c),
            Ok(Pick::Call(v)) => choose(v, producer, opts, warnings),
            Err(f) => Err((f, None)),
        },
        Verdict::Text { text, line } => {
            from_answer(&text, line, producer, opts, warnings).map_err(|f| (f, None))
        }
    }
}

/// Validate the chosen value against `--schema` (once: a value the text fallback validated is
/// not validated again; with `--coerce`, an invalid value whose type slips were converted is
/// validated again, and fails, if it still does, with the converted value as its candidate),
/// then check `--assert` (its failure names the input `name`); the
/// `validation` object goes into `parts`.
fn check(
    name: &str,
    mut chosen: Chosen,
    opts: &Options<'_>,
    parts: &mut Parts,
) -> Result<Value, Failure> {
    if let Some(schema) = opts.schema {
        let mut violations = match chosen.checked {
            Some(checked) => checked,
            None => schema.violations(&chosen.value),
        }?;
        if opts.coerce && !violations.is_empty() {
            let coercions = schema.coerce(&mut chosen.value);
            if !coercions.is_empty() {
                violations = schema.violations(&chosen.value)?;
                parts.warnings.push(coerced(&coercions));
                if let Some(source) = parts.source.as_mut() {
                    source.coercions = coercions;
                }
            }
        }
        parts.validation = Some(schema.report(violations.is_empty()));
        if !violations.is_empty() {
            return Err(schema.failure(violations, chosen.value));
        }
        // In the schema's shape (`--provider`), for `--assert` and `data`.
        let (value, lifted) = schema.lift(chosen.value);
        parts.warnings.extend(lifted);
        chosen.value = value;
    }
    if let Some(a) = opts.assertions {
        a.check(&chosen.value).map_err(|f| f.target(name))?;
    }
    Ok(chosen.value)
}

/// The `coerced` warning: how many strings `--coerce` converted, and where (the first 20).
fn coerced(coercions: &[Coercion]) -> Warning {
    Warning::new(
        WarningKind::Coerced,
        format!(
            "--coerce converted {} string(s) to the type the schema asks for: {}",
            coercions.len(),
            crate::coerce::places(coercions, 20)
        ),
    )
}

/// An answer dug out of prose (a code fence, or JSON embedded in text) with no `--schema` to
/// tell it from any other JSON the text held: a warning, with the way to make sure.
fn unchecked(chosen: &Chosen, opts: &Options<'_>) -> Option<Warning> {
    let found = match chosen.kind {
        _ if opts.schema.is_some() => return None,
        SourceKind::CodeFence => "in a fenced code block of the text",
        SourceKind::Embedded => "inside prose",
        _ => return None,
    };
    Some(Warning::new(
        WarningKind::UncheckedAnswer,
        format!(
            "the answer is JSON found {found}, and no schema checked that it is the answer; give --schema S to hold it to the answer's shape"
        ),
    ))
}

/// The failure of a value that carries a run's identity and that no known producer claims.
fn unknown_output(value: &Value) -> Failure {
    let ty = value
        .as_object()
        .and_then(producer::event_type)
        .map(|t| format!(" (event type `{t}`)"))
        .unwrap_or_default();
    Failure::new(
        ErrorKind::Parse,
        Operation::Detect,
        format!(
            "the JSON value found{ty} carries a run's identity (a session id, usage or turns) and no known producer writes it: a status or result object, not an answer"
        ),
    )
    .hint("name the producer with --from, or use --from json if the value is the answer")
    .retryable(false)
}

/// What a producer's extractor says of `value` alone, when `value` is a complete output of a
/// known producer (an error or status object, a result, a response body); `None` when no
/// producer claims it or it is only a fragment of a stream (its extractor calls it
/// `truncated`), which leaves it an ordinary value.
fn as_producer_output(producers: &Registry, value: &Value, line: Option<u64>) -> Option<Outcome> {
    let mut ex = producers.detect_output(value)?.extractor()?;
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

#[cfg(test)]
mod tests {
    //! The decision alone, on outcomes built by hand: no input is read.

    use serde_json::{Map, Value, json};

    use super::super::Options;
    use super::super::tests::schema;
    use super::decide;
    use crate::error::{ErrorKind, Operation};
    use crate::jq::Assertions;
    use crate::producer::{Outcome, Producer, Session, SourceKind, Verdict};

    fn outcome(producer: Producer, verdict: Verdict) -> Outcome {
        Outcome {
            producer,
            verdict,
            session: Session::default(),
            warnings: Vec::new(),
        }
    }

    fn value(kind: SourceKind, value: Value) -> Verdict {
        Verdict::Value {
            kind,
            value,
            line: Some(3),
            detail: Map::new(),
        }
    }

    fn text(t: &str) -> Verdict {
        Verdict::Text {
            text: t.to_owned(),
            line: Some(7),
        }
    }

    /// The envelope of `verdict` from `producer`, as JSON.
    fn run(producer: Producer, verdict: Verdict, opts: &Options<'_>) -> Value {
        decide("run.ndjson", outcome(producer, verdict), Vec::new(), opts).into_value()
    }

    #[test]
    fn a_structured_output_is_validated_and_reported() {
        let s = schema();
        let opts = Options {
            schema: Some(&s),
            ..Options::default()
        };
        let ok = value(SourceKind::StructuredOutput, json!({"verdict": "PASS"}));
        let env = run(Producer::ClaudeCode, ok, &opts);
        assert_eq!(env["exit_code"], 0);
        assert_eq!(env["data"], json!({"verdict": "PASS"}));
        assert_eq!(
            env["source"],
            json!({"kind": "structured_output", "line": 3})
        );
        assert_eq!(env["validation"]["valid"], true);

        let bad = value(SourceKind::StructuredOutput, json!({"verdict": "MAYBE"}));
        let env = run(Producer::ClaudeCode, bad, &opts);
        assert_eq!(env["error"]["kind"], "validation_failed");
        assert_eq!(env["error"]["target"], "<inline>");
        assert_eq!(env["candidate"], json!({"verdict": "MAYBE"}));
        assert_eq!(env["error"]["details"][0]["instance_location"], "/verdict");
        assert_eq!(env["validation"]["valid"], false);
        assert!(env.get("data").is_none());
    }

    #[test]
    fn answer_text_that_does_not_parse_is_json_invalid_unless_repaired() {
        let cut = || Verdict::ValueText {
            kind: SourceKind::StructuredOutput,
            text: r#"{"verdict": "PASS""#.to_owned(),
            line: Some(2),
            detail: Map::new(),
        };
        let env = run(Producer::Codex, cut(), &Options::default());
        assert_eq!(env["error"]["kind"], "json_invalid");
        assert_eq!(env["source"]["kind"], "structured_output");
        let opts = Options {
            repair: true,
            ..Options::default()
        };
        let env = run(Producer::Codex, cut(), &opts);
        assert_eq!(env["data"], json!({"verdict": "PASS"}));
        assert_eq!(env["source"]["repaired"], true);
        assert!(env["warnings"].as_array().is_some_and(|w| !w.is_empty()));
    }

    #[test]
    fn the_last_fence_that_validates_wins_and_a_later_broken_one_fails() {
        let answer =
            "First:\n```json\n{\"verdict\": \"PASS\"}\n```\nthen\n```json\n{\"note\": 1}\n```";
        // Without a schema the last fenced value is the answer.
        let env = run(Producer::ClaudeCode, text(answer), &Options::default());
        assert_eq!(env["data"], json!({"note": 1}));
        assert_eq!(env["source"]["candidate"], 2);
        // With one, the last fenced value that validates.
        let s = schema();
        let opts = Options {
            schema: Some(&s),
            ..Options::default()
        };
        let env = run(Producer::ClaudeCode, text(answer), &opts);
        assert_eq!(env["data"], json!({"verdict": "PASS"}));
        assert_eq!(
            env["source"],
            json!({"kind": "code_fence", "line": 7, "candidate": 1, "candidates": 2})
        );
        assert_eq!(env["validation"]["valid"], true);
        // A broken fence after the chosen one: the answer itself is broken.
        let broken = "```json\n{\"verdict\": \"PASS\"}\n```\n```json\n{\"verdict\": \n```";
        let env = run(Producer::ClaudeCode, text(broken), &opts);
        assert_eq!(env["error"]["kind"], "json_invalid");
    }

    #[test]
    fn nothing_found_names_the_producers_schema_option() {
        let nothing = || Verdict::Nothing {
            message: "the run has no answer".into(),
        };
        let env = run(Producer::ClaudeCode, nothing(), &Options::default());
        assert_eq!(env["error"]["kind"], "not_found");
        assert!(
            env["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("--json-schema"))
        );
        let env = run(Producer::Codex, nothing(), &Options::default());
        assert!(
            env["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("--output-schema"))
        );
        // Prose without JSON is not_found too.
        let env = run(Producer::Text, text("no JSON here"), &Options::default());
        assert_eq!(env["error"]["kind"], "not_found");
    }

    #[test]
    fn a_failed_verdict_passes_through_with_the_producer() {
        let f =
            crate::error::Failure::new(ErrorKind::AgentError, Operation::Extract, "the run failed");
        let env = run(Producer::GeminiCli, Verdict::Failed(f), &Options::default());
        assert_eq!(env["error"]["kind"], "agent_error");
        assert_eq!(env["producer"], "gemini-cli");
        assert_ne!(env["exit_code"], 0);
    }

    #[test]
    fn a_value_too_deep_for_the_envelope_is_json_invalid() {
        let mut deep = json!(1);
        for _ in 0..=crate::envelope::MAX_DATA_DEPTH {
            deep = json!([deep]);
        }
        let env = run(
            Producer::ClaudeCode,
            value(SourceKind::StructuredOutput, deep),
            &Options::default(),
        );
        assert_eq!(env["error"]["kind"], "json_invalid");
        assert!(
            env["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("nests deeper"))
        );
    }

    #[test]
    fn a_failed_assertion_names_the_input() {
        let a = Assertions::compile(&[".verdict == \"PASS\"".to_owned()]).expect("compiles");
        let opts = Options {
            assertions: Some(&a),
            ..Options::default()
        };
        let fail = value(SourceKind::StructuredOutput, json!({"verdict": "FAIL"}));
        let env = run(Producer::ClaudeCode, fail, &opts);
        assert_eq!(env["error"]["kind"], "assertion_failed");
        assert_eq!(env["error"]["target"], "run.ndjson");
        let pass = value(SourceKind::StructuredOutput, json!({"verdict": "PASS"}));
        assert_eq!(run(Producer::ClaudeCode, pass, &opts)["exit_code"], 0);
    }

    #[test]
    fn a_producers_error_object_found_in_text_is_that_producers_failure() {
        // An OpenAI error body in a log: the API's failure, not the answer.
        let log = r#"request failed: {"error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": "rate_limit_exceeded"}}"#;
        let env = run(Producer::Text, text(log), &Options::default());
        assert_ne!(env["exit_code"], 0, "{env}");
        assert_ne!(env["producer"], "text", "{env}");
    }
}
