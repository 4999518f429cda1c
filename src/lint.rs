//! `sojx lint SCHEMA [--provider P]`: is SCHEMA a valid JSON Schema, and will a provider's
//! structured-output feature accept it as written?
//!
//! Meta-validation against the schema's draft comes first, then sojx's own compile (offline
//! references, regexes), then traps that silently disable enforcement, then each provider's
//! documented limits. Every finding has a JSON Pointer into the schema, the provider it concerns
//! (`all` for rules that hold everywhere), a severity, a rule id, a message and a fix.
//!
//! Sources (each rule below names the one it relies on):
//! - OpenAI: <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>
//! - Anthropic: <https://docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations>
//!   and tool use <https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use>
//! - Gemini: <https://ai.google.dev/gemini-api/docs/structured-output#json-schema>

use jsonschema::Draft;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::cli::{self, LintProvider, Provider};
use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure};
use crate::pointer::escape;
use crate::schema::{self, Loaded};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// JSON Pointer into the (unwrapped) schema; `""` is the root.
    pub pointer: String,
    /// `anthropic`, `openai`, `gemini`, or `all`.
    pub provider: &'static str,
    pub severity: Severity,
    pub rule: &'static str,
    pub message: String,
    pub fix: String,
}

pub fn provider_id(p: Provider) -> &'static str {
    match p {
        Provider::Anthropic => "anthropic",
        Provider::Openai => "openai",
        Provider::Gemini => "gemini",
    }
}

fn providers(p: LintProvider) -> Vec<Provider> {
    match p {
        LintProvider::Anthropic => vec![Provider::Anthropic],
        LintProvider::Openai => vec![Provider::Openai],
        LintProvider::Gemini => vec![Provider::Gemini],
        LintProvider::All => vec![Provider::Anthropic, Provider::Openai, Provider::Gemini],
    }
}

// ---------------------------------------------------------------------------------------------
// Keyword tables.

/// Every keyword of drafts 4 to 2020-12 (core, applicator, validation, format, content,
/// meta-data vocabularies; <https://json-schema.org/draft/2020-12/json-schema-validation> and the
/// earlier drafts' keyword lists), plus Gemini's `propertyOrdering` annotation.
#[rustfmt::skip]
pub const KNOWN: &[&str] = &[
    "$schema", "$id", "id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef",
    "$recursiveAnchor", "$vocabulary", "$comment", "$defs", "definitions", "allOf", "anyOf",
    "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies", "prefixItems",
    "items", "additionalItems", "contains", "properties", "patternProperties",
    "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "type",
    "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
    "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "format",
    "contentEncoding", "contentMediaType", "contentSchema", "title", "description", "default",
    "deprecated", "readOnly", "writeOnly", "examples", "propertyOrdering",
];

/// Keywords that constrain nothing (annotations, identifiers, containers): every provider
/// accepts or ignores them harmlessly.
#[rustfmt::skip]
pub const ANNOTATIONS: &[&str] = &[
    "$schema", "$id", "id", "$comment", "$defs", "definitions", "title", "description", "default",
    "examples", "deprecated", "readOnly", "writeOnly", "propertyOrdering",
];

/// OpenAI strict mode, "Supported schemas": types, `enum`, `const`, `anyOf`, `$ref`/`$defs`;
/// strings `pattern`, `format`; numbers `multipleOf`, `maximum`, `exclusiveMaximum`,
/// `minimum`, `exclusiveMinimum`; arrays `minItems`, `maxItems`; objects `properties`,
/// `required`, `additionalProperties` (false).
/// <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>
#[rustfmt::skip]
const OPENAI: &[&str] = &[
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "$ref", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "minItems", "maxItems",
];
/// Same page: the string formats strict mode supports.
#[rustfmt::skip]
const OPENAI_FORMATS: &[&str] = &[
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid",
];

/// Claude structured outputs / strict tools, "JSON Schema limitations": supported are the
/// basic types, `enum`, `const`, `anyOf`, `allOf`, `$ref`/`$defs`/`definitions` (local only),
/// `required`, `additionalProperties: false`, string `format`s and `pattern`, and `minItems` of
/// 0 or 1; numeric and string-length constraints and recursion are not.
/// <https://docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations>
#[rustfmt::skip]
const ANTHROPIC: &[&str] = &[
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "allOf", "$ref", "format", "pattern", "minItems",
];
/// Same page: supported string formats.
#[rustfmt::skip]
const ANTHROPIC_FORMATS: &[&str] = &[
    "date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid",
];

