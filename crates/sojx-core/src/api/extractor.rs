//! [`Extractor`]: an agent's output in, pushed in pieces or read, one [`Envelope`] out.

use std::io::Read;

use crate::extract::{Options, Reading};
use crate::input::{LineSink, LineSplitter};

use super::{Envelope, Error, Schema};
use crate::error::{ErrorKind, Failure, Operation};

/// How an [`Extractor`] reads: the producer (detected unless named), the schema the answer must
/// match, and the bounds, as `sojx extract`'s flags set them. Built once and shared by every
/// extraction.
///
/// ```
/// use sojx_core::{Schema, Settings};
///
/// let schema: Schema = r#"{"type": "object", "required": ["verdict"]}"#.parse()?;
/// let settings = Settings::new()
///     .schema(&schema)
///     .producer("claude-code")?
///     .max_line_bytes(1 << 20);
/// # Ok::<(), sojx_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Settings<'a> {
    opts: Options<'a>,
}

impl Default for Settings<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Settings<'a> {
    /// `sojx extract`'s defaults: the producer detected among sojx's built-in producers, no
    /// schema, no repair, the default bounds (docs/limits.md). Producer files (the command
    /// line's `--producer-file` and its config folder) are the command line's.
    ///
    /// ```
    /// let settings = sojx_core::Settings::new();
    /// ```
    pub fn new() -> Self {
        Self {
            opts: Options::default(),
        }
    }

    /// Validate the answer against `schema` (`--schema`); the envelope's `validation` names it.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Schema, Settings};
    /// let schema: Schema = r#"{"type": "integer"}"#.parse()?;
    /// let settings = Settings::new().schema(&schema);
    /// assert!(!Extractor::new(&settings).read(&b"\"no\""[..]).is_success());
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    #[must_use]
    pub fn schema(mut self, schema: &'a Schema) -> Self {
        self.opts.schema = Some(&schema.inner);
        self
    }

    /// Read the input as this producer's output (`--from`): one of sojx's built-in producers'
    /// ids (the built-in ones `sojx producers` lists), such as `claude-code`, `codex`,
    /// `gemini-cli`, `openai-chat`, `json` or `text`; or `auto`, detected (the default). A
    /// `usage` error for an id sojx does not know.
    ///
    /// ```
    /// # use sojx_core::Settings;
    /// assert!(Settings::new().producer("codex").is_ok());
    /// assert!(Settings::new().producer("auto").is_ok());
    /// assert!(Settings::new().producer("no-such-agent").is_err());
    /// ```
    pub fn producer(mut self, id: &str) -> Result<Self, Error> {
        if id == "auto" {
            self.opts.from = None;
            return Ok(self);
        }
        let Some(p) = self.opts.producers.resolve(id) else {
            let f = Failure::new(
                ErrorKind::Usage,
                Operation::ParseArguments,
                format!("no producer is called `{id}`"),
            )
            .hint("`sojx producers` lists the ids; leave the producer unset to detect it");
            return Err(Error(f));
        };
        self.opts.from = Some(p);
        Ok(self)
    }

    /// Fail on any structured-output problem instead of falling back to the answer text
    /// (`--strict`).
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new().strict(true);
    /// let envelope = Extractor::new(&settings).read(&b"The answer: {\"a\": 1}"[..]);
    /// assert!(!envelope.is_success());
    /// ```
    #[must_use]
    pub fn strict(mut self, yes: bool) -> Self {
        self.opts.strict = yes;
        self
    }

    /// Repair what models get wrong in JSON (trailing commas; an answer cut off at the end of
    /// a producer's stream), each repair named in a warning (`--repair`).
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new().repair(true);
    /// let envelope = Extractor::new(&settings).read(&b"{\"a\": [1, 2,]}"[..]);
    /// assert_eq!(envelope.data(), Some(&serde_json::json!({"a": [1, 2]})));
    /// ```
    #[must_use]
    pub fn repair(mut self, yes: bool) -> Self {
        self.opts.repair = yes;
        self
    }

    /// With a schema: convert a string where the schema asks for a boolean, an integer or a
    /// number, and that is exactly `"true"`, `"false"` or a JSON number (an integer with no
    /// fraction or exponent), before validation; each conversion is listed in the envelope's
    /// `source.coercions` and named in a `coerced` warning (`--coerce`). Without a schema it
    /// does nothing.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Schema, Settings};
    /// let schema: Schema = r#"{"properties": {"ok": {"type": "boolean"}}}"#.parse()?;
    /// let settings = Settings::new().schema(&schema).coerce(true);
    /// let envelope = Extractor::new(&settings).read(&br#"{"ok": "true"}"#[..]);
    /// assert_eq!(envelope.data(), Some(&serde_json::json!({"ok": true})));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    #[must_use]
    pub fn coerce(mut self, yes: bool) -> Self {
        self.opts.coerce = yes;
        self
    }

    /// Read the legacy text markers when the answer text holds no JSON value (`--markers`).
    ///
    /// ```
    /// # use sojx_core::Settings;
    /// let settings = Settings::new().markers(true);
    /// ```
    #[must_use]
    pub fn markers(mut self, yes: bool) -> Self {
        self.opts.markers = yes;
        self
    }

    /// Skip lines longer than this, with a warning (`--max-line-bytes`; 64 MiB by default).
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings, WarningKind};
    /// let settings = Settings::new().max_line_bytes(8);
    /// let envelope = Extractor::new(&settings).read(&b"\"a long line\"\n"[..]);
    /// assert!(envelope.warnings().any(|(kind, _)| kind == WarningKind::LineTooLong));
    /// ```
    #[must_use]
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.opts.max_line_bytes = bytes;
        self
    }

    /// The most bytes gathered from a producer's deltas for one answer, tool call or message
    /// (`--max-answer-bytes`; 64 MiB by default).
    ///
    /// ```
    /// # use sojx_core::Settings;
    /// let settings = Settings::new().max_answer_bytes(1 << 20);
    /// ```
    #[must_use]
    pub fn max_answer_bytes(mut self, bytes: usize) -> Self {
        self.opts.max_answer_bytes = bytes;
        self
    }

    /// The most JSON values looked at in the answer text (`--max-candidates`; 10,000 by
    /// default).
    ///
    /// ```
    /// # use sojx_core::Settings;
    /// let settings = Settings::new().max_candidates(100);
    /// ```
    #[must_use]
    pub fn max_candidates(mut self, values: usize) -> Self {
        self.opts.max_candidates = values;
        self
    }
}

