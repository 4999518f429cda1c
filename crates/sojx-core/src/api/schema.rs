//! [`Schema`]: a JSON Schema compiled once, validated against within sojx's budgets.

use std::io::Read;
use std::str::FromStr;

use serde_json::Value;

use crate::details::Violation;
use crate::error::{ErrorKind, Failure, Operation};
use crate::provider::{Compat, Provider};

use super::Error;

/// A JSON Schema (drafts 4, 6, 7, 2019-09 and 2020-12; 2020-12 without `$schema`), compiled
/// once. Validating a value costs at most a fixed budget of steps (docs/limits.md), whatever
/// the schema. A `$ref` to another document is refused: nothing is read or fetched.
///
/// ```
/// use sojx_core::Schema;
///
/// let schema: Schema = r#"{"type": "object", "required": ["verdict"]}"#.parse()?;
/// assert!(schema.is_valid(&serde_json::json!({"verdict": "PASS"})));
/// let violations = schema.validate(&serde_json::json!({}))?;
/// assert_eq!(violations[0].message, "\"verdict\" is a required property");
/// # Ok::<(), sojx_core::Error>(())
/// ```
pub struct Schema {
    pub(crate) inner: crate::schema::Schema,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl Schema {
    /// Compile a schema document. An object that wraps a schema in `{"name", "schema",
    /// "strict"}` (OpenAI's `json_schema` format) is unwrapped. Its keyword typos become
    /// warnings on every envelope validated against it, as in `sojx extract`.
    ///
    /// ```
    /// # use sojx_core::Schema;
    /// let wrapped = serde_json::json!({"name": "v", "strict": true, "schema": {"type": "string"}});
    /// let schema = Schema::from_json(wrapped)?;
    /// assert_eq!(schema.document(), &serde_json::json!({"type": "string"}));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn from_json(document: Value) -> Result<Self, Error> {
        Self::compiled(crate::schema::inline(document))
    }

    /// Read a schema's JSON text from `reader` (at most 64 MiB, UTF-8, a byte order mark
    /// left out) and compile it.
    ///
    /// ```
    /// # use sojx_core::Schema;
    /// let schema = Schema::from_reader(&br#"{"type": "boolean"}"#[..])?;
    /// assert!(schema.is_valid(&serde_json::json!(true)));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn from_reader(reader: impl Read) -> Result<Self, Error> {
        let text = crate::schema::text_of(reader).map_err(|e| {
            Error(
                Failure::new(
                    ErrorKind::Io,
                    Operation::ReadSchema,
                    format!("cannot read the schema: {}", crate::input::io_reason(&e)),
                )
                .retryable(false),
            )
        })?;
        text.parse()
    }

    /// A schema document given to the API, compiled; its keyword typos become warnings.
    fn compiled(doc: crate::schema::SchemaDoc) -> Result<Self, Error> {
        let settings = crate::schema::Settings::default();
        let mut inner = crate::schema::Schema::compiled(doc, &settings).map_err(Error)?;
        inner.warnings = crate::lint::schema_warnings(&inner.document);
        Ok(Self { inner })
    }

    /// The schema document, its wrapper removed.
    ///
    /// ```
    /// # use sojx_core::Schema;
    /// let schema: Schema = "true".parse()?;
    /// assert_eq!(schema.document(), &serde_json::Value::Bool(true));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn document(&self) -> &Value {
        &self.inner.document
    }

    /// The draft it is validated under, as the envelope's `validation.draft` names it
    /// (`2020-12`, `2019-09`, `7`, `6`, `4`).
    ///
    /// ```
    /// # use sojx_core::Schema;
    /// let schema: Schema = r#"{"$schema": "http://json-schema.org/draft-07/schema#"}"#.parse()?;
    /// assert_eq!(schema.draft(), "7");
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn draft(&self) -> &'static str {
        self.inner.draft()
    }

    /// Every violation of `value`, at its place (empty when it is valid); a `schema_invalid`
    /// error when validating it would pass sojx's budget.
    ///
    /// ```
    /// # use sojx_core::Schema;
    /// let schema: Schema = r#"{"items": {"type": "integer"}}"#.parse()?;
    /// let violations = schema.validate(&serde_json::json!([1, "two", 3]))?;
    /// assert_eq!(violations.len(), 1);
    /// assert_eq!(violations[0].instance_location, "/1");
    /// assert_eq!(violations[0].keyword_location, "/items/type");
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn validate(&self, value: &Value) -> Result<Vec<Violation>, Error> {
        self.inner.violations(value).map_err(Error)
    }

    /// Whether `value` is valid (`false` when validating it would pass sojx's budget).
    ///
    /// ```
    /// # use sojx_core::Schema;
    /// let schema: Schema = r#"{"minimum": 1}"#.parse()?;
    /// assert!(!schema.is_valid(&serde_json::json!(0)));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn is_valid(&self, value: &Value) -> bool {
        self.inner.is_valid(value)
    }

    /// This schema, taking answers as the agent gives them under the schema lowered for
    /// `provider` ([`crate::compile`], `--compat lossy`): each is checked against the lowered
    /// schema, lifted back to this schema's shape and checked against it, as `sojx extract
    /// --provider` does. An extraction's `data` is then the lifted answer. Its
    /// [`validate`](Schema::validate) and [`is_valid`](Schema::is_valid) then take answers in
    /// the lowered shape too, with violations named at their places in the answer as given.
    ///
    /// ```
    /// use sojx_core::{Extractor, Provider, Schema, Settings};
    ///
    /// let schema = Schema::from_json(serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"note": {"type": "string"}},
    /// }))?
    /// .answered_for(Provider::Openai)?;
    /// // OpenAI's strict mode makes every property required: `null` stands for "not given".
    /// let settings = Settings::new().schema(&schema);
    /// let envelope = Extractor::new(&settings).read(&br#"{"note": null}"#[..]);
    /// assert_eq!(envelope.data(), Some(&serde_json::json!({})));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn answered_for(mut self, provider: Provider) -> Result<Self, Error> {
        crate::lower::given::under(
            &mut self.inner,
            &crate::schema::Settings::default(),
            provider,
            Compat::Lossy,
        )
        .map_err(Error)?;
        Ok(self)
    }
}

impl FromStr for Schema {
    type Err = Error;

    /// Parse a schema's JSON text and compile it ([`Schema::from_json`]).
    fn from_str(text: &str) -> Result<Self, Error> {
        Self::compiled(crate::schema::parse_inline(text).map_err(Error)?)
    }
}
