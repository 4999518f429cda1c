//! `run --max-attempts N`: which failures earn another attempt, the feedback that tells the
//! agent what was wrong, `--retry-command`'s argv, and the `attempts` entries (no I/O).

use std::ffi::OsString;

use serde_json::Value;

use crate::details::{AgentDetails, Details};
use crate::envelope::Envelope;
use crate::error::{ErrorKind, Failure};

/// Most violations listed in the feedback.
pub(crate) const FEEDBACK_VIOLATIONS: usize = 20;

/// The rule every feedback ends with.
pub(crate) const RULE: &str =
    "Return only JSON matching the schema, with no prose and no code fences.";

/// Failure kinds retried only when `--retry-on` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Extra {
    Timeout,
    Truncated,
    AgentError,
}

/// Whether an attempt that ended in `env` earns another one (attempts left aside).
pub(crate) fn retries(env: &Envelope, extra: &[Extra]) -> bool {
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
pub(crate) struct Parts {
    /// One `- …` line per problem.
    pub(crate) errors: String,
    /// The output that failed (text as it was, a value as compact JSON); empty when none.
    pub(crate) candidate: String,
    /// The schema, pretty-printed; empty when none was given.
    pub(crate) schema: String,
}

impl Parts {
    pub(crate) fn of(env: &Envelope, schema: Option<&Value>) -> Self {
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
    pub(crate) fn feedback(&self, template: Option<&str>, resumed: bool) -> String {
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
    lines.join("\n")
}

fn candidate_text(c: &Value) -> String {
    match c {
        Value::String(s) => s.clone(),
        v => serde_json::to_string(v).unwrap_or_default(),
    }
}

/// `s` with each `(placeholder, value)` replaced, in one pass (a value that holds a
/// placeholder is not replaced again).
pub(crate) fn substitute(s: &str, pairs: &[(&str, &str)]) -> String {
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

/// `--retry-command TEMPLATE` split like a shell line, once, when the run starts: `None` when
/// it does not split (an unclosed quote) or is empty.
#[cfg(unix)]
pub(crate) fn split_template(template: &str) -> Option<Vec<String>> {
    shlex::split(template).filter(|v| !v.is_empty())
}

/// The values of `--retry-command`'s placeholders for one attempt.
#[derive(Debug, Default)]
pub(crate) struct Values {
    pub(crate) session_id: String,
    pub(crate) feedback: String,
    pub(crate) feedback_file: String,
    pub(crate) attempt: String,
    pub(crate) schema_file: String,
    pub(crate) previous_output_file: String,
}

impl Values {
    /// The argv of the template's words with the placeholders replaced in each word (never
    /// through a shell: a value stays one argument, whatever it holds). Refused, with the
    /// reason, when a value would be read as options: a word before the template's `--` that
    /// does not start with `-` but would after the replacement (a session id
    /// `--dangerously-skip-permissions` from the agent's own output, feedback `- /verdict…`),
    /// or `{session_id}` with no session id to put there (an empty id resumes the latest
    /// session in Gemini CLI).
    pub(crate) fn argv(&self, words: &[String]) -> Result<Vec<OsString>, String> {
        let pairs = [
            ("{session_id}", self.session_id.as_str()),
            ("{feedback}", &self.feedback),
            ("{feedback_file}", &self.feedback_file),
            ("{attempt}", &self.attempt),
            ("{schema_file}", &self.schema_file),
            ("{previous_output_file}", &self.previous_output_file),
        ];
        let mut options = true;
        let mut argv = Vec::with_capacity(words.len());
        for w in words {
            if self.session_id.is_empty() && w.contains("{session_id}") {
                return Err(format!(
                    "--retry-command's word `{w}` needs a session id, and the agent printed none"
                ));
            }
            let value = substitute(w, &pairs);
            if options && !w.starts_with('-') && value.starts_with('-') {
                return Err(format!(
                    "--retry-command's word `{w}` would become `{}`, which the agent would read as an option; put `--` before it in the template (if the agent reads `--`), or a flag such as `--prompt={w}`",
                    crate::producer::snippet(&value, 60)
                ));
            }
            options &= w != "--";
            argv.push(OsString::from(value));
        }
        Ok(argv)
    }
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

    #[test]
    #[cfg(unix)]
    fn placeholders_are_replaced_per_argument_never_through_a_shell() {
        let words = split_template("agent --resume '{session_id}' -p {feedback}").unwrap();
        let v = Values {
            session_id: "s-1".into(),
            feedback: "a b; rm -rf / {attempt}".into(),
            attempt: "2".into(),
            ..Values::default()
        };
        assert_eq!(
            v.argv(&words).unwrap(),
            ["agent", "--resume", "s-1", "-p", "a b; rm -rf / {attempt}"]
        );
        assert_eq!(split_template("a 'b"), None);
        assert_eq!(split_template("  "), None);
    }

    #[test]
    #[cfg(unix)]
    fn a_value_never_becomes_an_option() {
        let v = |session_id: &str, feedback: &str| Values {
            session_id: session_id.into(),
            feedback: feedback.into(),
            ..Values::default()
        };
        let words = |t: &str| split_template(t).unwrap();
        let hostile = v("--dangerously-skip-permissions", "fix it");
        let err = hostile
            .argv(&words("claude --resume {session_id} -p {feedback}"))
            .unwrap_err();
        assert!(
            err.contains("`{session_id}` would become `--dangerously-skip-permissions`"),
            "{err}"
        );
        // Attached to a flag, or after `--`, a value cannot be an option.
        assert_eq!(
            hostile
                .argv(&words("agent --resume={session_id} -- {session_id}"))
                .unwrap(),
            [
                "agent",
                "--resume=--dangerously-skip-permissions",
                "--",
                "--dangerously-skip-permissions"
            ]
        );
        let dash = v("s-1", "- /verdict: wrong");
        assert!(dash.argv(&words("agent -p {feedback}")).is_err());
        assert_eq!(
            dash.argv(&words("agent -p -- {feedback}")).unwrap(),
            ["agent", "-p", "--", "- /verdict: wrong"]
        );
        // No session id: `{session_id}` is refused, not left empty.
        let err = v("", "fix")
            .argv(&words("agent --resume={session_id}"))
            .unwrap_err();
        assert!(err.contains("needs a session id"), "{err}");
        assert_eq!(
            v("", "fix").argv(&words("agent -p {feedback}")).unwrap(),
            ["agent", "-p", "fix"]
        );
    }
}
