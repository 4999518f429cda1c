//! What a run comes to: the envelope `extract` decided from the agent's output, read together
//! with how the agent ended (no I/O).
//!
//! - sojx was signalled: `interrupted` (exit 128 + N), with what the output had come to;
//! - the agent exited non-zero or was killed, with no valid answer: `agent_error` naming its
//!   exit status and the last line of its stderr (a producer's own `agent_error`, more exact,
//!   is kept);
//! - a valid answer from an agent that then failed, or lingered past `--timeout`: the answer,
//!   with a warning;
//! - otherwise the output's verdict.

use super::{AgentEnd, Report, signal_name};
use crate::details::{AgentExit, Details, OutputOutcome, Timeout, TimeoutRead};
use crate::envelope::{self, Envelope};
use crate::error::{ErrorKind, Failure, Operation};
use crate::names::Command;
use crate::warning::{Warning, WarningKind};

/// The run's envelope: `env` (what the output came to), `report` (how the agent ended) and
/// `ended` (whether sojx stopped it).
pub(crate) fn conclude(env: Envelope, report: &Report, ended: AgentEnd) -> Envelope {
    let env = env.as_command(Command::Run);
    let input = env.input().to_owned();
    let env = match ended {
        AgentEnd::Interrupted(sig) => {
            let sent = super::signals::forwarded(sig);
            let when = if sent.as_raw() == sig {
                format!(
                    "while the agent ran; it was forwarded to the agent, which {}",
                    report.how()
                )
            } else {
                format!(
                    "while the agent ran; the agent was sent {} to stop, and it {}",
                    signal_name(sent.as_raw()),
                    report.how()
                )
            };
            interrupted(env, sig, &when)
        }
        AgentEnd::TimedOut if env.error().is_none() => env.with_warning(Warning::new(
            WarningKind::AgentLingered,
            format!(
                "the agent gave its answer but had not exited when --timeout passed; sojx stopped it, and it {}",
                report.how()
            ),
        )),
        AgentEnd::TimedOut => stderr_said(env, report),
        // run --acp: sojx closed the session; the turn's verdict stands.
        AgentEnd::Released => env,
        AgentEnd::ByItself if report.succeeded() => env,
        AgentEnd::ByItself if env.error().is_none() => env.with_warning(Warning::new(
            WarningKind::AgentFailed,
            format!("the agent {} after giving a valid answer", report.how()),
        )),
        // The output's failure is the agent's side (not sojx's own, `io` or `internal`) and the
        // producer did not say why itself (Claude Code's `result` with `is_error`, …).
        AgentEnd::ByItself if env.error_kind().is_some_and(answer_side) => {
            agent_failed(env, report, &input)
        }
        AgentEnd::ByItself => env,
    };
    env.with_agent(report.to_report())
}

/// `interrupted` (exit 128 + `sig`) in place of `env`, with what the output had come to, and
/// `env`'s `agent` kept; `when` says when the signal came.
pub(crate) fn interrupted(env: Envelope, sig: i32, when: &str) -> Envelope {
    let name = signal_name(sig);
    let input = env.input().to_owned();
    let agent = env.agent().cloned();
    let details = Details::Interrupted {
        signal: name.clone(),
        output: outcome(&env),
    };
    let f = Failure::new(
        ErrorKind::Interrupted,
        Operation::Run,
        format!("sojx got {name} {when}"),
    )
    .retryable(false)
    .details(details);
    let env = envelope::failure(Command::Run, &input, f, env.into_parts()).interrupted_by(sig);
    match agent {
        Some(a) => env.with_agent(a),
        None => env,
    }
}

/// `agent_error` for an agent that failed without a valid answer: its exit status or signal,
/// and the last line of its stderr, which usually says why (an expired key, a bad flag).
fn agent_failed(env: Envelope, report: &Report, input: &str) -> Envelope {
    let said = report
        .last_stderr_line()
        .map(|l| format!(": {}", crate::producer::snippet(l, 300)))
        .unwrap_or_default();
    // The contract's `{subtype, terminal_reason, errors}`, as the process gave them.
    let details = AgentExit {
        subtype: if report.exit_status.is_some() {
            "exited"
        } else {
            "killed"
        },
        terminal_reason: report.how(),
        errors: report
            .last_stderr_line()
            .into_iter()
            .map(str::to_owned)
            .collect(),
        exit_status: report.exit_status,
        signal: report.killed_by(),
        output: outcome(&env),
        exit_class: report.exit_class.map(|(class, _)| class),
    };
    // What the producer said of retrying (its last error: an expired key is not retryable)
    // stands, as does what the CLI's own exit status says (Gemini CLI's 41: authentication).
    let permanent = report.exit_class.filter(|(_, retry)| !retry);
    let retryable = env.error().is_none_or(|e| e.retryable) && permanent.is_none();
    let hint = match permanent {
        Some((class, _)) => format!(
            "re-running will not help: the agent's exit status means {class}; fix what its stderr (above, and in agent.stderr_tail) names, then run it again"
        ),
        None => "the agent's stderr (above, and in agent.stderr_tail) says why".to_owned(),
    };
    let f = Failure::new(
        ErrorKind::AgentError,
        Operation::Run,
        format!("the agent {} without a valid answer{said}", report.how()),
    )
    .retryable(retryable)
    .hint(hint)
    .details(Details::AgentExit(details));
    let candidate = env.candidate().cloned();
    let f = match candidate {
        Some(c) => f.candidate(c),
        None => f,
    };
    envelope::failure(Command::Run, input, f, env.into_parts())
}

