//! `sojx run`'s agent process: COMMAND found and checked (`launch`) and started without a shell
//! in its own process group ([`spawn`]; on Linux in a group its guard leads, `guard`, or where
//! none started through sojx itself, `trampoline`, so that the agent and its group die with
//! sojx), its stdout read as an
//! input and its stderr passed on with its tail kept (`pipes`), bounded by `--timeout` and
//! `--kill-after`, the signals sojx gets forwarded to its group (`signals`), and how it ended
//! told ([`Report`]) (`supervise`). Nothing here decides what the output means: the caller's
//! work does, on a thread of its own.
//!
//! Process groups and signals are unix's: elsewhere only the resume profiles and the retries'
//! rules are built, for `run`'s settings (`sojx run` itself says it needs unix).
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

#[cfg(unix)]
mod conclude;
#[cfg(target_os = "linux")]
mod guard;
#[cfg(unix)]
mod launch;
#[cfg(unix)]
mod pipes;
mod resume;
mod retry;
mod shell;
#[cfg(unix)]
mod signals;
mod stderr;
#[cfg(unix)]
mod supervise;
#[cfg(target_os = "linux")]
mod trampoline;

use std::ffi::OsString;
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::time::Instant;

use crate::activity::Activity;
use crate::envelope::AgentReport;
use crate::error::{ErrorKind, Failure, Operation};

pub(crate) use crate::feedback::{Extra, Parts as Feedback, retries};
#[cfg(unix)]
pub(crate) use conclude::{conclude, interrupted};
#[cfg(target_os = "linux")]
use guard::Guard;
#[cfg(target_os = "linux")]
pub(crate) use guard::{GUARD, guarding};

/// No guard elsewhere than on Linux.
#[cfg(all(unix, not(target_os = "linux")))]
enum Guard {}

#[cfg(all(unix, not(target_os = "linux")))]
impl Guard {
    fn id(&self) -> u32 {
        match *self {}
    }

    fn end(self) {
        match self {}
    }
}
#[cfg(unix)]
pub(crate) use launch::SH;
pub(crate) use resume::{Profile, SchemaFlag};
pub(crate) use retry::Values;
#[cfg(unix)]
pub(crate) use retry::split_template;
pub(crate) use shell::quote;
#[cfg(unix)]
pub(crate) use signals::Interrupts;
#[cfg(unix)]
pub(crate) use supervise::{AgentEnd, Bounds, Finished, supervise};
#[cfg(target_os = "linux")]
pub(crate) use trampoline::{ARG as TRAMPOLINE, exec as trampoline};

/// What the threads of a supervised run tell the loop that waits for them; `E` is what the
/// work reports as it goes (`--activity` events).
pub(crate) enum Event<T, E = Activity> {
    /// Bytes the agent wrote to its stderr, to pass on.
    Stderr(Vec<u8>),
    /// The agent's stderr closed.
    StderrEnd,
    /// An `--activity` event of the agent's stdout (or what the work reports).
    Activity(E),
    /// The caller's work on the agent's stdout is done.
    Done(T),
    /// The caller's work ended without a result (it panicked: a bug).
    Lost,
    /// The agent (the process group's leader) exited; not reaped yet, so that its group id
    /// cannot be taken by another group before the group is killed.
    Exited,
    /// sojx got this signal (and forwarded it to the agent's group).
    Signal(i32),
}

/// What the agent reads on its stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stdin {
    /// sojx's own stdin (the first attempt, when it is not a terminal).
    Inherit,
    /// `/dev/null`.
    Null,
    /// This text, then the end (opencode and Amp take a resumed prompt on stdin).
    Text(String),
    /// A pipe sojx writes to ([`Agent::take_stdin`]): `run --acp`'s messages.
    Pipe,
}

