//! Schemas: read (`path`, `@path`, inline JSON, wrapper objects), compiled once, resolved
//! offline, and used to validate values with every violation reported as JSON Pointers.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use jsonschema::Validator;
use jsonschema::json::SerdeJson;
use serde_json::{Value, json};

use crate::budget::{self, Cost, Graph};
use crate::details::{Details, Violation};
use crate::envelope::Validation;
use crate::error::{ErrorKind, Failure, Operation, thousands};
use crate::warning::Warning;

mod compile;
mod draft;
mod given;
pub mod lift;
mod retrieve;
mod settings;
mod slips;
pub mod tape;

pub use compile::{compile, dereference};
pub use draft::{DRAFTS, draft_name};
pub use given::{inline, parse_inline, too_deep as lift_too_deep};
pub use settings::{Resource, Settings};

use compile::{compile_indexed, compile_with};
use given::Lifting;

use crate::files::Files;
pub use retrieve::text_of;
use retrieve::{read_text, retriever};

/// A compiled schema.
pub struct Schema {
    validator: Validator,
    /// The schema compiled with the smaller backtracking limits of
    /// [`budget::REGEX_LIMITS`]`[1..]`, when a value needs one (`None`: it did not compile).
    smaller: [OnceLock<Option<Validator>>; 3],
    /// The schema compiled for documents read into a [`tape::Tape`], when first asked for
    /// (`None`: it did not compile).
    taped: OnceLock<Option<Validator<tape::TapeJson>>>,
    /// The schema indexed for counting a validation's work before it runs.
    graph: Option<Graph>,
    /// How it was given, to compile it again with a smaller backtracking limit.
    settings: Settings,
    base: Option<PathBuf>,
    /// How the schema was given (a path, or `<inline>`), for `validation.schema`.
    pub name: String,
    /// The raw schema document (after unwrapping).
    pub document: Value,
    /// What every envelope validated against it should say about it (a keyword typo: the
    /// command layer adds lint's findings, which this module cannot see).
    pub warnings: Vec<Warning>,
    /// The answer is given in the shape of this schema lowered for a provider (`--provider`):
    /// it is checked against the lowered schema, lifted, then checked against this one.
    lifting: Option<Box<Lifting>>,
}

impl Schema {
    /// The document as it was read, to lower or compile again without reading it again.
    pub fn loaded(&self) -> SchemaDoc {
        SchemaDoc {
            name: self.name.clone(),
            document: self.document.clone(),
            base: self.base.clone(),
        }
    }
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Schema {
    /// The draft in force, as the envelope names it.
    pub fn draft(&self) -> &'static str {
        draft_name(self.validator.draft())
    }

