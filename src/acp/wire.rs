//! The two directions of the wire, each on a thread of its own so that the client never
//! blocks on the agent: a reader that splits the agent's stdout into messages (a line at most
//! `max_line` bytes), and a writer that writes sojx's messages to the agent's stdin (an agent
//! that does not read cannot stop sojx; dropping the sender closes its stdin).

use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};

use serde_json::Value;

use crate::input::read_some;

/// What the reader read.
#[derive(Debug)]
pub(super) enum Incoming {
    /// A JSON-RPC 2.0 message: parsed, and its line as it was.
    Message(Value, String),
    /// A line that is not one (its start, for the message).
    Malformed(String),
    /// A line longer than the bound.
    TooLong(usize),
    /// The agent's stdout ended.
    End,
    /// Reading it failed.
    Failed(String),
}

/// Messages in flight from the reader: an agent that writes faster than sojx reads waits, and
/// memory holds a few messages at most.
const IN_FLIGHT: usize = 2;

/// sojx's messages waiting for the agent to read its stdin: past them, the agent is not reading
/// ([`Full`]).
const WRITES_IN_FLIGHT: usize = 64;

/// The writer's queue is full: the agent does not read its stdin.
#[derive(Debug)]
pub(super) struct Full;

/// Start the reader over `r`; `None` when no thread could be started.
pub(super) fn reader(r: Box<dyn Read + Send>, max_line: usize) -> Option<Receiver<Incoming>> {
    let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
    std::thread::Builder::new()
        .name("sojx-acp-read".to_owned())
        .spawn(move || read_lines(r, max_line, &tx))
        .ok()?;
    Some(rx)
}

fn read_lines(mut r: Box<dyn Read + Send>, max_line: usize, tx: &SyncSender<Incoming>) {
    let mut line: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match read_some(&mut r, &mut chunk) {
            Ok(0) => {
                if !line.is_empty() {
                    // A last message without its newline is still a message.
                    let _ = tx.send(message(&line));
                }
                let _ = tx.send(Incoming::End);
                return;
            }
            Ok(n) => n,
            Err(e) => {
                let _ = tx.send(Incoming::Failed(crate::input::io_reason(&e)));
                return;
            }
        };
        let mut rest = &chunk[..n];
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            line.extend_from_slice(&rest[..nl]);
            rest = &rest[nl + 1..];
            if line.len() > max_line {
                let _ = tx.send(Incoming::TooLong(line.len()));
                return;
            }
            let blank = line.iter().all(u8::is_ascii_whitespace);
            if !blank && tx.send(message(&line)).is_err() {
                return;
            }
            line.clear();
        }
        line.extend_from_slice(rest);
        if line.len() > max_line {
            let _ = tx.send(Incoming::TooLong(line.len()));
            return;
        }
    }
}

/// One line read: a JSON-RPC 2.0 message (an object whose `jsonrpc` is `"2.0"`), or not.
fn message(line: &[u8]) -> Incoming {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    // Read as sojx reads every JSON text: a lone UTF-16 surrogate escape (Node.js cuts a string
    // inside an emoji) as U+FFFD, serde_json's private number key as a key.
    match crate::json::from_str_lenient(text) {
        Ok(r) if r.value.get("jsonrpc").and_then(Value::as_str) == Some("2.0") => {
            // One line, as read: the recording embeds it as it is.
            Incoming::Message(r.value, text.to_owned())
        }
        _ => Incoming::Malformed(start(text)),
    }
}

/// Start the writer over the agent's stdin; `None` when no thread could be started. A write
/// that fails (the agent exited) ends it; what the agent did is the reader's to tell.
pub(super) fn writer(mut w: Box<dyn Write + Send>) -> Option<Writer> {
    let (tx, rx) = mpsc::sync_channel::<String>(WRITES_IN_FLIGHT);
    std::thread::Builder::new()
        .name("sojx-acp-write".to_owned())
        .spawn(move || {
            for mut line in rx {
                line.push('\n');
                if w.write_all(line.as_bytes())
                    .and_then(|()| w.flush())
                    .is_err()
                {
                    return;
                }
            }
            // Every sender is gone: the agent's stdin closes here, which ends its session.
        })
        .ok()?;
    Some(Writer(tx))
}

/// The writer's end: messages queued for the agent's stdin.
pub(super) struct Writer(SyncSender<String>);

impl Writer {
    /// Queue `line`; [`Full`] when the agent has not read the last [`WRITES_IN_FLIGHT`]. A
    /// writer that ended (the agent exited) takes it silently: the reader tells what happened.
    pub(super) fn send(&self, line: String) -> Result<(), Full> {
        match self.0.try_send(line) {
            Err(mpsc::TrySendError::Full(_)) => Err(Full),
            _ => Ok(()),
        }
    }
}

/// The start of a line, for a message: at most 200 characters.
fn start(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
