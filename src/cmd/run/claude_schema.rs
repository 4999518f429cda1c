//! Claude Code and a `--json-schema` it does not take (issue 40): its validator is Ajv's
//! default, draft-07 in strict mode. Claude Code 2.1.332 refuses a schema whose `$schema` is
//! another draft, or that holds a keyword Ajv does not know: it exits 1 with "Error:
//! --json-schema is not a valid JSON Schema: …" on stderr and nothing on stdout. Earlier 2.1
//! releases dropped such a schema silently, and 2.1.332 still drops an empty one: the init
//! event's `tools` then has no `StructuredOutput`, and the answer comes back as prose.
//! docs/run.md, "The schema, from COMMAND's own flags".

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use serde_json::Value;

use crate::envelope::Envelope;
use crate::error::ErrorKind;
use crate::warning::{Warning, WarningKind};

/// Whether Claude Code's check refuses `schema` (the value of its `--json-schema`): a
/// `claude-code` lint error (the draft, a keyword Ajv does not know). Decided on the schema,
/// which sojx reads itself, not on the words Claude Code prints when it refuses it.
pub(super) fn refused(schema: &str, settings: &crate::schema::Settings) -> bool {
    crate::schema::read(schema, &crate::disk::Disk).is_ok_and(|l| {
        crate::lint::lint(&l, settings, crate::provider::LintProvider::ClaudeCode)
            .iter()
            .any(|f| f.severity == crate::lint::Severity::Error)
    })
}

/// The way out, in every message below.
const FIX: &str = "its validator (Ajv) takes draft-07 only: a `$schema` of 2019-09 or 2020-12, or a keyword Ajv does not know (prefixItems, unevaluatedProperties, x-…), makes Claude Code refuse or drop the schema. Pass --json-schema \"$(sojx compile -r --provider claude-code SCHEMA)\"; `sojx lint --provider claude-code SCHEMA` names each problem";

/// An init line longer than this is not looked at (a real one is a few KiB).
const LINE_CAP: usize = 1 << 20;

const UNKNOWN: u8 = 0;
const OFFERED: u8 = 1;
const MISSING: u8 = 2;

/// Whether the init event offered the `StructuredOutput` tool, as a [`Watch`] saw it.
#[derive(Clone)]
pub(super) struct Seen(Arc<AtomicU8>);

impl Default for Seen {
    fn default() -> Self {
        Self(Arc::new(AtomicU8::new(UNKNOWN)))
    }
}

impl Seen {
    /// The init event listed its tools, without `StructuredOutput`.
    fn missing(&self) -> bool {
        self.0.load(Ordering::Relaxed) == MISSING
    }

    /// No init event was seen: the run ended before it started a session.
    fn unknown(&self) -> bool {
        self.0.load(Ordering::Relaxed) == UNKNOWN
    }
}

/// The agent's stdout, passed through unchanged, with its first `system`/`init` event read on
/// the way for whether its `tools` hold `StructuredOutput`.
pub(super) struct Watch<R> {
    inner: R,
    line: Vec<u8>,
    /// The current line is past [`LINE_CAP`]: skipped to its end.
    skipping: bool,
    done: bool,
    seen: Seen,
}

impl<R: Read> Watch<R> {
    pub(super) fn new(inner: R, seen: Seen) -> Self {
        Self {
            inner,
            line: Vec::new(),
            skipping: false,
            done: false,
            seen,
        }
    }

    fn look(&mut self, bytes: &[u8]) {
        for (i, piece) in bytes.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                // A line ended before this piece.
                if !self.skipping {
                    self.line_ended();
                }
                self.line.clear();
                self.skipping = false;
                if self.done {
                    return;
                }
            }
            if !self.skipping {
                if self.line.len() + piece.len() > LINE_CAP {
                    self.skipping = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(piece);
                }
            }
        }
    }

    fn line_ended(&mut self) {
        if !self.line.windows(4).any(|w| w == b"init") {
            return;
        }
        let Ok(v) = serde_json::from_slice::<Value>(&self.line) else {
            return;
        };
        if v.get("type").and_then(Value::as_str) != Some("system")
            || v.get("subtype").and_then(Value::as_str) != Some("init")
        {
            return;
        }
        let Some(tools) = v.get("tools").and_then(Value::as_array) else {
            return;
        };
        let offered = tools.iter().any(|t| t == "StructuredOutput");
        self.seen
            .0
            .store(if offered { OFFERED } else { MISSING }, Ordering::Relaxed);
        self.done = true;
        self.line = Vec::new();
    }
}

