//! The retry's feedback: which failures earn another attempt of an agent, and the text that
//! tells the agent what was wrong with its answer (no I/O). `sojx run` builds on it; the public
//! [`crate::feedback`] function gives its default text.

use serde_json::Value;

use crate::details::{AgentDetails, Details};
use crate::envelope::Envelope;
use crate::error::{ErrorKind, Failure};
use crate::warning::WarningKind;

/// Most violations listed in the feedback.
pub const FEEDBACK_VIOLATIONS: usize = 20;

/// The rule every feedback ends with.
pub const RULE: &str = "Return only JSON matching the schema, with no prose and no code fences.";

/// Failure kinds retried only when `--retry-on` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    Timeout,
    Truncated,
    AgentError,
}

/// Whether an attempt that ended in `env` earns another one (attempts left aside).
pub fn retries(env: &Envelope, extra: &[Extra]) -> bool {
    let Some(err) = env.error() else {
        return false;
    };
    match err.kind {
        ErrorKind::NotFound
        | ErrorKind::JsonInvalid
        | ErrorKind::ValidationFailed
        | ErrorKind::AssertionFailed => true,
        // Claude Code gave up on its own structured-output retries, or Qwen Code's model
        // answered in text instead of calling its structured-output tool: the answer's quality,
        // not the agent's health.
        ErrorKind::AgentError
            if err.retryable
                && agent_details(err).is_some_and(|d| {
                    d.subtype.as_deref() == Some("error_max_structured_output_retries")
                        || d.cause == Some(crate::producer::NO_STRUCTURED_OUTPUT)
                }) =>
        {
            true
        }
        ErrorKind::AgentError => extra.contains(&Extra::AgentError) && err.retryable,
        ErrorKind::Timeout => extra.contains(&Extra::Timeout),
        ErrorKind::Truncated => extra.contains(&Extra::Truncated) && err.retryable,
        // The caller's errors, sojx's own, an empty or unreadable output, a signal: another
        // attempt would meet the same.
        _ => false,
    }
}

/// The producer's own details of an `agent_error`.
fn agent_details(f: &Failure) -> Option<&AgentDetails> {
    match f.details.as_ref()? {
        Details::Agent(d) => Some(d),
        _ => None,
    }
}

/// What the feedback is made of.
#[derive(Debug, Default)]
pub struct Parts {
    /// One `- …` line per problem.
    pub errors: String,
    /// The output that failed (text as it was, a value as compact JSON); empty when none.
    pub candidate: String,
    /// The schema, pretty-printed; empty when none was given.
    pub schema: String,
}

impl Parts {
    pub fn of(env: &Envelope, schema: Option<&Value>) -> Self {
        Self {
            errors: errors(env),
            candidate: env.candidate().map(candidate_text).unwrap_or_default(),
            schema: schema
                .map(|s| serde_json::to_string_pretty(s).unwrap_or_default())
                .unwrap_or_default(),
        }
    }

    /// The feedback: `template` with `{errors}`, `{candidate}` and `{schema}` replaced, or the
    /// default, which also carries the schema and the previous output when the session is not
    /// `resumed` (the agent does not remember them then).
    pub fn feedback(&self, template: Option<&str>, resumed: bool) -> String {
        // An argument or a variable cannot hold NUL: a model's NUL becomes U+FFFD.
        self.text(template, resumed).replace('\0', "\u{fffd}")
    }

    fn text(&self, template: Option<&str>, resumed: bool) -> String {
        if let Some(t) = template {
            return substitute(
                t,
                &[
                    ("{errors}", &self.errors),
                    ("{candidate}", &self.candidate),
                    ("{schema}", &self.schema),
                ],
            );
        }
        let mut f = format!("The previous output was invalid:\n{}\n{RULE}", self.errors);
        if !resumed {
            if !self.schema.is_empty() {
                f.push_str(&format!("\n\nThe JSON schema:\n{}", self.schema));
            }
            if !self.candidate.is_empty() {
                f.push_str(&format!("\n\nThe previous output:\n{}", self.candidate));
            }
        }
        f
    }
}

