//! The text fallback: JSON from the final answer text (`final_text`, `code_fence`,
//! `embedded`) and, with `--markers`, the legacy markers.

use serde_json::{Map, Value, json};

use crate::error::Failure;
use crate::producer::{Producer, SourceKind, Warning};
use crate::text;

use super::Options;
use super::candidate::{Chosen, json_invalid, not_found, try_repair};

/// `--markers`: the legacy path, when the answer text holds no JSON value. `None` when the text
/// has no marker and no handoff file was given.
pub(super) fn from_markers(
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
        "legacy_markers",
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
    Some(Chosen {
        kind: SourceKind::Markers,
        value: m.into_data(opts.handoff),
        line,
        detail: crate::producer::detail(&[("markers", json!(markers))]),
        repaired: false,
    })
}

/// JSON from the final answer text (`final_text`, `code_fence`, `embedded`).
pub(super) fn from_text(
    text: &str,
    line: Option<u64>,
    producer: Producer,
    opts: &Options<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Chosen, Failure> {
    let none = Map::new();
    // The text is the raw input (`text`): candidates' lines are input lines.
    let text_lines = producer == Producer::Text;
    if let Some(value) = text::whole(text) {
        return Ok(Chosen {
            kind: SourceKind::FinalText,
            value,
            line,
            detail: none,
            repaired: false,
        });
    }
    let looks = text::looks_like_json(text);
    if opts.strict {
        if looks {
            let err = serde_json::from_str::<Value>(text.trim())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            return Err(json_invalid(&err, text.trim(), SourceKind::FinalText));
        }
        return Err(not_found(
            "the answer text is not exactly one JSON value".into(),
            producer,
            opts,
        ));
    }
    let mined = text::mine(text, opts.max_candidates);
    if mined.capped {
        warnings.push(Warning::new(
            "candidates_capped",
            format!(
                "stopped after {} candidates (--max-candidates)",
                opts.max_candidates
            ),
        ));
    }
    let line_of = |l: usize| {
        if text_lines {
            line.map(|b| b + l as u64)
        } else {
            line
        }
    };
    // The text rules in precedence: `code_fence`, then `embedded`; the first that yields
    // decides. Within it, the last value that validates wins (the last one without a schema),
    // and a broken value after the chosen one means the answer itself is broken: `json_invalid`,
    // or repaired with --repair.
    for kind in [SourceKind::CodeFence, SourceKind::Embedded] {
        let cands: Vec<&text::Candidate> =
            mined.candidates.iter().filter(|c| c.kind == kind).collect();
        let broken: Vec<&text::Broken> = mined.broken.iter().filter(|b| b.kind == kind).collect();
        if cands.is_empty() && broken.is_empty() {
            continue;
        }
        let pick = opts
            .schema
            .and_then(|s| cands.iter().rposition(|c| s.is_valid(&c.value)))
            .or(cands.len().checked_sub(1));
        let after = pick.map_or(0, |i| cands[i].offset);
        let later_broken: Vec<&&text::Broken> =
            broken.iter().filter(|b| b.offset >= after).collect();
        if let Some(i) = pick
            && later_broken.is_empty()
        {
            let c = cands[i];
            let detail = crate::producer::detail(&[
                ("candidate", json!(i + 1)),
                ("candidates", json!(cands.len())),
            ]);
            return Ok(Chosen {
                kind,
                value: c.value.clone(),
                line: line_of(c.line),
                detail,
                repaired: false,
            });
        }
        for b in later_broken.iter().rev() {
            if let Some(value) = try_repair(&b.text, opts, warnings) {
                return Ok(Chosen {
                    kind,
                    value,
                    line: line_of(b.line),
                    detail: none,
                    repaired: true,
                });
            }
        }
        let last = later_broken
            .last()
            .expect("a rule that yields nothing was skipped");
        let err = serde_json::from_str::<Value>(&last.text)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        return Err(json_invalid(&err, &last.text, kind));
    }
    // Nothing in fences or prose: the whole text may be one broken JSON value.
    if looks {
        let trimmed = text.trim();
        if let Some(value) = try_repair(trimmed, opts, warnings) {
            return Ok(Chosen {
                kind: SourceKind::FinalText,
                value,
                line,
                detail: none,
                repaired: true,
            });
        }
        let err = serde_json::from_str::<Value>(trimmed)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        return Err(json_invalid(&err, trimmed, SourceKind::FinalText));
    }
    Err(not_found(
        "the answer text holds no JSON value".into(),
        producer,
        opts,
    ))
}
