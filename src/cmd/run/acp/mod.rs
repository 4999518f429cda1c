//! `sojx run --acp -- COMMAND…`: sojx is the ACP client of COMMAND (`crate::acp`), one agent
//! process for the whole run: `initialize`, `authenticate` when the agent requires it and the
//! environment satisfies one of its methods, `session/new`, then one `session/prompt` turn per
//! attempt. Each turn's traffic, after the handshake's, is read by `extract` as the `acp`
//! producer while it happens (so `--activity` is live); a retry is the next turn of the same
//! session: the feedback, or, when the answer held no JSON, the extraction turn.

mod handshake;
mod turns;

use std::io;
use std::time::Duration;

use super::super::Io;
use super::super::extract::Prepared;
use super::super::output::{fail_before_named, files_read, style};
use super::attempts::{Rules, tell_retry};
use crate::acp::{self, Policy};
use crate::activity::{self, Activity};
use crate::agent::{self, Bounds, Spec, Stdin};
use crate::envelope::{self, Attempt, Envelope, Parts};
use crate::error::{ErrorKind, Failure, Operation};
use crate::exit::ExitStatus;
use crate::names::Command;
use crate::producer::Producer;
use crate::{cli, extract, input};

/// How long the handshake (`initialize`, `authenticate`, `session/new`) may take without
/// `--timeout` (docs/limits.md): an agent that never answers fails in bounded time.
pub(super) const HANDSHAKE: Duration = Duration::from_secs(60);

/// What the work reports as it goes: the turn's `--activity` events, and a line between two
/// turns.
enum Note {
    Activity(Activity),
    Retry(String),
}

/// What the session came to.
struct Ended {
    env: Envelope,
    attempts: Vec<Attempt>,
    /// A turn's deadline passed: the agent is stopped as at `--timeout`.
    timed_out: bool,
}

pub(super) fn run(a: &cli::RunArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let first = Spec {
        argv: a.command.clone(),
        stdin: Stdin::Pipe,
        env: Vec::new(),
    };
    let name = first.program();
    let Setup {
        prompt,
        loaded,
        rules,
        cwd,
        mut tee,
    } = match setup(a, io) {
        Ok(s) => s,
        Err(f) => return fail_before_named(Command::Run, &[name], &f, io, style),
    };
    let mut opts = loaded.options(&a.answer, &a.limits, &io.env, io.env.read_ahead(false));
    opts.from = Some(Producer::Acp);
    // sojx's own recording, read by the `acp` reader alone: a producer file that claims its
    // lines (one in the config folder) never takes them.
    opts.producers = &crate::producer::file::BUILT_IN;
    let interrupts = agent::Interrupts::catch();
    // The methods of authentication the environment satisfies, by their variables.
    let satisfied: Vec<&'static str> = acp::AUTH_VARS
        .iter()
        .filter(|(_, var)| std::env::var_os(var).is_some_and(|v| !v.is_empty()))
        .map(|(id, _)| *id)
        .collect();
    let mut started = match agent::spawn(&first, io.env.path.as_deref()) {
        Ok(s) => s,
        Err(f) => return finish(a, io, style, super::unstarted(&first, &name, f), Vec::new()),
    };
    let stdin = started.take_stdin();
    let session = Session {
        name: &name,
        prompt: &prompt,
        cwd: &cwd.to_string_lossy(),
        rules: &rules,
        opts: &opts,
        timeout: a.live.timeout,
        grace: a.kill_after,
        policy: a.acp_permissions.unwrap_or_default(),
        satisfied: &satisfied,
        show: a.answer.activity,
    };
    let finished = session.supervised(
        started,
        stdin,
        &interrupts,
        &mut *io.stderr,
        tee.as_mut(),
        style.stderr_color,
    );
    if let Some(f) = finished.not_started {
        return finish(a, io, style, super::unstarted(&first, &name, f), Vec::new());
    }
    let (env, attempts) = finished.result.map_or_else(
        || {
            let f = Failure::new(
                ErrorKind::Internal,
                Operation::Run,
                "the ACP session ended without a result (no thread could start, or a bug in sojx); the agent was stopped",
            )
            .retryable(false);
            (
                envelope::failure(Command::Run, &name, f, Parts::default()),
                Vec::new(),
            )
        },
        |e| (e.env, e.attempts),
    );
    let env = agent::conclude(env, &finished.report, finished.ended);
    finish(a, io, style, super::ended(env, &interrupts), attempts)
}