/// Gemini `responseJsonSchema`, "JSON Schema support": `type`, `title`, `description`,
/// `properties`, `required`, `additionalProperties`, `enum`, `format`, `minimum`, `maximum`,
/// `items`, `prefixItems`, `minItems`, `maxItems`, `anyOf`, `$ref`, `$defs`; anything else is
/// ignored. <https://ai.google.dev/gemini-api/docs/structured-output#json-schema>
#[rustfmt::skip]
const GEMINI: &[&str] = &[
    "type", "properties", "required", "additionalProperties", "items", "prefixItems", "enum",
    "format", "minimum", "maximum", "minItems", "maxItems", "anyOf", "$ref",
];
/// Same page: string formats Gemini honours.
const GEMINI_FORMATS: &[&str] = &["date-time", "date", "time"];

/// The keywords provider `p` honours (besides [`ANNOTATIONS`]).
pub fn supported(p: Provider) -> &'static [&'static str] {
    match p {
        Provider::Openai => OPENAI,
        Provider::Anthropic => ANTHROPIC,
        Provider::Gemini => GEMINI,
    }
}

/// The string formats provider `p` honours.
pub fn formats(p: Provider) -> &'static [&'static str] {
    match p {
        Provider::Openai => OPENAI_FORMATS,
        Provider::Anthropic => ANTHROPIC_FORMATS,
        Provider::Gemini => GEMINI_FORMATS,
    }
}

/// Provider `p` does not honour keyword `k` (a known JSON Schema keyword, not an annotation).
pub fn unsupported(p: Provider, k: &str) -> bool {
    KNOWN.contains(&k) && !ANNOTATIONS.contains(&k) && !supported(p).contains(&k)
}

/// Claude tools take an object `input_schema` and OpenAI strict mode an object root.
pub fn needs_object_root(p: Provider) -> bool {
    matches!(p, Provider::Anthropic | Provider::Openai)
}

// ---------------------------------------------------------------------------------------------
// Walking schemas.

/// How a keyword holds subschemas.
#[derive(Clone, Copy)]
pub enum Shape {
    One,
    List,
    Map,
    /// `items`: one schema, or (before 2020-12) a list.
    OneOrList,
}

pub fn shape(keyword: &str) -> Option<Shape> {
    Some(match keyword {
        "additionalProperties"
        | "additionalItems"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => Shape::One,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Shape::List,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        | "dependencies" => Shape::Map,
        "items" => Shape::OneOrList,
        _ => return None,
    })
}

/// The direct subschemas of `v` with their pointers.
pub fn children<'a>(v: &'a Value, ptr: &str) -> Vec<(&'a Value, String)> {
    let mut out = Vec::new();
    let Value::Object(o) = v else { return out };
    for (k, child) in o {
        let p = format!("{ptr}/{}", escape(k));
        match (shape(k), child) {
            (Some(Shape::One | Shape::OneOrList), Value::Object(_) | Value::Bool(_)) => {
                out.push((child, p));
            }
            (Some(Shape::List | Shape::OneOrList), Value::Array(a)) => {
                out.extend(a.iter().enumerate().map(|(i, c)| (c, format!("{p}/{i}"))));
            }
            (Some(Shape::Map), Value::Object(m)) => {
                out.extend(
                    m.iter()
                        .filter(|(_, c)| c.is_object() || c.is_boolean())
                        .map(|(name, c)| (c, format!("{p}/{}", escape(name)))),
                );
            }
            _ => {}
        }
    }
    out
}

/// Pre-order walk over every subschema.
pub fn walk<'a>(v: &'a Value, ptr: &str, f: &mut dyn FnMut(&'a Value, &str)) {
    f(v, ptr);
    for (c, p) in children(v, ptr) {
        walk(c, &p, f);
    }
}

/// The node describes an object (its `type` says so, or it has `properties`).
pub fn is_object_node(o: &Map<String, Value>) -> bool {
    match o.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => o.contains_key("properties"),
    }
}