/// The files COMMAND (`argv`) reads that sojx can tell, each named `COMMAND`: its program's file
/// (as found on `path_var`, PATH, when it holds no `/`) and every argument that names an existing
/// file (a script given to an interpreter, `bash agent.sh`). `--tee` and `--envelope-file` must
/// not be one of them.
#[cfg(unix)]
pub(crate) fn command_files(
    argv: &[OsString],
    path_var: Option<&std::ffi::OsStr>,
) -> Vec<(&'static str, std::path::PathBuf)> {
    let Some((given, args)) = argv.split_first() else {
        return Vec::new();
    };
    let program = launch::find(given, path_var).ok().map(|p| p.file);
    program
        .into_iter()
        .chain(
            args.iter()
                .map(std::path::PathBuf::from)
                .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file())),
        )
        .map(|p| ("COMMAND", p))
        .collect()
}

/// How to start the agent.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    /// COMMAND and its arguments, as given (no shell).
    pub(crate) argv: Vec<OsString>,
    /// What the agent reads on its stdin.
    pub(crate) stdin: Stdin,
    /// Variables added to the agent's environment.
    pub(crate) env: Vec<(String, OsString)>,
}

impl Spec {
    /// COMMAND as given (the envelope's `input`; the whole argv is in `agent.command`, and a
    /// prompt does not belong in every stderr line).
    pub(crate) fn program(&self) -> String {
        self.argv
            .first()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The argv as strings (the envelope's `agent.command`).
    pub(crate) fn argv_strings(&self) -> Vec<String> {
        self.argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }
}

/// A started agent: the child (leader of its own process group), its pipes, and when it
/// started.
#[cfg(unix)]
pub(crate) struct Agent {
    child: Child,
    /// The agent's stdin, when it is a pipe sojx writes to ([`Stdin::Pipe`]).
    stdin: Option<std::process::ChildStdin>,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    started: Instant,
    /// COMMAND and its arguments, for the report.
    command: Vec<String>,
    /// COMMAND's file, and the nonce of the trampoline's record (Linux), to tell a COMMAND that
    /// the trampoline could not execute.
    program: launch::Program,
    nonce: Option<u64>,
    /// The guard in the agent's group (Linux): ends the agent and the group when sojx dies.
    guard: Option<Guard>,
    /// The agent's process group: its guard's pid (the guard leads it), else the agent's.
    group: u32,
}

#[cfg(unix)]
impl Agent {
    /// The script that runs with /bin/sh because it has no `#!` line, if COMMAND is one.
    pub(crate) fn script_without_shebang(&self) -> Option<&std::path::Path> {
        (self.program.kind == launch::Kind::Shell).then_some(self.program.file.as_path())
    }

    /// The agent's stdin, once, when it was started with [`Stdin::Pipe`].
    pub(crate) fn take_stdin(&mut self) -> Option<std::process::ChildStdin> {
        self.stdin.take()
    }
}

/// Start the agent as `spec` says, in a process group of its own (led by its guard on Linux,
/// else by the agent: `Agent::group`),
/// stdout and stderr piped; COMMAND's program is looked for on `path_var` (PATH) when it holds
/// no `/`. A COMMAND that cannot be started is a `spawn` failure, said as precisely as
/// [`launch`] can. The caller catches the signals it forwards first ([`Interrupts`]), so that
/// none can end sojx and leave the agent running.
///
/// On Linux a guard started first leads the group the agent joins, holds the agent by a pidfd
/// sojx sends it, and ends both when sojx dies ([`guard`]). Where no guard started, the agent
/// starts through sojx itself ([`trampoline`]), with SIGKILL as its parent-death signal, which
/// is sent when the thread that started it ends: call this on a thread that lives as long as
/// sojx (the main thread).
#[cfg(unix)]
pub(crate) fn spawn(spec: &Spec, path_var: Option<&std::ffi::OsStr>) -> Result<Agent, Failure> {
    let Some((given, args)) = spec.argv.split_first() else {
        return Err(Failure::new(
            ErrorKind::Usage,
            Operation::ParseArguments,
            "no COMMAND after `--`",
        )
        .retryable(false));
    };
    let program = launch::find(given, path_var)?;
    let (file, arg0, args) = program.argv(given, args);
    let started = Instant::now();
    let direct = || {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(&file);
        cmd.arg0(&arg0).args(&args);
        cmd
    };
    // The guard first, leading the group the agent joins (Linux).
    // Both are sojx started again: not where `/proc/self/exe` is not sojx (the loader).
    #[cfg(target_os = "linux")]
    let through_sojx = trampoline::usable();
    #[cfg(target_os = "linux")]
    let mut guard = through_sojx.then(|| Guard::start().ok()).flatten();
    #[cfg(not(target_os = "linux"))]
    let mut guard: Option<Guard> = None;
    let group = guard.as_ref().map_or(0, Guard::id);
    // With its guard, the agent starts directly: the guard kills it by a pidfd, wherever it
    // went, and its group when sojx dies (one start of sojx per attempt). Without one, it
    // starts through sojx itself, with SIGKILL as its parent-death signal.
    #[cfg(target_os = "linux")]
    let (child, nonce) = {
        let nonce = trampoline::nonce();
        let through_sojx = (through_sojx
            && guard.is_none()
            && program.kind != launch::Kind::Foreign)
            .then(|| started_as(spec, trampoline::command(&file, &arg0, &args, nonce), group).ok())
            .flatten();
        match through_sojx {
            Some(child) => (Ok(child), Some(nonce)),
            // With a guard; or no /proc/self/exe, one that is not sojx (or too long an argv
            // for it): started directly.
            None => (started_as(spec, direct(), group), None),
        }
    };
    #[cfg(not(target_os = "linux"))]
    let (child, nonce) = (started_as(spec, direct(), group), None);
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            if let Some(g) = guard.take() {
                // Its stdin closed, the guard ends its group: itself alone.
                g.end();
            }
            return Err(program.exec_failure(&e));
        }
    };
    #[cfg(target_os = "linux")]
    if let Some(g) = &guard {
        g.hold(&child);
    }
    let group = if group == 0 { child.id() } else { group };
    if let Stdin::Text(text) = &spec.stdin
        && let Some(mut pipe) = child.stdin.take()
    {
        // On a thread of its own: an agent that reads nothing must not block sojx. A write
        // that fails (the agent exited first) is the agent's to tell.
        let text = text.clone();
        let _ = std::thread::Builder::new()
            .name("sojx-agent-stdin".to_owned())
            .spawn(move || {
                use std::io::Write;
                let _ = pipe.write_all(text.as_bytes());
            });
    }
    Ok(Agent {
        stdin: if spec.stdin == Stdin::Pipe {
            child.stdin.take()
        } else {
            None
        },
        stdout: child.stdout.take(),
        stderr: child.stderr.take(),
        child,
        started,
        command: spec.argv_strings(),
        program,
        nonce,
        guard,
        group,
    })
}

