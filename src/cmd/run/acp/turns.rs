//! The session's turns: each read by `extract` as it happens, and the next one made from what
//! the last came to.

use std::io::{self, Read, Write};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::time::Instant;

use serde_json::{Value, json};

use super::super::attempts::{Next, Outcome, Rules, Transport, attempts};
use super::handshake::Handshake;
use super::{Ended, HANDSHAKE, Note, Session};
use crate::acp::{Client, Reply, Stop};
use crate::activity::Activity;
use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure, Operation};
use crate::names::Command;
use crate::warning::Warning;
use crate::{extract, input};

impl Session<'_, '_> {
    /// The whole session over the agent's `stdout` and `stdin`.
    pub(super) fn run(
        &self,
        stdout: Box<dyn Read + Send>,
        stdin: Option<std::process::ChildStdin>,
        mut tee: Option<&mut input::Tee>,
        send: &mut (dyn FnMut(Note) + Send),
    ) -> Ended {
        let stdin: Box<dyn Write + Send> = match stdin {
            Some(s) => Box::new(s),
            None => Box::new(io::sink()),
        };
        let mut client = match Client::start(stdout, stdin, self.policy, self.opts.max_line_bytes) {
            Ok(c) => c,
            Err(stop) => return self.ended_before(Handshake::Stopped(stop), &[], send),
        };
        // The handshake's lines, read again before each turn's.
        let mut header: Vec<String> = Vec::new();
        let mut tee_failed: Option<Failure> = None;
        // The first turn's --timeout counts from the agent's start, as a run's attempt does.
        let session_started = Instant::now();
        let deadline = session_started.checked_add(self.timeout.unwrap_or(HANDSHAKE));
        let hs = self.handshake(&mut client, deadline, &mut |l: &str, _| {
            header.push(l.to_owned());
            keep(&mut tee, &mut tee_failed, l);
        });
        let session_id = match hs {
            Ok(id) => id,
            Err(e) => {
                client.close();
                return self.ended_before(e, &header, send);
            }
        };
        let mut turns = Turns {
            session: self,
            client,
            session_id,
            header,
            earlier: Kept::default(),
            tee,
            tee_failed,
            session_started,
            send,
            timed_out: false,
        };
        let (env, attempts) = attempts(&mut turns);
        turns.client.close();
        Ended {
            env,
            attempts,
            timed_out: turns.timed_out,
        }
    }

    /// Read one turn with `extract`, as it happens: the handshake's lines, then what `turn`
    /// records; the envelope, and how the turn ended.
    pub(super) fn read_turn(
        &self,
        header: &[String],
        earlier: &mut Kept,
        turn: impl FnOnce(&mut dyn FnMut(&str, bool), &AtomicBool) -> Result<Reply, Stop>,
        send: &mut (dyn FnMut(Note) + Send),
    ) -> (Envelope, Result<Reply, Stop>) {
        let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(LINES_IN_FLIGHT);
        // The lines read before this turn's: their events were told with their own turn.
        let before = header.len() as u64
            + earlier
                .entries
                .iter()
                .map(|e| match e {
                    Earlier::Line(_) => 1,
                    Earlier::Blank(n) => *n,
                })
                .sum::<u64>();
        // A backstop for a turn stuck writing (--tee into a pipe nobody reads): the process
        // ends with status 2 past the turn's deadline and the cancel's grace, as `extract` does.
        let _watchdog = input::Watchdog::arm(
            self.timeout.map(|t| t.saturating_add(self.grace)),
            super::super::super::output::timed_out,
        );
        // Set by the reader once it went past a bound: the turn is then cancelled.
        let past = AtomicBool::new(false);
        std::thread::scope(|s| {
            let show = self.show;
            let past = &past;
            let reader = s.spawn(move || {
                let mut report = |a: Activity| {
                    if a.line > before {
                        send(Note::Activity(a));
                    }
                };
                let mut live = extract::Live {
                    tee: None,
                    timeout: None,
                    activity: if show { Some(&mut report) } else { None },
                    expired: None,
                };
                extract::run_reader_watched(
                    self.name,
                    Box::new(Lines::new(rx)),
                    self.opts,
                    &mut live,
                    past,
                )
            });
            let line = |tx: &SyncSender<Vec<u8>>, l: &str| {
                let mut b = Vec::with_capacity(l.len() + 1);
                b.extend_from_slice(l.as_bytes());
                b.push(b'\n');
                // The reader stopped (a bound): what it read decides.
                let _ = tx.send(b);
            };
            for l in header {
                line(&tx, l);
            }
            for e in &earlier.entries {
                match e {
                    Earlier::Line(l) => line(&tx, l),
                    // Blank lines keep the line numbers the recording's.
                    Earlier::Blank(n) => {
                        for _ in 0..*n {
                            let _ = tx.send(vec![b'\n']);
                        }
                    }
                }
            }
            let reply = turn(
                &mut |l: &str, lasting| {
                    line(&tx, l);
                    earlier.push(l, lasting);
                },
                past,
            );
            drop(tx);
            let env = reader.join().unwrap_or_else(|_| {
                let f = Failure::new(
                    ErrorKind::Internal,
                    Operation::Read,
                    "reading the turn failed (a bug in sojx)",
                )
                .retryable(false);
                envelope::failure(Command::Extract, self.name, f, Parts::default())
            });
            (env, reply)
        })
    }
}

