//! A failed `result` of the Claude Code family: its `agent_error`, and whether re-running can
//! fix it, by the producer's own codes and the stream's structure (never a message's wording).

use serde_json::Value;

use super::super::{
    agent_details, agent_failure, field, provider_message, refusal, snippet, str_at, u64_at,
};
use crate::producer::Verdict;

/// Claude Code's assistant `error` classes that re-running cannot fix (contract §5; the Agent
/// SDK's `SDKAssistantMessageError`); the others (`rate_limit`, `overloaded`, `server_error`,
/// `unknown`, and classes added later) can.
pub(super) const PERMANENT_API_ERRORS: [&str; 8] = [
    "authentication_failed",
    "oauth_org_not_allowed",
    "account_on_hold",
    "verification_required",
    "billing_error",
    "invalid_request",
    "model_not_found",
    "cloud_credential_error",
];

/// The `agent_error` of a failed `result` (`subtype` not `success`, or `is_error`). Not
/// retryable when the producer's own codes say re-running cannot help: the assistant error
/// message's class (`api_error`), the result's `api_error_type` or `api_error_status` (Claude
/// Code's `--output-format json` has only these), or a run that never reached the model (no
/// turn and no API time: its configuration or credentials). `prose`: the model's text that
/// ended a `--json-schema` run without the structured-output tool (`Claude::prose`), an
/// answer failure that `sojx run` retries.
pub(super) fn failure(
    r: &Value,
    subtype: Option<&str>,
    is_error: bool,
    api_error: Option<&str>,
    prose: Option<&str>,
) -> Verdict {
    let errors = r
        .get("errors")
        .cloned()
        .unwrap_or_else(|| Value::Array(Vec::new()));
    let first_error = errors
        .as_array()
        .and_then(|a| a.iter().find_map(Value::as_str))
        .filter(|s| !s.is_empty());
    let text = str_at(r, "result").filter(|s| !s.is_empty());
    // Amp: a string (`413 {…}`); Qwen Code: `{message}`.
    let error_field = r.get("error").map(|e| match e {
        Value::String(s) => provider_message(s),
        _ => str_at(e, "message").map_or_else(|| e.to_string(), str::to_owned),
    });
    let why = match subtype {
        Some("success") => "ended with is_error: true".to_owned(),
        Some(s) => format!("ended with subtype {s}"),
        None => "ended without a subtype".to_owned(),
    };
    let message = match first_error.or(text).map(str::to_owned).or(error_field) {
        Some(e) => format!("the agent run {why}: {}", snippet(&e, 300)),
        None => format!("the agent run {why}"),
    };
    let never_reached = never_reached_model(r);
    let refused = api_error
        .filter(|e| PERMANENT_API_ERRORS.contains(e))
        .map(str::to_owned)
        .or_else(|| {
            refusal(
                &[str_at(r, "api_error_type")],
                u64_at(r, "api_error_status"),
            )
        });
    let mut details = agent_details(subtype, str_at(r, "terminal_reason"), errors);
    let m = &mut details.more;
    m.insert("is_error".into(), Value::Bool(is_error));
    for key in [
        "api_error_status",
        "api_error_type",
        "permission_denials",
        "stop_reason",
    ] {
        if let Some(v) = field(r, key) {
            m.insert(key.into(), v.clone());
        }
    }
    if is_error && let Some(t) = text {
        m.insert("result".into(), Value::from(t));
    }
    if let Some(e) = api_error {
        m.insert("api_error".into(), Value::from(e));
    }
    // An answer failure only when the API did not refuse the run (that one is not retryable,
    // and `retries` reads the cause).
    details.cause = match (prose, never_reached) {
        (_, true) => Some(NEVER_REACHED_MODEL),
        (Some(_), false) if refused.is_none() => Some(crate::producer::NO_STRUCTURED_OUTPUT),
        _ => None,
    };
    let f = agent_failure(message, details);
    Verdict::Failed(match (refused, prose) {
        (Some(e), _) => f.retryable(false).hint(format!(
            "re-running will not help: the API refused the run ({e}); fix the account, \
             credentials or request, then run it again"
        )),
        (None, _) if never_reached => f.retryable(false).hint(
            "re-running will not help: the run never reached the model (no turn, no API time); \
             fix the agent's configuration or credentials, then run it again",
        ),
        (None, Some(t)) => f.candidate(Value::from(t)).hint(
            "the model answered in text instead of calling the structured-output tool; run it \
             again (`sojx run --max-attempts N` does, with this error as feedback)",
        ),
        (None, None) => f,
    })
}

/// `details.cause` of a run that never reached the model.
const NEVER_REACHED_MODEL: &str = "never_reached_model";

/// Whether a failed result shows that the run never reached the model: no turn and no time
/// spent in the API, both as the producer counted them (Qwen Code without an auth type:
/// `num_turns: 0`, `duration_api_ms: 0`). A run that tried and failed to reach it (offline)
/// counts its turn.
fn never_reached_model(r: &Value) -> bool {
    u64_at(r, "num_turns") == Some(0) && u64_at(r, "duration_api_ms") == Some(0)
}