/// What an ACP run decides before it starts the agent.
struct Setup {
    prompt: String,
    loaded: Prepared,
    rules: Rules,
    /// The session's folder.
    cwd: std::path::PathBuf,
    tee: Option<input::Tee>,
}

/// Before the agent starts: the envelope file, the prompt, the producer files and the schema,
/// the retries' rules, the current folder, and the tee.
fn setup(a: &cli::RunArgs, io: &mut Io<'_>) -> Result<Setup, Failure> {
    let schema_flags = super::super::settings::schema(&a.schema);
    let mut read_files = files_read(&schema_flags, a.answer.handoff.as_deref());
    if let Some(p) = &a.prompt_file {
        read_files.push(("--prompt-file", p.clone()));
    }
    read_files.extend(super::template_file(&a.retry));
    read_files.extend(crate::agent::command_files(
        &a.command,
        io.env.path.as_deref(),
    ));
    // The producer files and the schema (with its `$ref`s) are read before the envelope file and
    // the tee are opened, so that neither can be one of them; a failure to read them is told
    // once the envelope file is open.
    let loaded = Prepared::load(
        &schema_flags,
        super::super::settings::given_under(&a.schema),
        &a.answer,
        &io.env,
    );
    let read = super::super::output::open_envelope_file(
        io,
        a.kept.envelope_file.as_deref(),
        &[],
        read_files,
        a.live.tee.as_deref(),
        a.live.timeout,
    )?;
    let prompt = prompt(a, io)?;
    // Every bound the prompt can fail, before COMMAND starts: as one message, with the
    // shortest session id (a longer one that makes it too long is the agent's).
    let len = acp::prompt_len(acp::FIRST_PROMPT_ID, "", &prompt);
    if len > a.limits.line.max_line_bytes {
        return Err(prompt_too_long(
            &format!("({len} bytes with its recording)"),
            a.limits.line.max_line_bytes,
        ));
    }
    let loaded = loaded?;
    let rules = Rules::new(&a.retry, loaded.schema().map(|s| &s.document))?;
    let cwd = std::env::current_dir().map_err(|e| {
        Failure::new(
            ErrorKind::Filesystem,
            Operation::Read,
            format!(
                "cannot tell the current folder, the session's: {}",
                input::io_reason(&e)
            ),
        )
        .retryable(false)
    })?;
    let tee = crate::disk::tee::for_inputs(a.live.tee.as_deref(), &[], &read, a.live.timeout)?;
    Ok(Setup {
        prompt,
        loaded,
        rules,
        cwd,
        tee,
    })
}

/// Print the run's envelope, with its attempts when more than one was allowed and the session
/// made one.
fn finish(
    a: &cli::RunArgs,
    io: &mut Io<'_>,
    style: crate::render::Style,
    env: Envelope,
    attempts: Vec<Attempt>,
) -> io::Result<ExitStatus> {
    let env = if a.retry.max_attempts > 1 && !attempts.is_empty() {
        env.with_attempts(attempts)
    } else {
        env
    };
    super::finish(a, io, style, &env)
}

/// The first prompt: `--prompt`, `--prompt-file`, or sojx's stdin (not a terminal).
fn prompt(a: &cli::RunArgs, io: &Io<'_>) -> Result<String, Failure> {
    let usage =
        |m: String| Failure::new(ErrorKind::Usage, Operation::ParseArguments, m).retryable(false);
    if let Some(p) = &a.prompt {
        return Ok(p.clone());
    }
    let bytes = if let Some(path) = &a.prompt_file {
        crate::disk::read_regular(path).map_err(|e| {
            Failure::new(
                ErrorKind::Filesystem,
                Operation::Read,
                format!(
                    "cannot read --prompt-file {}: {}",
                    path.display(),
                    input::io_reason(&e)
                ),
            )
            .target(path.to_string_lossy().into_owned())
            .retryable(false)
        })?
    } else if io.stdin_is_tty {
        return Err(usage(
            "`sojx run --acp` needs a prompt: --prompt TEXT, --prompt-file FILE, or on stdin"
                .into(),
        )
        .target("--prompt"));
    } else {
        stdin_prompt(a.limits.line.max_line_bytes)?
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| usage("the prompt is not UTF-8 text".into()).target("--prompt"))?;
    if text.trim().is_empty() {
        return Err(usage("the prompt is empty".into()).target("--prompt"));
    }
    Ok(text)
}