fn has_type(o: &Map<String, Value>, t: &str) -> bool {
    match o.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(ts)) => ts.iter().any(|x| x == t),
        _ => false,
    }
}

/// `$ref`s that leave the document (not `#…`).
pub fn external_refs(doc: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk(doc, "", &mut |v, p| {
        if let Some(Value::String(r)) = v.get("$ref")
            && !r.starts_with('#')
        {
            out.push((format!("{p}/$ref"), r.clone()));
        }
    });
    out
}

/// A node with nothing that gives it a type: OpenAI strict mode rejects it.
pub fn untyped(o: &Map<String, Value>) -> bool {
    !["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
        .iter()
        .any(|k| o.contains_key(*k))
}

/// The regex feature Claude's constrained decoding lacks, if `re` uses one.
fn unsupported_regex(re: &str) -> Option<&'static str> {
    if ["(?=", "(?!", "(?<=", "(?<!"]
        .iter()
        .any(|x| re.contains(x))
    {
        return Some("lookaround");
    }
    let b = re.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            match b[i + 1] {
                b'b' | b'B' => return Some("a word boundary"),
                b'1'..=b'9' | b'k' => return Some("a backreference"),
                _ => {}
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    None
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known keyword `k` was probably meant as, if any.
fn did_you_mean(k: &str) -> Option<&'static str> {
    if k.chars().count() < 3 {
        return None;
    }
    let lower = k.to_ascii_lowercase();
    KNOWN
        .iter()
        .map(|w| (distance(&lower, &w.to_ascii_lowercase()), *w))
        .filter(|(d, w)| *d <= if w.len() > 6 { 2 } else { 1 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, w)| w)
}

// ---------------------------------------------------------------------------------------------
// Rules.

struct Lint {
    findings: Vec<Finding>,
}

impl Lint {
    fn add(
        &mut self,
        pointer: &str,
        provider: &'static str,
        severity: Severity,
        rule: &'static str,
        message: String,
        fix: impl Into<String>,
    ) {
        self.findings.push(Finding {
            pointer: pointer.to_owned(),
            provider,
            severity,
            rule,
            message,
            fix: fix.into(),
        });
    }

    /// Traps that hold for every provider and for sojx itself.
    fn generic(&mut self, doc: &Value) {
        match doc {
            // An empty schema accepts anything: structured output enforces nothing.
            Value::Bool(true) => self.add(
                "",
                "all",
                Severity::Warning,
                "empty_schema",
                "the schema is `true`: every value is valid, so nothing is enforced".into(),
                "describe the expected object: type, properties, required",
            ),
            Value::Bool(false) => self.add(
                "",
                "all",
                Severity::Error,
                "false_schema",
                "the schema is `false`: no value can ever be valid".into(),
                "describe the expected value instead of `false`",
            ),
            Value::Object(o) if o.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) => self.add(
                "",
                "all",
                Severity::Warning,
                "empty_schema",
                "the schema has no constraining keyword: every value is valid, so nothing is enforced"
                    .into(),
                "describe the expected object: type, properties, required",
            ),
            _ => {}
        }
        walk(doc, "", &mut |v, p| {
            let Value::Object(o) = v else { return };
            for k in o.keys() {
                self.keyword(p, k);
            }
            self.required_in_properties(o, p);
        });
    }

    /// A keyword no draft defines is ignored by every validator: a typo silently disables the
    /// constraint it was meant to be (JSON Schema 2020-12 core §6.5: unknown keywords are
    /// collected as annotations, never asserted).
    fn keyword(&mut self, p: &str, k: &str) {
        if KNOWN.contains(&k) || k.starts_with("x-") {
            return;
        }
        let at = format!("{p}/{}", escape(k));
        if k == "nullable" {
            // OpenAPI 3.0's `nullable` is not JSON Schema; validators and strict modes ignore it.
            self.add(
                &at,
                "all",
                Severity::Warning,
                "openapi_nullable",
                "`nullable` is OpenAPI 3.0, not JSON Schema: it is ignored, so null is not accepted"
                    .into(),
                "use \"type\": [\"<type>\", \"null\"] (or anyOf with {\"type\": \"null\"})",
            );
        } else if let Some(w) = did_you_mean(k) {
            self.add(
                &at,
                "all",
                Severity::Error,
                "keyword_typo",
                format!("unknown keyword `{k}` is ignored, so this constraint is not enforced"),
                format!("rename it to `{w}`"),
            );
        } else {
            self.add(
                &at,
                "all",
                Severity::Warning,
                "unknown_keyword",
                format!("unknown keyword `{k}` is ignored by validators and providers"),
                "remove it, or prefix it with x- to mark it as an extension",
            );
        }
    }

    /// `required` naming a property that `properties` does not define: with
    /// `additionalProperties: false` no object can satisfy both (JSON Schema validation §10.3.2.3
    /// and core §10.3.2.3 together).
    fn required_in_properties(&mut self, o: &Map<String, Value>, p: &str) {
        let (Some(Value::Array(req)), Some(Value::Object(props))) =
            (o.get("required"), o.get("properties"))
        else {
            return;
        };
        let closed = o.get("additionalProperties") == Some(&Value::Bool(false));
        for (i, name) in req.iter().enumerate() {
            if let Some(n) = name.as_str()
                && !props.contains_key(n)
            {
                let (severity, why) = if closed {
                    (
                        Severity::Error,
                        "and additionalProperties is false, so no object can be valid",
                    )
                } else {
                    (Severity::Warning, "so its value is unconstrained")
                };
                self.add(
                    &format!("{p}/required/{i}"),
                    "all",
                    severity,
                    "required_not_in_properties",
                    format!("required property `{n}` is not defined in properties, {why}"),
                    format!("define `{n}` under properties, or fix the name in required"),
                );
            }
        }
    }

    fn provider(&mut self, doc: &Value, prov: Provider) {
        let id = provider_id(prov);
        if needs_object_root(prov) {
            self.object_root(doc, prov);
        }
        for (at, r) in external_refs(doc) {
            // All three providers resolve only references inside the schema document (OpenAI
            // "Definitions are supported" via `$defs`; Anthropic "external $ref" unsupported;
            // Gemini `$ref` to `$defs`).
            self.add(
                &at,
                id,
                Severity::Error,
                "external_ref",
                format!("`$ref: {r}` points outside the schema; {id} only resolves references into the same document"),
                format!("run `sojx compile --provider {id}`, which inlines it"),
            );
        }
        if prov == Provider::Openai {
            self.openai_limits(doc);
        }
        walk(doc, "", &mut |v, p| {
            let Value::Object(o) = v else { return };
            self.keywords_for(o, p, prov);
            if is_object_node(o) {
                self.object_rules(o, p, prov);
            }
            if prov == Provider::Openai && untyped(o) {
                // OpenAI rejects a strict schema node without a type ("schema must have a
                // 'type' key"); every node must be one of the supported types or anyOf.
                self.add(
                    p,
                    id,
                    Severity::Error,
                    "openai_type_missing",
                    "strict mode needs a `type` (or anyOf, $ref, enum, const) on every schema"
                        .into(),
                    "add a type; for \"anything\" there is no strict-mode equivalent",
                );
            }
            if prov == Provider::Anthropic {
                self.anthropic_node(o, p);
            }
        });
    }

    fn object_root(&mut self, doc: &Value, prov: Provider) {
        let id = provider_id(prov);
        let o = doc.as_object();
        if o.is_some_and(|o| has_type(o, "object") && !o.contains_key("anyOf")) {
            return;
        }
        let combinator = o.and_then(|o| {
            ["oneOf", "anyOf", "allOf"]
                .into_iter()
                .find(|k| o.contains_key(*k))
        });
        let what = match combinator {
            Some(k) => format!("the root is a top-level `{k}`"),
            None => "the root is not `\"type\": \"object\"`".to_owned(),
        };
        // Anthropic: a tool's `input_schema` is an object schema (tool use docs), and Claude
        // Code's --json-schema goes through a tool. OpenAI: "the root level object must be an
        // object, and not use anyOf" (supported-schemas).
        let (rule, who) = if prov == Provider::Openai {
            ("openai_root_object", "OpenAI strict mode")
        } else {
            ("anthropic_root_object", "Claude tool input schemas")
        };
        self.add(
            "",
            id,
            Severity::Error,
            rule,
            format!("{what}; {who} need an object root"),
            format!(
                "wrap it: {{\"type\":\"object\",\"properties\":{{\"value\": …}},\"required\":[\"value\"]}} (`sojx compile --provider {id}` does this)"
            ),
        );
    }

    fn keywords_for(&mut self, o: &Map<String, Value>, p: &str, prov: Provider) {
        let id = provider_id(prov);
        for (k, v) in o {
            let at = format!("{p}/{}", escape(k));
            if unsupported(prov, k) {
                // OpenAI rejects unsupported keywords in strict mode; Claude's structured
                // outputs do not enforce them (and strict mode refuses them); Gemini ignores
                // them. Sources: the pages in the module docs.
                let (severity, rule, effect) = match prov {
                    Provider::Openai => (
                        Severity::Error,
                        "openai_unsupported_keyword",
                        "strict mode rejects the schema",
                    ),
                    Provider::Anthropic => (
                        Severity::Warning,
                        "anthropic_unsupported_keyword",
                        "structured outputs do not enforce it (strict tools reject it; Claude Code and sojx still check it)",
                    ),
                    Provider::Gemini => (
                        Severity::Warning,
                        "gemini_unsupported_keyword",
                        "Gemini ignores it, so the model may break it",
                    ),
                };
                self.add(
                    &at,
                    id,
                    severity,
                    rule,
                    format!("`{k}` is not supported by {id}: {effect}"),
                    format!(
                        "remove it or move the constraint into description (`sojx compile --provider {id}` drops it with a warning)"
                    ),
                );
            }
            if k == "format"
                && let Some(f) = v.as_str()
                && !formats(prov).contains(&f)
            {
                self.add(
                    &at,
                    id,
                    Severity::Warning,
                    "format_ignored",
                    format!(
                        "format `{f}` is not one {id} supports ({}); the model is not held to it (sojx still checks it)",
                        formats(prov).join(", ")
                    ),
                    "use a supported format or a pattern, or say it in description",
                );
            }
        }
    }

    fn object_rules(&mut self, o: &Map<String, Value>, p: &str, prov: Provider) {
        let id = provider_id(prov);
        let closed = o.get("additionalProperties") == Some(&Value::Bool(false));
        match prov {
            // OpenAI: "additionalProperties: false must always be set in objects".
            Provider::Openai if !closed => self.add(
                p,
                id,
                Severity::Error,
                "openai_additional_properties",
                "strict mode needs `additionalProperties: false` on every object".into(),
                "add \"additionalProperties\": false",
            ),
            // Anthropic: "additionalProperties must be set to false" for structured outputs.
            Provider::Anthropic if !closed => self.add(
                p,
                id,
                Severity::Warning,
                "anthropic_additional_properties",
                "Claude structured outputs need `additionalProperties: false` on every object"
                    .into(),
                "add \"additionalProperties\": false",
            ),
            _ => {}
        }
        if prov == Provider::Openai {
            // OpenAI: "All fields must be required"; optional fields are emulated with a union
            // with null.
            let req: Vec<&str> = o
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(Value::Object(props)) = o.get("properties") {
                for name in props.keys().filter(|n| !req.contains(&n.as_str())) {
                    self.add(
                        &format!("{p}/properties/{}", escape(name)),
                        id,
                        Severity::Error,
                        "openai_required",
                        format!("property `{name}` is optional; strict mode needs every property in required"),
                        "add it to required and allow null for \"not given\" (\"type\": [\"<type>\", \"null\"]); `sojx compile --provider openai` does this",
                    );
                }
            }
        }
    }

    fn anthropic_node(&mut self, o: &Map<String, Value>, p: &str) {
        // "minItems: only 0 and 1 are supported".
        if let Some(n) = o.get("minItems").and_then(Value::as_u64)
            && n > 1
        {
            self.add(
                &format!("{p}/minItems"),
                "anthropic",
                Severity::Warning,
                "anthropic_min_items",
                format!("minItems {n}: Claude structured outputs support only 0 or 1"),
                "use minItems 0 or 1 and say the rest in description",
            );
        }
        // "Complex types within enums are not supported".
        if let Some(Value::Array(e)) = o.get("enum")
            && e.iter().any(|x| x.is_object() || x.is_array())
        {
            self.add(
                &format!("{p}/enum"),
                "anthropic",
                Severity::Warning,
                "anthropic_complex_enum",
                "enum holds objects or arrays; Claude structured outputs support only scalar enum values".into(),
                "use anyOf with const subschemas, or scalar values",
            );
        }
        // "pattern: simple regular expressions only: no backreferences, lookahead/lookbehind
        // or word boundaries".
        if let Some(re) = o.get("pattern").and_then(Value::as_str)
            && let Some(what) = unsupported_regex(re)
        {
            self.add(
                &format!("{p}/pattern"),
                "anthropic",
                Severity::Warning,
                "anthropic_pattern",
                format!("the pattern uses {what}, which Claude structured outputs do not support"),
                "simplify the pattern (no lookaround, backreferences or \\b)",
            );
        }
        // "Recursive schemas are not supported": a local $ref to an ancestor of itself.
        if let Some(Value::String(r)) = o.get("$ref")
            && let Some(target) = r.strip_prefix('#')
            && (p == target || p.starts_with(&format!("{target}/")))
        {
            self.add(
                &format!("{p}/$ref"),
                "anthropic",
                Severity::Warning,
                "anthropic_recursive",
                format!("`$ref: {r}` makes the schema recursive; Claude structured outputs do not support recursion"),
                "bound the depth: unroll the recursion a fixed number of levels",
            );
        }
    }

    /// OpenAI: "up to 5000 object properties total, with up to 10 levels of nesting"; "up to
    /// 1000 enum values across all enum properties"; a single enum over 250 values may total at
    /// most 15,000 characters.
    fn openai_limits(&mut self, doc: &Value) {
        let (mut props, mut enums, mut depth) = (0usize, 0usize, 0usize);
        fn nest(v: &Value, d: usize, max: &mut usize) {
            let d = if v.as_object().is_some_and(is_object_node) {
                d + 1
            } else {
                d
            };
            *max = (*max).max(d);
            for (c, _) in children(v, "") {
                nest(c, d, max);
            }
        }
        nest(doc, 0, &mut depth);
        walk(doc, "", &mut |v, p| {
            if let Some(Value::Object(m)) = v.get("properties") {
                props += m.len();
            }
            if let Some(Value::Array(e)) = v.get("enum") {
                enums += e.len();
                let chars: usize = e.iter().filter_map(Value::as_str).map(str::len).sum();
                if e.len() > 250 && chars > 15_000 {
                    self.add(
                        &format!("{p}/enum"),
                        "openai",
                        Severity::Error,
                        "openai_limits",
                        format!("an enum of {} values totalling {chars} characters; the limit over 250 values is 15,000", e.len()),
                        "shorten the values or split the enum",
                    );
                }
            }
        });
        for (what, n, max) in [
            ("object properties", props, 5000),
            ("levels of object nesting", depth, 10),
            ("enum values", enums, 1000),
        ] {
            if n > max {
                self.add(
                    "",
                    "openai",
                    Severity::Error,
                    "openai_limits",
                    format!("{n} {what}; strict mode allows at most {max}"),
                    "simplify the schema",
                );
            }
        }
    }
}

