//! `sojx compile SCHEMA --provider P [--compat lossy|strict]`: the schema lowered for a
//! provider's structured-output feature.
//!
//! Steps, in order: external `$ref`s are inlined (providers resolve only references inside the
//! document); keywords and formats the provider does not support are dropped (`lossy`, a
//! warning per drop) or refused (`strict`, a `schema_invalid` failure listing each); every object
//! node gets `properties` and `required`; for OpenAI and Anthropic every object is closed
//! (`additionalProperties: false`); for OpenAI every property becomes required and the optional
//! ones nullable; last, a non-object root is wrapped as `{"value": …}` for providers that need an
//! object root. Pointers in warnings and refusals are in the input's terms (the
//! passes are ordered so). The rules and their sources are those of [`crate::lint`].

use serde_json::{Map, Value, json};

use crate::details::{Details, Refusal};
use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure, Operation};
use crate::lint::{
    ANNOTATIONS, CLAUDE_CODE, CLAUDE_CODE_DRAFT, KNOWN, Shape, claude_code_takes_draft,
    external_refs, format_unsupported, is_object_node, needs_object_root, shape, unsupported,
    untyped,
};
use crate::names::Command;
use crate::pointer::escape;
use crate::provider::{Compat, Provider, provider_id};
use crate::schema;
use crate::schema::lift::Plan;
use crate::warning::{Warning, WarningKind};
use shape::{nullable, root_is_object, wrap};

pub mod given;
#[cfg(test)]
mod roundtrip;
mod shape;

/// The property a wrapped root lives under.
pub(crate) const WRAP_KEY: &str = "value";

struct Lowering {
    provider: Provider,
    compat: Compat,
    /// The input is 2019-09 or later: its `prefixItems`, `dependentRequired` and
    /// `dependentSchemas` mean something, and have a draft-07 form (Claude Code).
    modern: bool,
    warnings: Vec<Warning>,
    refused: Vec<Refusal>,
    /// The document after the keywords pass, where `$ref`s are resolved to tell whether an
    /// optional property already accepts null.
    snapshot: Value,
}

