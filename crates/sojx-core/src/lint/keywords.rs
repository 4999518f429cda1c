//! The keyword tables: every keyword of drafts 4 to 2020-12, and what each provider's
//! structured output supports.

use serde_json::Value;

use crate::provider::Provider;

/// Every keyword of drafts 4 to 2020-12 (core, applicator, validation, format, content,
/// meta-data vocabularies; <https://json-schema.org/draft/2020-12/json-schema-validation> and the
/// earlier drafts' keyword lists), plus Gemini's `propertyOrdering` annotation.
#[rustfmt::skip]
pub(crate) const KNOWN: &[&str] = &[
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
pub(crate) const ANNOTATIONS: &[&str] = &[
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

/// Claude Code `--json-schema`: checked by Ajv with its defaults (draft-07, strict mode), which
/// refuses a schema holding a keyword outside these (`x-` extensions too) and any `$schema` but
/// draft-07's. Ajv's draft-07 vocabularies (core, validation, applicator, format, metadata,
/// content) and its `nullable`; each refusal and acceptance below was tried with Claude Code
/// 2.1.332 (docs/schema-tools.md): refused `prefixItems`, `unevaluatedProperties`,
/// `unevaluatedItems`, `dependentRequired`, `dependentSchemas`, `minContains`, `maxContains`,
/// `$anchor`, `$dynamicAnchor`, `$recursiveAnchor`, `id`, `propertyOrdering`, `example`,
/// `discriminator`, `x-foo`; kept `$defs`, `$vocabulary`, `nullable`, `dependencies`,
/// `contentSchema` and the rest of this list. <https://ajv.js.org/json-schema.html>
#[rustfmt::skip]
pub(crate) const CLAUDE_CODE: &[&str] = &[
    "$schema", "$id", "$ref", "$defs", "definitions", "$comment", "$vocabulary", "nullable",
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "maxProperties", "minProperties", "required", "additionalItems", "items",
    "contains", "dependencies", "propertyNames", "additionalProperties", "properties",
    "patternProperties", "not", "anyOf", "oneOf", "allOf", "if", "then", "else", "format",
    "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    "contentMediaType", "contentEncoding", "contentSchema",
];

/// The `$schema` Claude Code takes (Ajv registers draft-07's meta-schema, with or without the
/// empty fragment); 2.1.332 refuses 2020-12, 2019-09, draft-04, draft-06 and `https://` draft-07.
pub(crate) const CLAUDE_CODE_DRAFT: &str = "http://json-schema.org/draft-07/schema#";

/// Claude Code takes `$schema: s`.
pub(crate) fn claude_code_takes_draft(s: &Value) -> bool {
    s.as_str().is_some_and(|s| {
        s.strip_suffix('#').unwrap_or(s) == "http://json-schema.org/draft-07/schema"
    })
}

/// The keywords provider `p` honours (besides [`ANNOTATIONS`]).
pub(crate) fn supported(p: Provider) -> &'static [&'static str] {
    match p {
        Provider::Openai => OPENAI,
        Provider::Anthropic => ANTHROPIC,
        Provider::Gemini => GEMINI,
        Provider::ClaudeCode => CLAUDE_CODE,
    }
}

/// The string formats provider `p` honours; `None`: any (Claude Code takes every format).
pub(crate) fn formats(p: Provider) -> Option<&'static [&'static str]> {
    match p {
        Provider::Openai => Some(OPENAI_FORMATS),
        Provider::Anthropic => Some(ANTHROPIC_FORMATS),
        Provider::Gemini => Some(GEMINI_FORMATS),
        Provider::ClaudeCode => None,
    }
}

/// Provider `p` does not honour format `f`.
pub(crate) fn format_unsupported(p: Provider, f: &str) -> bool {
    formats(p).is_some_and(|fs| !fs.contains(&f))
}

/// Provider `p` does not honour keyword `k` (a known JSON Schema keyword, not an annotation).
/// Claude Code refuses more than these: [`CLAUDE_CODE`].
pub(crate) fn unsupported(p: Provider, k: &str) -> bool {
    KNOWN.contains(&k) && !ANNOTATIONS.contains(&k) && !supported(p).contains(&k)
}

/// Claude tools take an object `input_schema` (Claude Code passes `--json-schema` on as its
/// `StructuredOutput` tool's, as the request log shows), and OpenAI strict mode an object root.
pub(crate) fn needs_object_root(p: Provider) -> bool {
    matches!(
        p,
        Provider::Anthropic | Provider::Openai | Provider::ClaudeCode
    )
}