/// The problems of a failed attempt, one `- …` line each: the schema's violations as
/// `- <instance pointer>: <message>` (at most [`FEEDBACK_VIOLATIONS`]), each failed assertion,
/// or the failure's message.
fn errors(env: &Envelope) -> String {
    let Some(err) = env.error() else {
        return String::new();
    };
    let mut lines = Vec::new();
    match (err.kind, &err.details) {
        (ErrorKind::ValidationFailed, Some(Details::Violations(vs))) => {
            for v in vs.iter().take(FEEDBACK_VIOLATIONS) {
                lines.push(format!("- {}: {}", v.at(), v.message));
            }
            if vs.len() > FEEDBACK_VIOLATIONS {
                lines.push(format!(
                    "- and {} more violation(s)",
                    vs.len() - FEEDBACK_VIOLATIONS
                ));
            }
        }
        (ErrorKind::AssertionFailed, Some(Details::Assertions { assertions })) => {
            for a in assertions {
                lines.push(format!("- the check `{}` does not hold", a.expression));
            }
        }
        _ => {}
    }
    if lines.is_empty() {
        lines.push(format!("- {}", err.message));
    }
    lines.extend(repaired(env));
    lines.extend(coerced(env));
    lines.join("\n")
}

/// What `--repair` changed in the failed answer, so that the agent learns the form: one line
/// naming each repair (its warning) and its kind, or none.
fn repaired(env: &Envelope) -> Option<String> {
    if !env.source().is_some_and(|s| s.repaired) {
        return None;
    }
    let repairs: Vec<String> = env
        .warnings()
        .iter()
        .filter(|w| is_repair(w.kind))
        .map(|w| format!("{} ({})", w.message, w.kind))
        .collect();
    if repairs.is_empty() {
        return None;
    }
    Some(format!(
        "- Your answer needed repair: {}; write plain JSON.",
        repairs.join(", ")
    ))
}

/// Whether `kind` names one of `--repair`'s changes.
fn is_repair(kind: WarningKind) -> bool {
    matches!(
        kind,
        WarningKind::StrayPrefix
            | WarningKind::StraySuffix
            | WarningKind::TrailingComma
            | WarningKind::UnclosedBrackets
            | WarningKind::DroppedIncompleteMember
            | WarningKind::CommentRemoved
            | WarningKind::ControlCharacterEscaped
            | WarningKind::PythonLiteral
            | WarningKind::SingleQuotedString
            | WarningKind::UnquotedKey
    )
}

/// The strings `--coerce` converted in the failed answer (`source.coercions`): one line naming
/// their places and the types they were read as, or none.
fn coerced(env: &Envelope) -> Option<String> {
    let coercions = &env.source()?.coercions;
    if coercions.is_empty() {
        return None;
    }
    let mut types: Vec<&str> = Vec::new();
    for c in coercions {
        if !types.contains(&c.read_as) {
            types.push(c.read_as);
        }
    }
    Some(format!(
        "- The strings at {} were read as the {} the schema asks for; give them as JSON booleans and numbers, not strings.",
        crate::coerce::places(coercions, FEEDBACK_VIOLATIONS),
        types.join("/")
    ))
}

fn candidate_text(c: &Value) -> String {
    match c {
        Value::String(s) => s.clone(),
        v => serde_json::to_string(v).unwrap_or_default(),
    }
}

