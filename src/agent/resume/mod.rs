//! Resume profiles: how each agent CLI continues one session by its id with a new prompt,
//! non-interactively, printing the stream sojx reads. A profile is chosen by COMMAND's file
//! name (`claude`, `codex`, …) or `--resume-profile`, and used only when the producer sojx
//! detected is of the profile's family and the stream gave a session id. Never a "continue the
//! last session" flag: a parallel run in the same directory would win the race.
//!
//! The first attempt's flags that shape the output and the session (output format, schema,
//! model, permissions, tools) are carried to the resume, from a table per profile; its prompt
//! and every other argument are not. The forms and their sources are in docs/run.md.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use crate::producer::file::{Spec, Values, spec_of};
use crate::producer::{Family, Producer, Registry};

/// An agent CLI `run` knows how to resume: by sojx's code, or by a producer file's `[resume]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    Claude,
    Codex,
    Gemini,
    Qwen,
    Opencode,
    Amp,
    CursorAgent,
    /// A producer file's `[resume]` (docs/producer-files.md, "Resume").
    File(&'static Spec),
}

mod carry;
mod schema;
mod stream;

pub(crate) use schema::SchemaFlag;

use carry::Arity;

impl Profile {
    /// Every profile, in `--resume-profile`'s order.
    pub(crate) const ALL: &'static [Self] = &[
        Self::Claude,
        Self::Codex,
        Self::Gemini,
        Self::Qwen,
        Self::Opencode,
        Self::Amp,
        Self::CursorAgent,
    ];

    /// The profiles of the producer files of `producers` that say how to resume (`[resume]`):
    /// the built-in ones, then the loaded ones.
    pub(crate) fn of_files(producers: &Registry) -> Vec<Self> {
        producers
            .all()
            .into_iter()
            .filter_map(spec_of)
            .filter(|s| s.resume.is_some() || s.schema_flag.is_some())
            .map(Self::File)
            .collect()
    }

    /// Whether the profile says how to resume a session (a producer file may say only how its
    /// CLI takes a schema).
    pub(crate) fn resumes(self) -> bool {
        !matches!(self, Self::File(s) if s.resume.is_none())
    }

    /// The profile for COMMAND by its file name among sojx's own ([`Profile::for_program`]),
    /// else among `files` (a producer file's `programs`).
    pub(crate) fn for_program_in(program: &OsStr, files: &[Self]) -> Option<Self> {
        Self::for_program(program).or_else(|| {
            let name = Path::new(program).file_name()?.to_str()?;
            files.iter().copied().find(|p| match p {
                Self::File(s) => {
                    let named = |programs: &[String]| programs.iter().any(|p| p == name);
                    s.resume.as_ref().is_some_and(|r| named(&r.programs))
                        || s.schema_flag.as_ref().is_some_and(|f| named(&f.programs))
                }
                _ => false,
            })
        })
    }

    /// The profile for COMMAND, by its file name (`/usr/local/bin/claude` is `claude`), among
    /// the profiles of sojx's own code.
    pub(crate) fn for_program(program: &OsStr) -> Option<Self> {
        let name = Path::new(program).file_name()?.to_str()?;
        Some(match name {
            "claude" => Self::Claude,
            "codex" => Self::Codex,
            "gemini" => Self::Gemini,
            "qwen" => Self::Qwen,
            "opencode" => Self::Opencode,
            "amp" => Self::Amp,
            "cursor-agent" => Self::CursorAgent,
            _ => return None,
        })
    }

    /// Its name, as `--resume-profile` takes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Qwen => "qwen",
            Self::Opencode => "opencode",
            Self::Amp => "amp",
            Self::CursorAgent => "cursor-agent",
            Self::File(s) => &s.id,
        }
    }

    /// The resume form for people: `claude -p --resume ID`, `droid exec --session-id ID` (a
    /// file's program and its words before `--`, the session id as `ID`).
    pub(crate) fn form(self) -> String {
        let code = match self {
            Self::Claude => "claude -p --resume ID",
            Self::Codex => "codex exec resume ID",
            Self::Gemini => "gemini --resume ID",
            Self::Qwen => "qwen --resume ID",
            Self::Opencode => "opencode run --session ID",
            Self::Amp => "amp threads continue ID",
            Self::CursorAgent => "cursor-agent -p --resume ID",
            Self::File(s) => {
                let Some(r) = &s.resume else {
                    return String::new();
                };
                let mut form = r.programs.first().unwrap_or(&s.id).clone();
                for w in r.argv.iter().take_while(|w| *w != "--") {
                    if w != "{carried}" && !w.contains("{feedback}") {
                        form.push(' ');
                        form.push_str(&w.replace("{session_id}", "ID"));
                    }
                }
                return form;
            }
        };
        code.to_owned()
    }

    /// The profile that resumes `p`'s sessions: sojx's own for the producers of its CLIs (not
    /// the API producers), a file's `[resume]` for a file's producer.
    pub(crate) fn for_producer(p: Producer) -> Option<Self> {
        Some(match p {
            Producer::ClaudeCode => Self::Claude,
            Producer::Codex => Self::Codex,
            Producer::GeminiCli => Self::Gemini,
            Producer::QwenCode => Self::Qwen,
            Producer::Opencode => Self::Opencode,
            Producer::Amp => Self::Amp,
            Producer::Cursor => Self::CursorAgent,
            _ => return spec_of(p).filter(|s| s.resume.is_some()).map(Self::File),
        })
    }

    /// Whether the detected producer is this agent's (or of its family: Qwen Code, Amp and
    /// Cursor print Claude Code's events).
    pub(crate) fn confirms(self, producer: Option<Producer>) -> bool {
        let Some(p) = producer else { return false };
        let family = match self {
            // A file's producer, by its id; a look-alike's, also the producer it reads like
            // (detection names Kilo's stream opencode's).
            Self::File(s) => {
                return p.id() == s.id
                    || (s.events.is_empty() && s.reads_like.as_deref() == Some(p.id()));
            }
            Self::Claude | Self::Qwen | Self::Amp | Self::CursorAgent => Family::Claude,
            Self::Codex => Family::Codex,
            Self::Gemini => Family::Gemini,
            Self::Opencode => Family::Opencode,
        };
        p.family() == family
    }

    /// How many values the first attempt's flag `name` takes, when this profile carries it.
    fn carries(self, name: &str) -> Option<Arity> {
        let table = match self {
            Self::Claude => carry::CLAUDE_CARRY,
            Self::Codex => carry::CODEX_CARRY,
            Self::Gemini => carry::GEMINI_CARRY,
            Self::Qwen => carry::QWEN_CARRY,
            Self::Opencode => carry::OPENCODE_CARRY,
            Self::Amp => carry::AMP_CARRY,
            Self::CursorAgent => carry::CURSOR_CARRY,
            Self::File(s) => {
                let r = s.resume.as_ref()?;
                return r
                    .carry
                    .iter()
                    .find(|(f, _)| f == name)
                    .map(|&(_, v)| match v {
                        Values::Zero => Arity::Zero,
                        Values::One => Arity::One,
                        Values::Many => Arity::Many,
                    });
            }
        };
        table
            .iter()
            .find(|(names, _)| names.contains(&name))
            .map(|&(_, arity)| arity)
    }

    /// Whether the first attempt's argv keeps its session from being saved (Claude Code
    /// `--no-session-persistence`, Codex `--ephemeral`, Qwen `--chat-recording false`): then
    /// there is nothing to resume.
    pub(crate) fn resumable(self, first: &[OsString]) -> bool {
        let has = |flag: &str| first.iter().any(|a| a == flag);
        match self {
            Self::Claude => !has("--no-session-persistence"),
            Self::Codex => !has("--ephemeral"),
            Self::Qwen => {
                !first
                    .windows(2)
                    .any(|w| w[0] == "--chat-recording" && w[1] == "false")
                    && !has("--chat-recording=false")
            }
            Self::File(s) => s.resume.as_ref().is_some_and(|r| {
                !first.iter().any(|a| {
                    let a = a.to_string_lossy();
                    let name = a.split_once('=').map_or(a.as_ref(), |(n, _)| n);
                    r.not_saved.iter().any(|f| f == name)
                })
            }),
            _ => true,
        }
    }

    /// What the agent's exit status `code` means in its CLI's own table, and whether re-running
    /// can help: Gemini CLI's fatal errors (41 `FatalAuthenticationError`, 42
    /// `FatalInputError`, 55 `FatalUntrustedWorkspaceError`, …; docs/producers.md). The other
    /// CLIs exit 1 for every failure.
    pub(crate) fn exit_class(self, code: i32) -> Option<(&'static str, bool)> {
        match self {
            Self::Gemini => crate::producer::GEMINI_FATAL
                .iter()
                .find(|(n, ..)| *n == i64::from(code))
                .map(|&(_, class, _, retry)| (class, retry)),
            _ => None,
        }
    }

    /// Whether `id` is a session id this agent resumes: never empty (Gemini CLI reads an empty
    /// one as "latest", Qwen Code opens a picker); for Codex a UUID, since another id silently
    /// starts a new thread.
    pub(crate) fn takes_id(self, id: &str) -> bool {
        match self {
            _ if id.is_empty() || id.starts_with('-') => false,
            Self::Codex => is_uuid(id),
            _ => true,
        }
    }

    /// The argv that resumes session `id` of the first attempt's `first` argv (its program
    /// first) with `feedback` as the prompt, and what it reads on stdin: opencode and Amp take
    /// the prompt there (opencode quotes a positional prompt with spaces; Amp reads more thread
    /// ids from its positionals), as Amp's own SDK gives it.
    pub(crate) fn resume(self, first: &[OsString], id: &str, feedback: &str) -> Resume {
        let program = first.first().cloned().unwrap_or_else(|| self.name().into());
        let carried = carried(first.get(1..).unwrap_or_default(), |name| {
            self.carries(name)
        });
        let mut argv: Vec<OsString> = vec![program];
        let words =
            |argv: &mut Vec<OsString>, w: &[&str]| argv.extend(w.iter().map(OsString::from));
        let mut stdin = None;
        match self {
            Self::Claude => {
                words(&mut argv, &["-p", "--resume", id]);
                argv.extend(carried);
                words(&mut argv, &["--", feedback]);
            }
            Self::Codex => {
                argv.push("exec".into());
                argv.extend(carried);
                words(&mut argv, &["resume", "--", id, feedback]);
            }
            Self::Gemini | Self::Qwen => {
                words(&mut argv, &["--resume", id]);
                argv.extend(carried);
                argv.push(format!("--prompt={feedback}").into());
            }
            Self::Opencode => {
                words(&mut argv, &["run", "--session", id]);
                argv.extend(carried);
                stdin = Some(feedback.to_owned());
            }
            Self::Amp => {
                words(&mut argv, &["threads", "continue", id, "--execute"]);
                argv.extend(carried);
                stdin = Some(feedback.to_owned());
            }
            Self::CursorAgent => {
                argv.push("-p".into());
                argv.push(format!("--resume={id}").into());
                argv.extend(carried);
                // After `--`, feedback that starts with `-` is the prompt, not options (the
                // agent-orchestrator's Cursor plugin starts it as `agent -- <prompt>`).
                words(&mut argv, &["--", feedback]);
            }
            Self::File(s) => {
                let form = s.resume.as_ref();
                for w in form.map(|r| r.argv.as_slice()).unwrap_or_default() {
                    if w == "{carried}" {
                        argv.extend(carried.iter().cloned());
                    } else {
                        argv.push(fill(w, id, feedback).into());
                    }
                }
                if form.is_some_and(|r| r.stdin) {
                    stdin = Some(feedback.to_owned());
                }
            }
        }
        Resume { argv, stdin }
    }
}

