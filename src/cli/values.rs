//! Flags whose values are the engine's own types: clap's `ValueEnum` for each is here, so that
//! the modules that define them know nothing of clap. Each value's name and its help line, as
//! `--help`, the completions and the man page show it.

use clap::ValueEnum;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use super::{From, ResumeProfile};
use crate::acp::Policy;
use crate::agent::{Extra, Profile};
use crate::color::ColorWhen;
use crate::producer::Producer;
use crate::provider::{Compat, LintProvider, Provider, provider_id};
use crate::render::OutputFormat;

/// `ValueEnum` for an enum of unit variants: each variant, its name, and its help line if any,
/// in the order `--help` lists them.
macro_rules! value_enum {
    ($ty:ty { $( $variant:path => $name:expr $(, $help:literal)? ; )* }) => {
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($variant),*]
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(match self {
                    $( $variant => PossibleValue::new($name) $(.help($help))?, )*
                })
            }
        }
    };
}

/// A value parser for an enum of unit variants that the engine (`sojx-core`) defines, where
/// clap's `ValueEnum` cannot be implemented (the orphan rule): the same names and help lines,
/// given with `#[arg(value_parser = values::…())]`.
macro_rules! value_parser {
    ($parser:ident, $ty:ty { $( $variant:path => $name:expr $(, $help:literal)? ; )* }) => {
        pub(crate) fn $parser() -> impl TypedValueParser<Value = $ty> {
            PossibleValuesParser::new([$( PossibleValue::new($name) $(.help($help))? ),*]).map(
                |s| {
                    let all = [$( ($name, $variant) ),*];
                    // clap has checked that `s` is one of the names.
                    all.iter().find(|(n, _)| *n == s).map_or(all[0].1, |(_, v)| *v)
                },
            )
        }
    };
}

value_parser!(provider, Provider {
    Provider::Anthropic => provider_id(Provider::Anthropic),
        "Claude: tool input schemas, structured outputs (the API)";
    Provider::Openai => provider_id(Provider::Openai), "OpenAI Structured Outputs, strict mode";
    Provider::Gemini => provider_id(Provider::Gemini), "Gemini `responseJsonSchema`";
    Provider::ClaudeCode => provider_id(Provider::ClaudeCode),
        "Claude Code `--json-schema`: draft-07, keywords Ajv knows (its validator), object root";
});

value_parser!(lint_provider, LintProvider {
    LintProvider::Anthropic => provider_id(Provider::Anthropic);
    LintProvider::Openai => provider_id(Provider::Openai);
    LintProvider::Gemini => provider_id(Provider::Gemini);
    LintProvider::ClaudeCode => provider_id(Provider::ClaudeCode), "Claude Code `--json-schema`";
    LintProvider::All => "all", "Every provider";
});

value_parser!(compat, Compat {
    Compat::Lossy => "lossy", "Drop what the provider does not support, with a warning per drop";
    Compat::Strict => "strict", "Refuse a schema that cannot be lowered without loss";
});

value_enum!(OutputFormat {
    OutputFormat::Json => "json", "One JSON envelope per input (JSON Lines)";
    OutputFormat::Text => "text", "A short human summary";
    OutputFormat::Github => "github",
        "GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary";
});

value_enum!(ColorWhen {
    ColorWhen::Auto => "auto", "Color when the stream is a terminal and `NO_COLOR` is not set";
    ColorWhen::Always => "always", "Always color (text output and stderr; JSON is never colored)";
    ColorWhen::Never => "never", "Never color";
});

value_enum!(Policy {
    Policy::Deny => "deny", "Reject every request (a reject option, else cancelled)";
    Policy::AllowOnce => "allow-once", "Allow this call once; never \"always\"";
    Policy::Allow => "allow", "Allow (always where offered)";
});

value_parser!(retry_on, Extra {
    Extra::Timeout => "timeout", "`--timeout` passed";
    Extra::Truncated => "truncated", "The stream ended without its terminal marker";
    Extra::AgentError => "agent_error",
        "The agent reported an error, or exited non-zero without an answer";
});

/// `--resume-profile`'s parser: `none`, one of sojx's own profiles, or an id of the
/// producer-file format, which `cmd/` resolves once the producer files are loaded (a file with
/// `[resume]`); anything else is clap's invalid-value error. Its possible values (the help,
/// completions and the man page) are sojx's own profiles, the built-in files' and `none`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResumeParser;

