//! The schema an agent's CLI gives its model, and how: read from COMMAND's argv (`run` without
//! `--schema` validates against it), or added to it (`run --schema` gives the agent the schema
//! lowered for it; docs/run.md, "sojx gives the agent its schema").

use std::ffi::OsString;

use super::{Profile, flag_value};
use crate::provider::Provider;

/// How an agent's CLI takes the schema its answer must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SchemaFlag {
    pub(crate) flag: &'static str,
    /// The flag's value is a file's path (Codex), not the schema itself.
    pub(crate) file: bool,
    /// The lowering the CLI's check and its model take (`sojx compile --provider`).
    pub(crate) provider: Provider,
}

impl Profile {
    /// The CLI's schema flag. Claude Code's `--json-schema` (inline; Ajv's draft-07, an object
    /// root); Codex's `--output-schema FILE` (OpenAI strict mode); Qwen Code's `--json-schema`
    /// (0.24.4: Ajv in strict mode, draft-07 unless `$schema` is 2020-12's, an object root: its
    /// `schemaRootAcceptsObject` and `SchemaValidator.compileStrict`; the schema becomes the
    /// parameters of its `structured_output` tool): what the `claude-code` lowering gives.
    /// A producer file's CLI: its `[schema_flag]`.
    pub(crate) fn schema_flag(self) -> Option<SchemaFlag> {
        let (flag, file, provider) = match self {
            Self::File(s) => {
                let f = s.schema_flag.as_ref()?;
                (f.flag.as_str(), f.file, f.provider)
            }
            Self::Claude => ("--json-schema", false, Provider::ClaudeCode),
            Self::Qwen => ("--json-schema", false, Provider::ClaudeCode),
            Self::Codex => ("--output-schema", true, Provider::Openai),
            _ => return None,
        };
        Some(SchemaFlag {
            flag,
            file,
            provider,
        })
    }

    /// The CLI has no way to give its model a schema (Gemini CLI, opencode's `run`): an answer
    /// is checked by sojx alone.
    pub(crate) fn takes_no_schema(self) -> bool {
        matches!(self, Self::Gemini | Self::Opencode)
    }

    /// The schema the first attempt gave the agent, as `--schema` would take it, and the flag
    /// that gave it: Claude Code's and Qwen Code's `--json-schema` (inline JSON; Qwen also
    /// `@path`), Codex's `--output-schema FILE`.
    pub(crate) fn schema_arg(self, first: &[OsString]) -> Option<(&'static str, String)> {
        let flag = self.schema_flag()?.flag;
        let value = flag_value(first.get(1..).unwrap_or_default(), flag)?;
        Some((flag, value))
    }

    /// `first` (its program first) with the schema flag and `value` where the CLI reads them:
    /// right after the program (Claude Code, Qwen Code), after `exec` (Codex), after a producer
    /// file's `after` word; `None` without that word before a `--`.
    pub(crate) fn with_schema(self, first: &[OsString], value: &str) -> Option<Vec<OsString>> {
        let flag = self.schema_flag()?.flag;
        let after = |words: &[&str]| {
            first
                .iter()
                .skip(1)
                .take_while(|a| *a != "--")
                .position(|a| words.iter().any(|w| a == *w))
                .map(|i| i + 2)
        };
        let at = match self {
            Self::Codex => after(&["exec", "e"])?,
            Self::File(s) => match s.schema_flag.as_ref().and_then(|f| f.after.as_deref()) {
                Some(word) => after(&[word])?,
                None => 1,
            },
            _ => 1,
        };
        if first.len() < at {
            return None;
        }
        let mut argv = first.to_vec();
        argv.splice(at..at, [OsString::from(flag), OsString::from(value)]);
        Some(argv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_flag_goes_where_each_cli_reads_it() {
        let claude = argv(&["claude", "-p", "q", "--output-format", "stream-json"]);
        assert_eq!(
            Profile::Claude.with_schema(&claude, "{}"),
            Some(argv(&[
                "claude",
                "--json-schema",
                "{}",
                "-p",
                "q",
                "--output-format",
                "stream-json"
            ]))
        );
        let codex = argv(&["codex", "-c", "k=v", "exec", "--json", "q"]);
        assert_eq!(
            Profile::Codex.with_schema(&codex, "/t/s.json"),
            Some(argv(&[
                "codex",
                "-c",
                "k=v",
                "exec",
                "--output-schema",
                "/t/s.json",
                "--json",
                "q"
            ]))
        );
        // Codex without `exec` is its interactive UI: nothing is added.
        assert_eq!(
            Profile::Codex.with_schema(&argv(&["codex", "q"]), "x"),
            None
        );
        assert_eq!(
            Profile::Codex.with_schema(&argv(&["codex", "--", "exec"]), "x"),
            None
        );
        assert_eq!(
            Profile::Gemini.with_schema(&argv(&["gemini", "-p", "q"]), "x"),
            None
        );
        // What is added is what is read back.
        let added = Profile::Codex.with_schema(&codex, "/t/s.json").unwrap();
        assert_eq!(
            Profile::Codex.schema_arg(&added),
            Some(("--output-schema", "/t/s.json".to_owned()))
        );
    }
}
