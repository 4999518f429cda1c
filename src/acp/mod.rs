//! `sojx run --acp`'s client side of the Agent Client Protocol (ACP: JSON-RPC 2.0, one message
//! per line, over the agent's stdin and stdout; agentclientprotocol.com, schema v1): the
//! messages on the wire (`wire`) and the calls sojx makes (`client`). sojx offers the agent no
//! capability (no file system, no terminal), answers its permission requests by the policy of
//! `--acp-permissions`, and refuses every other request it makes with a JSON-RPC error.
//!
//! Before each `session/prompt` it sends a barrier (`initialize` again) and reads until its
//! response, so that what the agent wrote before the turn is recorded before the prompt
//! (`client`).
//!
//! Every message either way is also a recorded line, `{"direction": "to_agent" | "from_agent",
//! "message": {…}}`: what `--tee` writes and what the `acp` producer reads, live and later.
//! Nothing here decides what an answer is.
//!
//! `sojx run` is unix's (process groups and signals): elsewhere only `--acp-permissions`'s
//! [`Policy`] is used, by the command line's definition.
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

mod client;
mod wire;

pub(crate) use client::{BARRIER, Client, FIRST_PROMPT_ID, Reply, Stop, escaped_len, prompt_len};

use serde_json::{Value, json};

/// The protocol version sojx speaks (ACP's `PROTOCOL_VERSION`; schema `v1`).
pub(crate) const PROTOCOL_VERSION: u64 = 1;

/// `initialize`'s params: protocol version 1, no client capability (no file system, no
/// terminal), sojx's name and version. The same each time: the handshake's, and the barrier's
/// before each turn (`Client::prompt`), so that sending it again changes nothing the agent
/// knows of sojx.
#[must_use]
pub(crate) fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
        "clientInfo": {"name": "sojx", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// ACP's own error code: the agent needs `authenticate` first (defined with the `acp`
/// producer, which reads it in recordings).
pub(crate) use crate::producer::AUTH_REQUIRED;

/// JSON-RPC's "method not found": sojx's answer to the requests it does not implement.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;

/// How sojx answers the agent's `session/request_permission` (`--acp-permissions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Policy {
    /// Reject (an option of kind `reject_once`, else `reject_always`; else the request is
    /// cancelled). sojx never approves a tool on its own.
    #[default]
    Deny,
    /// Allow this once (`allow_once`); a request that offers no such option is denied.
    AllowOnce,
    /// Allow (`allow_always`, else `allow_once`).
    Allow,
}

impl Policy {
    /// The option chosen among `options` (`optionId`, `kind`), or `None`: the request is
    /// cancelled (denied).
    #[must_use]
    pub(crate) fn choose(self, options: &[(String, String)]) -> Option<&str> {
        let first = |kinds: &[&str]| {
            kinds.iter().find_map(|k| {
                options
                    .iter()
                    .find(|(_, kind)| kind == k)
                    .map(|(id, _)| id.as_str())
            })
        };
        match self {
            Self::Deny => first(&["reject_once", "reject_always"]),
            Self::AllowOnce => first(&["allow_once", "reject_once", "reject_always"]),
            Self::Allow => first(&["allow_always", "allow_once"]),
        }
    }

    /// The option chosen among a request's `options` (each `optionId`, and its `kind` when it
    /// has one), or `None`: the request is cancelled (denied). An `optionId` that more than
    /// one option carries, with different kinds (or one without a kind), is never chosen: the
    /// agent could take it for any of them (`allow_always` and `reject_once` both `"x"`), so
    /// sojx answers what it means, a refusal, rather than an id that may allow.
    #[must_use]
    pub(crate) fn answer(self, options: &[(String, Option<String>)]) -> Option<&str> {
        let kinded: Vec<(String, String)> = options
            .iter()
            .filter_map(|(id, kind)| Some((id.clone(), kind.clone()?)))
            .collect();
        let chosen = self.choose(&kinded)?;
        let kind = kinded.iter().find(|(id, _)| id == chosen).map(|(_, k)| k)?;
        let unambiguous = options
            .iter()
            .filter(|(id, _)| id == chosen)
            .all(|(_, k)| k.as_ref() == Some(kind));
        let (id, _) = options.iter().find(|(id, _)| id == chosen)?;
        unambiguous.then_some(id.as_str())
    }
}