impl Lowering {
    fn id(&self) -> &'static str {
        provider_id(self.provider)
    }

    /// A change that loses meaning: a warning in `lossy`, a refusal in `strict`. Returns whether
    /// to apply it.
    fn lossy(&mut self, pointer: &str, kind: WarningKind, message: String) -> bool {
        match self.compat {
            Compat::Lossy => {
                self.warnings.push(Warning::new(kind, message));
                true
            }
            Compat::Strict => {
                self.refused.push(Refusal {
                    pointer: pointer.to_owned(),
                    provider: self.id(),
                    rule: kind,
                    message,
                });
                false
            }
        }
    }

    /// Pass 1, pre-order: keywords and formats the provider lacks. `oneOf` is renamed only
    /// after its branches were visited, so that every pointer is in the input's terms.
    fn keywords_pass(&mut self, v: &mut Value, p: &str) {
        let mut rename = false;
        let mut map = false;
        if let Value::Object(o) = v {
            if !p.is_empty() {
                // Left behind by inlining a referenced document; `$schema` belongs at the root.
                o.remove("$schema");
            }
            map = matches!(self.provider, Provider::Openai | Provider::Anthropic)
                && shape::is_map(o, self.provider);
            rename = self.keywords(o, p, map);
            if self.provider == Provider::Openai && untyped(o) {
                let at = if p.is_empty() { "/" } else { p };
                self.lossy(
                    p,
                    WarningKind::UntypedSchema,
                    format!("{at} has no type; OpenAI strict mode cannot express \"any value\" (left as is)"),
                );
            }
        }
        for_children(v, p, &mut |c, cp| self.keywords_pass(c, cp));
        if rename
            && let Value::Object(o) = v
            && let Some(x) = o.remove("oneOf")
        {
            o.insert("anyOf".into(), x);
        }
        if map && let Value::Object(o) = v {
            // After its subschemas were visited, at their places in the input.
            shape::to_entries(o, self.provider);
            let at = if p.is_empty() { "/" } else { p };
            self.warnings.push(Warning::new(
                WarningKind::MapAsEntries,
                format!(
                    "{at} is a map (an object of any keys), which {} cannot express: it became an array of {{\"key\", \"value\"}} entries; `sojx extract --provider {}` lifts the answer back to an object",
                    self.id(),
                    self.id()
                ),
            ));
        }
    }

    /// Pass 2, post-order (children before the nullable wrapping of their parent): objects.
    fn objects_pass(&mut self, v: &mut Value, p: &str) {
        for_children(v, p, &mut |c, cp| self.objects_pass(c, cp));
        if let Value::Object(o) = v
            && is_object_node(o)
        {
            self.object(o, p);
        }
    }

    /// Returns whether `oneOf` is to become `anyOf`.
    fn keywords(&mut self, o: &mut Map<String, Value>, p: &str, map: bool) -> bool {
        let id = self.id();
        let mut rename = false;
        let keys: Vec<String> = o.keys().cloned().collect();
        for k in keys {
            let at = format!("{p}/{}", escape(&k));
            if self.provider == Provider::ClaudeCode {
                self.claude_code_keyword(o, &k, &at);
            } else if k == "const" && self.provider == Provider::Gemini {
                // Gemini has no `const`; a one-value enum says the same.
                if let Some(c) = o.remove("const") {
                    o.insert("enum".into(), Value::Array(vec![c]));
                }
            } else if k == "oneOf" && !o.contains_key("anyOf") {
                // (Claude Code takes oneOf: handled above.)
                rename = self.lossy(
                    &at,
                    WarningKind::OneOfAsAnyOf,
                    format!("{at}: oneOf became anyOf ({id} has no oneOf): a value matching several branches is no longer rejected"),
                );
            } else if map && shape::MAP_KEYWORDS.contains(&k.as_str()) {
                // The entries' key schema (`shape::to_entries`).
            } else if unsupported(self.provider, &k) {
                if self.lossy(
                    &at,
                    WarningKind::KeywordDropped,
                    format!("dropped {at}: {id} does not support `{k}`"),
                ) {
                    o.remove(&k);
                }
            } else if k == "format"
                && let Some(f) = o.get("format").and_then(Value::as_str)
                && format_unsupported(self.provider, f)
            {
                let msg = format!("dropped {at}: {id} does not support format `{f}`");
                if self.lossy(&at, WarningKind::FormatDropped, msg) {
                    o.remove("format");
                }
            } else if k == "minItems"
                && self.provider == Provider::Anthropic
                && o.get("minItems")
                    .and_then(Value::as_u64)
                    .is_some_and(|n| n > 1)
            {
                let msg = format!("{at} lowered to 1: Claude supports minItems 0 or 1 only");
                if self.lossy(&at, WarningKind::MinItemsLowered, msg) {
                    o.insert("minItems".into(), json!(1));
                }
            }
        }
        rename
    }

    /// Claude Code (Ajv's draft-07, strict mode) refuses a keyword it does not know: one with a
    /// draft-07 form is left for [`to_draft_07`]; one that constrains is dropped (`lossy`) or
    /// refused (`strict`); an annotation or extension (`x-…`, `id`, `propertyOrdering`, which
    /// no validator asserts) is dropped with a warning either way.
    fn claude_code_keyword(&mut self, o: &mut Map<String, Value>, k: &str, at: &str) {
        if CLAUDE_CODE.contains(&k) || (self.modern && DRAFT_07_FORM.contains(&k)) {
            return;
        }
        let why = format!("Claude Code's --json-schema validator (Ajv, draft-07) refuses `{k}`");
        if KNOWN.contains(&k) && !ANNOTATIONS.contains(&k) && !self.unknown_here(k) {
            if self.lossy(
                at,
                WarningKind::KeywordDropped,
                format!("dropped {at}: {why}"),
            ) {
                o.shift_remove(k);
            }
        } else {
            self.warnings.push(Warning::new(
                WarningKind::UnknownKeywordDropped,
                format!("dropped {at}: {why}; no validator checks it, so nothing is lost"),
            ));
            o.shift_remove(k);
        }
    }

    /// `k` is a keyword of a later draft than the input's, so an annotation in it.
    fn unknown_here(&self, k: &str) -> bool {
        !self.modern && LATER.contains(&k)
    }

    fn object(&mut self, o: &mut Map<String, Value>, p: &str) {
        if !o.contains_key("type") {
            // An object node by its properties: providers need the type said.
            o.insert("type".into(), json!("object"));
        }
        if !o.get("properties").is_some_and(Value::is_object) {
            o.insert("properties".into(), Value::Object(Map::new()));
        }
        if !o.get("required").is_some_and(Value::is_array) {
            o.insert("required".into(), Value::Array(Vec::new()));
        }
        if matches!(self.provider, Provider::Openai | Provider::Anthropic) {
            match o.get("additionalProperties") {
                Some(Value::Bool(false)) => {}
                None => {
                    o.insert("additionalProperties".into(), Value::Bool(false));
                }
                Some(_) => {
                    let at = format!("{p}/additionalProperties");
                    let msg = format!(
                        "{at} set to false: {} needs closed objects, so extra properties are no longer accepted",
                        self.id()
                    );
                    if self.lossy(&at, WarningKind::AdditionalPropertiesClosed, msg) {
                        o.insert("additionalProperties".into(), Value::Bool(false));
                    }
                }
            }
        }
        if self.provider == Provider::Openai {
            self.all_required(o, p);
        }
    }

    /// OpenAI: every property required; the optional ones accept null instead.
    fn all_required(&mut self, o: &mut Map<String, Value>, p: &str) {
        let required: Vec<String> = o["required"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let Some(Value::Object(props)) = o.get_mut("properties") else {
            return;
        };
        let mut added = Vec::new();
        let mut ambiguous = Vec::new();
        for (name, s) in props.iter_mut() {
            if required.contains(name) {
                continue;
            }
            let at = format!("{p}/properties/{}", escape(name));
            if shape::accepts_null(s, &self.snapshot, 0) {
                // Not given and null are one answer once it is required: no exact inverse.
                ambiguous.push(at);
                added.push(name.clone());
                continue;
            }
            nullable(s);
            if let Value::Object(o) = s {
                o.insert(shape::NULLED.into(), Value::Bool(true));
            }
            added.push(name.clone());
            self.warnings.push(Warning::new(
                WarningKind::OptionalMadeNullable,
                format!(
                    "{at} is now required and accepts null: OpenAI strict mode has no optional properties; null means \"not given\" (`sojx extract --provider openai` removes it)"
                ),
            ));
        }
        for at in ambiguous {
            let msg = format!(
                "{at} is optional and accepts null, and OpenAI strict mode has no optional properties: it is now required, so not given and null are one answer (read back as null)"
            );
            self.lossy(&at, WarningKind::AbsentAsNull, msg);
        }
        if let Some(Value::Array(r)) = o.get_mut("required") {
            r.extend(added.into_iter().map(Value::String));
        }
    }
}