/// The ACP way of running an agent: each attempt is a turn of one session, the first the
/// prompt, each next one the feedback, or the extraction turn when the answer held no JSON.
struct Turns<'s, 'a, 'o, 't, 'n> {
    session: &'s Session<'a, 'o>,
    client: Client,
    session_id: String,
    /// The handshake's lines, read again before each turn's.
    header: Vec<String>,
    earlier: Kept,
    tee: Option<&'t mut input::Tee>,
    /// The tee's first failure, which ends the session.
    tee_failed: Option<Failure>,
    /// The first turn's --timeout counts from the agent's start, as a run's attempt does.
    session_started: Instant,
    send: &'n mut (dyn FnMut(Note) + Send),
    /// The last turn's deadline passed.
    timed_out: bool,
}

impl Transport for Turns<'_, '_, '_, '_, '_> {
    /// The turn's prompt.
    type Ask = String;

    fn rules(&self) -> &Rules {
        self.session.rules
    }

    fn first(&self) -> (String, String) {
        (self.session.prompt.to_owned(), "acp:prompt".to_owned())
    }

    fn attempt(&mut self, n: u32, text: String, _: Option<&Envelope>) -> Outcome {
        let Self {
            session,
            client,
            session_id,
            header,
            earlier,
            tee,
            tee_failed,
            session_started,
            send,
            timed_out,
        } = self;
        let turn_started = Instant::now();
        let from = if n == 1 {
            *session_started
        } else {
            turn_started
        };
        let deadline = session.timeout.and_then(|t| from.checked_add(t));
        let (env, reply) = session.read_turn(
            header,
            earlier,
            |rec, past| {
                client.prompt(
                    session_id,
                    &text,
                    deadline,
                    session.grace,
                    past,
                    &mut |l: &str, lasting| {
                        rec(l, lasting);
                        keep(tee, tee_failed, l);
                    },
                )
            },
            *send,
        );
        let env = match (&reply, tee_failed.take()) {
            (_, Some(f)) => envelope::failure(Command::Run, session.name, f, env.into_parts()),
            // Past a bound, the reader's envelope names it (the turn was cancelled).
            (Ok(_) | Err(Stop::Closed | Stop::Past { .. }), None) => env,
            (Err(stop), None) => session.stop_failure(stop, env, true),
        };
        *timed_out = matches!(reply, Err(Stop::Deadline { .. } | Stop::Barrier));
        Outcome::Made {
            env,
            more: reply.is_ok(),
        }
    }

    fn next(&mut self, failed: &Envelope, _: u32) -> Result<Next<String>, Warning> {
        let rules = self.session.rules;
        Ok(if failed.error_kind() == Some(ErrorKind::NotFound) {
            Next {
                ask: extraction_turn(rules.schema()),
                via: "acp:extraction_turn".to_owned(),
                how: "asks for only the JSON in the same session (the extraction turn)".to_owned(),
            }
        } else {
            Next {
                ask: rules.feedback(failed, true),
                via: "acp:feedback".to_owned(),
                how: "sends the feedback in the same session".to_owned(),
            }
        })
    }

    fn tell(&mut self, line: &str) {
        (self.send)(Note::Retry(line.to_owned()));
    }
}

