//! `run --max-attempts N`: `--retry-command`'s argv (no I/O). Which failures earn another
//! attempt, and the feedback, are the engine's (`sojx_core::feedback`).

use std::ffi::OsString;

use crate::feedback::substitute;

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
