//! The Agent Client Protocol, as `sojx run --acp --tee FILE` records it (`docs/run.md`, "ACP"):
//! one JSON line per JSON-RPC message, `{"direction": "to_agent" | "from_agent", "message":
//! {…}}`, in the order sojx sent and read them.
//!
//! Answer: the text of the `agent_message_chunk` updates of the last `session/prompt` turn, of
//! that turn's session, between the request and its response; `stopReason: "end_turn"` ends it
//! well. Any other stop reason, or a JSON-RPC error in place of the response, is the run's
//! failure; a recording without the last turn's response is `truncated`. A chunk of another
//! session, or one outside a turn, is never the answer.
//!
//! An `initialize` after the first is sojx's barrier before a turn (`crate::acp::Client`): it
//! and its response, a result or an error, are read as nothing.

use std::collections::HashMap;

/// ACP's own error code: the agent needs `authenticate` first (its schema's `ErrorCode`,
/// "Authentication required").
pub const AUTH_REQUIRED: i64 = -32000;

use serde_json::{Map, Value};

use super::EventKind as Kind;
use super::{
    AgentInfo, Extractor, LastError, Outcome, Permissions, Producer, Session, Verdict,
    agent_details, agent_failure, snippet, str_at, truncated_after, u64_at,
};
use crate::framing::Item;

/// What a recorded line is, by its `direction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    ToAgent,
    FromAgent,
}

/// A recorded line: its direction and its JSON-RPC message.
fn recorded(o: &Map<String, Value>) -> Option<(Direction, &Map<String, Value>)> {
    let direction = match o.get("direction")?.as_str()? {
        "to_agent" => Direction::ToAgent,
        "from_agent" => Direction::FromAgent,
        _ => return None,
    };
    let message = o.get("message")?.as_object()?;
    (message.get("jsonrpc").and_then(Value::as_str) == Some("2.0")).then_some((direction, message))
}

/// Whether `o` is a recorded ACP line (detection: its direction and a JSON-RPC 2.0 message).
pub(super) fn is_recorded(o: &Map<String, Value>) -> bool {
    recorded(o).is_some()
}

/// A request's id as a key: its JSON text (ids are numbers or strings).
fn id_key(m: &Map<String, Value>) -> Option<String> {
    m.get("id").filter(|id| !id.is_null()).map(Value::to_string)
}

/// Requests awaiting their answer, by id (its JSON text), with the bytes they hold.
#[derive(Debug, Default)]
struct Pending<V> {
    by_id: HashMap<String, V>,
    bytes: usize,
}

/// What a kept entry costs besides its text: the map's slot and the strings' headers.
const ENTRY: usize = 64;

/// The bytes a kept value holds.
trait Held {
    fn held(&self) -> usize;
}

impl Held for String {
    fn held(&self) -> usize {
        self.len()
    }
}

impl Held for Vec<u64> {
    fn held(&self) -> usize {
        std::mem::size_of_val(self.as_slice())
    }
}

/// An option id as kept: a hash of its text (64 bits) with keys random per reader (so that no
/// agent can make a rejecting id collide with an allowing one), so that what a request's options
/// hold is 8 bytes each, whatever the agent wrote (64 options of 1 KiB ids once kept 64 KiB a
/// request).
fn option_key(keys: &std::hash::RandomState, id: &str) -> u64 {
    use std::hash::BuildHasher;
    keys.hash_one(id)
}

impl<V: Held> Pending<V> {
    fn insert(&mut self, id: String, v: V) {
        let cost = ENTRY + id.len();
        self.bytes += cost + v.held();
        if let Some(old) = self.by_id.insert(id, v) {
            self.bytes -= cost + old.held();
        }
    }

    fn remove(&mut self, id: &str) -> Option<V> {
        let v = self.by_id.remove(id)?;
        self.bytes -= ENTRY + id.len() + v.held();
        Some(v)
    }
}