    /// Whether `value` is valid; `false` when validating it would pass sojx's budget. Under
    /// `--provider`, valid in the lowered shape and, lifted, valid against this schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        match &self.lifting {
            None => self.is_valid_here(value),
            Some(l) => self.is_valid_lifted(l, value),
        }
    }

    fn is_valid_here(&self, value: &Value) -> bool {
        let cost = self.cost(value);
        !cost.over() && self.validator_for(&cost).is_valid(value)
    }

    /// Whether [`Schema::is_valid_doc`] can answer: the schema needs no budget walk.
    pub fn reads_tape(&self) -> bool {
        self.graph.is_none() && self.lifting.is_none()
    }

    /// Whether the document read into a tape is valid, when that can be told without building
    /// its `Value`: the schema needs no budget walk (so [`Schema::is_valid`] is the compiled
    /// validator's answer, which the tape's validator gives for the same document).
    pub fn is_valid_doc(&self, doc: &tape::Doc<'_>) -> Option<bool> {
        if !self.reads_tape() {
            return None;
        }
        let validator = self.taped.get_or_init(|| {
            compile_with(
                &self.document,
                &self.name,
                self.base.as_deref(),
                &self.settings,
                budget::REGEX_LIMITS[0],
            )
            .ok()
        });
        Some(validator.as_ref()?.is_valid(doc.root()))
    }

    /// Every violation of `value` (empty when valid), or a `schema_invalid` failure naming the
    /// bound when validating it would pass sojx's budget (see `budget`). Under `--provider`:
    /// the violations of the lowered schema, else those of lifting (a map's key given twice),
    /// else this schema's of the lifted value, each at its place in `value` as given.
    pub fn violations(&self, value: &Value) -> Result<Vec<Violation>, Failure> {
        match &self.lifting {
            None => self.violations_here(value),
            Some(l) => self.violations_lifted(l, value),
        }
    }

    fn violations_here(&self, value: &Value) -> Result<Vec<Violation>, Failure> {
        let cost = self.cost(value);
        if cost.over() {
            return Err(self.too_costly(&cost));
        }
        let limit = cost.regex_limit();
        let note = |message: String| {
            format!(
                "{message} (sojx's regex limit for this value: {} backtracking steps per match, out of a budget of {} per value shared by its {} lookaround/backreference matches)",
                thousands(limit as u64),
                thousands(budget::REGEX_BUDGET),
                thousands(cost.fancy_matches.max(1)),
            )
        };
        let mut violations: Vec<Violation> = self
            .validator_for(&cost)
            .iter_errors(value)
            .map(|e| {
                let full = e.to_string();
                let mut message = if full.len() <= 300 {
                    full
                } else {
                    e.masked().to_string()
                };
                if unfinished(&e) {
                    message = note(message);
                }
                Violation {
                    instance_location: e.instance_path().as_str().to_owned(),
                    keyword_location: e.evaluation_path().as_str().to_owned(),
                    message,
                }
            })
            .collect();
        if !violations.is_empty() && cost.fancy_matches > 0 {
            self.add_undecided(value, limit, &mut violations, note);
        }
        Ok(violations)
    }

    /// Add the regex matches that could not finish within `limit` to the `violations` of an
    /// invalid value. The crate validates again under each outcome of such a match and reports
    /// only the errors every outcome shares, so when the value has other violations the match
    /// itself is dropped; it is named here, once per site, so that the caller (and the model)
    /// learns that a pattern could not be decided.
    fn add_undecided(
        &self,
        value: &Value,
        limit: usize,
        violations: &mut Vec<Violation>,
        note: impl Fn(String) -> String,
    ) {
        let Some(graph) = &self.graph else { return };
        let mut matchers: HashMap<String, Option<Validator>> = HashMap::new();
        let mut known: HashSet<(String, String)> = violations
            .iter()
            .map(|v| (v.instance_location.clone(), v.keyword_location.clone()))
            .collect();
        for site in graph.sites(value) {
            let place = (site.instance_location, site.keyword_location);
            if known.contains(&place) {
                continue;
            }
            let matcher = matchers.entry(site.pattern.clone()).or_insert_with(|| {
                jsonschema::options()
                    .with_pattern_options(
                        jsonschema::PatternOptions::fancy_regex().backtrack_limit(limit),
                    )
                    .build(&json!({ "pattern": site.pattern }))
                    .ok()
            });
            let Some(matcher) = matcher else { continue };
            let subject = Value::String(site.subject);
            if let Some(e) = matcher.iter_errors(&subject).find(unfinished) {
                violations.push(Violation {
                    instance_location: place.0.clone(),
                    keyword_location: place.1.clone(),
                    message: note(e.to_string()),
                });
                known.insert(place);
            }
        }
    }

    /// The cost of validating `value`, counted up to the budget.
    fn cost(&self, value: &Value) -> Cost {
        match &self.graph {
            Some(g) => g.cost(value),
            None => Cost {
                steps: 0,
                budget: budget::STEP_BUDGET,
                fancy_matches: 0,
                too_deep: false,
            },
        }
    }

    /// The validator with the backtracking limit that `cost` calls for.
    fn validator_for(&self, cost: &Cost) -> &Validator {
        let limit = cost.regex_limit();
        let Some(i) = budget::REGEX_LIMITS.iter().position(|&l| l == limit) else {
            return &self.validator;
        };
        let Some(slot) = i.checked_sub(1).and_then(|i| self.smaller.get(i)) else {
            return &self.validator;
        };
        slot.get_or_init(|| {
            compile_with::<SerdeJson>(
                &self.document,
                &self.name,
                self.base.as_deref(),
                &self.settings,
                limit,
            )
            .ok()
        })
        .as_ref()
        .unwrap_or(&self.validator)
    }

    fn too_costly(&self, cost: &Cost) -> Failure {
        if cost.too_deep {
            return Failure::new(
                ErrorKind::SchemaInvalid,
                Operation::Validate,
                format!(
                    "validating the output against the schema would nest subschemas more than {} levels deep along one path of the output (each $ref followed, each allOf/anyOf/oneOf/not/if and each member or item one level), sojx's bound: the validator recurses that deep",
                    thousands(u64::from(budget::WALK_DEPTH)),
                ),
            )
            .target(self.name.clone())
            .retryable(false)
            .hint("shorten the chains of $ref in the schema's recursive definitions");
        }
        Failure::new(
            ErrorKind::SchemaInvalid,
            Operation::Validate,
            format!(
                "validating the output against the schema would apply more than {} subschemas, sojx's validation budget ({} per value, or {} per node of the value when that is more): branches of anyOf/oneOf/allOf that $ref the same branching definitions repeat the work at every level",
                thousands(cost.budget),
                thousands(budget::STEP_BUDGET),
                budget::STEPS_PER_NODE,
            ),
        )
        .target(self.name.clone())
        .retryable(false)
        .hint("restructure the schema so that alternatives do not each $ref the same branching definition level after level (a discriminating const or type in each branch, or one shared $ref outside the anyOf)")
    }

    /// The envelope's `validation`.
    pub fn report(&self, valid: bool) -> Validation {
        Validation {
            schema: self.name.clone(),
            valid,
            draft: self.draft(),
            provider: self.provider(),
        }
    }

    /// The `validation_failed` failure for `value` and its `violations` (not empty).
    pub fn failure(&self, violations: Vec<Violation>, value: Value) -> Failure {
        let n = violations.len();
        let first = violations
            .first()
            .map(|v| {
                format!(
                    " (first: {} at {})",
                    v.message,
                    if v.instance_location.is_empty() {
                        "/"
                    } else {
                        &v.instance_location
                    }
                )
            })
            .unwrap_or_default();
        Failure::new(
            ErrorKind::ValidationFailed,
            Operation::Validate,
            format!("the output does not match the schema: {n} violation(s){first}"),
        )
        .target(self.name.clone())
        .hint("feed error.details and candidate back to the model, or fix the schema")
        .details(Details::Violations(violations))
        .candidate(
            if crate::envelope::depth(&value) > crate::envelope::MAX_DATA_DEPTH {
                // Too deep to nest in the envelope readably: the candidate as text.
                Value::from(value.to_string())
            } else {
                value
            },
        )
    }
}

