//! sojx's calls to the agent: one request at a time, waited for until its response, a
//! deadline, or the end of the agent's output; the agent's own requests meanwhile answered
//! (permissions by the policy, anything else refused), every message recorded.
//!
//! What belongs to a turn is decided by order on the wire, never by timing. The agent's stdout
//! is one ordered pipe, but it is not ordered with sojx's writes to its stdin: a message the
//! agent wrote before it read `session/prompt` may still be in the pipe when sojx has sent it.
//! So before each prompt sojx sends a barrier, a request the agent must answer (JSON-RPC 2.0:
//! every request with an id gets a response), and reads until its response. The agent wrote
//! that response after it read the barrier, so everything read before it was written before
//! the agent could read the prompt, which sojx sends only then: it is recorded before the
//! prompt, and the `acp` reader never counts it in the turn. The barrier is `initialize` again,
//! with the handshake's params: the one request every ACP agent must answer, and one that
//! changes nothing (docs/run.md, "ACP", says why not an extension method).

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::wire::{self, Incoming};
use super::{METHOD_NOT_FOUND, Policy, record};

/// The agent's response to a request: its `result`, or its JSON-RPC `error`.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    Result(Value),
    Error(Value),
}

/// Why a call ended without its response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The agent's stdout ended (it exited, or closed it).
    Closed,
    /// A line on the agent's stdout that is not a JSON-RPC 2.0 message (its start).
    Malformed(String),
    /// A line longer than the bound (`--max-line-bytes`): its length so far.
    TooLong(usize),
    /// The agent wrote back sojx's own message: a program that echoes its input (`cat`), not
    /// an ACP agent.
    Echo,
    /// Reading the agent's stdout failed.
    Failed(String),
    /// The deadline passed; for a prompt, `session/cancel` was sent, and the agent `answered`
    /// it (the turn ended, `cancelled`) before the grace passed, or not.
    Deadline { answered: bool },
    /// The turn's reader went past a bound on what it keeps (`--max-answer-bytes`): nothing
    /// more the agent writes can change the outcome, so `session/cancel` was sent, and the
    /// agent `answered` it before the grace passed, or not.
    Past { answered: bool },
    /// No thread could be started for the wire.
    NoThread,
    /// The agent has not read sojx's last messages: it does not read its stdin.
    NotReading,
    /// The prompt, as one message, is longer than the bound (its length): never sent.
    PromptTooLong(usize),
    /// The prompt fits the bound, but not with the agent's session id: the message's length,
    /// and the id's. Never sent: the agent's fault, not the caller's.
    SessionTooLong(usize, usize),
    /// The agent did not answer the barrier sent before a turn (`initialize` again) by the
    /// turn's deadline, or within [`BARRIER`] without one: the prompt was never sent.
    Barrier,
}

/// How long the agent has to answer the barrier before a turn when the turn has no deadline
/// (no `--timeout`), as for the handshake (docs/limits.md).
pub(crate) const BARRIER: Duration = Duration::from_secs(60);

/// How often a turn's wait looks whether its reader went past a bound.
const POLL: Duration = Duration::from_millis(50);

/// Most of sojx's own last messages kept to tell an echo.
const KEPT_SENT: usize = 8;

/// A connection to the agent.
pub(crate) struct Client {
    out: Option<wire::Writer>,
    rx: Receiver<Incoming>,
    /// The longest recorded line (`--max-line-bytes`).
    max_line: usize,
    /// The writer's queue filled up: the next wait stops ([`Stop::NotReading`]).
    stalled: bool,
    next_id: u64,
    /// sojx's last messages, as sent.
    sent: VecDeque<String>,
    policy: Policy,
    /// A turn is being cancelled: permission requests are answered `cancelled`.
    cancelling: bool,
}

impl Client {
    /// Connect to the agent's `stdout` and `stdin`.
    pub(crate) fn start(
        stdout: Box<dyn Read + Send>,
        stdin: Box<dyn Write + Send>,
        policy: Policy,
        max_line: usize,
    ) -> Result<Self, Stop> {
        let max_message = max_line.saturating_sub(super::RECORD_OVERHEAD);
        let rx = wire::reader(stdout, max_message).ok_or(Stop::NoThread)?;
        let out = wire::writer(stdin).ok_or(Stop::NoThread)?;
        Ok(Self {
            out: Some(out),
            rx,
            max_line,
            stalled: false,
            next_id: 0,
            sent: VecDeque::new(),
            policy,
            cancelling: false,
        })
    }

    /// Close the agent's stdin: the end of the session (an ACP agent exits then).
    pub(crate) fn close(&mut self) {
        self.out = None;
    }

    /// Send a message, recorded; `lasting` when a later turn's reader needs it (a prompt, an
    /// answer to a permission request).
    fn send(&mut self, msg: &Value, lasting: bool, rec: &mut dyn FnMut(&str, bool)) {
        let text = msg.to_string();
        rec(&record(true, &text), lasting);
        if self.sent.len() == KEPT_SENT {
            self.sent.pop_front();
        }
        self.sent.push_back(text.clone());
        if let Some(out) = &self.out
            && out.send(text).is_err()
        {
            self.stalled = true;
        }
    }

