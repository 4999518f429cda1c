//! A schema that answers are given under lowered for a provider (`--provider`): each answer is
//! checked in the lowered shape, lifted ([`lift`]), then checked against the user's schema,
//! with every violation named at its place in the answer as the agent gave it.

use serde_json::Value;

use super::{Schema, lift};
use crate::details::Violation;
use crate::error::Failure;
use crate::warning::{Warning, WarningKind};

/// The lowered schema an answer is given under, and how to lift it.
pub(super) struct Lifting {
    pub(super) lowered: Schema,
    pub(super) plan: lift::Plan,
}

impl Schema {
    pub(super) fn is_valid_lifted(&self, l: &Lifting, value: &Value) -> bool {
        l.lowered.is_valid(value)
            && match l.plan.lift(value.clone()) {
                Ok((lifted, _)) => self.is_valid_here(&lifted),
                Err(_) => false,
            }
    }

    pub(super) fn violations_lifted(
        &self,
        l: &Lifting,
        value: &Value,
    ) -> Result<Vec<Violation>, Failure> {
        let lowered = l.lowered.violations(value)?;
        if !lowered.is_empty() {
            return Ok(lowered);
        }
        match l.plan.lift(value.clone()) {
            Err(lift::Unlifted::Twice(twice)) => Ok(twice),
            Err(lift::Unlifted::TooDeep) => Err(too_deep(&self.name)),
            Ok((lifted, _)) => {
                let mut found = self.violations_here(&lifted)?;
                for v in &mut found {
                    v.instance_location = l.plan.agent_pointer(value, &v.instance_location);
                }
                Ok(found)
            }
        }
    }

    /// The schema as the agent was given it: lowered under `--provider`, else this one's.
    pub fn agent_document(&self) -> &Value {
        self.lifting
            .as_ref()
            .map_or(&self.document, |l| l.plan.schema())
    }

    /// Under `--provider`: the lowered schema's `validation.provider`.
    pub fn provider(&self) -> Option<&'static str> {
        self.lifting.as_ref().map(|l| l.plan.provider)
    }

    /// Give answers in the shape of `plan`'s lowered schema, compiled as `lowered`: each is
    /// checked against it, lifted ([`Schema::lift`]), then checked against this schema.
    pub fn given_lowered(&mut self, lowered: Schema, plan: lift::Plan) {
        self.lifting = Some(Box::new(Lifting { lowered, plan }));
    }

    /// `value` (valid: [`Schema::violations`] found none) in this schema's shape, with a
    /// warning naming each place lifting changed; as it is without `--provider`.
    pub fn lift(&self, value: Value) -> (Value, Option<Warning>) {
        let Some(l) = &self.lifting else {
            return (value, None);
        };
        match l.plan.lift(value) {
            Ok((lifted, changes)) if !changes.is_empty() => {
                let warning = lift_warning(l.plan.provider, &changes);
                (lifted, Some(warning))
            }
            Ok((lifted, _)) => (lifted, None),
            Err(_) => unreachable!("a valid value lifts"),
        }
    }
}

/// The `schema_invalid` failure of an answer whose lifting would walk past the bound.
pub fn too_deep(schema: &str) -> Failure {
    Failure::new(
        crate::error::ErrorKind::SchemaInvalid,
        crate::error::Operation::Validate,
        format!(
            "lifting the answer to the schema's shape would follow the lowered schema more than {} levels deep along one path of the answer (each member or item, each $ref and each anyOf/oneOf/allOf branch one level), sojx's bound",
            crate::error::thousands(u64::from(crate::budget::WALK_DEPTH))
        ),
    )
    .target(schema.to_owned())
    .retryable(false)
    .hint("shorten the chains of $ref in the schema's recursive definitions")
}

/// The `answer_lifted` warning: the provider, and each place lifting changed (the first 20).
fn lift_warning(provider: &str, changes: &[lift::Change]) -> Warning {
    const SHOWN: usize = 20;
    let mut places: Vec<String> = changes
        .iter()
        .take(SHOWN)
        .map(lift::Change::describe)
        .collect();
    if changes.len() > SHOWN {
        places.push(format!("and {} more", changes.len() - SHOWN));
    }
    Warning::new(
        WarningKind::AnswerLifted,
        format!(
            "the answer was given in the shape of the schema lowered for {provider}, and lifted to the schema's: {}",
            places.join("; ")
        ),
    )
}

/// A schema's JSON text given inline, not read from a file: parsed and unwrapped as
/// [`inline`].
pub fn parse_inline(text: &str) -> Result<super::SchemaDoc, Failure> {
    super::parse(super::INLINE_NAME.to_owned(), text, None)
}

/// A schema document given as a value, not read from a file: named `<inline>`, its wrapper
/// objects removed ([`super::unwrap`]), no base (a `$ref` from it reads no file).
pub fn inline(document: Value) -> super::SchemaDoc {
    super::SchemaDoc {
        name: super::INLINE_NAME.to_owned(),
        document: super::unwrap(document),
        base: None,
    }
}