/// Start `cmd` as the agent: in the process group `group` (its guard's), or, when 0, in a new
/// group it leads; with `spec`'s stdin and variables, stdout and stderr piped.
#[cfg(unix)]
fn started_as(spec: &Spec, mut cmd: Command, group: u32) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    cmd.stdin(match spec.stdin {
        Stdin::Inherit => Stdio::inherit(),
        Stdin::Null => Stdio::null(),
        Stdin::Text(_) | Stdin::Pipe => Stdio::piped(),
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .process_group(i32::try_from(group).unwrap_or(0));
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    cmd.spawn()
}

/// How the agent ended, for the envelope's `agent` object.
#[derive(Debug, Clone)]
pub(crate) struct Report {
    pub(crate) command: Vec<String>,
    pub(crate) pid: Option<u32>,
    /// Its exit status, when it exited.
    pub(crate) exit_status: Option<i32>,
    /// The signal that ended it, when one did.
    pub(crate) signal: Option<i32>,
    /// Why sojx signalled its group, when it did: `timeout` or `interrupted`.
    pub(crate) stopped: Option<&'static str>,
    pub(crate) duration_ms: u64,
    pub(crate) stderr_tail: String,
    /// The first line of its whole stderr that reported an error.
    pub(crate) stderr_first_error: Option<String>,
    /// What its exit status means in its CLI's own table, and whether re-running can help.
    pub(crate) exit_class: Option<(&'static str, bool)>,
}

impl Report {
    /// The report of an agent that never started.
    pub(crate) fn not_started(spec: &Spec) -> Self {
        Self {
            command: spec.argv_strings(),
            pid: None,
            exit_status: None,
            signal: None,
            stopped: None,
            duration_ms: 0,
            stderr_tail: String::new(),
            stderr_first_error: None,
            exit_class: None,
        }
    }

    /// Whether it exited 0.
    pub(crate) fn succeeded(&self) -> bool {
        self.exit_status == Some(0)
    }

    /// How it ended, in a few words: `exited with status 1`, `killed by SIGTERM`.
    pub(crate) fn how(&self) -> String {
        match (self.exit_status, self.signal) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(sig)) => format!("was killed by {}", signal_name(sig)),
            (None, None) => "did not start".to_owned(),
        }
    }

    /// The line of its stderr that says why it failed: the last non-empty line that is not a
    /// stack frame, else the first line that reported an error.
    pub(crate) fn last_stderr_line(&self) -> Option<&str> {
        stderr::last_line(&self.stderr_tail).or(self.stderr_first_error.as_deref())
    }

    /// The name of the signal that ended it, when it did not exit (`exit_status` or
    /// `signal`, never both).
    pub(crate) fn killed_by(&self) -> Option<String> {
        self.signal
            .filter(|_| self.exit_status.is_none())
            .map(signal_name)
    }

    /// The envelope's `agent`: `exit_status` or `signal`, never both.
    pub(crate) fn to_report(&self) -> AgentReport {
        AgentReport {
            command: self.command.clone(),
            pid: self.pid,
            exit_status: self.exit_status,
            signal: self.killed_by(),
            stopped: self.stopped,
            duration_ms: self.duration_ms,
            stderr_tail: self.stderr_tail.clone(),
            stderr_first_error: self.stderr_first_error.clone(),
            exit_class: self.exit_class.map(|(class, _)| class),
        }
    }
}

