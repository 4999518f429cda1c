//! `sojx run`'s arguments: extract's, plus the agent's COMMAND and how it is bounded and
//! retried.

use std::time::Duration;

use clap::Args;

use super::{
    AnswerArgs, KeptArgs, LimitArgs, LiveArgs, OutputArgs, SchemaArgs, parse_timeout, values,
};
use crate::acp::Policy;
use crate::agent::{Extra, Profile};

pub(super) const RUN_EXAMPLES: &str = "\
Examples:
  sojx run --schema x.json --timeout 15m -- \\
      claude -p \"…\" --output-format stream-json --verbose
  sojx run --schema x.json --activity --tee run.ndjson -- codex exec --json \"…\"

With --schema, Claude Code, Codex and Qwen Code are given the schema lowered for them
(--json-schema, --output-schema) on every attempt, unless COMMAND gives one or
--no-agent-schema is set, and their answers are lifted back to --schema's shape.

COMMAND runs without a shell (a script with no #! line with /bin/sh), in its own process
group; its stdout is read as `extract` reads an input, its stderr is passed through, and the
envelope's `agent` says how it ended. With --timeout the agent's group gets SIGTERM, then
SIGKILL after --kill-after; SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to sojx are forwarded to
it (SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF and SIGXCPU as SIGTERM). On Linux the agent
and its group get SIGKILL if sojx dies. When sojx's stdin is not a terminal, the agent reads it.
Exit status: as for extract; 3 when COMMAND cannot be started (spawn); 128+N when sojx was
interrupted by signal N (interrupted).";

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub schema: SchemaArgs,

    #[command(flatten)]
    pub answer: AnswerArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub live: LiveArgs,

    #[command(flatten)]
    pub kept: KeptArgs,

    /// How long the agent's process group has after SIGTERM (sent when --timeout passes, or
    /// the signal sojx forwards) before SIGKILL: seconds or with a unit, as --timeout.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_timeout)]
    pub kill_after: Duration,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub retry: RetryArgs,

    /// Do not give COMMAND's agent the schema (with --schema, sojx adds Claude Code's and Qwen
    /// Code's --json-schema and Codex's --output-schema, lowered for it): the answer is checked
    /// by sojx alone, and lifted only as --provider says.
    #[arg(long, conflicts_with = "acp")]
    pub no_agent_schema: bool,

    /// Drive COMMAND as an ACP agent (Agent Client Protocol: JSON-RPC on its stdin and
    /// stdout; `gemini --acp`, `qwen --acp`, `opencode acp`): sojx sends the prompt, reads the
    /// answer of the turn, and retries in the same session.
    #[arg(long, help_heading = "ACP", conflicts_with_all = ["retry_command", "resume_profile", "from"])]
    pub acp: bool,

    /// The prompt of an ACP run (else --prompt-file, else sojx's stdin).
    #[arg(
        long,
        value_name = "TEXT",
        help_heading = "ACP",
        requires = "acp",
        conflicts_with = "prompt_file"
    )]
    pub prompt: Option<String>,

    /// Read the prompt of an ACP run from FILE.
    #[arg(long, value_name = "FILE", help_heading = "ACP", requires = "acp")]
    pub prompt_file: Option<std::path::PathBuf>,

    /// How sojx answers the ACP agent's permission requests [default: deny]: deny, allow-once
    /// (this tool call, never "always"), allow.
    #[arg(
        long,
        value_enum,
        value_name = "POLICY",
        help_heading = "ACP",
        requires = "acp"
    )]
    pub(crate) acp_permissions: Option<Policy>,

    /// The agent and its arguments, after `--`, started as given (no shell).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// How `run` tries again, and how the feedback reaches the agent.
#[derive(Debug, Args)]
pub struct RetryArgs {
    /// Attempts in all (1: no retry). An attempt whose answer is missing or invalid
    /// (not_found, json_invalid, validation_failed, assertion_failed) is tried again with what
    /// was wrong fed back to the agent.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub max_attempts: u32,

    /// Also retry these failures (comma-separated). A failure the producer marks as not
    /// retryable (authentication, billing, permission) never is.
    #[arg(long, value_parser = values::retry_on(), value_delimiter = ',', value_name = "KINDS")]
    pub(crate) retry_on: Vec<Extra>,

    /// Resume the agent's session this way with the feedback as the prompt, or `none` to run
    /// COMMAND again; a producer file's id uses its `[resume]`. Default: chosen by COMMAND's
    /// file name and confirmed by the producer.
    #[arg(long, value_parser = super::values::ResumeParser, value_name = "PROFILE")]
    pub(crate) resume_profile: Option<ResumeProfile>,

    /// The argv of every retry, split like a shell line once; {session_id}, {feedback},
    /// {feedback_file}, {attempt}, {schema_file} and {previous_output_file} are replaced in
    /// each argument (never through a shell). Wins over a resume profile.
    #[arg(long, value_name = "TEMPLATE")]
    pub retry_command: Option<String>,

    /// The feedback text, with {errors}, {candidate} and {schema} replaced; `@FILE` reads it.
    #[arg(long, value_name = "TEXT")]
    pub feedback_template: Option<String>,
}

/// `--resume-profile`: resume the session with this profile, or never (`none`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResumeProfile {
    /// One of sojx's own profiles.
    Use(Profile),
    /// The `[resume]` of the producer file of this id, resolved once the files are loaded.
    File(String),
    /// Run COMMAND again, the feedback in its environment.
    Never,
}