/// Whether `e` is a regex match the engine could not finish within its backtracking limit.
fn unfinished(e: &jsonschema::ValidationError<'_>) -> bool {
    matches!(
        e.kind(),
        jsonschema::error::ValidationErrorKind::BacktrackLimitExceeded { .. }
    )
}

/// How a message names the schema: `the schema x.json`, or `the inline schema`.
fn called(name: &str) -> String {
    if name == INLINE_NAME {
        "the inline schema".to_owned()
    } else {
        format!("the schema {name}")
    }
}

/// The name of a schema given inline (`--schema '{…}'`), in `target` and `validation.schema`.
const INLINE_NAME: &str = "<inline>";

fn invalid(target: &str, message: impl Into<String>) -> Failure {
    Failure::new(ErrorKind::SchemaInvalid, Operation::CompileSchema, message)
        .target(target)
        .retryable(false)
}

/// Where the schema text comes from.
enum Spec {
    Inline(String),
    File(PathBuf),
}

fn spec(arg: &str) -> Spec {
    if let Some(p) = arg.strip_prefix('@') {
        return Spec::File(PathBuf::from(p));
    }
    let t = arg.trim_start();
    if t.starts_with('{') || t == "true" || t == "false" {
        Spec::Inline(arg.to_owned())
    } else {
        Spec::File(PathBuf::from(arg))
    }
}