/// A signal's name (`SIGTERM`), or `signal N` for one without a common name.
pub(crate) fn signal_name(sig: i32) -> String {
    #[cfg(unix)]
    if let Some(name) = signal_hook::low_level::signal_name(sig) {
        return name.to_owned();
    }
    format!("signal {sig}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_quoted_as_a_shell_reads_them() {
        assert_eq!(quote("claude"), "claude");
        assert_eq!(quote("--json-schema=x.json"), "--json-schema=x.json");
        assert_eq!(quote("say \"hi\""), "'say \"hi\"'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }

    #[cfg(unix)]
    #[test]
    fn a_missing_program_is_a_spawn_failure_naming_it() {
        let spec = Spec {
            argv: vec!["sojx-no-such-agent".into()],
            stdin: Stdin::Null,
            env: Vec::new(),
        };
        let Err(f) = spawn(&spec, None) else {
            panic!("started")
        };
        assert_eq!(f.kind, ErrorKind::Spawn);
        assert!(!f.retryable);
        assert!(f.message.contains("not found on PATH"), "{}", f.message);
    }

    #[test]
    fn the_report_has_exit_status_or_signal() {
        let mut r = Report::not_started(&Spec {
            argv: vec!["a".into()],
            stdin: Stdin::Null,
            env: Vec::new(),
        });
        r.signal = Some(15);
        assert_eq!(r.to_report().signal.as_deref(), Some("SIGTERM"));
        assert_eq!(r.how(), "was killed by SIGTERM");
        r.exit_status = Some(1);
        assert!(r.to_report().signal.is_none());
        r.stderr_tail = "a\nInvalid API key\n\n".into();
        assert_eq!(r.last_stderr_line(), Some("Invalid API key"));
    }
}
