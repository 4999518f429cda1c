//! The last error or retry event a producer printed: what the agent was last doing when its
//! stream was cut off (`truncated`) or did not end in time (`timeout`), in the producer's words,
//! with the event's own fields (contract §5).

use serde_json::{Map, Value};

use super::{Verdict, provider_message, snippet, truncated};
use crate::details::{self, Details};
use crate::error::{ErrorKind, Failure, Operation};

/// One error or retry event.
#[derive(Debug, Clone, PartialEq)]
pub struct LastError {
    /// What the agent was doing, as a clause of a sentence ("the agent was retrying its API:
    /// attempt 3 of 10, …", "its last error: …").
    doing: String,
    /// The producer's own words (`details.last_error`).
    words: String,
    /// The input line of the event, when the producer kept it.
    line: Option<u64>,
    /// The event's fields that say more (`attempt`, `max_retries`, `retry_delay_ms`,
    /// `error_status`, `error`, `severity`).
    event: Map<String, Value>,
    /// `false` when the producer's own code says that re-running cannot help.
    retryable: bool,
}

impl LastError {
    /// An error event of line `line` in the producer's `words`, with `fields` of `event` (those
    /// it has) kept.
    pub(crate) fn error(line: u64, words: &str, event: &Value, fields: &[&str]) -> Self {
        Self {
            doing: format!("its last error: {}", snippet(&provider_message(words), 300)),
            words: words.to_owned(),
            line: Some(line),
            event: pick(event, fields),
            retryable: true,
        }
    }

    /// Claude Code's `system`/`api_retry` event of line `line`.
    pub(crate) fn api_retry(line: u64, event: &Value) -> Self {
        let number = |key: &str| event.get(key).filter(|v| v.is_number());
        let count = |key: &str| number(key).map_or("?".into(), Value::to_string);
        let what = event
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("error");
        let status = number("error_status").map_or(String::new(), |s| format!(" (status {s})"));
        let next = number("retry_delay_ms")
            .and_then(Value::as_f64)
            .map_or(String::new(), |ms| {
                format!(", the next in {} s", (ms / 100.0).round() / 10.0)
            });
        let (attempt, max) = (count("attempt"), count("max_retries"));
        Self {
            doing: format!(
                "the agent was retrying its API: attempt {attempt} of {max}, error {what}{status}{next}"
            ),
            words: format!("api_retry attempt {attempt} of {max}: {what}{status}"),
            line: Some(line),
            event: pick(
                event,
                &[
                    "attempt",
                    "max_retries",
                    "retry_delay_ms",
                    "error_status",
                    "error",
                ],
            ),
            retryable: true,
        }
    }

    /// The same, naming the producer's error `class` (`authentication_failed`, …), which
    /// `retryable` says re-running can or cannot fix.
    pub(crate) fn class(mut self, class: &str, retryable: bool) -> Self {
        self.doing =
            self.doing
                .replacen("its last error:", &format!("its last error ({class}):"), 1);
        self.event.insert("error".into(), Value::from(class));
        self.retryable = retryable;
        self
    }

    /// An API's error object (`{type, message}`, `{code, message}`, opencode's `{name, data:
    /// {message, statusCode, isRetryable}}`, or Ollama's string): not retryable when its type
    /// or code is one that re-running cannot fix ([`super::PERMANENT_API_CODES`]), or when it
    /// says so itself (`isRetryable: false`).
    pub(crate) fn api(error: &Value) -> Self {
        let data = error.get("data").unwrap_or(&Value::Null);
        let words = error
            .as_str()
            .or_else(|| error.get("message").and_then(Value::as_str))
            .or_else(|| data.get("message").and_then(Value::as_str))
            .map_or_else(|| error.to_string(), str::to_owned);
        let mut event = pick(error, &["type", "code", "name", "status"]);
        event.extend(pick(data, &["statusCode", "isRetryable"]));
        let code = |key: &str| event.get(key).and_then(Value::as_str);
        let permanent = [code("type"), code("code")]
            .into_iter()
            .flatten()
            .any(|c| super::PERMANENT_API_CODES.contains(&c));
        let refused = event.get("isRetryable") == Some(&Value::Bool(false));
        Self {
            doing: format!("its last error: {}", snippet(&words, 300)),
            words,
            line: None,
            event,
            retryable: !permanent && !refused,
        }
    }

    /// `message` followed by what the agent was last doing.
    pub fn after(&self, message: &str) -> String {
        match self.line {
            Some(line) => format!("{message}; {} (line {line})", self.doing),
            None => format!("{message}; {}", self.doing),
        }
    }

