//! The exit status (contract §7), chosen in one place: [`ExitStatus::of`] maps an error kind to
//! the status it contributes, and a run with several inputs exits with the worst of them
//! ([`ExitStatus::worst`]).

use serde::{Serialize, Serializer};

use crate::error::ErrorKind;

/// What a run, or one input of it, tells the shell. Ordered from best to worst: a run with
/// several inputs exits with the greatest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// 0: every input yielded its structured output.
    #[default]
    Success,
    /// 1: an input held no valid answer, or sojx could not do what it was asked.
    Failure,
    /// 2: `--timeout` passed before an input ended.
    Timeout,
}

impl ExitStatus {
    /// The status a failure of `kind` contributes.
    pub fn of(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::Timeout => Self::Timeout,
            _ => Self::Failure,
        }
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

    #[test]
    fn a_run_exits_with_its_worst_input() {
        let all = [
            ExitStatus::Success,
            ExitStatus::Failure,
            ExitStatus::Timeout,
        ];
        let codes: Vec<u8> = all.iter().map(|s| s.code()).collect();
        assert_eq!(codes, [0, 1, 2]);
        // The order of the enum is the order of the codes: the worst is the highest.
        for a in all {
            for b in all {
                assert_eq!(a.worst(b).code(), a.code().max(b.code()));
            }
        }
        assert_eq!(ExitStatus::of(ErrorKind::Timeout), ExitStatus::Timeout);
        assert_eq!(ExitStatus::of(ErrorKind::NotFound), ExitStatus::Failure);
        assert_eq!(ExitStatus::of(ErrorKind::Usage), ExitStatus::Failure);
    }
}
