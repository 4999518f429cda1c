//! `run`'s attempts: the `SOJX_*` variables of each, and how the next one is made, most
//! specific first: `--retry-command`, the agent's resume profile, COMMAND again (contract §9).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::Env;
use super::attempts::Rules;
use crate::agent::{Profile, Spec, Stdin, Values, split_template};
use crate::cli::{ResumeProfile, RetryArgs};
use crate::envelope::Envelope;
use crate::error::{ErrorKind, Failure, Operation};
use crate::producer::Registry;
use crate::warning::{Warning, WarningKind};

/// The next attempt's argv and stdin, how it is made (`command`, `resume:<profile>`,
/// `retry_command`: `attempts[].via`), and the same for people.
pub(super) struct Next {
    pub(super) argv: Vec<OsString>,
    pub(super) stdin: Stdin,
    pub(super) via: String,
    pub(super) how: String,
}

/// How the profile is chosen.
#[derive(Debug, Clone, Copy)]
enum Choice {
    /// By COMMAND's file name.
    Auto,
    Forced(Profile),
    /// `--resume-profile none`.
    Never,
}

/// The attempts of one run.
pub(super) struct RetryPlan {
    /// When to retry, and the feedback.
    rules: Rules,
    choice: Choice,
    /// `--retry-command`, split once.
    command: Option<Vec<String>>,
    /// The run's private directory for the feedback, previous output and schema files (only
    /// when there can be a retry), removed when the run ends.
    dir: Option<Scratch>,
    /// The current attempt's values.
    values: Values,
    /// The producer files' resume profiles, for COMMAND's file name.
    files: Vec<Profile>,
}

impl RetryPlan {
    pub(super) fn new(
        args: &RetryArgs,
        schema: Option<&Value>,
        producers: &Registry,
        env: &Env,
    ) -> Result<Self, Failure> {
        let usage = |m: String| {
            Failure::new(ErrorKind::Usage, Operation::ParseArguments, m)
                .retryable(false)
                .target("--retry-command")
        };
        let command = match &args.retry_command {
            None => None,
            Some(t) => Some(split_template(t).ok_or_else(|| {
                usage(format!(
                    "--retry-command {t:?} is not a command line (empty, or an unclosed quote)"
                ))
            })?),
        };
        let rules = Rules::new(args, schema)?;
        // Reading every producer file's `[resume]` is for a run that can make a second attempt
        // (or names a file's profile): one attempt resumes nothing.
        let files = if args.max_attempts > 1
            || matches!(args.resume_profile, Some(ResumeProfile::File(_)))
        {
            Profile::of_files(producers)
        } else {
            Vec::new()
        };
        // SOJX_SCHEMA_FILE is set whenever there is a schema, even for one attempt.
        let dir = if args.max_attempts > 1 || schema.is_some() {
            Some(Scratch::create(&env.tmpdir)?)
        } else {
            None
        };
        let mut values = Values {
            attempt: "1".into(),
            ..Values::default()
        };
        if let (Some(d), Some(s)) = (&dir, schema) {
            let text = serde_json::to_string_pretty(s).unwrap_or_default();
            values.schema_file = d.write("schema.json", &text)?;
        }
        Ok(Self {
            rules,
            choice: match &args.resume_profile {
                None => Choice::Auto,
                Some(ResumeProfile::Never) => Choice::Never,
                Some(ResumeProfile::Use(p)) => Choice::Forced(*p),
                Some(ResumeProfile::File(id)) => {
                    Choice::Forced(files.iter().copied().find(|p| p.name() == id && p.resumes()).ok_or_else(
                        || {
                            Failure::new(
                                ErrorKind::Usage,
                                Operation::ParseArguments,
                                format!(
                                    "--resume-profile {id}: no producer of that id says how to resume its sessions (a producer file's `[resume]`); the profiles are {}",
                                    Profile::ALL
                                        .iter()
                                        .chain(&files)
                                        .map(|p| p.name())
                                        .chain(["none"])
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            )
                            .retryable(false)
                            .target("--resume-profile")
                            .hint("`sojx producers` lists the producers; docs/producer-files.md says how a file gives a resume form")
                        },
                    )?)
                }
            },
            files,
            command,
            dir,
            values,
        })
    }

    /// Write `name` in the run's private directory (there is one whenever there is a schema),
    /// removed when the run ends; its path.
    pub(super) fn keep(&self, name: &str, text: &str) -> Result<String, Failure> {
        match &self.dir {
            Some(d) => d.write(name, text),
            None => Err(Failure::new(
                ErrorKind::Internal,
                Operation::Write,
                format!("no directory for {name}: the run has no schema"),
            )
            .retryable(false)),
        }
    }

    pub(super) fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The `SOJX_*` variables of the current attempt (empty where not known).
    pub(super) fn variables(&self) -> Vec<(String, OsString)> {
        let v = &self.values;
        [
            ("SOJX_ATTEMPT", v.attempt.clone()),
            ("SOJX_MAX_ATTEMPTS", self.rules.max.to_string()),
            ("SOJX_FEEDBACK", v.feedback.clone()),
            ("SOJX_FEEDBACK_FILE", v.feedback_file.clone()),
            ("SOJX_SESSION_ID", v.session_id.clone()),
            ("SOJX_SCHEMA_FILE", v.schema_file.clone()),
            ("SOJX_PREVIOUS_OUTPUT_FILE", v.previous_output_file.clone()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), OsString::from(v)))
        .collect()
    }