/// The counts of a finding list, by severity.
fn counts(findings: &[Finding]) -> Value {
    let n = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    json!({"error": n(Severity::Error), "warning": n(Severity::Warning), "info": n(Severity::Info)})
}

/// The draft a schema is read with: `--draft`, else its `$schema`, else 2020-12.
pub fn draft_of(doc: &Value, forced: Option<cli::Draft>) -> Draft {
    match forced {
        Some(d) => schema::to_draft(d),
        None => match Draft::default().detect(doc) {
            Draft::Unknown => Draft::default(),
            d => d,
        },
    }
}

/// Meta-validation: every violation of the draft's meta-schema, as findings.
fn meta(doc: &Value, draft: Draft) -> Vec<Finding> {
    let v = match draft {
        Draft::Draft4 => jsonschema::draft4::meta::validator(),
        Draft::Draft6 => jsonschema::draft6::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
        Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
        _ => jsonschema::draft202012::meta::validator(),
    };
    v.iter_errors(doc)
        .map(|e| Finding {
            pointer: e.instance_path().as_str().to_owned(),
            provider: "all",
            severity: Severity::Error,
            rule: "meta_schema",
            message: format!(
                "not valid JSON Schema (draft {}): {e}",
                schema::draft_name(draft)
            ),
            fix: format!(
                "fix the keyword at this pointer (see {} at the meta-schema)",
                e.evaluation_path().as_str()
            ),
        })
        .collect()
}