impl<R: Read> Read for Watch<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if !self.done {
            if n == 0 {
                // The last line, without its newline.
                if !self.skipping {
                    self.line_ended();
                }
                self.done = true;
            } else {
                self.look(&buf[..n]);
            }
        }
        Ok(n)
    }
}

/// The attempt's envelope, told what happened to the schema: a `json_schema_dropped` warning
/// when the init event offered no `StructuredOutput`, and for a refusal — the agent failed
/// before its init event, with a schema Claude Code's check refuses (`refused`, asked only
/// then) — the cause and the fix in the hint (not retryable: the same schema is refused again).
pub(super) fn tell(env: Envelope, seen: &Seen, refused: impl FnOnce() -> bool) -> Envelope {
    let env = if seen.missing() {
        env.with_warning(Warning::new(
            WarningKind::JsonSchemaDropped,
            format!(
                "COMMAND has --json-schema, but its init event lists no StructuredOutput tool: Claude Code dropped the schema, so the answer was not held to it; {FIX}"
            ),
        ))
    } else {
        env
    };
    if env.error_kind() != Some(ErrorKind::AgentError) || !seen.unknown() || !refused() {
        return env;
    }
    env.map_error(|e| {
        e.retryable = false;
        e.hint = Some(format!(
            "Claude Code refused the schema given with --json-schema, and will again: {FIX}"
        ));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen_in(chunks: &[&[u8]]) -> (Vec<u8>, u8) {
        let seen = Seen::default();
        let data: Vec<u8> = chunks.concat();
        // One byte at a time, and in the given chunks: the same verdict.
        let mut w = Watch::new(io::Cursor::new(data.clone()), seen.clone());
        let mut out = Vec::new();
        let mut b = [0u8; 1];
        while w.read(&mut b).unwrap() == 1 {
            out.push(b[0]);
        }
        let one = seen.0.load(Ordering::Relaxed);
        let seen2 = Seen::default();
        let mut w = Watch::new(io::Cursor::new(data), seen2.clone());
        let mut out2 = Vec::new();
        w.read_to_end(&mut out2).unwrap();
        assert_eq!((out2, seen2.0.load(Ordering::Relaxed)), (out.clone(), one));
        (out, one)
    }

    #[test]
    fn the_init_events_tools_are_read_and_the_bytes_pass_unchanged() {
        let with = br#"{"type":"system","subtype":"init","tools":["Bash","StructuredOutput"]}"#;
        let without = br#"{"type":"system","subtype":"init","tools":["Bash"]}"#;
        let (out, s) = seen_in(&[b"noise\n", with, b"\n{\"type\":\"result\"}\n"]);
        assert_eq!(s, OFFERED);
        assert!(out.starts_with(b"noise\n{\"type\""));
        assert_eq!(seen_in(&[without, b"\n"]).1, MISSING);
        // The last line without a newline, CRLF, and key order do not matter.
        assert_eq!(seen_in(&[without]).1, MISSING);
        assert_eq!(seen_in(&[without, b"\r\n"]).1, MISSING);
        let reordered = br#"{"tools":[],"subtype":"init","type":"system"}"#;
        assert_eq!(seen_in(&[reordered]).1, MISSING);
        // Only the first init counts; "init" quoted in text is not one; no tools: unknown.
        assert_eq!(seen_in(&[with, b"\n", without]).1, OFFERED);
        let quoted = br#"{"type":"assistant","text":"{\"type\":\"system\",\"subtype\":\"init\",\"tools\":[]}"}"#;
        assert_eq!(seen_in(&[quoted]).1, UNKNOWN);
        assert_eq!(
            seen_in(&[br#"{"type":"system","subtype":"init"}"#]).1,
            UNKNOWN
        );
        // A line past the cap is skipped, and the next one still read.
        let long = vec![b'x'; LINE_CAP + 10];
        assert_eq!(seen_in(&[&long, b"\n", without]).1, MISSING);
    }
}