    /// The refusal of the attempt after attempt `n` when the agent's session id `said` is
    /// `unusable` (why) and the retry would resume it: by `--retry-command`'s `{session_id}`,
    /// or by the `candidate` profile when it would take the id as it is (not Codex's, which takes
    /// UUIDs only: COMMAND runs again, as for any id it does not take).
    fn unusable(
        &self,
        unusable: Option<String>,
        candidate: Option<Profile>,
        said: Option<&str>,
        n: u32,
    ) -> Option<Warning> {
        let why = unusable?;
        let resumes = match &self.command {
            Some(words) => words.iter().any(|w| w.contains("{session_id}")),
            None => candidate.is_some_and(|p| said.is_some_and(|id| p.takes_id(id))),
        };
        resumes.then(|| {
            Warning::new(
                WarningKind::RetryRefused,
                format!(
                    "attempt {} was not made: the agent's session id {why}, so it cannot be resumed",
                    n + 1
                ),
            )
        })
    }

    /// The attempt after attempt `n`, which ended in `env` and earns another; `first` is the
    /// first attempt's spec (COMMAND as given). A `retry_refused` warning when `--retry-command`
    /// would pass a value as an option.
    pub(super) fn next(&mut self, first: &Spec, env: &Envelope, n: u32) -> Result<Next, Warning> {
        let said = env
            .session()
            .and_then(|s| s.id.clone())
            .filter(|id| !id.is_empty());
        // An id that cannot be an argument (or a variable) is no session to resume.
        let unusable = said.as_deref().and_then(unusable_id);
        let session = said.clone().filter(|_| unusable.is_none());
        let candidate = match self.choice {
            Choice::Never => None,
            Choice::Forced(p) => Some(p),
            Choice::Auto => first
                .argv
                .first()
                .and_then(|p| Profile::for_program_in(p, &self.files)),
        }
        .filter(|p| p.confirms(env.producer()) && p.resumable(&first.argv));
        if let Some(refused) = self.unusable(unusable, candidate, said.as_deref(), n) {
            return Err(refused);
        }
        let takes_id = |words: &[String]| words.iter().any(|w| w.contains("{session_id}"));
        let profile = candidate.filter(|p| session.as_deref().is_some_and(|id| p.takes_id(id)));
        let resumed = match (&self.command, profile, &session) {
            (Some(words), _, Some(_)) => takes_id(words),
            (None, Some(_), Some(_)) => true,
            _ => false,
        };
        let feedback = self.rules.feedback(env, resumed);
        self.values.attempt = (n + 1).to_string();
        self.values.session_id = session.clone().unwrap_or_default();
        self.values.feedback.clone_from(&feedback);
        if let Some(d) = &self.dir {
            // A file that cannot be written leaves its variable empty; the feedback is also
            // in SOJX_FEEDBACK and the argv.
            self.values.feedback_file = d.write("feedback.txt", &feedback).unwrap_or_default();
            let previous = env.candidate().map(|c| match c {
                Value::String(s) => s.clone(),
                v => serde_json::to_string(v).unwrap_or_default(),
            });
            self.values.previous_output_file = previous
                .and_then(|p| d.write("previous-output.txt", &p).ok())
                .unwrap_or_default();
        }
        Ok(match (&self.command, profile, &session) {
            (Some(words), _, _) => {
                let argv = self.values.argv(words).map_err(|why| {
                    Warning::new(
                        WarningKind::RetryRefused,
                        format!("attempt {} was not made: {why}", n + 1),
                    )
                })?;
                let how = "runs --retry-command".to_owned();
                Next {
                    argv,
                    stdin: Stdin::Null,
                    via: "retry_command".into(),
                    how,
                }
            }
            (None, Some(p), Some(id)) => {
                let r = p.resume(&first.argv, id, &feedback);
                let how = format!(
                    "resumes session {} with the feedback ({} profile)",
                    id.escape_debug(),
                    p.name()
                );
                let stdin = r.stdin.map_or(Stdin::Null, Stdin::Text);
                Next {
                    argv: r.argv,
                    stdin,
                    via: format!("resume:{}", p.name()),
                    how,
                }
            }
            _ => {
                let how = "runs COMMAND again, the feedback in SOJX_FEEDBACK".to_owned();
                Next {
                    argv: first.argv.clone(),
                    stdin: Stdin::Null,
                    via: "command".into(),
                    how,
                }
            }
        })
    }
}

