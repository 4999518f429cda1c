//! What COMMAND's argv lacks for the agent to print a stream sojx reads, told as the change to
//! make to what was given: the flags to add, and a format given with a value sojx cannot read
//! (`--output-format text`) replaced, never a flag "added" that is already there.

use std::ffi::OsString;
use std::fmt;

use super::{Profile, flag_value};

/// The change that makes COMMAND print a stream sojx reads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct StreamFix {
    /// A flag given with a value sojx cannot read (`--output-format text`), and what to give
    /// instead (`--output-format stream-json`).
    replace: Option<(String, &'static str)>,
    /// Flags (or a subcommand) to add, in order.
    add: Vec<&'static str>,
    /// Why, when it is not plain (Claude Code requires `--verbose` with `stream-json`).
    why: Option<&'static str>,
}

impl fmt::Display for StreamFix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let add = self.add.join(" ");
        match (&self.replace, add.is_empty()) {
            (Some((given, want)), true) => write!(f, "replace {given} with {want} in COMMAND")?,
            (Some((given, want)), false) => {
                write!(f, "replace {given} with {want} and add {add} in COMMAND")?;
            }
            (None, _) => write!(f, "add {add} to COMMAND")?,
        }
        f.write_str(" so that it prints a stream sojx reads")?;
        match self.why {
            Some(why) => write!(f, " ({why})"),
            None => Ok(()),
        }
    }
}

/// `first`'s arguments (after the program), read for the flags one profile needs.
struct Given<'a> {
    args: &'a [OsString],
    fix: StreamFix,
}

impl Given<'_> {
    fn has(&self, flag: &str) -> bool {
        self.args.iter().any(|a| a == flag)
    }

    /// One of `flags` (a mode such as `-p`/`--print`, or a subcommand), else add `add`.
    fn needs_one_of(&mut self, flags: &[&str], add: &'static str) {
        if !flags.iter().any(|f| self.has(f)) {
            self.fix.add.push(add);
        }
    }

    /// One of `flags` with one of the values `ok`; given with another, replaced by `want`
    /// (`--output-format stream-json`); not given, `want` added. Returns the value given.
    fn needs_value(&mut self, flags: &[&str], ok: &[&str], want: &'static str) -> Option<String> {
        let given = flags
            .iter()
            .find_map(|f| flag_value(self.args, f).map(|v| (*f, v)));
        match &given {
            Some((_, v)) if ok.contains(&v.as_str()) => {}
            Some((flag, v)) => self.fix.replace = Some((format!("{flag} {v}"), want)),
            None => self.fix.add.push(want),
        }
        given.map(|(_, v)| v)
    }

    fn done(self) -> Option<StreamFix> {
        (self.fix != StreamFix::default()).then_some(self.fix)
    }
}

impl Profile {
    /// What the first attempt's argv lacks for the agent to print a stream sojx reads (its
    /// headless mode, its JSON output format): `None` when it has it all.
    pub(crate) fn stream_fix(self, first: &[OsString]) -> Option<StreamFix> {
        let mut g = Given {
            args: first.get(1..).unwrap_or_default(),
            fix: StreamFix::default(),
        };
        let json = ["json", "stream-json"];
        match self {
            Self::Claude => {
                g.needs_one_of(&["-p", "--print"], "-p");
                let format =
                    g.needs_value(&["--output-format"], &json, "--output-format stream-json");
                // stream-json, given or to be given, needs --verbose.
                if format.as_deref() != Some("json") && !g.has("--verbose") {
                    g.fix.add.push("--verbose");
                    if format.as_deref() == Some("stream-json") {
                        g.fix.why =
                            Some("Claude Code requires it with --output-format stream-json");
                    }
                }
            }
            Self::Codex => {
                g.needs_one_of(&["exec", "e"], "exec");
                g.needs_one_of(&["--json"], "--json");
            }
            Self::Gemini | Self::Qwen => {
                g.needs_value(
                    &["-o", "--output-format"],
                    &json,
                    "--output-format stream-json",
                );
            }
            Self::Opencode => {
                g.needs_one_of(&["run"], "run");
                g.needs_value(&["--format"], &["json"], "--format json");
            }
            Self::Amp => {
                g.needs_one_of(&["-x", "--execute"], "-x");
                g.needs_one_of(
                    &["--stream-json", "--stream-json-thinking"],
                    "--stream-json",
                );
            }
            Self::CursorAgent => {
                g.needs_one_of(&["-p", "--print"], "-p");
                g.needs_value(&["--output-format"], &json, "--output-format stream-json");
            }
            // A producer file says how to resume, not how to print JSON.
            Self::File(_) => {}
        }
        g.done()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(p: Profile, argv: &[&str]) -> Option<String> {
        let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
        p.stream_fix(&argv).map(|f| f.to_string())
    }

    #[test]
    fn the_hint_fits_what_was_given() {
        let c = Profile::Claude;
        let tail = "so that it prints a stream sojx reads";
        assert_eq!(
            told(c, &["claude", "q"]).unwrap(),
            format!("add -p --output-format stream-json --verbose to COMMAND {tail}")
        );
        assert_eq!(
            told(c, &["claude", "-p", "q"]).unwrap(),
            format!("add --output-format stream-json --verbose to COMMAND {tail}")
        );
        assert_eq!(
            told(c, &["claude", "-p", "--output-format", "text", "q"]).unwrap(),
            format!(
                "replace --output-format text with --output-format stream-json and add --verbose in COMMAND {tail}"
            )
        );
        assert_eq!(
            told(
                c,
                &["claude", "--print", "--output-format=text", "--verbose"]
            )
            .unwrap(),
            format!(
                "replace --output-format text with --output-format stream-json in COMMAND {tail}"
            )
        );
        assert_eq!(
            told(c, &["claude", "-p", "--output-format", "stream-json"]).unwrap(),
            format!(
                "add --verbose to COMMAND {tail} (Claude Code requires it with --output-format stream-json)"
            )
        );
        assert_eq!(told(c, &["claude", "-p", "--output-format", "json"]), None);
        let ok: Vec<&str> = "claude -p --output-format stream-json --verbose q"
            .split(' ')
            .collect();
        assert_eq!(told(c, &ok), None);
        assert_eq!(
            told(Profile::Codex, &["codex", "exec", "q"]).unwrap(),
            format!("add --json to COMMAND {tail}")
        );
        assert_eq!(
            told(Profile::Codex, &["codex", "q"]).unwrap(),
            format!("add exec --json to COMMAND {tail}")
        );
        assert_eq!(
            told(Profile::Gemini, &["gemini", "-p", "q", "-o", "text"]).unwrap(),
            format!("replace -o text with --output-format stream-json in COMMAND {tail}")
        );
        assert_eq!(
            told(Profile::Gemini, &["gemini", "-p", "q", "-o", "json"]),
            None
        );
        assert_eq!(
            told(Profile::Opencode, &["opencode", "run", "q"]).unwrap(),
            format!("add --format json to COMMAND {tail}")
        );
        assert_eq!(
            told(Profile::Amp, &["amp", "-x", "q"]).unwrap(),
            format!("add --stream-json to COMMAND {tail}")
        );
        assert_eq!(
            told(Profile::CursorAgent, &["cursor-agent", "--print", "q"]).unwrap(),
            format!("add --output-format stream-json to COMMAND {tail}")
        );
    }
}