/// A resumed attempt's argv, and the prompt it reads on stdin (else `/dev/null`).
#[derive(Debug)]
pub(crate) struct Resume {
    pub(crate) argv: Vec<OsString>,
    pub(crate) stdin: Option<String>,
}

/// A producer file's resume word with `{session_id}` and `{feedback}` replaced, in one pass
/// (a session id that reads `{feedback}` stays as it is), as `--retry-command`'s words are.
fn fill(word: &str, id: &str, feedback: &str) -> String {
    crate::feedback::substitute(word, &[("{session_id}", id), ("{feedback}", feedback)])
}

/// `8-4-4-4-12` hexadecimal digits.
fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.chars().all(|c| c.is_ascii_hexdigit()))
}

/// The value of `flag` in `args` (`--flag V` or `--flag=V`; the last one given), before a `--`.
fn flag_value(args: &[OsString], flag: &str) -> Option<String> {
    let mut found = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        if a == "--" {
            break;
        }
        if a == flag {
            found = args.get(i + 1).map(|v| v.to_string_lossy().into_owned());
            i += 1;
        } else if let Some(v) = a.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            found = Some(v.to_owned());
        }
        i += 1;
    }
    found
}

/// The arguments of `args` that are flags `carries` knows (with how many values each takes),
/// with their values, in order. A `--` ends the options: what follows is the prompt.
fn carried(args: &[OsString], carries: impl Fn(&str) -> Option<Arity>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        i += 1;
        if a == "--" {
            break;
        }
        let (name, inline) = match a.split_once('=') {
            Some((n, _)) if n.starts_with("--") => (n, true),
            _ => (a.as_ref(), false),
        };
        let Some(arity) = carries(name) else {
            continue;
        };
        out.push(args[i - 1].clone());
        if inline {
            continue;
        }
        match arity {
            Arity::Zero => {}
            // A `--` is never a flag's value: it ends the options.
            Arity::One => {
                if let Some(v) = args.get(i).filter(|v| *v != "--") {
                    out.push(v.clone());
                    i += 1;
                }
            }
            Arity::Many => {
                while let Some(v) = args.get(i) {
                    if v.to_string_lossy().starts_with('-') {
                        break;
                    }
                    out.push(v.clone());
                    i += 1;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