    /// Call `method` with `params` and wait for its response until `deadline`.
    pub(crate) fn call(
        &mut self,
        method: &str,
        params: &Value,
        deadline: Option<Instant>,
        rec: &mut dyn FnMut(&str, bool),
    ) -> Result<Reply, Stop> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            false,
            rec,
        );
        self.wait(id, deadline, None, rec)
    }

    /// A `session/prompt` turn of `session` with `text`, after the barrier: its response, or
    /// why there was none. At `deadline` the turn is cancelled (`session/cancel`), and the
    /// agent has `grace` to end it before the call stops.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prompt(
        &mut self,
        session: &str,
        text: &str,
        deadline: Option<Instant>,
        grace: Duration,
        past: &AtomicBool,
        rec: &mut dyn FnMut(&str, bool),
    ) -> Result<Reply, Stop> {
        // The barrier takes the next id, the prompt the one after.
        let id = self.next_id + 1;
        let len = prompt_len(id, session, text);
        if len > self.max_line {
            return Err(if prompt_len(id, "", text) <= self.max_line {
                Stop::SessionTooLong(len, session.len())
            } else {
                Stop::PromptTooLong(len)
            });
        }
        let params = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": params});
        match self.barrier(deadline, rec) {
            // The agent's output ended: the prompt's own wait tells it, as in a turn.
            Ok(()) | Err(Stop::Closed) => {}
            Err(stop) => return Err(stop),
        }
        self.next_id += 1;
        self.send(&msg, true, rec);
        self.cancelling = false;
        let bound = match self.wait(id, deadline, Some(past), rec) {
            Err(Stop::Deadline { .. }) => false,
            Err(Stop::Past { .. }) => true,
            other => return other,
        };
        self.cancelling = true;
        self.send(
            &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}),
            false,
            rec,
        );
        let answered = match self.wait(id, Instant::now().checked_add(grace), None, rec) {
            Ok(_) => true,
            Err(Stop::Deadline { .. }) => false,
            Err(other) => return Err(other),
        };
        self.cancelling = false;
        Err(if bound {
            Stop::Past { answered }
        } else {
            Stop::Deadline { answered }
        })
    }

    /// The barrier before a turn: `initialize` again, read until its response (a result or
    /// an error alike), the agent's requests meanwhile answered; by `deadline`, else within
    /// [`BARRIER`].
    fn barrier(
        &mut self,
        deadline: Option<Instant>,
        rec: &mut dyn FnMut(&str, bool),
    ) -> Result<(), Stop> {
        let until = deadline.or_else(|| Instant::now().checked_add(BARRIER));
        match self.call("initialize", &super::initialize_params(), until, rec) {
            Ok(_) => Ok(()),
            Err(Stop::Deadline { .. }) => Err(Stop::Barrier),
            Err(stop) => Err(stop),
        }
    }

    /// Read the agent's messages until the response to `id`, answering its requests; until
    /// `past` is set, when it is given (looked at every [`POLL`]).
    fn wait(
        &mut self,
        id: u64,
        deadline: Option<Instant>,
        past: Option<&AtomicBool>,
        rec: &mut dyn FnMut(&str, bool),
    ) -> Result<Reply, Stop> {
        loop {
            if self.stalled {
                return Err(Stop::NotReading);
            }
            if past.is_some_and(|p| p.load(Ordering::Relaxed)) {
                return Err(Stop::Past { answered: false });
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let next = match (left, past) {
                (Some(left), Some(_)) => self.rx.recv_timeout(left.min(POLL)),
                (Some(left), None) => self.rx.recv_timeout(left),
                (None, Some(_)) => self.rx.recv_timeout(POLL),
                (None, None) => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            let incoming = match next {
                Ok(i) => i,
                Err(RecvTimeoutError::Disconnected) => Incoming::End,
                Err(RecvTimeoutError::Timeout) if deadline.is_some_and(|d| Instant::now() >= d) => {
                    return Err(Stop::Deadline { answered: false });
                }
                // A look at `past`.
                Err(RecvTimeoutError::Timeout) => continue,
            };
            if let Some(reply) = self.take(incoming, id, rec)? {
                return Ok(reply);
            }
        }
    }

    /// One thing read: recorded, a request of the agent answered; the reply when it is the
    /// response to `id`.
    fn take(
        &mut self,
        incoming: Incoming,
        id: u64,
        rec: &mut dyn FnMut(&str, bool),
    ) -> Result<Option<Reply>, Stop> {
        let (v, raw) = match incoming {
            Incoming::Message(v, raw) => (v, raw),
            Incoming::Malformed(line) => return Err(Stop::Malformed(line)),
            Incoming::TooLong(n) => return Err(Stop::TooLong(n)),
            Incoming::Failed(why) => return Err(Stop::Failed(why)),
            Incoming::End => return Err(Stop::Closed),
        };
        let method = v.get("method").and_then(Value::as_str);
        rec(
            &record(false, &raw),
            method == Some("session/request_permission"),
        );
        if self.sent.contains(&raw) {
            return Err(Stop::Echo);
        }
        match (method, v.get("id")) {
            (Some(m), Some(rid)) if !rid.is_null() => {
                self.answer(m, rid, v.get("params"), rec);
                Ok(None)
            }
            // A response to the request waited for. An `error` of any type is an error (the
            // `acp` reader reads it so too).
            (None, Some(rid)) if rid.as_u64() == Some(id) => Ok(Some(match v.get("error") {
                Some(e) if !e.is_null() => Reply::Error(e.clone()),
                _ => Reply::Result(v.get("result").cloned().unwrap_or(Value::Null)),
            })),
            // A notification (`session/update`), read by the `acp` producer from the recording;
            // a response to nothing sojx waits for.
            _ => Ok(None),
        }
    }

    /// Answer the agent's request `method` (id `rid`).
    fn answer(
        &mut self,
        method: &str,
        rid: &Value,
        params: Option<&Value>,
        rec: &mut dyn FnMut(&str, bool),
    ) {
        let permission = method == "session/request_permission";
        let reply = if permission {
            let options: Vec<(String, Option<String>)> = params
                .and_then(|p| p.get("options"))
                .and_then(Value::as_array)
                .map(|os| {
                    os.iter()
                        .filter_map(|o| {
                            let s = |k| o.get(k).and_then(Value::as_str).map(str::to_owned);
                            Some((s("optionId")?, s("kind")))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let chosen = if self.cancelling {
                None
            } else {
                self.policy.answer(&options)
            };
            let outcome = match chosen {
                Some(option) => json!({"outcome": "selected", "optionId": option}),
                None => json!({"outcome": "cancelled"}),
            };
            json!({"jsonrpc": "2.0", "id": rid, "result": {"outcome": outcome}})
        } else {
            json!({"jsonrpc": "2.0", "id": rid, "error": {
                "code": METHOD_NOT_FOUND,
                "message": format!("sojx does not implement {}: it offers the agent no file system, terminal or other client capability", quoted(method)),
            }})
        };
        self.send(&reply, permission, rec);
    }
}

/// The id of the first `session/prompt` of a session without `authenticate` (after
/// `initialize`, `session/new` and the barrier): the prompt's length is checked with it before
/// the agent starts.
pub(crate) const FIRST_PROMPT_ID: u64 = 3;

/// The length of the recorded line of `session/prompt` `id` of `session` with `text`, without
/// building it (the text is counted as JSON escapes it).
pub(crate) fn prompt_len(id: u64, session: &str, text: &str) -> usize {
    let skeleton = json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": ""}]}});
    let mut count = Count(0);
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, text);
    // The text's quotes are the skeleton's.
    record(true, &skeleton.to_string()).len() + count.0 - 2
}

/// A writer that counts what it is given.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What one byte of a prompt's text takes in its message (as serde_json escapes a string of
/// valid UTF-8): the short escapes, `\u00XX` for the other control characters.
pub(crate) fn escaped_len(b: u8) -> usize {
    match b {
        b'"' | b'\\' | 0x08 | b'\t' | b'\n' | 0x0c | b'\r' => 2,
        0..0x20 => 6,
        _ => 1,
    }
}

/// Most characters of a method name sojx's refusal quotes.
const QUOTED_METHOD: usize = 100;

/// The agent's method name as sojx's refusal quotes it: at most [`QUOTED_METHOD`] characters,
/// so that sojx's reply is not longer than the request it answers (a method name near
/// `--max-line-bytes` would make sojx's own recorded line too long for the `acp` reader).
fn quoted(method: &str) -> String {
    match method.char_indices().nth(QUOTED_METHOD) {
        Some((at, _)) => format!("{}…", &method[..at]),
        None => method.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompts_length_is_counted_as_it_is_sent() {
        for text in ["go", "a \"quoted\" \\ line\n\t\u{0}\u{1f}\u{7f} é 🦀", ""] {
            let msg = json!({"jsonrpc": "2.0", "id": 12, "method": "session/prompt",
                "params": {"sessionId": "s-1", "prompt": [{"type": "text", "text": text}]}});
            assert_eq!(
                prompt_len(12, "s-1", text),
                record(true, &msg.to_string()).len(),
                "{text:?}"
            );
            let bytes: usize = text.bytes().map(escaped_len).sum();
            assert_eq!(
                prompt_len(12, "s-1", text),
                prompt_len(12, "s-1", "") + bytes
            );
        }
    }

    #[test]
    fn a_refusal_quotes_a_long_method_name_cut() {
        assert_eq!(quoted("fs/read_text_file"), "fs/read_text_file");
        let long = "é".repeat(5000);
        let q = quoted(&long);
        assert_eq!(q.chars().count(), QUOTED_METHOD + 1);
        assert!(q.ends_with('…'));
    }
}