    /// Its part of `error.details`: `last_error` (the producer's words), `last_error_line`,
    /// and `last_event` (the event's fields).
    pub fn details(&self) -> details::LastError {
        details::LastError {
            last_error: self.words.clone(),
            last_error_line: self.line,
            last_event: self.event.clone(),
        }
    }

    /// Whether re-running can fix it, by the producer's own code.
    pub fn retryable(&self) -> bool {
        self.retryable
    }

    /// The producer's own words.
    pub(crate) fn words(&self) -> &str {
        &self.words
    }
}

/// The members `fields` of `event`, those it has.
fn pick(event: &Value, fields: &[&str]) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|&f| Some((f.to_owned(), event.get(f)?.clone())))
        .collect()
}

/// A `truncated` failure that names the last error or retry event the producer printed before
/// the stream ended.
pub(crate) fn truncated_after(marker: &str, last: Option<&LastError>) -> Verdict {
    let Some(e) = last else {
        return truncated(marker);
    };
    let f = Failure::new(
        ErrorKind::Truncated,
        Operation::Extract,
        e.after(&format!(
            "the stream ended without its terminal marker ({marker})"
        )),
    )
    .details(Details::LastError(e.details()));
    Verdict::Failed(if e.retryable {
        f.hint("the run was cut off after that error; fix its cause or re-run it, and use --timeout to bound the wait")
    } else {
        f.retryable(false).hint(
            "re-running will not help: the API refused the run; fix the account, credentials or request, then run it again",
        )
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn api_retry_in_the_producers_words() {
        let e = LastError::api_retry(
            4,
            &json!({"type": "system", "subtype": "api_retry", "attempt": 3, "max_retries": 10,
                    "retry_delay_ms": 2200, "error_status": 529, "error": "overloaded"}),
        );
        assert_eq!(
            e.after("cut"),
            "cut; the agent was retrying its API: attempt 3 of 10, error overloaded (status 529), the next in 2.2 s (line 4)"
        );
        assert_eq!(
            serde_json::to_value(e.details()).unwrap(),
            json!({"last_error": "api_retry attempt 3 of 10: overloaded (status 529)",
                   "last_error_line": 4,
                   "last_event": {"attempt": 3, "max_retries": 10, "retry_delay_ms": 2200,
                                  "error_status": 529, "error": "overloaded"}})
        );
        // Fields missing or of another type are not made up.
        let bare = LastError::api_retry(1, &json!({"attempt": "x", "error_status": null}));
        assert_eq!(
            bare.after("cut"),
            "cut; the agent was retrying its API: attempt ? of ?, error error (line 1)"
        );
    }

    /// `retryable` from the API's own type or code (docs/producers.md, "retryable"), never its
    /// message.
    #[test]
    fn api_errors_are_retryable_by_their_codes() {
        for (error, retryable) in [
            (
                json!({"type": "overloaded_error", "message": "Overloaded"}),
                true,
            ),
            (
                json!({"type": "rate_limit_error", "message": "invalid x-api-key"}),
                true,
            ),
            (
                json!({"type": "authentication_error", "message": "Overloaded"}),
                false,
            ),
            (
                json!({"type": "invalid_request_error", "code": "rate_limit_exceeded"}),
                false,
            ),
            (json!({"code": "insufficient_quota", "message": "m"}), false),
            (json!({"code": "server_error", "message": "m"}), true),
            (
                json!({"name": "APIError", "data": {"message": "m", "statusCode": 401, "isRetryable": false}}),
                false,
            ),
            (
                json!({"name": "APIError", "data": {"message": "m", "statusCode": 503, "isRetryable": true}}),
                true,
            ),
            (
                json!({"name": "UnknownError", "data": {"message": "m"}}),
                true,
            ),
            (json!("model 'x' not found"), true),
        ] {
            let e = LastError::api(&error);
            assert_eq!(e.retryable(), retryable, "{error}");
            assert!(e.after("x").starts_with("x; its last error: "), "{error}");
        }
        assert_eq!(
            LastError::api(
                &json!({"name": "APIError", "data": {"message": "No key", "statusCode": 401}})
            )
            .words(),
            "No key"
        );
    }

    #[test]
    fn a_class_names_itself_and_decides() {
        let e = LastError::error(2, "Not logged in", &json!({}), &[])
            .class("authentication_failed", false);
        assert!(!e.retryable());
        assert_eq!(
            e.after("cut"),
            "cut; its last error (authentication_failed): Not logged in (line 2)"
        );
        let Verdict::Failed(f) = truncated_after("m", Some(&e)) else {
            panic!("not a failure")
        };
        assert!(!f.retryable);
    }
}
