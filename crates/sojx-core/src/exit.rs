//! The exit status (contract §7), chosen in one place: [`ExitStatus::of`] maps an error kind to
//! the status it contributes, and a run with several inputs exits with the worst of them
//! ([`ExitStatus::worst`]). The status says whose side a failure is on: 1 the agent's answer,
//! 2 the clock, 3 the caller's command or files.

use serde::{Serialize, Serializer};

use crate::error::ErrorKind;
use crate::names::Command;

/// SIGINT's number on every unix.
const SIGINT: u8 = 2;

/// What a run, or one input of it, tells the shell. Ordered from best to worst: a run with
/// several inputs exits with the greatest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// 0: every input yielded its structured output.
    #[default]
    Success,
    /// 1: an input held no valid answer (the agent's side).
    Failure,
    /// 2: `--timeout` passed before an input ended.
    Timeout,
    /// 3: sojx could not do what it was asked (the caller's side: a usage error, a broken
    /// schema, an unreadable file); re-running the agent will not help.
    Error,
    /// 128 + N: `run` was interrupted by signal N (SIGINT, SIGTERM, SIGHUP, SIGQUIT, and the
    /// others `agent::signals` catches), as shells report a process a signal ended. The worst of all: the run was stopped.
    Interrupted(u8),
}

impl ExitStatus {
    /// The status a failure of `kind` contributes to `command`. For `lint` and `compile` the
    /// schema is the input, so what they find in it (`schema_invalid`) is the input's failure,
    /// 1; for every other command a broken schema is the caller's, 3.
    pub fn of(command: Command, kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::EmptyInput
            | ErrorKind::Parse
            | ErrorKind::Truncated
            | ErrorKind::AgentError
            | ErrorKind::NotFound
            | ErrorKind::JsonInvalid
            | ErrorKind::ValidationFailed
            | ErrorKind::AssertionFailed => Self::Failure,
            ErrorKind::Timeout => Self::Timeout,
            ErrorKind::SchemaInvalid if command.reads_a_schema() => Self::Failure,
            ErrorKind::Usage
            | ErrorKind::SchemaInvalid
            | ErrorKind::Filesystem
            | ErrorKind::Io
            | ErrorKind::Internal
            | ErrorKind::Spawn => Self::Error,
            // The signal is known where the failure is made ([`ExitStatus::interrupted`]);
            // SIGINT is what a person sends.
            ErrorKind::Interrupted => Self::Interrupted(SIGINT),
        }
    }

    /// The status of a `run` that signal `signal` stopped: 128 + the signal's number.
    pub fn interrupted(signal: i32) -> Self {
        Self::Interrupted(u8::try_from(signal).unwrap_or(SIGINT).min(127))
    }

    /// The status of a run of two parts: the worse one.
    #[must_use]
    pub fn worst(self, other: Self) -> Self {
        self.max(other)
    }

    /// The number the process exits with.
    pub fn code(self) -> u8 {
        match self {
            Self::Success => 0,
            Self::Failure => 1,
            Self::Timeout => 2,
            Self::Error => 3,
            Self::Interrupted(n) => 128 + n.min(127),
        }
    }

    pub fn is_success(self) -> bool {
        self == Self::Success
    }
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(s: ExitStatus) -> Self {
        Self::from(s.code())
    }
}

/// On the wire (the envelope's `exit_code`), the number.
impl Serialize for ExitStatus {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::ExitStatus;
    use crate::error::ErrorKind;
    use crate::names::Command;

    #[test]
    fn a_run_exits_with_its_worst_input() {
        let all = [
            ExitStatus::Success,
            ExitStatus::Failure,
            ExitStatus::Timeout,
            ExitStatus::Error,
        ];
        let codes: Vec<u8> = all.iter().map(|s| s.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3]);
        // The order of the enum is the order of the codes: the worst is the highest.
        for a in all {
            for b in all {
                assert_eq!(a.worst(b).code(), a.code().max(b.code()));
            }
        }
    }

    #[test]
    fn the_status_says_whose_side_a_failure_is_on() {
        use ErrorKind as K;
        let agent = [
            K::EmptyInput,
            K::Parse,
            K::Truncated,
            K::AgentError,
            K::NotFound,
            K::JsonInvalid,
            K::ValidationFailed,
            K::AssertionFailed,
        ];
        let caller = [
            K::Usage,
            K::SchemaInvalid,
            K::Filesystem,
            K::Io,
            K::Internal,
            K::Spawn,
        ];
        for &cmd in Command::ALL {
            for k in agent {
                assert_eq!(ExitStatus::of(cmd, k), ExitStatus::Failure, "{cmd} {k:?}");
            }
            assert_eq!(ExitStatus::of(cmd, K::Timeout), ExitStatus::Timeout);
            for k in caller {
                let want =
                    if k == K::SchemaInvalid && matches!(cmd, Command::Lint | Command::Compile) {
                        ExitStatus::Failure
                    } else {
                        ExitStatus::Error
                    };
                assert_eq!(ExitStatus::of(cmd, k), want, "{cmd} {k:?}");
            }
        }
        assert_eq!(ExitStatus::interrupted(15).code(), 143);
        assert_eq!(ExitStatus::interrupted(1).code(), 129);
        assert_eq!(ExitStatus::of(Command::Run, K::Interrupted).code(), 130);
        // Stopped by a signal is worse than any input's failure.
        assert_eq!(
            ExitStatus::Error.worst(ExitStatus::interrupted(1)),
            ExitStatus::interrupted(1)
        );
    }
}
