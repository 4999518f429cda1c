//! The session's start (`initialize`, `authenticate` when required, `session/new`), and the
//! failures of a wire that stopped.

use std::time::Instant;

use serde_json::{Value, json};

use super::{Ended, HANDSHAKE, Note, Session};
use crate::acp::{self, Client, Reply, Stop};
use crate::details::{AgentDetails, Details};
use crate::envelope::{self, Envelope};
use crate::error::{ErrorKind, Failure, Operation};
use crate::names::Command;

/// How the handshake failed.
pub(super) enum Handshake {
    /// The wire stopped (see [`Stop`]).
    Stopped(Stop),
    /// The agent answered with a JSON-RPC error that the `acp` producer reads.
    Refused,
    /// sojx cannot go on with this agent: its protocol version, an authentication it cannot
    /// satisfy.
    Failed(Box<Failure>),
}

impl From<Stop> for Handshake {
    fn from(s: Stop) -> Self {
        Self::Stopped(s)
    }
}

impl Session<'_, '_> {
    /// `initialize`, `session/new` (and `authenticate` when the agent requires it): the
    /// session's id.
    pub(super) fn handshake(
        &self,
        client: &mut Client,
        deadline: Option<Instant>,
        rec: &mut dyn FnMut(&str, bool),
    ) -> Result<String, Handshake> {
        let init = acp::initialize_params();
        let info = match client.call("initialize", &init, deadline, rec)? {
            Reply::Result(r) => r,
            Reply::Error(_) => return Err(Handshake::Refused),
        };
        let version = info.get("protocolVersion").and_then(Value::as_u64);
        if version != Some(acp::PROTOCOL_VERSION) {
            let given = version.map_or_else(|| "(none given)".to_owned(), |v| v.to_string());
            return Err(Handshake::Failed(Box::new(
                protocol_error(
                    "protocol_version",
                    format!(
                        "the agent speaks ACP version {given}; sojx speaks version {}",
                        acp::PROTOCOL_VERSION
                    ),
                    vec![format!("protocolVersion: {given}")],
                )
                .hint("use a version of the agent that speaks ACP version 1"),
            )));
        }
        let params = json!({"cwd": self.cwd, "mcpServers": []});
        match client.call("session/new", &params, deadline, rec)? {
            Reply::Result(r) => return session_id(&r),
            Reply::Error(e) if code(&e) != Some(acp::AUTH_REQUIRED) => {
                return Err(Handshake::Refused);
            }
            Reply::Error(_) => {}
        }
        // The agent requires authentication: one of its methods the environment satisfies.
        let methods = auth_methods(&info);
        let Some(method) = methods
            .iter()
            .find(|m| self.satisfied.contains(&m.id.as_str()) || m.vars_set)
        else {
            return Err(Handshake::Failed(Box::new(unauthenticated(&methods))));
        };
        if let Reply::Error(_) = client.call(
            "authenticate",
            &json!({"methodId": method.id}),
            deadline,
            rec,
        )? {
            return Err(Handshake::Refused);
        }
        match client.call("session/new", &params, deadline, rec)? {
            Reply::Result(r) => session_id(&r),
            Reply::Error(_) => Err(Handshake::Refused),
        }
    }

    /// The envelope of a session that ended before its first turn: what the handshake's lines
    /// read as, with why it ended.
    pub(super) fn ended_before(
        &self,
        why: Handshake,
        header: &[String],
        send: &mut (dyn FnMut(Note) + Send),
    ) -> Ended {
        let env = self
            .read_turn(
                header,
                &mut super::turns::Kept::default(),
                |_, _| Ok(Reply::Result(Value::Null)),
                send,
            )
            .0;
        let (env, timed_out) = match why {
            Handshake::Stopped(stop) => (
                self.stop_failure(&stop, env, false),
                matches!(stop, Stop::Deadline { .. }),
            ),
            Handshake::Failed(f) => (
                envelope::failure(Command::Run, self.name, *f, env.into_parts()),
                false,
            ),
            // The agent's JSON-RPC error, as the `acp` producer reads it.
            Handshake::Refused => (env, false),
        };
        Ended {
            env,
            attempts: Vec::new(),
            timed_out,
        }
    }

