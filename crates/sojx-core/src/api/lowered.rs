//! [`compile`]: a schema lowered for a provider's structured output, and the answer lifted back.

use serde_json::Value;

use crate::details::Details;
use crate::error::{ErrorKind, Failure, Operation};
use crate::provider::{Compat, Provider};
use crate::schema::lift::{Plan, Unlifted};
use crate::warning::{Warning, WarningKind};

use super::{Error, Schema};

/// Lower `schema` for `provider`, dropping what the provider does not support with a warning
/// per drop (`sojx compile --compat lossy`, the default).
///
/// ```
/// use sojx_core::{Provider, Schema, compile};
///
/// let schema: Schema = r#"{"type": "object", "properties": {"n": {"type": "integer"}}}"#.parse()?;
/// let lowered = compile(&schema, Provider::Openai)?;
/// assert_eq!(lowered.schema()["additionalProperties"], false);
/// assert_eq!(lowered.schema()["required"], serde_json::json!(["n"]));
/// # Ok::<(), sojx_core::Error>(())
/// ```
pub fn compile(schema: &Schema, provider: Provider) -> Result<Lowered, Error> {
    compile_with(schema, provider, Compat::Lossy)
}

/// [`compile`], with what to do with what the provider does not support: drop it
/// ([`Compat::Lossy`]) or refuse the schema with a `schema_invalid` error listing each
/// ([`Compat::Strict`]).
///
/// ```
/// use sojx_core::{Compat, ErrorKind, Provider, Schema, compile_with};
///
/// let schema: Schema = r#"{"type": "string", "format": "x-unknown"}"#.parse()?;
/// let err = compile_with(&schema, Provider::Openai, Compat::Strict).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::SchemaInvalid);
/// # Ok::<(), sojx_core::Error>(())
/// ```
pub fn compile_with(schema: &Schema, provider: Provider, compat: Compat) -> Result<Lowered, Error> {
    let loaded = schema.inner.loaded();
    let (plan, warnings) = crate::lower::lower(
        &loaded,
        &crate::schema::Settings::default(),
        provider,
        compat,
    )
    .map_err(Error)?;
    Ok(Lowered {
        plan,
        warnings,
        name: loaded.name,
    })
}

/// A schema lowered for a provider: the schema to give the agent, what was changed to lower
/// it, and the way back from an answer in its shape to one in the user's.
#[derive(Debug, Clone)]
pub struct Lowered {
    plan: Plan,
    warnings: Vec<Warning>,
    /// The schema's name, for the errors of lifting.
    name: String,
}

impl Lowered {
    /// The lowered schema, to give the provider.
    ///
    /// ```
    /// # use sojx_core::{Provider, Schema, compile};
    /// let schema: Schema = r#"{"type": "integer"}"#.parse()?;
    /// let lowered = compile(&schema, Provider::Anthropic)?;
    /// // Anthropic's tools take an object: the root is wrapped.
    /// assert_eq!(lowered.schema()["properties"]["value"]["type"], "integer");
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn schema(&self) -> &Value {
        self.plan.schema()
    }

    /// What lowering changed or dropped, each with its kind.
    ///
    /// ```
    /// # use sojx_core::{Provider, Schema, WarningKind, compile};
    /// let schema: Schema = r#"{"type": "integer"}"#.parse()?;
    /// let lowered = compile(&schema, Provider::Anthropic)?;
    /// assert!(lowered.warnings().any(|(kind, _)| kind == WarningKind::RootWrapped));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn warnings(&self) -> impl Iterator<Item = (WarningKind, &str)> {
        self.warnings.iter().map(|w| (w.kind, w.message.as_str()))
    }

    /// `answer`, given in the lowered schema's shape, in the user's: a wrapped root unwrapped,
    /// a property given as `null` for "not given" removed, a list of `{"key", "value"}` entries
    /// made an object again. A `validation_failed` error when a key is given twice, a
    /// `schema_invalid` one when lifting would walk past sojx's depth bound. Validate the
    /// result with [`Schema::validate`] of the schema it was lowered from (not one made
    /// [`Schema::answered_for`] the provider, which takes answers in the lowered shape); or let
    /// an [`crate::Extractor`] with such a schema do all of it.
    ///
    /// ```
    /// # use sojx_core::{Provider, Schema, compile};
    /// let schema: Schema = r#"{"type": "integer"}"#.parse()?;
    /// let lowered = compile(&schema, Provider::Anthropic)?;
    /// let answer = lowered.lift(serde_json::json!({"value": 7}))?;
    /// assert_eq!(answer, 7);
    /// assert!(schema.is_valid(&answer));
    /// # Ok::<(), sojx_core::Error>(())
    /// ```
    pub fn lift(&self, answer: Value) -> Result<Value, Error> {
        match self.plan.lift(answer) {
            Ok((value, _)) => Ok(value),
            Err(Unlifted::Twice(violations)) => Err(Error(
                Failure::new(
                    ErrorKind::ValidationFailed,
                    Operation::Validate,
                    format!(
                        "the answer gives a map's key twice: {} violation(s)",
                        violations.len()
                    ),
                )
                .details(Details::Violations(violations)),
            )),
            Err(Unlifted::TooDeep) => Err(Error(crate::schema::lift_too_deep(&self.name))),
        }
    }
}