/// Most bytes of a session id sojx resumes (docs/limits.md): ids are UUIDs or shorter; one
/// longer is no agent's, and near Linux's bound on one argument (128 KiB) it would fail to start
/// the resumed attempt.
pub(super) const MAX_SESSION_ID_BYTES: usize = 4096;

/// Why the session id `id` cannot be passed to a resumed attempt (as an argument, or in
/// `SOJX_SESSION_ID`), if it cannot.
fn unusable_id(id: &str) -> Option<String> {
    if id.contains('\0') {
        Some("holds a NUL byte".to_owned())
    } else if id.len() > MAX_SESSION_ID_BYTES {
        Some(format!(
            "is {} bytes, over sojx's bound of {MAX_SESSION_ID_BYTES}",
            id.len()
        ))
    } else {
        None
    }
}

/// The profile whose flags sojx reads in COMMAND's argv (its schema, its stream flags):
/// `--resume-profile`'s, or the one of COMMAND's file name among sojx's own and the producer
/// files' (`producers`; even with `--resume-profile none`, which only keeps sojx from resuming).
pub(super) fn known_profile(
    args: &RetryArgs,
    first: &Spec,
    producers: &Registry,
) -> Option<Profile> {
    let files = Profile::of_files(producers);
    match &args.resume_profile {
        Some(ResumeProfile::Use(p)) => Some(*p),
        Some(ResumeProfile::File(id)) => files.iter().copied().find(|p| p.name() == id),
        Some(ResumeProfile::Never) | None => first
            .argv
            .first()
            .and_then(|p| Profile::for_program_in(p, &files)),
    }
}

/// A directory only this run uses (mode 0700), removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn create(tmp: &Path) -> Result<Self, Failure> {
        use std::os::unix::fs::DirBuilderExt;
        let mut last = None;
        for i in 0..100 {
            let p = tmp.join(format!("sojx-run-{}-{i}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&p) {
                Ok(()) => return Ok(Self(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    last = Some(e);
                    break;
                }
            }
        }
        let why = last.map_or_else(
            || "every name is taken".to_owned(),
            |e| crate::input::io_reason(&e),
        );
        Err(Failure::new(
            ErrorKind::Filesystem,
            Operation::Write,
            format!(
                "cannot create a directory for the retries' files under {}: {why}",
                tmp.display()
            ),
        )
        .target(tmp.to_string_lossy().into_owned())
        .retryable(false)
        .hint("set TMPDIR to a writable directory"))
    }

    /// Write `name` in the directory; its path.
    fn write(&self, name: &str, text: &str) -> Result<String, Failure> {
        let p = self.0.join(name);
        std::fs::write(&p, text).map_err(|e| {
            Failure::new(
                ErrorKind::Filesystem,
                Operation::Write,
                format!(
                    "cannot write {}: {}",
                    p.display(),
                    crate::input::io_reason(&e)
                ),
            )
            .retryable(false)
        })?;
        Ok(p.to_string_lossy().into_owned())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