/// `s` with each `(placeholder, value)` replaced, in one pass (a value that holds a
/// placeholder is not replaced again).
pub fn substitute(s: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    'outer: while !rest.is_empty() {
        if rest.starts_with('{') {
            for (k, v) in pairs {
                if let Some(after) = rest.strip_prefix(k) {
                    out.push_str(v);
                    rest = after;
                    continue 'outer;
                }
            }
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::details::Violation;
    use crate::envelope::{self, Parts as EnvParts};
    use crate::error::Operation;
    use crate::names::Command;

    fn failed(kind: ErrorKind, details: Option<Details>) -> Envelope {
        let mut f = Failure::new(
            kind,
            Operation::Validate,
            "the output does not match the schema",
        );
        if let Some(d) = details {
            f = f.details(d);
        }
        envelope::failure(
            Command::Run,
            "agent",
            f.candidate(json!({"verdict": "MAYBE"})),
            EnvParts::default(),
        )
    }

    #[test]
    fn answer_failures_retry_and_the_rest_only_when_asked() {
        let v = failed(ErrorKind::ValidationFailed, None);
        assert!(retries(&v, &[]));
        assert!(!retries(&failed(ErrorKind::Timeout, None), &[]));
        assert!(retries(
            &failed(ErrorKind::Timeout, None),
            &[Extra::Timeout]
        ));
        assert!(!retries(
            &failed(ErrorKind::Usage, None),
            &[Extra::AgentError]
        ));
        assert!(!retries(&failed(ErrorKind::EmptyInput, None), &[]));
        let gave_up = failed(
            ErrorKind::AgentError,
            Some(Details::Agent(AgentDetails::new(
                Some("error_max_structured_output_retries"),
                None,
                Value::Null,
            ))),
        );
        assert!(retries(&gave_up, &[]));
        let prose = failed(
            ErrorKind::AgentError,
            Some(Details::Agent(AgentDetails {
                cause: Some("no_structured_output"),
                ..AgentDetails::new(Some("error_during_execution"), None, Value::Null)
            })),
        );
        assert!(retries(&prose, &[]));
        let other = failed(
            ErrorKind::AgentError,
            Some(Details::Agent(AgentDetails::new(
                Some("error_during_execution"),
                None,
                Value::Null,
            ))),
        );
        assert!(!retries(&other, &[]));
        let auth = envelope::failure(
            Command::Run,
            "agent",
            Failure::new(ErrorKind::AgentError, Operation::Extract, "auth").retryable(false),
            EnvParts::default(),
        );
        assert!(!retries(&auth, &[Extra::AgentError]));
        let ok = envelope::success(Command::Run, "agent", json!(1), EnvParts::default());
        assert!(!retries(&ok, &[Extra::AgentError]));
    }

    #[test]
    fn feedback_says_what_was_repaired_and_coerced() {
        use crate::coerce::Coercion;
        use crate::envelope::Source;
        use crate::producer::SourceKind;
        use crate::warning::Warning;

        let violation = Violation {
            instance_location: "/n".into(),
            keyword_location: "/properties/n/minimum".into(),
            message: "-1 is less than the minimum of 0".into(),
        };
        let coercion = |pointer: &str, from: &str, to: Value| Coercion {
            pointer: pointer.into(),
            from: from.into(),
            read_as: match (&to, from.contains('.')) {
                (Value::Bool(_), _) => "boolean",
                (_, true) => "number",
                _ => "integer",
            },
            to,
        };
        let source = Source {
            repaired: true,
            coercions: vec![
                coercion("/ok", "true", json!(true)),
                coercion("/n", "-1", json!(-1)),
                coercion("/x", "2.5", json!(2.5)),
            ],
            ..Source::new(SourceKind::Document, Some(1))
        };
        let f = Failure::new(ErrorKind::ValidationFailed, Operation::Validate, "invalid")
            .details(Details::Violations(vec![violation]));
        let parts = EnvParts {
            source: Some(source),
            warnings: vec![
                Warning::new(WarningKind::UncheckedAnswer, "not a repair"),
                Warning::new(WarningKind::TrailingComma, "removed 1 trailing comma(s)"),
                Warning::new(WarningKind::Coerced, "--coerce converted 3 string(s)"),
            ],
            ..EnvParts::default()
        };
        let env = envelope::failure(Command::Run, "agent", f, parts);
        assert_eq!(
            errors(&env),
            "- /n: -1 is less than the minimum of 0\n\
             - Your answer needed repair: removed 1 trailing comma(s) (trailing_comma); write plain JSON.\n\
             - The strings at /ok, /n, /x were read as the boolean/integer/number the schema asks for; give them as JSON booleans and numbers, not strings."
        );
        // Neither, when the answer was taken as given.
        let plain = failed(
            ErrorKind::ValidationFailed,
            Some(Details::Violations(Vec::new())),
        );
        assert_eq!(errors(&plain), "- the output does not match the schema");
    }

    #[test]
    fn feedback_lists_violations_and_carries_what_a_new_session_lacks() {
        let violations: Vec<Violation> = (0..25)
            .map(|i| Violation {
                instance_location: format!("/v{i}"),
                keyword_location: "/enum".into(),
                message: "\"MAYBE\" is not one of [\"PASS\",\"FAIL\"]".into(),
            })
            .collect();
        let env = failed(
            ErrorKind::ValidationFailed,
            Some(Details::Violations(violations)),
        );
        let schema = json!({"type": "object"});
        let p = Parts::of(&env, Some(&schema));
        let resumed = p.feedback(None, true);
        assert!(resumed.starts_with(
            "The previous output was invalid:\n- /v0: \"MAYBE\" is not one of [\"PASS\",\"FAIL\"]\n"
        ));
        assert!(resumed.contains("- /v19: "), "{resumed}");
        assert!(!resumed.contains("- /v20: "));
        assert!(resumed.contains("- and 5 more violation(s)\n"));
        assert!(resumed.ends_with(RULE));
        let fresh = p.feedback(None, false);
        assert!(fresh.contains("The JSON schema:\n{\n  \"type\": \"object\"\n}"));
        assert!(fresh.ends_with("The previous output:\n{\"verdict\":\"MAYBE\"}"));
        assert_eq!(
            p.feedback(Some("fix: {candidate} {nothing}"), true),
            "fix: {\"verdict\":\"MAYBE\"} {nothing}"
        );
    }
}