/// The turn being read: from its `session/prompt` request to its response.
#[derive(Debug, Default)]
struct Turn {
    /// The request's id and session.
    id: String,
    session: Option<String>,
    text: String,
    /// The line of the last chunk of text.
    line: Option<u64>,
    /// The response: its result, or its error.
    result: Option<Value>,
    error: Option<Value>,
    ended: bool,
    /// The `messageId` of the last chunk: a chunk of another message starts a new paragraph.
    message: Option<String>,
    /// Token counts the turn's chunks carried (Qwen Code's `_meta.usage`).
    chunk_usage: Option<Value>,
    /// Permission requests of the turn that sojx denied.
    denied: u64,
}

#[derive(Debug, Default)]
pub(super) struct Acp {
    /// Requests sent to the agent, by id: their method.
    sent: Pending<String>,
    /// An `initialize` was sent: a later one is a barrier.
    initialized: bool,
    /// The id of the last barrier, whose response is read as nothing.
    barrier: Option<String>,
    /// Permission requests of the agent, by id: the options that allow ([`option_key`]s of
    /// the `optionId`s whose `kind` is `allow_*`), which is all an answer is read against.
    asked: Pending<Vec<u64>>,
    /// The keys of [`option_key`].
    option_keys: std::hash::RandomState,
    agent_info: Option<Value>,
    session_id: Option<String>,
    model: Option<String>,
    /// A failed `initialize`, `authenticate` or `session/new`: its method and error.
    setup_error: Option<(String, Value)>,
    turn: Option<Turn>,
    turns: u64,
    /// The session's permission requests, and how sojx answered them.
    permissions: Permissions,
    last_error: Option<LastError>,
}

impl Acp {
    fn sent_by_sojx(&mut self, m: &Map<String, Value>) {
        let method = m.get("method").and_then(Value::as_str);
        match (method, id_key(m)) {
            (Some("session/prompt"), Some(id)) => {
                // A new turn: its answer replaces the previous one, whose response no longer
                // matters (so that a recording of many turns keeps one of them).
                if let Some(old) = &self.turn {
                    self.sent.remove(&old.id);
                }
                self.turns += 1;
                self.turn = Some(Turn {
                    id: id.clone(),
                    session: m
                        .get("params")
                        .and_then(|p| str_at(p, "sessionId"))
                        .map(str::to_owned),
                    ..Turn::default()
                });
                self.sent.insert(id, "session/prompt".into());
            }
            (Some("initialize"), Some(id)) if self.initialized => self.barrier = Some(id),
            (Some(method), Some(id)) if self.sent.by_id.len() < super::MAX_PARTS => {
                self.initialized |= method == "initialize";
                self.sent.insert(id, method.to_owned());
            }
            // sojx's answer to a permission request.
            (None, Some(id)) => {
                let Some(options) = self.asked.remove(&id) else {
                    return;
                };
                let chosen = m
                    .get("result")
                    .and_then(|r| r.get("outcome"))
                    .filter(|o| str_at(o, "outcome") == Some("selected"))
                    .and_then(|o| str_at(o, "optionId"));
                let allowed =
                    chosen.is_some_and(|c| options.contains(&option_key(&self.option_keys, c)));
                if allowed {
                    self.permissions.allowed += 1;
                } else {
                    self.permissions.denied += 1;
                    if let Some(t) = self.turn.as_mut().filter(|t| !t.ended) {
                        t.denied += 1;
                    }
                }
            }
            _ => {}
        }
    }

    fn sent_by_agent(&mut self, line: u64, m: &Map<String, Value>) {
        let method = m.get("method").and_then(Value::as_str);
        match method {
            Some("session/update") => self.update(line, m.get("params")),
            Some("session/request_permission") => {
                let Some(id) = id_key(m) else { return };
                let options = m
                    .get("params")
                    .and_then(|p| p.get("options"))
                    .and_then(Value::as_array)
                    .map(|os| {
                        os.iter()
                            .filter_map(|o| Some((str_at(o, "optionId")?, str_at(o, "kind")?)))
                            .take(64)
                            .filter(|(_, kind)| kind.starts_with("allow"))
                            .map(|(id, _)| option_key(&self.option_keys, id))
                            .collect()
                    })
                    .unwrap_or_default();
                if self.asked.by_id.len() < super::MAX_PARTS {
                    self.asked.insert(id, options);
                }
                self.permissions.asked += 1;
            }
            Some(_) => {}
            None => self.response(line, m),
        }
    }

