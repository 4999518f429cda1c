//! Compiling a schema with sojx's fixed options, for instances as `Value`s or in another
//! representation (`tape`), and dereferencing one.

use std::path::Path;

use jsonschema::Validator;
use jsonschema::json::{Json, SerdeJson};
use serde_json::Value;

use crate::budget::{self, Graph};
use crate::details::{Details, Violation};
use crate::error::Failure;

use super::retrieve::{NotRetrieved, not_retrieved, retriever, retriever_error};
use super::{SchemaDoc, Settings, called, has_scheme, invalid};

/// Compile with sojx's fixed options: offline resolution, formats asserted unless
/// `--ignore-formats`, a bounded regex engine.
pub fn compile(
    document: &Value,
    name: &str,
    base: Option<&Path>,
    settings: &Settings,
) -> Result<Validator, Failure> {
    compile_indexed(document, name, base, settings).map(|(v, _)| v)
}

/// [`compile`], and the schema indexed for the budget walk when values need one
/// ([`budget::walk_needed`]). The index comes first: a schema that nests subschemas deeper than
/// [`budget::SCHEMA_DEPTH`] (a long chain of `$ref`s) is refused before the crate compiles it,
/// in time that grows with the square of the chain.
pub(super) fn compile_indexed(
    document: &Value,
    name: &str,
    base: Option<&Path>,
    settings: &Settings,
) -> Result<(Validator, Option<Graph>), Failure> {
    let graph = if budget::walk_needed(document) {
        let (retriever, base_uri) = retriever(base, settings)?;
        let draft = settings
            .draft
            .unwrap_or_else(|| jsonschema::Draft::default().detect(document));
        Graph::new(document, base_uri.as_deref(), draft, retriever)
    } else {
        None
    };
    if graph
        .as_ref()
        .is_some_and(|g| g.deeper_than(budget::SCHEMA_DEPTH))
    {
        return Err(invalid(
            name,
            format!(
                "{} nests subschemas more than {} levels deep, counting each $ref followed as a level (sojx's bound, checked before compiling: a chain of $ref that long takes the validator's compiler time that grows with its square)",
                called(name),
                budget::SCHEMA_DEPTH
            ),
        )
        .hint("shorten the chain: let definitions $ref a shared one directly instead of each the next"));
    }
    let validator =
        compile_with::<SerdeJson>(document, name, base, settings, budget::REGEX_LIMITS[0])?;
    Ok((validator, graph))
}

/// [`compile`] with `limit` backtracking steps per regex match, for instances in the
/// representation `F`.
pub(super) fn compile_with<F: Json>(
    document: &Value,
    name: &str,
    base: Option<&Path>,
    settings: &Settings,
    limit: usize,
) -> Result<Validator<F>, Failure> {
    let opts = options::<F>(base, settings)?
        .should_validate_formats(!settings.ignore_formats)
        .with_pattern_options(jsonschema::PatternOptions::fancy_regex().backtrack_limit(limit));
    opts.build(document).map_err(|e| {
        let msg = not_a_type(document, e.instance_path().as_str()).unwrap_or_else(|| e.to_string());
        // Decided on the error's type: the referencing error, and our retriever's own error
        // inside it.
        let referencing = match e.kind() {
            jsonschema::error::ValidationErrorKind::Referencing(r) => Some(r),
            _ => None,
        };
        let ours = referencing.and_then(retriever_error);
        if let Some(f) = ours.and_then(|why| not_retrieved(name, why)) {
            return f;
        }
        // Where in the schema, when the library says (a `$ref` error carries no location).
        let at = match e.instance_path().as_str() {
            "" => String::new(),
            p => format!("at {p}: "),
        };
        let mut f = invalid(
            name,
            format!("{} is not a valid JSON Schema: {at}{msg}", called(name)),
        );
        match (referencing, ours) {
            // A relative reference that our retriever never saw: there was no base URI to
            // resolve it against.
            (Some(referencing::Error::Unretrievable { uri, .. }), None) if !has_scheme(uri) => {
                f = f.hint("a relative $ref needs a base: give the schema as a file (its directory is the base), or give the schema an absolute $id and map the references under it with --resource URI/=DIR/");
            }
            (_, Some(NotRetrieved::CannotRead(..))) => {
                f = f.hint("check the file that the $ref (relative to the schema's directory) or the --resource mapping points to");
            }
            (Some(referencing::Error::UnknownSpecification { .. }), _) => {
                f = f.hint("use a standard $schema (drafts 4, 6, 7, 2019-09, 2020-12), or force one with --draft");
            }
            _ => {}
        }
        f.details(Details::Violations(vec![Violation {
            instance_location: String::new(),
            keyword_location: e.instance_path().as_str().to_owned(),
            message: msg,
        }]))
    })
}

/// The names JSON Schema's `type` takes (validation vocabulary, §6.1.1).
const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// What the meta-schema's error at `at` means when it is a `type` naming no type
/// (`{"type": "objekt"}`, which the library reports as "not valid under any of the schemas
/// listed in the 'anyOf' keyword"): the wrong names and the allowed ones. `None` for any other
/// error.
fn not_a_type(document: &Value, at: &str) -> Option<String> {
    let parent = at.strip_suffix("/type")?;
    // A property called `type` is a subschema, not the keyword.
    let container = ["properties", "patternProperties", "$defs", "definitions"];
    if container.iter().any(|c| parent.ends_with(&format!("/{c}"))) {
        return None;
    }
    let names: Vec<&str> = match document.pointer(at)? {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().map(Value::as_str).collect::<Option<_>>()?,
        _ => return None,
    };
    let wrong: Vec<String> = names
        .iter()
        .filter(|n| !TYPES.contains(n))
        .map(|n| format!("\"{n}\""))
        .collect();
    if wrong.is_empty() {
        return None;
    }
    Some(format!(
        "{} {} no JSON Schema type; a type is one of {}",
        wrong.join(", "),
        if wrong.len() == 1 { "is" } else { "are" },
        TYPES.join(", ")
    ))
}

/// The options every use of a schema shares: the offline retriever (`--resource` mappings and
/// files inside the schema's directory), the draft, and the schema file as the base of
/// relative references.
fn options<F: Json>(
    base: Option<&Path>,
    settings: &Settings,
) -> Result<
    jsonschema::ValidationOptions<'static, std::sync::Arc<dyn jsonschema::Retrieve>, F>,
    Failure,
> {
    let (retriever, uri) = retriever(base, settings)?;
    let mut opts = jsonschema::options_for::<F>().with_retriever(retriever);
    if let Some(d) = settings.draft {
        opts = opts.with_draft(d);
    }
    if let Some(uri) = uri {
        opts = opts.with_base_uri(uri);
    }
    Ok(opts)
}

/// `document` with every `$ref` replaced by what it points to (resolved offline); circular
/// references stay `$ref`s.
pub fn dereference(loaded: &SchemaDoc, settings: &Settings) -> Result<Value, Failure> {
    options::<SerdeJson>(loaded.base.as_deref(), settings)?
        .dereference(&loaded.document)
        .map_err(|e| {
            retriever_error(&e)
                .and_then(|why| not_retrieved(&loaded.name, why))
                .unwrap_or_else(|| {
                    invalid(
                        &loaded.name,
                        format!(
                            "cannot resolve a reference in {}: {e}",
                            called(&loaded.name)
                        ),
                    )
                })
        })
}