/// 2019-09 and 2020-12 keywords that draft-07 says otherwise: rewritten by [`to_draft_07`].
const DRAFT_07_FORM: &[&str] = &["prefixItems", "dependentRequired", "dependentSchemas"];

/// Keywords 2019-09 and 2020-12 added (unknown, so annotations, in an earlier draft).
#[rustfmt::skip]
const LATER: &[&str] = &[
    "prefixItems", "dependentRequired", "dependentSchemas", "unevaluatedItems",
    "unevaluatedProperties", "minContains", "maxContains", "$anchor", "$dynamicRef",
    "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
];

/// Post-order: 2019-09/2020-12 keywords in draft-07's terms, which mean the same.
/// `prefixItems: [A, B]` and `items: C` become `items: [A, B]` and `additionalItems: C`;
/// `dependentRequired` and `dependentSchemas` merge into `dependencies` (a name in both: its
/// schema and `required` under `allOf`).
fn to_draft_07(v: &mut Value, p: &str) {
    for_children(v, p, &mut |c, cp| to_draft_07(c, cp));
    let Value::Object(o) = v else { return };
    if let Some(prefix) = o.shift_remove("prefixItems") {
        if let Some(rest) = o.shift_remove("items") {
            o.insert("additionalItems".into(), rest);
        }
        o.insert("items".into(), prefix);
    }
    let required = o.shift_remove("dependentRequired");
    let schemas = o.shift_remove("dependentSchemas");
    if required.is_none() && schemas.is_none() {
        return;
    }
    let mut deps = match o.shift_remove("dependencies") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    for (name, dep) in [required, schemas]
        .into_iter()
        .filter_map(|m| m.and_then(|m| m.as_object().cloned()))
        .flatten()
    {
        let merged = match deps.remove(&name) {
            None => dep,
            Some(Value::Array(names)) => json!({"allOf": [{"required": names}, dep]}),
            Some(other) => json!({"allOf": [other, dep]}),
        };
        deps.insert(name, merged);
    }
    o.insert("dependencies".into(), Value::Object(deps));
}