impl ResumeParser {
    fn values() -> impl Iterator<Item = PossibleValue> {
        let code = Profile::ALL.iter().map(|&p| {
            let who = match p {
                Profile::Claude => "Claude Code",
                Profile::Codex => "Codex",
                Profile::Gemini => "Gemini CLI",
                Profile::Qwen => "Qwen Code",
                Profile::Opencode => "opencode",
                Profile::Amp => "Amp",
                Profile::CursorAgent => "Cursor",
                Profile::File(_) => "",
            };
            PossibleValue::new(p.name()).help(format!("{who}: `{}`", p.form()))
        });
        let files = Profile::of_files(&crate::producer::file::BUILT_IN)
            .into_iter()
            .filter_map(|p| match p {
                Profile::File(s) => Some(PossibleValue::new(p.name()).help(format!(
                    "{}: `{}` (producer file)",
                    s.name,
                    p.form()
                ))),
                _ => None,
            });
        code.chain(files)
            .chain(std::iter::once(PossibleValue::new("none").help(
                "Never resume: run COMMAND again, the feedback in its environment",
            )))
    }
}

impl TypedValueParser for ResumeParser {
    type Value = ResumeProfile;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ResumeProfile, clap::Error> {
        match value.to_str() {
            Some("none") => Ok(ResumeProfile::Never),
            Some(name) if let Some(&p) = Profile::ALL.iter().find(|p| p.name() == name) => {
                Ok(ResumeProfile::Use(p))
            }
            Some(id) if crate::producer::file::valid_id(id) => {
                Ok(ResumeProfile::File(id.to_owned()))
            }
            // clap's own error, listing the possible values.
            _ => PossibleValuesParser::new(Self::values())
                .parse_ref(cmd, arg, value)
                .map(|_| ResumeProfile::Never),
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Self::values()))
    }
}

/// `--from`'s parser: `auto`, or an id of the producer-file format (`[a-z0-9][a-z0-9-]*`),
/// which `cmd/` resolves once the producer files are loaded; anything else is clap's
/// invalid-value error. Its possible values (for the help, completions and the man page) are
/// `auto` and sojx's own producers.
#[derive(Debug, Clone, Copy)]
pub struct FromParser;

impl FromParser {
    fn values() -> impl Iterator<Item = PossibleValue> {
        std::iter::once(PossibleValue::new("auto").help("Detect the producer from the content"))
            .chain(
                Producer::ALL
                    .iter()
                    .map(|p| PossibleValue::new(p.id()).help(help_line(p.doc()))),
            )
    }
}

impl TypedValueParser for FromParser {
    type Value = From;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<From, clap::Error> {
        match value.to_str() {
            Some("auto") => Ok(From::Auto),
            Some(id) if crate::producer::file::valid_id(id) => Ok(From::Id(id.to_owned())),
            // clap's own error, listing the possible values.
            _ => PossibleValuesParser::new(Self::values())
                .parse_ref(cmd, arg, value)
                .map(|_| From::Auto),
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Self::values()))
    }
}

/// A doc comment's text as clap's derive makes it a value's help: trimmed, without its final
/// period.
fn help_line(doc: &str) -> &str {
    let doc = doc.trim();
    match doc.strip_suffix('.') {
        Some(line) if !line.ends_with('.') => line,
        _ => doc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_names_every_producer_by_its_id() {
        let cmd = clap::Command::new("t");
        let parse = |s: &str| FromParser.parse_ref(&cmd, None, std::ffi::OsStr::new(s));
        assert_eq!(parse("auto").unwrap(), From::Auto);
        for &p in Producer::ALL {
            assert_eq!(parse(p.id()).unwrap(), From::Id(p.id().to_owned()));
        }
        assert_eq!(parse("my-cli").unwrap(), From::Id("my-cli".into()));
        assert!(parse("Not An Id").is_err());
        assert_eq!(
            FromParser.possible_values().unwrap().count(),
            Producer::ALL.len() + 1
        );
    }

    #[test]
    fn resume_profiles_are_named_as_the_profiles_and_none() {
        let cmd = clap::Command::new("t");
        let parse = |s: &str| ResumeParser.parse_ref(&cmd, None, std::ffi::OsStr::new(s));
        for &p in Profile::ALL {
            assert_eq!(parse(p.name()).unwrap(), ResumeProfile::Use(p));
        }
        assert_eq!(parse("none").unwrap(), ResumeProfile::Never);
        assert_eq!(
            parse("my-cli").unwrap(),
            ResumeProfile::File("my-cli".into())
        );
        assert!(parse("Not An Id").is_err());
        let files = Profile::of_files(&crate::producer::file::BUILT_IN).len();
        assert_eq!(
            ResumeParser.possible_values().unwrap().count(),
            Profile::ALL.len() + files + 1
        );
    }

    #[test]
    fn help_lines_lose_one_final_period() {
        assert_eq!(
            help_line(" `codex exec --json` events."),
            "`codex exec --json` events"
        );
        assert_eq!(help_line(" And so on..."), "And so on...");
        assert_eq!(help_line("No period"), "No period");
    }
}
