//! [`Envelope`], [`Error`] and the retry's [`feedback`].

use serde::Serialize;
use serde_json::Value;

use crate::details::{Details, Violation};
use crate::error::{ErrorKind, Failure};
use crate::feedback::Parts;
use crate::warning::WarningKind;

use super::Schema;

/// The outcome of one extraction: the JSON envelope that `sojx extract` prints
/// (`schemas/envelope.schema.json`), with typed accessors.
///
/// A success carries the agent's final answer in [`Envelope::data`]; a failure carries an
/// [`Error`] and, when there was one, the [`Envelope::candidate`] that failed.
///
/// ```
/// use sojx_core::{Extractor, Settings};
///
/// let settings = Settings::new();
/// let envelope = Extractor::new(&settings).read(&br#"{"verdict": "PASS"}"#[..]);
/// assert!(envelope.is_success());
/// assert_eq!(envelope.exit_code(), 0);
/// assert_eq!(envelope.data(), Some(&serde_json::json!({"verdict": "PASS"})));
/// assert_eq!(envelope.producer(), Some("json"));
/// ```
#[derive(Debug, Clone)]
pub struct Envelope {
    inner: crate::envelope::Envelope,
    /// The envelope's `error`, as the API's type.
    error: Option<Error>,
}

impl Envelope {
    /// The API's view of an envelope the engine built.
    pub(crate) fn of(inner: crate::envelope::Envelope) -> Self {
        let error = inner.error().cloned().map(Error);
        Self { inner, error }
    }

    /// Whether the agent's final answer was found (and, with a schema, is valid).
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// assert!(!Extractor::new(&settings).read(&b""[..]).is_success());
    /// ```
    pub fn is_success(&self) -> bool {
        self.error.is_none()
    }

    /// The exit code `sojx extract` would end with (contract §7): 0 for a success, 1 when the
    /// input held no valid answer (the agent's side: nothing found, not JSON, invalid, cut
    /// off, the agent's error), 3 when sojx could not do what it was asked (the caller's side:
    /// a broken schema, an unreadable input; sojx's own bug too). An extraction through the API
    /// has no `--timeout`, so never 2.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// assert_eq!(Extractor::new(&settings).read(&b"no JSON here"[..]).exit_code(), 1);
    /// ```
    pub fn exit_code(&self) -> u8 {
        self.inner.exit_status().code()
    }

    /// The answer, on a success.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let envelope = Extractor::new(&settings).read(&b"[1, 2]"[..]);
    /// assert_eq!(envelope.data(), Some(&serde_json::json!([1, 2])));
    /// ```
    pub fn data(&self) -> Option<&Value> {
        self.inner.data()
    }

    /// The answer, on a success, taken out of the envelope.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let answer = Extractor::new(&settings).read(&b"true"[..]).into_data();
    /// assert_eq!(answer, Some(serde_json::Value::Bool(true)));
    /// ```
    pub fn into_data(self) -> Option<Value> {
        self.inner.into_data()
    }

    /// Why it failed, on a failure.
    ///
    /// ```
    /// # use sojx_core::{ErrorKind, Extractor, Settings};
    /// let settings = Settings::new();
    /// let envelope = Extractor::new(&settings).read(&b""[..]);
    /// assert_eq!(envelope.error().map(|e| e.kind()), Some(ErrorKind::EmptyInput));
    /// ```
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The value or text that failed to parse or to validate, when there is one.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Schema, Settings};
    /// let schema: Schema = r#"{"type": "integer"}"#.parse()?;
    /// let settings = Settings::new().schema(&schema);
    /// let envelope = Extractor::new(&settings).read(&b"\"seven\""[..]);
    /// assert_eq!(envelope.candidate(), Some(&serde_json::json!("seven")));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn candidate(&self) -> Option<&Value> {
        self.inner.candidate()
    }

    /// The id of the producer that wrote the input (`claude-code`, `codex`, `json`, …), once it
    /// was known.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let line = br#"{"type":"result","subtype":"success","is_error":false,"result":"{\"ok\":true}"}"#;
    /// let settings = Settings::new();
    /// assert_eq!(Extractor::new(&settings).read(&line[..]).producer(), Some("claude-code"));
    /// ```
    pub fn producer(&self) -> Option<&'static str> {
        self.inner.producer().map(crate::producer::Producer::id)
    }

    /// The agent's session id, when its output named one: the session to resume with the
    /// [`feedback`].
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let line = br#"{"type":"result","subtype":"success","is_error":false,"result":"{}","session_id":"s-1"}"#;
    /// let settings = Settings::new();
    /// assert_eq!(Extractor::new(&settings).read(&line[..]).session_id(), Some("s-1"));
    /// ```
    pub fn session_id(&self) -> Option<&str> {
        self.inner.session()?.id.as_deref()
    }

    /// The warnings: what the reader should know about an answer that still stands, or about
    /// a failure, each with its kind.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings, WarningKind};
    /// let settings = Settings::new();
    /// let envelope = Extractor::new(&settings).read(&b"```json\n{\"a\": 1}\n```"[..]);
    /// let kinds: Vec<WarningKind> = envelope.warnings().map(|(kind, _)| kind).collect();
    /// assert_eq!(kinds, [WarningKind::UncheckedAnswer]);
    /// ```
    pub fn warnings(&self) -> impl Iterator<Item = (WarningKind, &str)> {
        self.inner
            .warnings()
            .iter()
            .map(|w| (w.kind, w.message.as_str()))
    }

    /// Whether another attempt of the agent, told what was wrong ([`feedback`]), can fix this
    /// outcome: the answer was missing, not JSON, invalid or failed a check, or the agent gave
    /// up on its own structured-output retries. `sojx run --max-attempts` retries these (and
    /// what `--retry-on` adds). Narrower than [`Error::retryable`], which says whether running
    /// the agent again *can* help at all (a cut-off stream, an agent's transient error).
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// assert!(Extractor::new(&settings).read(&b"{\"cut"[..]).earns_retry());
    /// assert!(!Extractor::new(&settings).read(&b"{}"[..]).earns_retry());
    /// ```
    pub fn earns_retry(&self) -> bool {
        crate::feedback::retries(&self.inner, &[])
    }

    /// The envelope as JSON, as `sojx extract` prints it (one line, no newline at its end).
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let json = Extractor::new(&settings).read(&b"1"[..]).to_json();
    /// assert!(json.starts_with(r#"{"timestamp":"#));
    /// assert!(json.contains(r#""exit_code":0"#));
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.inner).unwrap_or_default()
    }

    /// The envelope as a JSON value, its fields in the contract's order.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let value = Extractor::new(&settings).read(&b"1"[..]).to_value();
    /// assert_eq!(value["data"], 1);
    /// ```
    pub fn to_value(&self) -> Value {
        self.inner.clone().into_value()
    }
}

