//! The attempts of a run, one loop for both ways of running an agent: the attempt made and
//! timed, whether its failure earns another ([`Rules`]: `--max-attempts`, `--retry-on`), the
//! feedback on it (`--feedback-template`, the schema), the line on stderr between two
//! attempts, and the `attempts` entries. A [`Transport`] says only how an attempt is made: a
//! process started again or resumed (`super::Process`), or the next turn of an ACP session
//! (`acp::turns::Turns`).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde_json::Value;

use crate::agent::{Extra, Feedback, retries};
use crate::cli::RetryArgs;
use crate::envelope::{Attempt, Envelope};
use crate::error::{ErrorKind, Failure, Operation};
use crate::warning::Warning;

/// What decides a retry and what it is told, the same for both ways.
pub(super) struct Rules {
    /// `--max-attempts`.
    pub(super) max: u32,
    /// `--retry-on`.
    extra: Vec<Extra>,
    /// `--feedback-template`, read.
    template: Option<String>,
    /// The schema the feedback gives, as the agent has it.
    schema: Option<Value>,
}

impl Rules {
    /// The rules of `args`, with `schema` for the feedback; reads `--feedback-template @FILE`.
    pub(super) fn new(args: &RetryArgs, schema: Option<&Value>) -> Result<Self, Failure> {
        let template = match args.feedback_template.as_deref() {
            Some(t) => Some(read_template(t)?),
            None => None,
        };
        Ok(Self {
            max: args.max_attempts,
            extra: args.retry_on.clone(),
            template,
            schema: schema.cloned(),
        })
    }

    /// Whether attempt `n`, which ended in `env`, earns another.
    fn earn(&self, env: &Envelope, n: u32) -> bool {
        n < self.max && retries(env, &self.extra)
    }

    /// The feedback on `env`: the template's, or the default, which also carries the schema
    /// and the previous output when the next attempt does not `resume` the session.
    pub(super) fn feedback(&self, env: &Envelope, resumed: bool) -> String {
        Feedback::of(env, self.schema.as_ref()).feedback(self.template.as_deref(), resumed)
    }

    /// The schema the feedback gives.
    pub(super) fn schema(&self) -> Option<&Value> {
        self.schema.as_ref()
    }
}

/// How an attempt is made: the one thing the two ways of running an agent do differently.
pub(super) trait Transport {
    /// What an attempt is made from: a process's argv and stdin, a turn's prompt.
    type Ask;

    /// The run's rules.
    fn rules(&self) -> &Rules;

    /// The first attempt's ask (COMMAND as given, the prompt), and its `attempts[].via`.
    fn first(&self) -> (Self::Ask, String);

    /// Make attempt `n` from `ask`; `before` is the envelope of the attempt before it.
    fn attempt(&mut self, n: u32, ask: Self::Ask, before: Option<&Envelope>) -> Outcome;

    /// The attempt after attempt `n`, which ended in `failed` and earns another (the feedback
    /// from [`Rules::feedback`]); a warning when it must not be made.
    fn next(&mut self, failed: &Envelope, n: u32) -> Result<Next<Self::Ask>, Warning>;

    /// Say `line` on stderr, between two attempts.
    fn tell(&mut self, line: &str);
}

/// What came of an attempt.
pub(super) enum Outcome {
    /// It was made: its envelope, and whether another may follow it (an ACP session whose wire
    /// stopped has no next turn).
    Made { env: Envelope, more: bool },
    /// It was not made (a signal came first, the tee failed): the run ends with this envelope.
    NotMade(Envelope),
}

/// The attempt after a failed one.
pub(super) struct Next<A> {
    pub(super) ask: A,
    /// Its `attempts[].via`.
    pub(super) via: String,
    /// How it is made, in words, for the line between the two attempts.
    pub(super) how: String,
}

/// The attempts of one run, as `t` makes them and its rules allow: the envelope of the last one,
/// and one entry per attempt made.
pub(super) fn attempts<T: Transport>(t: &mut T) -> (Envelope, Vec<Attempt>) {
    let (mut ask, mut via) = t.first();
    let mut attempts = Vec::new();
    let mut before: Option<Envelope> = None;
    let mut n = 1;
    loop {
        let started = Instant::now();
        let (env, more) = match t.attempt(n, ask, before.as_ref()) {
            Outcome::Made { env, more } => (env, more),
            Outcome::NotMade(env) => return (env, attempts),
        };
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        attempts.push(Attempt::of(n, &env, &via, ms));
        if !more || !t.rules().earn(&env, n) {
            return (env, attempts);
        }
        let next = match t.next(&env, n) {
            Ok(next) => next,
            Err(refused) => return (env.with_warning(refused), attempts),
        };
        let kind = env.error_kind().map_or("failed", |k| k.as_str());
        let line = format!(
            "attempt {n} of {} failed ({kind}); attempt {} {}",
            t.rules().max,
            n + 1,
            next.how
        );
        t.tell(&line);
        (ask, via) = (next.ask, next.via);
        before = Some(env);
        n += 1;
    }
}

/// The line between two attempts, on stderr: `sojx: NAME: retry: LINE`.
pub(super) fn tell_retry(err: &mut dyn Write, name: &str, color: bool, line: &str) {
    let label = super::super::output::paint(color, "retry", owo_colors::Style::new().yellow());
    let _ = writeln!(
        err,
        "sojx: {}: {label}: {line}",
        crate::sanitize::sanitize(name)
    );
}

/// `--feedback-template`: the text, or `@FILE`'s.
fn read_template(t: &str) -> Result<String, Failure> {
    let Some(path) = t.strip_prefix('@') else {
        return Ok(t.to_owned());
    };
    let bytes = crate::disk::read_regular(Path::new(path)).map_err(|e| {
        Failure::new(
            ErrorKind::Filesystem,
            Operation::Read,
            format!(
                "cannot read --feedback-template {path}: {}",
                crate::input::io_reason(&e)
            ),
        )
        .target(path)
        .retryable(false)
    })?;
    String::from_utf8(bytes).map_err(|_| {
        Failure::new(
            ErrorKind::Usage,
            Operation::ParseArguments,
            format!("--feedback-template {path} is not UTF-8 text"),
        )
        .target(path)
        .retryable(false)
    })
}