/// Post-order: draft-04's boolean `exclusiveMaximum`/`exclusiveMinimum` in draft-07's terms,
/// where they are the bound itself: `{maximum: n, exclusiveMaximum: true}` becomes
/// `{exclusiveMaximum: n}`, and a `false` one goes (draft-07 requires a number there, so Claude
/// Code's Ajv would refuse the schema).
fn from_draft_04(v: &mut Value, p: &str) {
    for_children(v, p, &mut |c, cp| from_draft_04(c, cp));
    let Value::Object(o) = v else { return };
    for (bound, exclusive) in [
        ("maximum", "exclusiveMaximum"),
        ("minimum", "exclusiveMinimum"),
    ] {
        match o.get(exclusive) {
            Some(Value::Bool(true)) => {
                if let Some(n) = o.shift_remove(bound) {
                    o.insert(exclusive.into(), n);
                } else {
                    o.shift_remove(exclusive);
                }
            }
            Some(Value::Bool(false)) => {
                o.shift_remove(exclusive);
            }
            _ => {}
        }
    }
}

/// Claude Code's `$schema`: draft-07's, first, when the input named another draft or was
/// rewritten in draft-07's terms; a warning when one was replaced.
fn claude_code_draft(doc: &mut Value, rewritten: bool, warnings: &mut Vec<Warning>) {
    let Value::Object(o) = doc else { return };
    let had = o.get("$schema").cloned();
    if had.as_ref().is_some_and(claude_code_takes_draft) || (had.is_none() && !rewritten) {
        return;
    }
    if let Some(d) = &had {
        warnings.push(Warning::new(
            WarningKind::SchemaDraftChanged,
            format!(
                "/$schema: {d} became \"{CLAUDE_CODE_DRAFT}\": Claude Code's --json-schema validator (Ajv) takes draft-07 only, and refuses the schema otherwise"
            ),
        ));
    }
    let rest = std::mem::take(o);
    o.insert("$schema".into(), json!(CLAUDE_CODE_DRAFT));
    o.extend(rest.into_iter().filter(|(k, _)| k != "$schema"));
}

/// Each direct subschema of `v`, mutably, with its pointer (the same positions as
/// [`crate::lint::children`]).
fn for_children(v: &mut Value, ptr: &str, f: &mut dyn FnMut(&mut Value, &str)) {
    let Value::Object(o) = v else { return };
    for (k, child) in o.iter_mut() {
        let p = format!("{ptr}/{}", escape(k));
        match (shape(k), child) {
            (Some(Shape::One | Shape::OneOrList), c @ (Value::Object(_) | Value::Bool(_))) => {
                f(c, &p);
            }
            (Some(Shape::List | Shape::OneOrList), Value::Array(a)) => {
                for (i, c) in a.iter_mut().enumerate() {
                    f(c, &format!("{p}/{i}"));
                }
            }
            (Some(Shape::Map), Value::Object(m)) => {
                for (name, c) in m
                    .iter_mut()
                    .filter(|(_, c)| c.is_object() || c.is_boolean())
                {
                    f(c, &format!("{p}/{}", escape(name)));
                }
            }
            _ => {}
        }
    }
}