impl Serialize for Envelope {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.inner.serialize(serializer)
    }
}

/// What failed: the envelope's `error` object (contract §6), typed.
///
/// ```
/// use sojx_core::{ErrorKind, Schema};
///
/// let err = "{\"type\": ".parse::<Schema>().unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::SchemaInvalid);
/// assert!(err.message().contains("not JSON"));
/// assert!(!err.retryable());
/// ```
#[derive(Debug, Clone)]
pub struct Error(pub(crate) Failure);

impl Error {
    /// The kind of failure, one of the contract's stable error kinds.
    ///
    /// ```
    /// # use sojx_core::{ErrorKind, Settings};
    /// let err = Settings::new().producer("no-such-agent").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Usage);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// What went wrong, in a sentence.
    ///
    /// ```
    /// # use sojx_core::Settings;
    /// let err = Settings::new().producer("no-such-agent").unwrap_err();
    /// assert!(err.message().contains("no-such-agent"));
    /// ```
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// What to do about it, when sojx knows.
    ///
    /// ```
    /// # use sojx_core::Schema;
    /// let err = "{".parse::<Schema>().unwrap_err();
    /// assert!(err.hint().is_some());
    /// ```
    pub fn hint(&self) -> Option<&str> {
        self.0.hint.as_deref()
    }

    /// Whether running the agent again can plausibly fix it.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Settings};
    /// let settings = Settings::new();
    /// let envelope = Extractor::new(&settings).read(&b"not json"[..]);
    /// assert!(envelope.error().is_some_and(|e| e.retryable()));
    /// ```
    pub fn retryable(&self) -> bool {
        self.0.retryable
    }

    /// The violations the error lists: the answer's of a `validation_failed` failure, the
    /// schema's own (against its draft's meta-schema) of a `schema_invalid` one; empty for the
    /// other kinds.
    ///
    /// ```
    /// # use sojx_core::{Extractor, Schema, Settings};
    /// let schema: Schema = r#"{"type": "object", "required": ["verdict"]}"#.parse()?;
    /// let settings = Settings::new().schema(&schema);
    /// let envelope = Extractor::new(&settings).read(&b"{}"[..]);
    /// let err = envelope.error().unwrap();
    /// assert_eq!(err.violations()[0].keyword_location, "/required");
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn violations(&self) -> &[Violation] {
        match &self.0.details {
            Some(Details::Violations(v)) => v,
            _ => &[],
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

/// The feedback `sojx run` gives an agent whose answer failed, to resume the same session
/// with: one `- …` line per problem (the schema's violations at their places, at most 20; each
/// failed check; or the failure's message), then the rule to follow. Empty for a success.
///
/// ```
/// use sojx_core::{Extractor, Schema, Settings, feedback};
///
/// let schema: Schema = r#"{"properties": {"verdict": {"enum": ["PASS", "FAIL"]}}}"#.parse()?;
/// let settings = Settings::new().schema(&schema);
/// let envelope = Extractor::new(&settings).read(&br#"{"verdict": "MAYBE"}"#[..]);
/// assert_eq!(
///     feedback(&envelope),
///     "The previous output was invalid:\n\
///      - /verdict: \"MAYBE\" is not one of \"PASS\" or \"FAIL\"\n\
///      Return only JSON matching the schema, with no prose and no code fences."
/// );
/// # Ok::<(), sojx_core::Error>(())
/// ```
pub fn feedback(envelope: &Envelope) -> String {
    if envelope.is_success() {
        return String::new();
    }
    Parts::of(&envelope.inner, None).feedback(None, true)
}

/// The feedback for a new session, which does not remember the task: [`feedback`], then the
/// schema and the previous output. Empty for a success.
///
/// ```
/// use sojx_core::{Extractor, Schema, Settings, feedback_with_schema};
///
/// let schema: Schema = r#"{"type": "integer"}"#.parse()?;
/// let settings = Settings::new().schema(&schema);
/// let envelope = Extractor::new(&settings).read(&b"\"seven\""[..]);
/// let text = feedback_with_schema(&envelope, &schema);
/// assert!(text.contains("The JSON schema:\n{\n  \"type\": \"integer\"\n}"));
/// assert!(text.ends_with("The previous output:\nseven"));
/// # Ok::<(), sojx_core::Error>(())
/// ```
pub fn feedback_with_schema(envelope: &Envelope, schema: &Schema) -> String {
    if envelope.is_success() {
        return String::new();
    }
    Parts::of(&envelope.inner, Some(schema.document())).feedback(None, false)
}