    /// The failure of a wire that stopped, in place of what `env` read; `in_turn` when it
    /// stopped in a turn (else in the handshake).
    pub(super) fn stop_failure(&self, stop: &Stop, env: Envelope, in_turn: bool) -> Envelope {
        let protocol = |reason: &str, m: String, errors: Vec<String>| {
            protocol_error(reason, m, errors)
                .hint("is COMMAND an ACP agent, started in its ACP mode (`gemini --acp`, `qwen --acp`, `opencode acp`)? docs/run.md, \"ACP\", lists how each starts")
        };
        let f = match stop {
            // Past a bound, what `env` read names it.
            Stop::Closed | Stop::Past { .. } => return env,
            Stop::Echo => protocol(
                "echo",
                "the agent wrote sojx's own message back: COMMAND echoes its input (like `cat`) and does not speak ACP".into(),
                Vec::new(),
            ),
            Stop::Malformed(line) => protocol(
                "not_json_rpc",
                format!("the agent wrote a line that is not a JSON-RPC 2.0 message on its stdout: {line}"),
                vec![line.clone()],
            ),
            Stop::TooLong(n) => protocol_error(
                "message_too_long",
                format!(
                    "the agent wrote a message longer than --max-line-bytes allows ({} bytes with its recording; {n} read)",
                    self.opts.max_line_bytes
                ),
                Vec::new(),
            )
            .hint("raise --max-line-bytes if the agent's messages are this large"),
            Stop::NotReading => protocol_error(
                "not_reading",
                "the agent does not read its stdin: sojx's messages to it are not taken".into(),
                Vec::new(),
            )
            .hint("is COMMAND an ACP agent, started in its ACP mode? docs/run.md, \"ACP\", lists how each starts"),
            Stop::PromptTooLong(n) => Failure::new(
                ErrorKind::Usage,
                Operation::ParseArguments,
                format!(
                    "the prompt, as one ACP message ({n} bytes with its recording), is longer than --max-line-bytes ({} bytes)",
                    self.opts.max_line_bytes
                ),
            )
            .retryable(false)
            .target("--prompt")
            .hint("raise --max-line-bytes, or give the agent a file to read instead of the whole text"),
            Stop::SessionTooLong(n, id) => protocol_error(
                "session_id_too_long",
                format!(
                    "the agent's session id ({id} bytes) makes every prompt, as one ACP message ({n} bytes with its recording), longer than --max-line-bytes ({} bytes); the prompt alone fits",
                    self.opts.max_line_bytes
                ),
                Vec::new(),
            )
            .hint("the agent gave a session id too long to send back; raise --max-line-bytes if the agent's ids are this large"),
            Stop::Failed(why) => Failure::new(
                ErrorKind::Io,
                Operation::Read,
                format!("cannot read the agent's stdout: {why}"),
            ),
            Stop::NoThread => Failure::new(
                ErrorKind::Internal,
                Operation::Run,
                "no thread could be started for the agent's messages",
            )
            .retryable(false),
            Stop::Deadline { answered } => self.deadline_failure(*answered, in_turn),
            Stop::Barrier => {
                let (flag, secs) = match self.timeout {
                    Some(t) => ("--timeout", t.as_secs_f64()),
                    None => ("the barrier's bound", acp::BARRIER.as_secs_f64()),
                };
                Failure::new(
                    ErrorKind::Timeout,
                    Operation::Run,
                    format!("{flag} ({secs} s) passed before the turn: the agent did not answer `initialize`, which sojx sends again before each prompt so that nothing the agent wrote before the turn is taken as its answer"),
                )
                .hint("the agent may be stuck; raise --timeout if it is just slow")
            }
        };
        envelope::failure(Command::Run, self.name, f, env.into_parts())
    }
    /// The failure of a deadline that passed, in a turn (sojx sent `session/cancel`, which the
    /// agent `answered`, or not) or in the handshake.
    fn deadline_failure(&self, answered: bool, in_turn: bool) -> Failure {
        let secs = self.timeout.unwrap_or(HANDSHAKE).as_secs_f64();
        let what = if in_turn {
            if answered {
                "; sojx sent session/cancel, and the agent ended the turn"
            } else {
                "; sojx sent session/cancel, and the agent did not end the turn"
            }
        } else {
            " while the agent started its session (initialize, session/new)"
        };
        let flag = if self.timeout.is_some() {
            "--timeout"
        } else {
            "the handshake's bound"
        };
        Failure::new(
            ErrorKind::Timeout,
            Operation::Run,
            format!("{flag} ({secs} s) passed{what}"),
        )
        .hint("the agent may be stuck; raise --timeout if it is just slow")
    }
}