/// The file `--schema ARG` names, when it names one (not inline JSON).
pub fn file_of(arg: &str) -> Option<PathBuf> {
    match spec(arg) {
        Spec::File(p) => Some(p),
        Spec::Inline(_) => None,
    }
}

/// A schema document as read, before compiling.
#[derive(Debug, Clone)]
pub struct SchemaDoc {
    /// How the schema was given (a path, or `<inline>`).
    pub name: String,
    /// The document, wrappers removed.
    pub document: Value,
    /// The file it came from: the base of relative references.
    pub base: Option<PathBuf>,
}

impl SchemaDoc {
    /// Compile it with `settings`' draft and resources ([`compile`]).
    pub fn compile(&self, settings: &Settings) -> Result<Validator, Failure> {
        compile(&self.document, &self.name, self.base.as_deref(), settings)
    }
}

/// Read and unwrap a schema given as a path (read through `files`), `@path`, or inline JSON.
pub fn read(arg: &str, files: &dyn Files) -> Result<SchemaDoc, Failure> {
    let (name, text, base) = match spec(arg) {
        Spec::Inline(t) => (INLINE_NAME.to_owned(), t, None),
        Spec::File(p) => {
            let name = p.to_string_lossy().into_owned();
            let text = read_text(files, &p).map_err(|e| {
                Failure::new(
                    ErrorKind::Filesystem,
                    Operation::ReadSchema,
                    format!(
                        "cannot read the schema {name}: {}",
                        crate::input::io_reason(&e)
                    ),
                )
                .target(name.clone())
                .retryable(false)
                .hint("a schema is a path, @path, or inline JSON")
            })?;
            (name, text, Some(p))
        }
    };
    parse(name, &text, base)
}

/// A schema's JSON `text`, named `name`, from the file `base` (when it came from one): parsed
/// and unwrapped.
fn parse(name: String, text: &str, base: Option<PathBuf>) -> Result<SchemaDoc, Failure> {
    let doc: Value = crate::json::from_str(text).map_err(|e| {
        // The place, as editors take it (`FILE:LINE:COLUMN`); inline JSON has no file.
        let hint = match &base {
            Some(_) => format!("fix the JSON at {name}:{}:{}", e.line(), e.column()),
            None => format!(
                "fix the inline JSON at line {}, column {} (a schema is a path, @path, or inline JSON)",
                e.line(),
                e.column()
            ),
        };
        invalid(&name, format!("{} is not JSON: {e}", called(&name))).hint(hint)
    })?;
    Ok(SchemaDoc {
        name,
        document: unwrap(doc),
        base,
    })
}

/// The caller's side of the schema options, checked before the schema is: every `--resource`
/// is `URI=FILE` and its FILE can be read (`usage`, `filesystem`). `lint` and `compile` call it
/// first, so that their own unreadable files are not findings about the schema.
pub fn check_options(settings: &Settings) -> Result<(), Failure> {
    retriever(None, settings).map(|_| ())
}

/// Read, unwrap and compile the schema the settings name, or `None` when they name none.
pub fn load(settings: &Settings) -> Result<Option<Schema>, Failure> {
    let Some(arg) = &settings.schema else {
        return Ok(None);
    };
    Schema::compiled(read(arg, settings.files().as_ref())?, settings).map(Some)
}

