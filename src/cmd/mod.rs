//! The command layer: what each subcommand does with its parsed arguments, and the one place
//! that knows the process (its streams, its environment, its exit status). Below `cmd/`, nothing
//! reads the environment or writes to the process's streams on its own.

mod compare;
mod compile;
mod extract;
mod generate;
mod lint;
mod output;
mod producers;
mod run;
mod settings;
mod usage;
mod validate;

use std::ffi::OsString;
use std::io::{self, Write};

use clap::Parser;

use crate::cli::{Cli, Command, Lazy};
use crate::color::EnvSnapshot;
use crate::error::ErrorKind;
use crate::exit::ExitStatus;
use crate::names;

/// The environment variables sojx reads, read once here, at the edge, and passed down: nothing
/// below the command layer reads the environment.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `NO_COLOR`, `CLICOLOR_FORCE`, `FORCE_COLOR`, `TERM`.
    pub color: EnvSnapshot,
    /// `SOJX_READ_AHEAD` (docs/performance.md): `0` never reads an input ahead on a second
    /// thread, `1` always does, pre-scanning every line; otherwise sojx chooses.
    pub read_ahead: Option<String>,
    /// `SOJX_NO_FAST_PATH` set and not empty: every line is parsed (to compare the fast path
    /// with the full parse).
    pub no_fast_path: bool,
    /// `GITHUB_STEP_SUMMARY` (set by the GitHub Actions runner, not empty): the job summary
    /// file `--output-format github` appends its table to.
    pub github_step_summary: Option<std::path::PathBuf>,
    /// The directory for temporary files (`TMPDIR`, else `/tmp`): `run`'s feedback files.
    pub tmpdir: std::path::PathBuf,
    /// `PATH`: where `run` looks for COMMAND's program, as `execvp` does.
    pub path: Option<OsString>,
    /// The folder of the user's producer files: `$XDG_CONFIG_HOME/sojx/producers` (an
    /// absolute `XDG_CONFIG_HOME`, per the XDG Base Directory specification), else
    /// `$HOME/.config/sojx/producers`; on Windows `%APPDATA%\sojx\producers`.
    pub producers_dir: Option<std::path::PathBuf>,
}

/// [`Env::producers_dir`], from the environment.
fn producers_dir() -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let config = if cfg!(windows) {
        var("APPDATA")
    } else {
        var("XDG_CONFIG_HOME")
            .filter(|p| p.is_absolute())
            .or_else(|| var("HOME").map(|h| h.join(".config")))
    };
    config.map(|c| c.join("sojx").join("producers"))
}

impl Env {
    /// The process's environment.
    pub fn capture() -> Self {
        let var = |k: &str| std::env::var(k).ok();
        Self {
            color: EnvSnapshot {
                no_color: var("NO_COLOR"),
                clicolor_force: var("CLICOLOR_FORCE"),
                force_color: var("FORCE_COLOR"),
                term: var("TERM"),
            },
            read_ahead: var("SOJX_READ_AHEAD"),
            no_fast_path: std::env::var_os("SOJX_NO_FAST_PATH").is_some_and(|v| !v.is_empty()),
            github_step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
                .filter(|v| !v.is_empty())
                .map(std::path::PathBuf::from),
            tmpdir: std::env::temp_dir(),
            path: std::env::var_os("PATH"),
            producers_dir: producers_dir(),
        }
    }

    /// How inputs are read, when reading ahead is `allowed` for this run.
    pub(super) fn read_ahead(&self, allowed: bool) -> crate::extract::ReadAhead {
        match self.read_ahead.as_deref() {
            _ if !allowed => crate::extract::ReadAhead::Never,
            Some("0") => crate::extract::ReadAhead::Never,
            Some("1") => crate::extract::ReadAhead::EveryLine,
            _ => crate::extract::ReadAhead::Auto,
        }
    }
}

/// The process's streams and terminal facts, and what has been said on stderr so far.
pub struct Io<'a> {
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    pub stdin_is_tty: bool,
    pub stdout_is_tty: bool,
    pub stderr_is_tty: bool,
    pub env: Env,
    /// Hints already printed on stderr: a hint is said once per run, however many inputs
    /// earn it.
    hints_told: std::collections::HashSet<String>,
    /// The job summary's rows so far (`--output-format github` with `GITHUB_STEP_SUMMARY`).
    summary: output::Summary,
    /// `--envelope-file`: every envelope, as one line of JSON, beside stdout.
    envelopes: Option<crate::input::Tee>,
}

impl<'a> Io<'a> {
    /// The process's own: its standard streams' terminal facts and its environment, with
    /// output going to `stdout` and `stderr`.
    pub fn process(stdout: &'a mut dyn Write, stderr: &'a mut dyn Write) -> Self {
        use std::io::IsTerminal;
        Io {
            stdout,
            stderr,
            stdin_is_tty: io::stdin().is_terminal(),
            stdout_is_tty: io::stdout().is_terminal(),
            stderr_is_tty: io::stderr().is_terminal(),
            env: Env::capture(),
            hints_told: std::collections::HashSet::new(),
            summary: output::Summary::default(),
            envelopes: None,
        }
    }

