//! The rules: traps that silently disable enforcement, and each provider's documented limits.

use serde_json::{Map, Value};

use super::{
    ANNOTATIONS, CLAUDE_CODE, CLAUDE_CODE_DRAFT, Finding, Severity, Unknown, children,
    claude_code_takes_draft, external_refs, format_unsupported, formats, has_type, is_object_node,
    needs_object_root, unsupported, unsupported_regex, untyped, walk,
};
use crate::pointer::escape;
use crate::provider::{Provider, provider_id};

pub(super) struct Lint {
    pub(super) findings: Vec<Finding>,
}

impl Lint {
    pub(super) fn add(
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
    pub(super) fn generic(&mut self, doc: &Value) {
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
        let at = format!("{p}/{}", escape(k));
        match Unknown::of(k) {
            None => {}
            Some(Unknown::OpenApiNullable) => {
                // OpenAPI 3.0's `nullable` is not JSON Schema; validators and strict modes
                // ignore it.
                self.add(
                    &at,
                    "all",
                    Severity::Warning,
                    "openapi_nullable",
                    "`nullable` is OpenAPI 3.0, not JSON Schema: it is ignored, so null is not accepted"
                        .into(),
                    "use \"type\": [\"<type>\", \"null\"] (or anyOf with {\"type\": \"null\"})",
                );
            }
            Some(Unknown::Typo(typo)) => self.add(
                &at,
                "all",
                Severity::Error,
                "keyword_typo",
                typo.message(),
                typo.fix(),
            ),
            Some(Unknown::Other) => self.add(
                &at,
                "all",
                Severity::Warning,
                "unknown_keyword",
                format!("unknown keyword `{k}` is ignored by validators and providers"),
                "remove it, or prefix it with x- to mark it as an extension",
            ),
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

    pub(super) fn provider(&mut self, doc: &Value, prov: Provider) {
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
        if prov == Provider::ClaudeCode {
            self.claude_code_draft(doc);
        }
        walk(doc, "", &mut |v, p| {
            let Value::Object(o) = v else { return };
            if prov == Provider::ClaudeCode {
                self.claude_code_keywords(o, p);
                return;
            }
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
        // (Claude Code gives its schema to the API as the `StructuredOutput` tool's
        // `input_schema`: the rule is the API's.)
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
                    // (Checked by `claude_code_keywords` instead, which sees every keyword.)
                    Provider::ClaudeCode => (
                        Severity::Error,
                        "claude_code_unknown_keyword",
                        "Claude Code refuses the schema",
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
                && format_unsupported(prov, f)
            {
                self.add(
                    &at,
                    id,
                    Severity::Warning,
                    "format_ignored",
                    format!(
                        "format `{f}` is not one {id} supports ({}); the model is not held to it (sojx still checks it)",
                        formats(prov).unwrap_or_default().join(", ")
                    ),
                    "use a supported format or a pattern, or say it in description",
                );
            }
        }
    }

    /// Claude Code's validator (Ajv's default) knows draft-07 only: another `$schema` makes
    /// 2.1.332 exit 1 ("--json-schema is not a valid JSON Schema: no schema with key or ref
    /// …"); the issue that found it saw 2.1 drop the schema silently instead.
    fn claude_code_draft(&mut self, doc: &Value) {
        let Some(d) = doc.get("$schema") else { return };
        if claude_code_takes_draft(d) {
            return;
        }
        self.add(
            "/$schema",
            "claude-code",
            Severity::Error,
            "claude_code_schema_draft",
            format!(
                "`$schema: {d}`: Claude Code's --json-schema takes draft-07 only (its validator, Ajv, refuses another draft: `claude` exits 1, or drops the schema and answers in prose)"
            ),
            format!(
                "remove `$schema` or make it \"{CLAUDE_CODE_DRAFT}\" (keywords too: `sojx compile -r --provider claude-code` prints a schema Claude Code takes)"
            ),
        );
    }

    /// Ajv's strict mode refuses every keyword it does not know, `x-` extensions too.
    fn claude_code_keywords(&mut self, o: &Map<String, Value>, p: &str) {
        for k in o.keys().filter(|k| !CLAUDE_CODE.contains(&k.as_str())) {
            let how = if matches!(
                k.as_str(),
                "prefixItems" | "dependentRequired" | "dependentSchemas"
            ) {
                "rewrites it in draft-07's terms"
            } else {
                "drops it with a warning"
            };
            self.add(
                &format!("{p}/{}", escape(k)),
                "claude-code",
                Severity::Error,
                "claude_code_unknown_keyword",
                format!(
                    "Claude Code refuses the schema: its --json-schema validator (Ajv, draft-07, strict mode) does not know `{k}`"
                ),
                format!("remove it; `sojx compile --provider claude-code` {how}"),
            );
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
