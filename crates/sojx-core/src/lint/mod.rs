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
//! - Claude Code `--json-schema`: Ajv's defaults (<https://ajv.js.org/json-schema.html>), as
//!   Claude Code 2.1.332 was seen to accept and refuse schemas (docs/schema-tools.md)

use jsonschema::Draft;
use serde::Serialize;
use serde_json::{Value, json};

use crate::details::Details;
use crate::envelope::{self, Envelope, Parts, Validation};
use crate::error::{ErrorKind, Failure, Operation};
use crate::names::Command;
use crate::provider::{LintProvider, Provider};
use crate::schema::{self, SchemaDoc};
use crate::warning::{Warning, WarningKind};

mod keywords;
mod rules;
mod walk;

pub(crate) use keywords::*;
pub(crate) use walk::*;

use rules::Lint;

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
    /// `anthropic`, `openai`, `gemini`, `claude-code`, or `all`.
    pub provider: &'static str,
    pub severity: Severity,
    pub rule: &'static str,
    pub message: String,
    pub fix: String,
}

/// What a schema earns wherever it is compiled (`extract`, `validate`, `run`, `compare`): a
/// warning per keyword typo, a constraint no validator enforces (lint's rule `keyword_typo`).
pub fn schema_warnings(doc: &Value) -> Vec<Warning> {
    typos(doc)
        .into_iter()
        .map(|(at, typo)| {
            Warning::new(
                WarningKind::KeywordTypo,
                format!(
                    "the schema at {at}: {}; {} (`sojx lint` checks the whole schema)",
                    typo.message(),
                    typo.fix()
                ),
            )
        })
        .collect()
}

fn providers(p: LintProvider) -> Vec<Provider> {
    match p {
        LintProvider::Anthropic => vec![Provider::Anthropic],
        LintProvider::Openai => vec![Provider::Openai],
        LintProvider::Gemini => vec![Provider::Gemini],
        LintProvider::ClaudeCode => vec![Provider::ClaudeCode],
        // `all` is the three APIs (contract §1); Claude Code's CLI check is asked for by name.
        LintProvider::All => vec![Provider::Anthropic, Provider::Openai, Provider::Gemini],
    }
}

/// The counts of a finding list, by severity.
fn counts(findings: &[Finding]) -> Value {
    let n = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    json!({"error": n(Severity::Error), "warning": n(Severity::Warning), "info": n(Severity::Info)})
}

/// The draft a schema is read with: `--draft`, else its `$schema`, else 2020-12.
pub(crate) fn draft_of(doc: &Value, forced: Option<Draft>) -> Draft {
    match forced {
        Some(d) => d,
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
pub fn lint(loaded: &SchemaDoc, settings: &schema::Settings, which: LintProvider) -> Vec<Finding> {
    let doc = &loaded.document;
    let mut l = Lint {
        findings: meta(doc, draft_of(doc, settings.draft)),
    };
    if l.findings.is_empty()
        && let Err(f) = loaded.compile(settings)
    {
        // The compile error's location in the schema, when the library gives one.
        let at = f
            .details
            .as_ref()
            .and_then(Details::violations)
            .and_then(<[_]>::first)
            .map(|v| v.keyword_location.clone())
            .unwrap_or_default();
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

/// `sojx lint SCHEMA`, read with `settings`, for `provider` (`None`: every provider, its
/// refusals as warnings): one envelope.
pub fn run(schema: &str, settings: &schema::Settings, provider: Option<LintProvider>) -> Envelope {
    let loaded = match schema::check_options(settings)
        .and_then(|()| schema::read(schema, settings.files().as_ref()))
    {
        Ok(l) => l,
        Err(f) => return envelope::failure(Command::Lint, schema, f, Parts::default()),
    };
    let mut findings = lint(&loaded, settings, provider.unwrap_or(LintProvider::All));
    // No provider asked for: only the schema's own problems are errors; what a provider would
    // refuse is a warning (with --provider P it is P's error).
    if provider.is_none() {
        for f in &mut findings {
            if f.provider != "all" && f.severity == Severity::Error {
                f.severity = Severity::Warning;
            }
        }
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let meta_valid = !findings.iter().any(|f| f.rule == "meta_schema");
    let draft = schema::draft_name(draft_of(&loaded.document, settings.draft));
    let validation = Validation {
        schema: loaded.name.clone(),
        valid: meta_valid,
        draft,
        provider: None,
    };
    let data = json!({"findings": findings, "counts": counts(&findings)});
    if errors == 0 {
        return envelope::success(
            Command::Lint,
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
        Operation::Lint,
        format!("{errors} error finding(s){first}"),
    )
    .target(loaded.name.clone())
    .retryable(false)
    .hint("error.details.findings lists each finding with its fix")
    .details(Details::Report(data));
    envelope::failure(
        Command::Lint,
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