/// What an earlier turn's lines are to a later turn's reader: the lines that last (its prompt,
/// so that the turns are counted and the answer is the last turn's; the permission requests
/// and their answers, counted for the session), the others as blank lines, which keep the line
/// numbers the recording's.
enum Earlier {
    Line(String),
    Blank(u64),
}

/// Earlier turns' lines, as later turns' readers are given them again: what they read of each
/// lasting line ([`compact`]), within [`MAX_EARLIER`] lines and [`MAX_EARLIER_BYTES`].
#[derive(Default)]
pub(super) struct Kept {
    entries: Vec<Earlier>,
    lines: usize,
    bytes: usize,
    /// A lasting line did not fit: none after it is kept, so that a permission request is
    /// never kept without its answer when the answer came first to be dropped, nor the reverse.
    full: bool,
}

impl Kept {
    /// One recorded line of the turn: kept when it lasts and fits, else a blank line.
    fn push(&mut self, line: &str, lasting: bool) {
        // A line that compacts to nothing (a permission request without an id) is a blank: only
        // a line that does not fit ends the keeping.
        if lasting
            && !self.full
            && let Some(c) = compact(line)
        {
            if self.lines < MAX_EARLIER && self.bytes.saturating_add(c.len()) <= MAX_EARLIER_BYTES {
                self.lines += 1;
                self.bytes += c.len();
                self.entries.push(Earlier::Line(c));
                return;
            }
            self.full = true;
        }
        if let Some(Earlier::Blank(n)) = self.entries.last_mut() {
            *n += 1;
        } else {
            self.entries.push(Earlier::Blank(1));
        }
    }
}

/// Most lines of earlier turns kept for the later turns' readers (docs/limits.md): past it, an
/// earlier permission request is no longer counted in `session.permissions`.
const MAX_EARLIER: usize = 10_000;

/// Most bytes of earlier turns' lines kept for the later turns' readers (docs/limits.md), as
/// [`compact`] makes them: past it, as past [`MAX_EARLIER`].
const MAX_EARLIER_BYTES: usize = 4 << 20;

/// Most options of a permission request a later turn's reader is given: as many as the `acp`
/// reader takes.
const KEPT_OPTIONS: usize = 64;

/// Lines in flight to the turn's reader: memory holds a few lines at most.
const LINES_IN_FLIGHT: usize = 4;

/// A lasting line as a later turn's reader needs it, and nothing more: a prompt's id and
/// session (not its text), a permission request's id and its options' ids and kinds (not its
/// `toolCall`, which may carry a whole diff, nor any `_meta`), an answer's id and outcome.
/// `None` for a line that is none of these (a permission request without an id, which no
/// answer can name: a blank for the later turns, as any other line).
fn compact(line: &str) -> Option<String> {
    let v = crate::json::from_str_lenient(line).ok()?.value;
    let direction = v.get("direction")?.as_str()?;
    let m = v.get("message")?;
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let message = match s(m, "method").as_deref() {
        Some("session/prompt") => json!({"jsonrpc": "2.0", "id": m.get("id")?,
            "method": "session/prompt",
            "params": {"sessionId": m.get("params").and_then(|p| p.get("sessionId"))}}),
        Some("session/request_permission") => {
            let options: Vec<Value> = m
                .pointer("/params/options")
                .and_then(Value::as_array)
                .map(|os| {
                    os.iter()
                        .filter_map(|o| {
                            Some(json!({"optionId": s(o, "optionId")?, "kind": s(o, "kind")?}))
                        })
                        .take(KEPT_OPTIONS)
                        .collect()
                })
                .unwrap_or_default();
            json!({"jsonrpc": "2.0", "id": m.get("id")?,
                "method": "session/request_permission", "params": {"options": options}})
        }
        Some(_) => return None,
        None => {
            let o = m.pointer("/result/outcome")?;
            json!({"jsonrpc": "2.0", "id": m.get("id")?,
                "result": {"outcome": {"outcome": o.get("outcome"), "optionId": o.get("optionId")}}})
        }
    };
    Some(json!({"direction": direction, "message": message}).to_string())
}

/// Write a recorded line to the tee; its first failure is kept, and ends the session.
fn keep(tee: &mut Option<&mut input::Tee>, failed: &mut Option<Failure>, line: &str) {
    if failed.is_none()
        && let Some(t) = tee.as_mut()
        && let Err(f) = t.mark(line)
    {
        *failed = Some(f);
    }
}