/// An `agent_error` of the protocol itself (not retryable: the same agent does the same), its
/// details the contract's `{subtype, terminal_reason, errors}`: `acp`, what went wrong, and
/// the agent's own words.
fn protocol_error(reason: &str, message: String, errors: Vec<String>) -> Failure {
    let errors = Value::Array(errors.into_iter().map(Value::from).collect());
    Failure::new(ErrorKind::AgentError, Operation::Run, message)
        .retryable(false)
        .details(Details::Agent(AgentDetails::new(
            Some("acp"),
            Some(reason),
            errors,
        )))
}

/// A JSON-RPC error's code.
fn code(e: &Value) -> Option<i64> {
    e.get("code").and_then(Value::as_i64)
}

/// `session/new`'s session id.
fn session_id(r: &Value) -> Result<String, Handshake> {
    r.get("sessionId")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| {
            Handshake::Failed(Box::new(protocol_error(
                "no_session_id",
                "the agent's session/new result has no sessionId".into(),
                Vec::new(),
            )))
        })
}

/// An authentication method the agent offers.
struct Method {
    id: String,
    name: String,
    /// An `env_var` method whose variables are all set.
    vars_set: bool,
    /// Its variables, when it names them.
    vars: Vec<String>,
}

fn auth_methods(info: &Value) -> Vec<Method> {
    let Some(ms) = info.get("authMethods").and_then(Value::as_array) else {
        return Vec::new();
    };
    ms.iter()
        .filter_map(|m| {
            let id = m.get("id")?.as_str()?.to_owned();
            let vars: Vec<(String, bool)> = m
                .get("vars")
                .and_then(Value::as_array)
                .map(|vs| {
                    vs.iter()
                        .filter_map(|v| {
                            let name = v.get("name")?.as_str()?.to_owned();
                            let optional = v.get("optional").and_then(Value::as_bool) == Some(true);
                            Some((name, optional))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let vars_set = m.get("type").and_then(Value::as_str) == Some("env_var")
                && !vars.is_empty()
                && vars.iter().all(|(v, optional)| {
                    *optional || std::env::var_os(v).is_some_and(|x| !x.is_empty())
                });
            Some(Method {
                name: m
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or(&id)
                    .to_owned(),
                id,
                vars_set,
                vars: vars.into_iter().map(|(v, _)| v).collect(),
            })
        })
        .take(32)
        .collect()
}

/// The failure of an agent that requires authentication that the environment satisfies with
/// none of its methods.
fn unauthenticated(methods: &[Method]) -> Failure {
    let listed: Vec<String> = methods
        .iter()
        .map(|m| {
            let known = acp::AUTH_VARS
                .iter()
                .filter(|(id, _)| *id == m.id)
                .map(|(_, v)| (*v).to_owned());
            let vars: Vec<String> = m.vars.iter().cloned().chain(known).collect();
            if vars.is_empty() {
                format!("{} ({}: log in with the agent itself)", m.id, m.name)
            } else {
                format!("{} ({}: set {})", m.id, m.name, vars.join(" and "))
            }
        })
        .collect();
    let offered = if listed.is_empty() {
        "it offers no method".to_owned()
    } else {
        format!("it offers {}", listed.join("; "))
    };
    protocol_error(
        "auth_required",
        format!(
            "the agent requires authentication, and none of its methods can be used here: {offered}"
        ),
        listed,
    )
    .hint("set the variable a method names, or log in with the agent itself, then run it again")
}