    /// Whether `hint` is new in this run (and from now on, told).
    pub(super) fn first_time(&mut self, hint: &str) -> bool {
        self.hints_told.insert(hint.to_owned())
    }
}

/// Standard output that its reader may close (`sojx … | head -c1`): once a write meets a
/// broken pipe, later writes are dropped, so that every input is still read and the exit status
/// is the one sojx computed. (Stopping at the first broken write turned a failed extraction
/// into exit 0 as soon as its envelope outgrew the pipe buffer, and a CI gate passed.)
struct Closable<'a> {
    inner: &'a mut dyn Write,
    closed: bool,
}

impl Write for Closable<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            r => r,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

/// `sojx run`'s start of an agent on Linux (docs/run.md, "Linux: the agent dies with sojx"):
/// when `args` are `sojx __sojx-exec …`, which is no command of sojx's, this process becomes
/// the agent, or ends with the exit status returned; `sojx __sojx-guard` is the guard of an
/// agent's group. `None` for every other command line.
pub fn start_agent(args: &[OsString]) -> Option<u8> {
    #[cfg(target_os = "linux")]
    if args.get(1).is_some_and(|a| a == crate::agent::TRAMPOLINE) {
        return Some(crate::agent::trampoline(&args[2..], &mut io::stderr()));
    }
    #[cfg(target_os = "linux")]
    if args.get(1).is_some_and(|a| a == crate::agent::GUARD) {
        return Some(crate::agent::guarding(&args[2..]));
    }
    let _ = args;
    None
}

/// Run sojx with `args` (including the program name); returns the exit status.
pub fn run(args: impl IntoIterator<Item = OsString>, io: &mut Io<'_>) -> ExitStatus {
    // Buffered over `Closable`, so that serde_json's many small writes cost one call each.
    let mut stdout = io::BufWriter::with_capacity(
        64 * 1024,
        Closable {
            inner: &mut *io.stdout,
            closed: false,
        },
    );
    let mut io = Io {
        stdout: &mut stdout,
        stderr: &mut *io.stderr,
        stdin_is_tty: io.stdin_is_tty,
        stdout_is_tty: io.stdout_is_tty,
        stderr_is_tty: io.stderr_is_tty,
        env: io.env.clone(),
        hints_told: std::collections::HashSet::new(),
        summary: output::Summary::default(),
        envelopes: None,
    };
    let status = run_closable(args, &mut io);
    match io.stdout.flush() {
        Err(e) if status.is_success() => {
            let _ = writeln!(io.stderr, "sojx: io: writing the output failed: {e}");
            ExitStatus::of(names::Command::Sojx, ErrorKind::Io)
        }
        _ => status,
    }
}

fn run_closable(args: impl IntoIterator<Item = OsString>, io: &mut Io<'_>) -> ExitStatus {
    let args: Vec<OsString> = args.into_iter().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => return usage::clap_error(e, &args, io),
    };
    let result: io::Result<ExitStatus> = match cli.command {
        Command::Extract(Lazy(a)) => extract::run(&a, io),
        Command::Run(Lazy(a)) => run::run(&a, io),
        Command::Validate(Lazy(a)) => validate::run(&a, io),
        Command::Compare(Lazy(a)) => compare::run(&a, io),
        Command::Lint(Lazy(a)) => lint::run(&a, io),
        Command::Compile(Lazy(a)) => compile::run(&a, io),
        Command::Producers(Lazy(a)) => producers::run(&a, io),
        Command::Generate(Lazy(a)) => generate::run(&a, io),
    };
    let summary = output::write_summary(io);
    match result {
        Ok(status) => status.worst(summary),
        // Not expected (`Closable` drops writes to a closed stdout), but a broken pipe is the
        // reader's choice, not a failure of sojx.
        Err(e) if is_broken_pipe(&e) => ExitStatus::Success,
        Err(e) => {
            let causes: Vec<String> = chain(&e).map(ToString::to_string).collect();
            let _ = writeln!(
                io.stderr,
                "sojx: io: writing the output failed: {}",
                causes.join(": ")
            );
            ExitStatus::of(names::Command::Sojx, ErrorKind::Io)
        }
    }
}

/// The error, then its sources.
fn chain(e: &io::Error) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e as &(dyn std::error::Error + 'static)), |c| {
        c.source()
    })
}

/// Whether a broken pipe is anywhere in the error's chain (ripgrep, ruff).
fn is_broken_pipe(e: &io::Error) -> bool {
    chain(e)
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_is_a_quiet_end_and_other_errors_are_told_with_their_sources() {
        assert!(is_broken_pipe(&io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(!is_broken_pipe(&io::Error::other("disk full")));
        #[derive(Debug)]
        struct Outer(io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("outer")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        // io::Error::other(Outer) shows as Outer, whose source is the broken pipe.
        let e = io::Error::other(Outer(io::Error::other(Outer(
            io::ErrorKind::BrokenPipe.into(),
        ))));
        let told: Vec<String> = chain(&e).map(ToString::to_string).collect();
        assert_eq!(told, ["outer", "outer", "broken pipe"]);
        assert!(is_broken_pipe(&e));
    }
}