/// The prompt on sojx's stdin, read until it ends, or until it is past what a prompt can be:
/// [`input::MAX_FILE_BYTES`], as `--prompt-file`, or longer as one message than `max_line`
/// (its JSON escapes counted as they come: 100 MB of NUL bytes stop at a sixth of the line).
fn stdin_prompt(max_line: usize) -> Result<Vec<u8>, Failure> {
    let mut stdin = io::stdin().lock();
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut len = acp::prompt_len(acp::FIRST_PROMPT_ID, "", "");
    loop {
        let n = input::read_some(&mut stdin, &mut chunk).map_err(|e| {
            Failure::new(
                ErrorKind::Io,
                Operation::Read,
                format!("cannot read the prompt on stdin: {}", input::io_reason(&e)),
            )
        })?;
        if n == 0 {
            return Ok(bytes);
        }
        len += chunk[..n]
            .iter()
            .map(|&b| acp::escaped_len(b))
            .sum::<usize>();
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > input::MAX_FILE_BYTES {
            return Err(Failure::new(
                ErrorKind::Usage,
                Operation::ParseArguments,
                format!(
                    "the prompt on stdin is larger than {} MiB, sojx's bound on a prompt (as --prompt-file's)",
                    input::MAX_FILE_BYTES >> 20
                ),
            )
            .retryable(false)
            .target("--prompt"));
        }
        if len > max_line {
            return Err(prompt_too_long("(on stdin, not read to its end)", max_line));
        }
    }
}

/// The prompt is longer, as one recorded ACP message, than `--max-line-bytes` (`max_line`).
fn prompt_too_long(said: &str, max_line: usize) -> Failure {
    Failure::new(
        ErrorKind::Usage,
        Operation::ParseArguments,
        format!(
            "the prompt, as one ACP message {said}, is longer than --max-line-bytes ({max_line} bytes)"
        ),
    )
    .retryable(false)
    .target("--prompt")
    .hint("raise --max-line-bytes, or give the agent a file to read instead of the whole text")
}

/// What every turn of the session shares.
struct Session<'a, 'o> {
    name: &'a str,
    prompt: &'a str,
    cwd: &'a str,
    rules: &'a Rules,
    opts: &'a extract::Options<'o>,
    timeout: Option<Duration>,
    grace: Duration,
    policy: Policy,
    satisfied: &'a [&'static str],
    show: bool,
}

impl Session<'_, '_> {
    /// The session as `agent::supervise`'s work on the `started` agent (whose `stdin` sojx
    /// writes), bounded turn by turn by the session itself; what the work notes (`--activity`,
    /// the line between two turns) is written to `err` as it comes.
    fn supervised(
        &self,
        started: agent::Agent,
        stdin: Option<std::process::ChildStdin>,
        interrupts: &agent::Interrupts,
        err: &mut dyn io::Write,
        tee: Option<&mut input::Tee>,
        color: bool,
    ) -> agent::Finished<Ended> {
        let bounds = Bounds {
            // Each turn's deadline is the session's own (session/cancel first).
            timeout: None,
            kill_after: self.grace,
            backstop: Duration::ZERO,
            linger: Some(self.grace),
        };
        agent::supervise(
            started,
            interrupts,
            bounds,
            err,
            &mut |err, note: &Note| match note {
                Note::Activity(ev) => {
                    let _ = activity::event(err, self.name, ev, color);
                }
                Note::Retry(line) => tell_retry(err, self.name, color, line),
            },
            |stdout, send| self.run(stdout, stdin, tee, send),
            |ended: &Ended| ended.timed_out,
        )
    }
}