    /// A `session/update` notification: text of the current turn's session, in the turn.
    fn update(&mut self, line: u64, params: Option<&Value>) {
        let Some(p) = params else { return };
        let Some(u) = p.get("update") else { return };
        let Some(t) = self.turn.as_mut().filter(|t| !t.ended) else {
            return;
        };
        if t.session
            .as_deref()
            .is_some_and(|s| str_at(p, "sessionId") != Some(s))
        {
            return;
        }
        if str_at(u, "sessionUpdate") != Some("agent_message_chunk") {
            return;
        }
        if let Some(usage) = u.pointer("/_meta/usage") {
            t.chunk_usage = Some(usage.clone());
        }
        if let Some(c) = u.get("content")
            && str_at(c, "type") == Some("text")
            && let Some(text) = str_at(c, "text")
            && !text.is_empty()
        {
            let message = str_at(u, "messageId");
            if message.is_some()
                && t.message.is_some()
                && message != t.message.as_deref()
                && !t.text.is_empty()
            {
                // Another message of the turn (an agent's notice after its answer).
                t.text.push_str("\n\n");
            }
            if let Some(m) = message {
                t.message = Some(m.to_owned());
            }
            t.text.push_str(text);
            t.line = Some(line);
        }
    }

    /// A response of the agent to one of sojx's requests.
    fn response(&mut self, line: u64, m: &Map<String, Value>) {
        let Some(id) = id_key(m) else { return };
        let Some(method) = self.sent.remove(&id) else {
            return;
        };
        let result = m.get("result");
        // An `error` of any type is an error (sojx's client reads it so too).
        let error = m.get("error").filter(|e| !e.is_null());
        if let Some(e) = error {
            let words = str_at(e, "message").unwrap_or("error");
            self.last_error = Some(LastError::error(
                line,
                &format!("{method}: {words}"),
                e,
                &["code", "message", "data"],
            ));
        }
        match method.as_str() {
            "session/prompt" => {
                let Some(t) = self.turn.as_mut().filter(|t| t.id == id) else {
                    return;
                };
                t.ended = true;
                t.result = result.cloned();
                t.error = error.cloned();
            }
            "initialize" => {
                if let Some(info) = result.and_then(|r| r.get("agentInfo")) {
                    self.agent_info = Some(info.clone());
                }
                if let Some(e) = error {
                    self.setup_error = Some((method, e.clone()));
                }
            }
            "session/new" | "session/load" | "authenticate" => {
                if let Some(r) = result {
                    if let Some(s) = str_at(r, "sessionId") {
                        self.session_id = Some(s.to_owned());
                    }
                    if let Some(m) = r.get("models").and_then(|ms| str_at(ms, "currentModelId")) {
                        self.model = Some(m.to_owned());
                    }
                }
                match error {
                    Some(e) => self.setup_error = Some((method, e.clone())),
                    None if method != "authenticate" => self.setup_error = None,
                    None => {}
                }
            }
            _ => {}
        }
    }
}