/// Lower a schema document for a provider: the compiled schema and its warnings, or the
/// refusals (`strict`).
pub fn lower(
    loaded: &schema::SchemaDoc,
    settings: &schema::Settings,
    provider: Provider,
    compat: Compat,
) -> Result<(Plan, Vec<Warning>), Failure> {
    loaded.compile(settings)?;
    let draft = crate::lint::draft_of(&loaded.document, settings.draft);
    let mut l = Lowering {
        provider,
        compat,
        modern: matches!(
            draft,
            jsonschema::Draft::Draft201909 | jsonschema::Draft::Draft202012
        ),
        warnings: Vec::new(),
        refused: Vec::new(),
        snapshot: Value::Null,
    };
    let mut doc = loaded.document.clone();
    let external = external_refs(&doc);
    if !external.is_empty() {
        doc = schema::dereference(loaded, settings)?;
        for (at, r) in &external {
            l.warnings.push(Warning::new(
                WarningKind::ExternalRefInlined,
                format!(
                    "{at}: `{r}` inlined ({} resolves only references inside the document)",
                    l.id()
                ),
            ));
        }
    }
    if doc == Value::Bool(true)
        || doc
            .as_object()
            .is_some_and(|o| o.keys().all(|k| ANNOTATIONS.contains(&k.as_str())))
    {
        l.warnings.push(Warning::new(
            WarningKind::EmptySchema,
            "the schema constrains nothing: the compiled schema enforces nothing either",
        ));
    }
    l.keywords_pass(&mut doc, "");
    if provider == Provider::ClaudeCode {
        // Claude Code needs nothing of objects; it needs draft-07.
        let before = doc.clone();
        if l.modern {
            to_draft_07(&mut doc, "");
        }
        if draft == jsonschema::Draft::Draft4 {
            from_draft_04(&mut doc, "");
        }
        let rewritten = doc != before;
        claude_code_draft(&mut doc, rewritten, &mut l.warnings);
    } else {
        l.snapshot = doc.clone();
        l.objects_pass(&mut doc, "");
    }
    let wrapped = needs_object_root(provider) && !root_is_object(&doc);
    if wrapped {
        doc = wrap(doc);
        l.warnings.push(Warning::new(
            WarningKind::RootWrapped,
            format!(
                "the root is not an object, and {} needs one: it was wrapped as /properties/{WRAP_KEY}; `sojx extract --provider {}` unwraps the answer (or `jq .{WRAP_KEY}`)",
                l.id(),
                l.id()
            ),
        ));
    }
    if l.refused.is_empty() {
        let plan = shape::plan(l.id(), doc, wrapped.then_some(WRAP_KEY));
        return Ok((plan, l.warnings));
    }
    let n = l.refused.len();
    let first = l.refused[0].message.clone();
    Err(Failure::new(
        ErrorKind::SchemaInvalid,
        Operation::Compile,
        format!("{n} change(s) would lose meaning for {} (first: {first})", l.id()),
    )
    .target(loaded.name.clone())
    .retryable(false)
    .hint("error.details lists each; fix the schema, or use --compat lossy to drop them with warnings")
    .details(Details::Refused(l.refused)))
}

/// `sojx compile SCHEMA`, read with `settings`, lowered for `provider`: one envelope.
pub fn run(
    schema: &str,
    settings: &schema::Settings,
    provider: Provider,
    compat: Compat,
) -> Envelope {
    if let Err(f) = schema::check_options(settings) {
        return envelope::failure(Command::Compile, schema, f, Parts::default());
    }
    let result = schema::read(schema, settings.files().as_ref())
        .and_then(|loaded| lower(&loaded, settings, provider, compat).map(|r| (loaded.name, r)));
    match result {
        Ok((name, (plan, warnings))) => envelope::success(
            Command::Compile,
            &name,
            plan.schema().clone(),
            Parts {
                warnings,
                ..Parts::default()
            },
        ),
        Err(f) => {
            let name = if f.target.is_empty() {
                schema.to_owned()
            } else {
                f.target.clone()
            };
            envelope::failure(Command::Compile, &name, f, Parts::default())
        }
    }
}