/// The extraction turn's prompt (Meerkat's design): only the JSON, no tools.
fn extraction_turn(schema: Option<&Value>) -> String {
    match schema {
        Some(s) => format!(
            "Your last reply held no JSON value. Reply with only a JSON value matching this JSON schema, with no prose, no code fences and no tool calls:\n{}",
            serde_json::to_string_pretty(s).unwrap_or_default()
        ),
        None => "Your last reply held no JSON value. Reply with only the JSON value of your answer, with no prose, no code fences and no tool calls.".to_owned(),
    }
}

/// A channel of lines read as a stream.
struct Lines {
    rx: Receiver<Vec<u8>>,
    cur: Vec<u8>,
    at: usize,
}

impl Lines {
    fn new(rx: Receiver<Vec<u8>>) -> Self {
        Self {
            rx,
            cur: Vec::new(),
            at: 0,
        }
    }
}

impl Read for Lines {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.cur.len() {
            match self.rx.recv() {
                Ok(next) => {
                    self.cur = next;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.cur.len() - self.at);
        buf[..n].copy_from_slice(&self.cur[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_lines_keep_only_what_later_turns_read() {
        let meta = "m".repeat(1 << 20);
        let ask = json!({"direction": "from_agent", "message": {"jsonrpc": "2.0", "id": 7,
            "method": "session/request_permission", "params": {"sessionId": "s", "_meta": meta,
            "toolCall": {"title": meta}, "options": [{"optionId": "r", "name": meta,
            "kind": "reject_once", "_meta": meta}]}}});
        let kept = compact(&ask.to_string()).unwrap();
        assert!(kept.len() < 300, "{} bytes kept", kept.len());
        let v: Value = serde_json::from_str(&kept).unwrap();
        assert_eq!(v["message"]["id"], 7);
        assert_eq!(
            v["message"]["params"]["options"],
            json!([{"optionId": "r", "kind": "reject_once"}])
        );
        let prompt = json!({"direction": "to_agent", "message": {"jsonrpc": "2.0", "id": 3,
            "method": "session/prompt", "params": {"sessionId": "s",
            "prompt": [{"type": "text", "text": meta}]}}});
        let kept = compact(&prompt.to_string()).unwrap();
        assert!(kept.len() < 300, "{} bytes kept", kept.len());
        assert!(kept.contains(r#""sessionId":"s""#), "{kept}");
    }

    #[test]
    fn earlier_lines_are_bounded_in_bytes() {
        let mut kept = Kept::default();
        // Requests whose option ids alone are 1 MiB: the bound keeps a few, then none.
        for id in 0..20 {
            let ask = json!({"direction": "from_agent", "message": {"jsonrpc": "2.0", "id": id,
                "method": "session/request_permission",
                "params": {"options": [{"optionId": "x".repeat(1 << 20), "kind": "reject_once"}]}}});
            kept.push(&ask.to_string(), true);
            kept.push("{}", false);
        }
        assert!(kept.bytes <= MAX_EARLIER_BYTES, "{}", kept.bytes);
        assert!(kept.full);
        let small = json!({"direction": "to_agent", "message": {"jsonrpc": "2.0", "id": 99,
            "result": {"outcome": {"outcome": "cancelled"}}}});
        kept.push(&small.to_string(), true);
        assert!(matches!(kept.entries.last(), Some(Earlier::Blank(_))));
    }

    /// A permission request without an id compacts to nothing: a blank, and the lines after it
    /// are still kept (it once ended the keeping, and later turns lost their prompts).
    #[test]
    fn a_request_without_an_id_does_not_end_the_keeping() {
        let mut kept = Kept::default();
        let ask = json!({"direction": "from_agent", "message": {"jsonrpc": "2.0",
            "method": "session/request_permission", "params": {"options": []}}});
        kept.push(&ask.to_string(), true);
        assert!(!kept.full);
        let prompt = json!({"direction": "to_agent", "message": {"jsonrpc": "2.0", "id": 5,
            "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}});
        kept.push(&prompt.to_string(), true);
        assert!(matches!(kept.entries.last(), Some(Earlier::Line(_))));
    }
}