impl Extractor for Acp {
    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value } = item else {
            return false;
        };
        let Some((direction, m)) = value.as_object().and_then(recorded) else {
            return false;
        };
        match direction {
            Direction::ToAgent => self.sent_by_sojx(m),
            Direction::FromAgent => self.sent_by_agent(*line, m),
        }
        true
    }

    /// The turn's text, and the requests awaiting an answer (their ids, methods, options):
    /// a recording of unanswered requests is bounded by `--max-answer-bytes` too.
    fn held(&self) -> usize {
        self.turn.as_ref().map_or(0, |t| t.text.len()) + self.sent.bytes + self.asked.bytes
    }

    fn last_error(&self) -> Option<LastError> {
        self.last_error.clone()
    }

    fn describe(&self, item: &Item) -> Option<(Kind, String)> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        let (direction, m) = value.as_object().and_then(recorded)?;
        let method = m.get("method").and_then(Value::as_str);
        let params = m.get("params");
        match (direction, method) {
            (Direction::ToAgent, Some("session/cancel")) => {
                Some((Kind::Error, "session/cancel sent".into()))
            }
            (Direction::ToAgent, None) => {
                let outcome = m.get("result")?.get("outcome")?;
                let said = match str_at(outcome, "outcome")? {
                    "selected" => format!("permission answered: {}", str_at(outcome, "optionId")?),
                    other => format!("permission answered: {other}"),
                };
                Some((Kind::Tool, said))
            }
            (Direction::FromAgent, Some("session/update")) => {
                let u = params?.get("update")?;
                match str_at(u, "sessionUpdate")? {
                    "agent_message_chunk" => {
                        let text = str_at(u.get("content")?, "text")?;
                        (!text.trim().is_empty())
                            .then(|| (Kind::Text, format!("text: {}", snippet(text, 80))))
                    }
                    "tool_call" => Some((
                        Kind::Tool,
                        format!("tool: {}", snippet(str_at(u, "title").unwrap_or("?"), 80)),
                    )),
                    "plan" => Some((Kind::Info, "plan".into())),
                    _ => None,
                }
            }
            (Direction::FromAgent, Some("session/request_permission")) => {
                let title = params
                    .and_then(|p| p.get("toolCall"))
                    .and_then(|t| str_at(t, "title"))
                    .unwrap_or("a tool");
                Some((
                    Kind::Tool,
                    format!("permission asked: {}", snippet(title, 80)),
                ))
            }
            // The barrier's response, an error included (-32601 from an agent that took
            // `initialize` only once).
            (Direction::FromAgent, None) if self.barrier.is_some() && id_key(m) == self.barrier => {
                None
            }
            (Direction::FromAgent, None) => {
                if let Some(e) = m.get("error") {
                    return Some((
                        Kind::Error,
                        format!(
                            "error {}: {}",
                            e.get("code").map(Value::to_string).unwrap_or_default(),
                            snippet(str_at(e, "message").unwrap_or(""), 100)
                        ),
                    ));
                }
                let stop = str_at(m.get("result")?, "stopReason")?;
                Some((Kind::Result, format!("turn ended: {stop}")))
            }
            _ => None,
        }
    }

    fn finish(self: Box<Self>) -> Outcome {
        let mut session = Session {
            id: self.session_id.clone(),
            model: self.model.clone(),
            ..Session::default()
        };
        if self.turns > 0 {
            session.turns = Some(Value::from(self.turns));
        }
        if let Some(info) = &self.agent_info {
            session.agent_info = Some(AgentInfo::of(info));
        }
        if self.turn.is_some() {
            session.permissions = Some(self.permissions);
        }
        let verdict = match (&self.turn, &self.setup_error) {
            (None, Some((method, e))) => rpc_error(method, e),
            (None, None) => truncated_after(
                "the response to a `session/prompt` request",
                self.last_error.as_ref(),
            ),
            (Some(t), _) => {
                if let Some(r) = &t.result {
                    usage(&mut session, r, t.chunk_usage.as_ref());
                    if let Some(id) = &t.session {
                        session.id = Some(id.clone());
                    }
                }
                turn_verdict(t, self.last_error.as_ref())
            }
        };
        Outcome {
            producer: Producer::Acp,
            verdict,
            session,
            warnings: Vec::new(),
        }
    }
}

impl AgentInfo {
    fn of(v: &Value) -> Self {
        let s = |k| str_at(v, k).map(str::to_owned);
        Self {
            name: s("name"),
            title: s("title"),
            version: s("version"),
        }
    }
}