/// A `timeout` whose output named nothing the agent was doing (no error or retry event on its
/// stdout) names the line of its stderr that says what it was doing (Codex: "Reading
/// additional input from stdin..."; Gemini CLI: its retries).
fn stderr_said(env: Envelope, report: &Report) -> Envelope {
    let named = matches!(
        env.error().and_then(|e| e.details.as_ref()),
        Some(Details::Timeout(Timeout {
            read: TimeoutRead::Values { last: Some(_), .. },
            ..
        }))
    );
    match (env.error_kind(), report.last_stderr_line()) {
        (Some(ErrorKind::Timeout), Some(line)) if !named => {
            let line = crate::producer::snippet(line, 300);
            env.with_error_said(&format!("; the agent's stderr last said: {line}"))
        }
        _ => env,
    }
}

/// Whether a failure of `kind` is what the agent's output came to, which its failing exit
/// explains better (`agent_error` from the producer already explains itself; sojx's own
/// kinds are not the agent's).
fn answer_side(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::EmptyInput
            | ErrorKind::Parse
            | ErrorKind::Truncated
            | ErrorKind::NotFound
            | ErrorKind::JsonInvalid
            | ErrorKind::ValidationFailed
            | ErrorKind::AssertionFailed
    )
}

/// What the output came to, for `details.output`: `{kind, message}` of its failure, or
/// `{kind: "ok"}`.
fn outcome(env: &Envelope) -> OutputOutcome {
    match env.error() {
        Some(e) => OutputOutcome {
            kind: e.kind.as_str(),
            message: Some(e.message.clone()),
        },
        None => OutputOutcome {
            kind: "ok",
            message: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::envelope::Parts;
    use crate::exit::ExitStatus;

    fn report(exit: Option<i32>, signal: Option<i32>, tail: &str) -> Report {
        Report {
            command: vec!["agent".into()],
            pid: Some(42),
            exit_status: exit,
            signal,
            stopped: None,
            duration_ms: 7,
            stderr_tail: tail.into(),
            stderr_first_error: None,
            exit_class: None,
        }
    }

    fn empty() -> Envelope {
        envelope::failure(
            Command::Extract,
            "agent",
            Failure::new(ErrorKind::EmptyInput, Operation::Read, "the input is empty"),
            Parts::default(),
        )
    }

    #[test]
    fn a_failed_agent_with_no_answer_is_an_agent_error_naming_its_stderr() {
        let e = conclude(
            empty(),
            &report(Some(1), None, "Error: Invalid API key\n"),
            AgentEnd::ByItself,
        );
        let f = e.error().unwrap();
        assert_eq!(f.kind, ErrorKind::AgentError);
        assert_eq!(
            f.message,
            "the agent exited with status 1 without a valid answer: Error: Invalid API key"
        );
        assert_eq!(e.command(), Command::Run);
        assert_eq!(e.exit_status(), ExitStatus::Failure);
        let v = e.into_value();
        assert_eq!(v["error"]["details"]["output"]["kind"], "empty_input");
        assert_eq!(v["agent"]["exit_status"], 1);
    }

    #[test]
    fn sojx_own_failures_stay_sojx_own_when_the_agent_failed_too() {
        let io = envelope::failure(
            Command::Extract,
            "agent",
            Failure::new(ErrorKind::Io, Operation::Write, "writing to --tee failed")
                .retryable(false),
            Parts::default(),
        );
        let e = conclude(io, &report(None, Some(13), ""), AgentEnd::ByItself);
        assert_eq!(e.error_kind(), Some(ErrorKind::Io));
        assert_eq!(e.exit_status(), ExitStatus::Error);
        // A producer's "not retryable" survives the agent's failing exit.
        let cut = envelope::failure(
            Command::Extract,
            "agent",
            Failure::new(ErrorKind::Truncated, Operation::Extract, "cut").retryable(false),
            Parts::default(),
        );
        let e = conclude(cut, &report(Some(1), None, ""), AgentEnd::ByItself);
        assert_eq!(e.error_kind(), Some(ErrorKind::AgentError));
        assert!(!e.error().unwrap().retryable);
    }

    #[test]
    fn an_agent_that_exited_zero_keeps_the_outputs_verdict() {
        let e = conclude(empty(), &report(Some(0), None, ""), AgentEnd::ByItself);
        assert_eq!(e.error_kind(), Some(ErrorKind::EmptyInput));
    }

    #[test]
    fn an_interrupted_run_exits_128_plus_the_signal() {
        let e = conclude(
            empty(),
            &report(None, Some(15), ""),
            AgentEnd::Interrupted(15),
        );
        assert_eq!(e.error_kind(), Some(ErrorKind::Interrupted));
        assert_eq!(e.exit_status().code(), 143);
        assert!(e.error().unwrap().message.contains("SIGTERM"));
    }

    #[test]
    fn a_valid_answer_stays_valid_with_a_warning() {
        let ok = envelope::success(Command::Extract, "agent", json!({"a": 1}), Parts::default());
        let e = conclude(ok, &report(Some(2), None, ""), AgentEnd::ByItself);
        assert!(e.error().is_none());
        assert_eq!(e.warnings()[0].kind, WarningKind::AgentFailed);
    }
}