/// Lint a schema document for the given providers.
pub fn lint(loaded: &Loaded, args: &cli::SchemaArgs, which: LintProvider) -> Vec<Finding> {
    let doc = &loaded.document;
    let mut l = Lint {
        findings: meta(doc, draft_of(doc, args.draft)),
    };
    if l.findings.is_empty()
        && let Err(f) = schema::compile(doc, &loaded.name, loaded.base.as_deref(), args)
    {
        // The compile error's location in the schema, when the library gives one.
        let at = f
            .details
            .as_ref()
            .and_then(|d| d.pointer("/0/keyword_location"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        l.add(
            &at,
            "all",
            Severity::Error,
            "schema_compile",
            f.message,
            f.hint
                .unwrap_or_else(|| "fix the keyword at this pointer".to_owned()),
        );
    }
    l.generic(doc);
    for p in providers(which) {
        l.provider(doc, p);
    }
    l.findings
}

/// `sojx lint`: one envelope.
pub fn run(a: &cli::LintArgs) -> Envelope {
    let args = a.refs.schema_args(&a.schema);
    let loaded = match schema::read(&a.schema) {
        Ok(l) => l,
        Err(f) => return envelope::failure("lint", &a.schema, f, Parts::default()),
    };
    let findings = lint(&loaded, &args, a.provider);
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let meta_valid = !findings.iter().any(|f| f.rule == "meta_schema");
    let draft = schema::draft_name(draft_of(&loaded.document, args.draft));
    let validation = json!({"schema": loaded.name, "valid": meta_valid, "draft": draft});
    let data = json!({"findings": findings, "counts": counts(&findings)});
    if errors == 0 {
        return envelope::success(
            "lint",
            &loaded.name,
            data,
            Parts {
                validation: Some(validation),
                ..Parts::default()
            },
        );
    }
    let first = findings
        .iter()
        .find(|f| f.severity == Severity::Error)
        .map(|f| {
            format!(
                " (first: {} at {}: {})",
                f.rule,
                if f.pointer.is_empty() {
                    "/"
                } else {
                    &f.pointer
                },
                f.message
            )
        })
        .unwrap_or_default();
    let f = Failure::new(
        ErrorKind::SchemaInvalid,
        "lint",
        format!("{errors} error finding(s){first}"),
    )
    .target(loaded.name.clone())
    .retryable(false)
    .hint("error.details.findings lists each finding with its fix")
    .details(data);
    envelope::failure(
        "lint",
        &loaded.name,
        f,
        Parts {
            validation: Some(validation),
            ..Parts::default()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_recognised() {
        assert_eq!(did_you_mean("requried"), Some("required"));
        assert_eq!(
            did_you_mean("additionalproperties"),
            Some("additionalProperties")
        );
        assert_eq!(did_you_mean("maxLenght"), Some("maxLength"));
        assert_eq!(did_you_mean("widget"), None);
        assert_eq!(did_you_mean("ui"), None);
        assert_eq!(did_you_mean("ref"), Some("$ref"));
    }

    #[test]
    fn regex_features_claude_lacks() {
        assert_eq!(unsupported_regex(r"^a(?=b)"), Some("lookaround"));
        assert_eq!(unsupported_regex(r"(a)\1"), Some("a backreference"));
        assert_eq!(unsupported_regex(r"\bword"), Some("a word boundary"));
        assert_eq!(unsupported_regex(r"^[A-Z]{3}-\d+\\b$"), None);
    }

    #[test]
    fn walk_visits_every_subschema() {
        let s = json!({"properties": {"a/b": {"items": [{"type": "string"}]}},
                       "$defs": {"x": {"anyOf": [true, {"not": {}}]}}});
        let mut seen = Vec::new();
        walk(&s, "", &mut |_, p| seen.push(p.to_owned()));
        assert_eq!(
            seen,
            [
                "",
                "/properties/a~1b",
                "/properties/a~1b/items/0",
                "/$defs/x",
                "/$defs/x/anyOf/0",
                "/$defs/x/anyOf/1",
                "/$defs/x/anyOf/1/not"
            ]
        );
    }
}