/// The verdict of the last turn.
fn turn_verdict(t: &Turn, last: Option<&LastError>) -> Verdict {
    if let Some(e) = &t.error {
        return rpc_error("session/prompt", e);
    }
    if !t.ended {
        return truncated_after("the response to its `session/prompt` request", last);
    }
    let stop = t.result.as_ref().and_then(|r| str_at(r, "stopReason"));
    match stop {
        Some("end_turn") if t.text.is_empty() => Verdict::Nothing {
            message: "the agent ended its turn (end_turn) without any message text".into(),
        },
        Some("end_turn") => Verdict::Text {
            text: t.text.clone(),
            line: t.line,
        },
        Some("cancelled") if t.denied > 0 => {
            // sojx denied what the agent asked, and the agent gave up (Codex's only reject option
            // aborts the turn): the same run would meet the same policy.
            Verdict::Failed(
                agent_failure(
                    format!(
                        "the agent cancelled the turn after sojx denied {} permission request(s) (--acp-permissions)",
                        t.denied
                    ),
                    agent_details(Some("cancelled"), Some("permission_denied"), Value::Array(Vec::new())),
                )
                .retryable(false)
                .hint("allow the tool (--acp-permissions allow-once), or ask for an answer that needs no tool"),
            )
        }
        other => {
            let s = other.unwrap_or("none");
            let why = match s {
                "max_tokens" => "the model hit its token limit; the answer is cut off",
                "max_turn_requests" => "the agent reached its limit of model requests in one turn",
                "refusal" => "the agent refused to go on",
                "cancelled" => "the turn was cancelled",
                _ => "the turn ended without `end_turn`",
            };
            let f = agent_failure(
                format!("{why} (stopReason: {s})"),
                agent_details(Some(s), Some(s), Value::Array(Vec::new())),
            );
            // A refusal is the model's answer to this prompt: re-running it will not help.
            Verdict::Failed(if s == "refusal" {
                f.retryable(false)
            } else {
                f
            })
        }
    }
}

/// The failure of a JSON-RPC error in answer to `method`, by its code: authentication required,
/// or a request the agent does not take (method not found, invalid params or request), cannot
/// pass on a re-run; the others (internal error, the agent's own codes) may.
fn rpc_error(method: &str, e: &Value) -> Verdict {
    let code = e.get("code").and_then(Value::as_i64);
    let message = str_at(e, "message").or(e.as_str()).unwrap_or("error");
    let data = e
        .get("data")
        .map(|d| match d {
            Value::String(s) => s.clone(),
            d => d.to_string(),
        })
        .filter(|d| !d.is_empty() && d != "null");
    let said = match &data {
        Some(d) => format!("{message}: {}", snippet(d, 300)),
        None => message.to_owned(),
    };
    let code_text = code.map_or_else(|| "?".to_owned(), |c| c.to_string());
    let mut details = agent_details(
        Some("jsonrpc_error"),
        Some(method),
        Value::Array(vec![e.clone()]),
    );
    if let Some(c) = code {
        details.more.insert("code".into(), Value::from(c));
    }
    let f = agent_failure(
        format!(
            "the agent answered {method} with JSON-RPC error {code_text}: {}",
            snippet(&said, 300)
        ),
        details,
    );
    Verdict::Failed(match code {
        Some(AUTH_REQUIRED) => f.retryable(false).hint(
            "the agent needs to be logged in: set the key its authentication method names, or log in with the agent itself, then run it again",
        ),
        Some(-32602..=-32600) => f.retryable(false).hint(
            "the agent did not take sojx's request: is it a version that speaks this protocol version? `docs/run.md`, \"ACP\", lists the agents tested",
        ),
        _ => f,
    })
}

/// The turn's token counts and model, from its prompt's result `r`: its `usage` (ACP's
/// `PromptResponse.usage`, unstable; Claude Code's adapter), else Gemini CLI's
/// `_meta.quota.token_count`, else the `_meta.usage` a chunk carried (Qwen Code, `chunk`); the
/// model that answered, from `_meta.quota.model_usage` (Gemini CLI, Claude Code's adapter: the
/// session's model may be `auto`).
fn usage(session: &mut Session, r: &Value, chunk: Option<&Value>) {
    let u = &mut session.usage;
    let n = |v: &Value, k: &str| u64_at(v, k).map(Value::from);
    if let Some(x) = r.get("usage").or(chunk) {
        u.input_tokens = n(x, "inputTokens");
        u.output_tokens = n(x, "outputTokens");
        u.cache_read_input_tokens = n(x, "cachedReadTokens");
        u.cache_creation_input_tokens = n(x, "cachedWriteTokens");
    } else if let Some(x) = r.pointer("/_meta/quota/token_count") {
        u.input_tokens = n(x, "input_tokens");
        u.output_tokens = n(x, "output_tokens");
    }
    if let Some(m) = r
        .pointer("/_meta/quota/model_usage")
        .and_then(Value::as_array)
        .and_then(|ms| ms.last())
        .and_then(|m| str_at(m, "model"))
    {
        session.model = Some(m.to_owned());
    }
}