impl Schema {
    /// Compile a schema document read with `settings`.
    pub fn compiled(doc: SchemaDoc, settings: &Settings) -> Result<Schema, Failure> {
        let SchemaDoc {
            name,
            document,
            base,
        } = doc;
        // A schema that cannot blow up needs no walk: it costs nothing per value (see
        // `budget::walk_needed`).
        let (validator, graph) = compile_indexed(&document, &name, base.as_deref(), settings)?;
        Ok(Schema {
            validator,
            smaller: Default::default(),
            taped: OnceLock::new(),
            graph,
            settings: settings.clone(),
            base,
            name,
            document,
            warnings: Vec::new(),
            lifting: None,
        })
    }
}

/// Unwrap `{schema, name, strict, …}` wrappers (OpenAI `json_schema` format objects, Meerkat
/// `meerkat_v1`): an object whose `schema` member is a schema and whose other keys are all
/// wrapper keys.
pub fn unwrap(doc: Value) -> Value {
    const WRAPPER_KEYS: [&str; 6] = [
        "schema",
        "name",
        "strict",
        "compat",
        "format",
        "description",
    ];
    if let Value::Object(o) = &doc
        && o.get("schema")
            .is_some_and(|s| s.is_object() || s.is_boolean())
        && o.keys().all(|k| WRAPPER_KEYS.contains(&k.as_str()))
        && (o.contains_key("name")
            || o.contains_key("strict")
            || o.contains_key("format")
            || o.contains_key("compat")
            || o.len() == 1)
    {
        let Some(Value::Object(mut o)) = Some(doc) else {
            unreachable!()
        };
        return o.remove("schema").unwrap_or(Value::Bool(true));
    }
    doc
}

/// Whether `uri` starts with a scheme (`file:`, `https:`, `urn:`), as an absolute URI does
/// (RFC 3986 §3.1).
fn has_scheme(uri: &str) -> bool {
    uri.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(schema: &str) -> Settings {
        Settings {
            schema: Some(schema.to_owned()),
            ..Settings::default()
        }
    }

    #[test]
    fn inline_schema_and_violations_as_pointers() {
        let s = load(&settings(
            r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}"#,
        ))
        .unwrap()
        .unwrap();
        assert_eq!(s.draft(), "2020-12");
        let v = s.violations(&json!({"n": "x"})).unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].instance_location, "/n");
        assert_eq!(v[0].keyword_location, "/properties/n/type");
    }

    #[test]
    fn invalid_schema_is_schema_invalid() {
        let e = load(&settings(r#"{"type": 12}"#)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::SchemaInvalid);
    }

    #[test]
    fn wrappers_are_unwrapped() {
        assert_eq!(
            unwrap(json!({"name":"x","strict":true,"schema":{"type":"object"}})),
            json!({"type":"object"})
        );
        assert_eq!(
            unwrap(json!({"format":"meerkat_v1","schema":{"type":"object"}})),
            json!({"type":"object"})
        );
        // A schema that merely has a property called "schema" is not a wrapper.
        let s = json!({"type":"object","properties":{"schema":{"type":"string"}}});
        assert_eq!(unwrap(s.clone()), s);
    }

    #[test]
    fn formats_are_checked_unless_ignored() {
        let s = load(&settings(r#"{"format":"email"}"#)).unwrap().unwrap();
        assert!(!s.is_valid(&json!("not an email")));
        let mut a = settings(r#"{"format":"email"}"#);
        a.ignore_formats = true;
        assert!(load(&a).unwrap().unwrap().is_valid(&json!("not an email")));
    }

    #[test]
    fn remote_refs_are_not_fetched() {
        let e = load(&settings(r#"{"$ref":"https://example.com/s.json"}"#)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::SchemaInvalid);
        assert!(
            e.hint
                .unwrap()
                .contains("--resource https://example.com/s.json=FILE")
        );
    }
}
