//! The keyword tables: every keyword of drafts 4 to 2020-12, and what each provider's
//! structured output supports.

use crate::cli::Provider;

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

/// The keywords provider `p` honours (besides [`ANNOTATIONS`]).
pub(crate) fn supported(p: Provider) -> &'static [&'static str] {
    match p {
        Provider::Openai => OPENAI,
        Provider::Anthropic => ANTHROPIC,
        Provider::Gemini => GEMINI,
    }
}

/// The string formats provider `p` honours.
pub(crate) fn formats(p: Provider) -> &'static [&'static str] {
    match p {
        Provider::Openai => OPENAI_FORMATS,
        Provider::Anthropic => ANTHROPIC_FORMATS,
        Provider::Gemini => GEMINI_FORMATS,
    }
}

/// Provider `p` does not honour keyword `k` (a known JSON Schema keyword, not an annotation).
pub(crate) fn unsupported(p: Provider, k: &str) -> bool {
    KNOWN.contains(&k) && !ANNOTATIONS.contains(&k) && !supported(p).contains(&k)
}

/// Claude tools take an object `input_schema` and OpenAI strict mode an object root.
pub(crate) fn needs_object_root(p: Provider) -> bool {
    matches!(p, Provider::Anthropic | Provider::Openai)
}
