//! The text fallback: JSON from the final answer text (`final_text`, `code_fence`,
//! `embedded`) and, with `--markers`, the legacy markers.

use serde_json::{Map, json};

use crate::error::{ErrorKind, Failure, Operation};
use crate::producer::{Producer, SourceKind};
use crate::text;
use crate::warning::{Warning, WarningKind};

use super::Options;
use super::candidate::{Chosen, not_found, not_json, pick, try_repair};

/// `--markers`: the legacy path, when the answer text holds no JSON value. `None` when the text
/// has no marker and no handoff file was given.
fn from_markers(
    text: &str,
    line: Option<u64>,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Option<Chosen> {
    let m = crate::markers::parse(text);
    if !m.any() && opts.handoff.is_none() {
        return None;
    }
    warnings.push(Warning::new(
        WarningKind::LegacyMarkers,
        format!(
            "the run has no structured output; used the legacy path: {} event(s) and {} memory \
             marker(s) read from the answer text{}",
            m.events.len(),
            m.memories.len(),
            if opts.handoff.is_some() {
                ", escalation from the --handoff file"
            } else {
                ""
            }
        ),
    ));
    let markers = m.events.len() + m.memories.len();
    warnings.extend(m.warnings.iter().cloned());
    let detail = crate::producer::detail(&[("markers", json!(markers))]);
    Some(Chosen::new(
        SourceKind::Markers,
        m.into_data(opts.handoff),
        line,
        detail,
    ))
}

/// The answer text's JSON ([`from_text`]) or, with `--markers` when it has none, its legacy
/// markers ([`from_markers`]).
pub(super) fn from_answer(
    text: &str,
    line: Option<u64>,
    producer: Producer,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Chosen, Failure> {
    match from_text(text, line, producer, opts, warnings) {
        Err(f) if f.kind == ErrorKind::NotFound && opts.markers => {
            from_markers(text, line, opts, warnings).ok_or_else(|| Failure {
                message: format!(
                    "{}, and it has no [EVENT:…] or [MEMORY:…] markers",
                    f.message
                ),
                ..f
            })
        }
        other => other,
    }
}

/// JSON from the final answer text (`final_text`, `code_fence`, `embedded`).
fn from_text(
    text: &str,
    line: Option<u64>,
    producer: Producer,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Chosen, Failure> {
    if let Some(read) = text::whole_read(text) {
        if read.lone_surrogates {
            warnings.push(Warning::lone_surrogate(line));
        }
        return Ok(Chosen::new(
            SourceKind::FinalText,
            read.value,
            line,
            Map::new(),
        ));
    }
    let looks = text::looks_like_json(text);
    if opts.strict {
        if looks {
            return Err(not_json(text.trim(), SourceKind::FinalText));
        }
        return Err(not_found(
            "the answer text is not exactly one JSON value".into(),
            producer,
            opts,
        ));
    }
    let mined = text::mine(text, opts.max_candidates, opts.repair);
    let quoted = quoted_events(&mined, text, producer, opts);
    // The text is the raw input (`text`): candidates' lines are input lines.
    let line_of = |l: usize| match line {
        Some(b) if producer == Producer::Text => Some(b + l as u64),
        _ => line,
    };
    // The text rules in precedence: `code_fence`, then `embedded`; the first that yields
    // decides.
    for kind in [SourceKind::CodeFence, SourceKind::Embedded] {
        // The rule's last candidate was not reached: whichever sojx took could be an earlier
        // draft, never known to be the answer. (Capped in the prose, the fences were all tried
        // and decide when they yield.)
        if mined.capped == Some(kind) {
            return Err(too_many_candidates(kind, opts.max_candidates));
        }
        if let Some(found) = by_rule(kind, &mined, &quoted, &line_of, opts, warnings) {
            return found;
        }
    }
    // Nothing in fences or prose: the whole text may be one broken JSON value.
    if looks {
        let trimmed = text.trim();
        let at = text.len() - text.trim_start().len();
        if let Some(mended) = try_repair(trimmed, at, true, SourceKind::FinalText, opts, warnings) {
            return Ok(Chosen::repaired(SourceKind::FinalText, mended, line));
        }
        return Err(not_json(trimmed, SourceKind::FinalText));
    }
    let message = match quoted.len() {
        0 => "the answer text holds no JSON value".to_owned(),
        1 => "the answer text holds no JSON value but a copy of a producer's event quoted in it, which is never the answer".to_owned(),
        n => format!(
            "the answer text holds no JSON value but {n} copies of producers' events quoted in it, which are never the answer"
        ),
    };
    Err(not_found(message, producer, opts))
}

/// Copies of a producer's events in the answer text (a value that carries a producer's run
/// identity: a Claude Code `result`, a Codex `item.completed`, a Gemini CLI `-o json` object)
/// are quoted, never the answer, whatever their place (issue 55): the offsets of those
/// candidates, which no rule takes (they keep their numbers in `source`). One exception, by
/// structure: a plain input (no producer named or detected) that holds nothing but one such
/// value, with at most a prefix on its first line and a suffix on its last (Gemini CLI's
/// `[ERROR] {…}` on stderr), is that producer's output, and the decision reads it so.
/// `--from text` reads the text literally.
fn quoted_events(
    mined: &text::Mined,
    text: &str,
    producer: Producer,
    opts: &Options<'_>,
) -> Vec<usize> {
    if opts
        .from
        .is_some_and(|f| matches!(f, Producer::Text | Producer::Json))
    {
        return Vec::new();
    }
    let alone = |c: &text::Candidate| {
        matches!(producer, Producer::Text | Producer::Json)
            && opts.from.is_none()
            && c.kind == SourceKind::Embedded
            && mined.candidates.len() == 1
            && mined.broken.is_empty()
            && !text[..c.offset].trim_start().contains('\n')
            && !text[c.end..].trim_end().contains('\n')
    };
    mined
        .candidates
        .iter()
        .filter(|c| opts.producers.detect_output(&c.value).is_some() && !alone(c))
        .map(|c| c.offset)
        .collect()
}

/// The answer text holds more than `max` candidates by `kind`'s rule (`--max-candidates`): the
/// last, which is the answer, was not reached.
fn too_many_candidates(kind: SourceKind, max: usize) -> Failure {
    let what = match kind {
        SourceKind::CodeFence => "fenced blocks of JSON",
        _ => "bracketed regions that could be JSON",
    };
    Failure::new(
        ErrorKind::Parse,
        Operation::Extract,
        format!(
            "the answer text holds more {what} than --max-candidates allows ({max}); sojx stopped before the last, so it cannot tell which one is the answer"
        ),
    )
    .hint("ask the agent for structured output (see --schema), or raise --max-candidates")
}

/// The answer by one text rule (`None` when the rule found nothing): the last candidate that
/// validates (the last one without a schema), unless a broken value follows it, which means
/// the answer itself is broken: `json_invalid`, or repaired with `--repair`.
fn by_rule(
    kind: SourceKind,
    mined: &text::Mined,
    quoted: &[usize],
    line_of: &dyn Fn(usize) -> Option<u64>,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Option<Result<Chosen, Failure>> {
    let cands: Vec<&text::Candidate> = mined.candidates.iter().filter(|c| c.kind == kind).collect();
    let broken: Vec<&text::Broken> = mined.broken.iter().filter(|b| b.kind == kind).collect();
    if cands.is_empty() && broken.is_empty() {
        return None;
    }
    // Quoted events keep their numbers, and are never taken.
    let open: Vec<usize> = (0..cands.len())
        .filter(|&i| !quoted.contains(&cands[i].offset))
        .collect();
    if open.is_empty() && broken.is_empty() {
        return None;
    }
    let values: Vec<&serde_json::Value> = open.iter().map(|&i| &cands[i].value).collect();
    let pick = pick(&values, opts.schema, opts.coerce).map(|(j, checked)| (open[j], checked));
    let after = pick.as_ref().map_or(0, |(i, _)| cands[*i].offset);
    let later_broken: Vec<&text::Broken> =
        broken.into_iter().filter(|b| b.offset >= after).collect();
    if later_broken.is_empty() {
        let (i, checked) = pick?;
        return Some(Ok(taken(kind, &cands, i, checked, line_of, warnings)));
    }
    for b in later_broken.iter().rev() {
        if let Some(mended) = try_repair(&b.text, b.offset, b.cut, kind, opts, warnings) {
            return Some(Ok(Chosen::repaired(kind, mended, line_of(b.line))));
        }
    }
    // What only `--repair`'s readings took for a value, and they could not repair, is prose.
    let last = later_broken.iter().rfind(|b| !b.lenient);
    match (pick, last) {
        (_, Some(last)) => Some(Err(not_json(&last.text, kind))),
        (Some((i, checked)), None) => Some(Ok(taken(kind, &cands, i, checked, line_of, warnings))),
        (None, None) => None,
    }
}

/// The candidate `cands[i]` taken by `kind`'s rule, with its validation when picking it took
/// one.
fn taken(
    kind: SourceKind,
    cands: &[&text::Candidate],
    i: usize,
    checked: Option<super::candidate::Checked>,
    line_of: &dyn Fn(usize) -> Option<u64>,
    warnings: &mut Vec<Warning>,
) -> Chosen {
    let c = cands[i];
    if c.lone_surrogates {
        warnings.push(Warning::lone_surrogate(line_of(c.line)));
    }
    let detail = crate::producer::detail(&[
        ("candidate", json!(i + 1)),
        ("candidates", json!(cands.len())),
    ]);
    Chosen {
        checked,
        ..Chosen::new(kind, c.value.clone(), line_of(c.line), detail)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::producer::SourceKind;
    use crate::text::Candidate;

    use super::super::candidate::pick;
    use super::super::tests::schema;

    fn cands(values: &[serde_json::Value]) -> Vec<Candidate> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| Candidate {
                kind: SourceKind::CodeFence,
                value: v.clone(),
                offset: i * 10,
                end: i * 10 + 5,
                line: i,
                index: i + 1,
                lone_surrogates: false,
            })
            .collect()
    }

    /// The candidate picked carries its validation, so that the decision does not validate it
    /// again: the last one's full report when it is taken, a pass for an earlier valid one.
    #[test]
    fn the_pick_carries_its_validation() {
        let s = schema();
        let pass = json!({"verdict": "PASS"});
        let bad = json!({"verdict": "MAYBE"});
        let c = cands(&[pass.clone(), bad.clone()]);
        let refs: Vec<&serde_json::Value> = c.iter().map(|c| &c.value).collect();
        let (i, checked) = pick(&refs, Some(&s), false).expect("a pick");
        assert_eq!(i, 0);
        assert!(matches!(checked, Some(Ok(ref v)) if v.is_empty()));

        let c = cands(&[bad.clone(), bad.clone()]);
        let refs: Vec<&serde_json::Value> = c.iter().map(|c| &c.value).collect();
        let (i, checked) = pick(&refs, Some(&s), false).expect("a pick");
        assert_eq!(i, 1);
        assert!(matches!(checked, Some(Ok(ref v)) if v.len() == 1));

        let c = cands(&[pass.clone(), pass]);
        let refs: Vec<&serde_json::Value> = c.iter().map(|c| &c.value).collect();
        assert!(matches!(
            pick(&refs, Some(&s), false),
            Some((1, Some(Ok(_))))
        ));
        // Without a schema: the last, not validated.
        assert!(matches!(pick(&refs, None, false), Some((1, None))));
        assert!(pick(&[], Some(&s), false).is_none());
    }
}