/// Authentication methods sojx can choose for the agent, by their ids, with the variables
/// each needs (the agents' own ids: Gemini CLI `gemini-api-key`; Codex's adapter
/// `codex-api-key`, `openai-api-key`; Qwen Code `openai`). A method of the `env_var` type
/// names its own variables.
pub(crate) const AUTH_VARS: &[(&str, &str)] = &[
    ("gemini-api-key", "GEMINI_API_KEY"),
    ("codex-api-key", "CODEX_API_KEY"),
    ("openai-api-key", "OPENAI_API_KEY"),
    ("openai", "OPENAI_API_KEY"),
    ("anthropic-api-key", "ANTHROPIC_API_KEY"),
];

/// What [`record`] adds to a message's own text (37 bytes for `from_agent`): a message read
/// from the agent is at most `--max-line-bytes` less this, so that its recorded line is never
/// longer than the line the `acp` reader takes.
pub(crate) const RECORD_OVERHEAD: usize = 40;

/// One message as a recorded line: `{"direction": …, "message": …}`, the message's own JSON
/// text kept as it was (`raw`, one line).
#[must_use]
pub(crate) fn record(to_agent: bool, raw: &str) -> String {
    let direction = if to_agent { "to_agent" } else { "from_agent" };
    format!("{{\"direction\":\"{direction}\",\"message\":{raw}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_never_allows_more_than_it_says() {
        let opts = |kinds: &[&str]| -> Vec<(String, String)> {
            kinds
                .iter()
                .map(|k| ((*k).to_owned() + "-id", (*k).to_owned()))
                .collect()
        };
        let all = opts(&["allow_always", "allow_once", "reject_once", "reject_always"]);
        assert_eq!(Policy::Deny.choose(&all), Some("reject_once-id"));
        assert_eq!(Policy::AllowOnce.choose(&all), Some("allow_once-id"));
        assert_eq!(Policy::Allow.choose(&all), Some("allow_always-id"));
        // No reject option: cancelled, which denies.
        assert_eq!(Policy::Deny.choose(&opts(&["allow_once"])), None);
        // Only "always" offered: allow-once does not grant it.
        assert_eq!(
            Policy::AllowOnce.choose(&opts(&["allow_always", "reject_always"])),
            Some("reject_always-id")
        );
        assert_eq!(Policy::AllowOnce.choose(&opts(&["allow_always"])), None);
    }

    #[test]
    fn an_option_id_that_names_two_kinds_is_never_chosen() {
        let opts = |pairs: &[(&str, Option<&str>)]| -> Vec<(String, Option<String>)> {
            pairs
                .iter()
                .map(|(id, k)| ((*id).to_owned(), k.map(str::to_owned)))
                .collect()
        };
        let dup = opts(&[("x", Some("allow_always")), ("x", Some("reject_once"))]);
        for p in [Policy::Deny, Policy::AllowOnce, Policy::Allow] {
            assert_eq!(p.answer(&dup), None, "{p:?}");
        }
        // An option without a kind that shares the id: its meaning is unknown.
        let unkinded = opts(&[("x", None), ("x", Some("reject_once"))]);
        assert_eq!(Policy::Deny.answer(&unkinded), None);
        // The same kind twice is one meaning; other ids do not matter.
        let same = opts(&[
            ("r", Some("reject_once")),
            ("r", Some("reject_once")),
            ("a", Some("allow_once")),
            ("a", Some("reject_always")),
        ]);
        assert_eq!(Policy::Deny.answer(&same), Some("r"));
        assert_eq!(Policy::AllowOnce.answer(&same), None);
    }
}