/// One extraction: feed it an agent's output as it comes, in pieces of any size, then
/// [`finish`](Extractor::finish) for the envelope. What it holds is bounded by the settings'
/// bounds (a line, the answer being built, the text of an input whose producer is not known
/// yet), not by the output's length. It borrows its [`Settings`] (and they their [`Schema`]):
/// to read agents on other threads, share the settings with [`std::thread::scope`].
///
/// ```
/// use sojx_core::{Extractor, Schema, Settings};
///
/// let schema: Schema = r#"{"properties": {"verdict": {"enum": ["PASS", "FAIL"]}}}"#.parse()?;
/// let settings = Settings::new().schema(&schema);
/// let mut extractor = Extractor::new(&settings).input("review.ndjson");
/// extractor.feed(br#"{"type":"system","subtype":"init","session_id":"s-1"}"#);
/// extractor.feed(b"\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,");
/// extractor.feed(br#""result":"{\"verdict\":\"PASS\"}","session_id":"s-1"}"#);
/// let envelope = extractor.finish();
/// assert_eq!(envelope.data(), Some(&serde_json::json!({"verdict": "PASS"})));
/// assert_eq!(envelope.producer(), Some("claude-code"));
/// # Ok::<(), sojx_core::Error>(())
/// ```
pub struct Extractor<'a> {
    opts: &'a Options<'a>,
    input: String,
    splitter: LineSplitter,
    reading: Reading<'a>,
}

impl std::fmt::Debug for Extractor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extractor")
            .field("input", &self.input)
            .field("lines", &self.splitter.lines())
            .finish_non_exhaustive()
    }
}

impl<'a> Extractor<'a> {
    /// An extraction read as `settings` say.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let extractor = Extractor::new(&settings);
    /// ```
    pub fn new(settings: &'a Settings<'a>) -> Self {
        let opts = &settings.opts;
        Self {
            opts,
            input: "-".to_owned(),
            splitter: LineSplitter::new(opts.max_line_bytes),
            reading: Reading::new(opts),
        }
    }

    /// Name the input in the envelope's `input` and its error's `target` (`-` by default; the
    /// command line names standard input `<stdin>`).
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let envelope = Extractor::new(&settings).input("run.ndjson").read(&b"1"[..]);
    /// assert_eq!(envelope.to_value()["input"], "run.ndjson");
    /// ```
    #[must_use]
    pub fn input(mut self, name: impl Into<String>) -> Self {
        self.input = name.into();
        self
    }

    /// The next bytes of the output. A line may be split across any number of calls.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let mut extractor = Extractor::new(&settings);
    /// for piece in [&b"{\"a\""[..], b": 1", b"}\n"] {
    ///     extractor.feed(piece);
    /// }
    /// assert_eq!(extractor.finish().data(), Some(&serde_json::json!({"a": 1})));
    /// ```
    pub fn feed(&mut self, bytes: &[u8]) {
        let reading = &mut self.reading;
        self.splitter.push(bytes, &mut |p| reading.line(p, None));
    }

    /// The output ended: find the final answer, validate it, and build the envelope.
    ///
    /// ```
    /// # use sojx_core::{ErrorKind, Extractor, Settings};
    /// let settings = Settings::new();
    /// let envelope = Extractor::new(&settings).finish();
    /// assert_eq!(envelope.error().map(|e| e.kind()), Some(ErrorKind::EmptyInput));
    /// ```
    pub fn finish(mut self) -> Envelope {
        let reading = &mut self.reading;
        self.splitter.finish(&mut |p| reading.line(p, None));
        let read = self.reading.finish();
        Envelope::of(crate::extract::conclude(&self.input, read, self.opts))
    }

    /// Read `reader` to its end and [`finish`](Extractor::finish). A read that fails ends the
    /// extraction with an `io` error in the envelope.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let envelope = Extractor::new(&settings).read(std::io::Cursor::new("{\"n\": 2}\n"));
    /// assert_eq!(envelope.data(), Some(&serde_json::json!({"n": 2})));
    /// ```
    pub fn read(mut self, mut reader: impl Read) -> Envelope {
        let mut buf = vec![0; crate::input::CHUNK];
        loop {
            match crate::input::read_some(&mut reader, &mut buf) {
                Ok(0) => return self.finish(),
                Ok(n) => self.feed(&buf[..n]),
                Err(e) => {
                    let stopped = self.reading.stopped(crate::input::read_failure(&e));
                    let inner = crate::extract::stopped_early(&self.input, stopped, self.opts);
                    return Envelope::of(inner);
                }
            }
        }
    }
}
