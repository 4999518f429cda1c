//! The command-line definition (clap derive). `src/cmd/` turns what it parses into each
//! command's options; the producers `--from` accepts come from `Producer`'s table.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::Resettable;
use clap::{ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::color::ColorWhen;
use crate::provider::{Compat, LintProvider, Provider};
use crate::render::OutputFormat;
use crate::schema::Resource;

mod parse;
mod run;
mod values;

pub use parse::{draft_parser, parse_resource, parse_size, parse_tee, parse_timeout};
use run::RUN_EXAMPLES;
pub(crate) use run::ResumeProfile;
pub use run::{RetryArgs, RunArgs};
pub use values::FromParser;

const EXTRACT_EXAMPLES: &str = "\
Examples:
  claude -p \"…\" --output-format stream-json --verbose \\
      --json-schema \"$(sojx compile -r --provider claude-code x.json)\" \\
      | sojx extract --schema x.json --provider claude-code
  codex exec --json \\
      --output-schema <(sojx compile -r --provider openai x.json) \"…\" \\
      | sojx extract --schema x.json --provider openai
  sojx extract --schema x.json run.ndjson
  sojx extract -r --schema x.json run.ndjson | jq .verdict
  sojx extract --from openai-chat --strict response.json
  timeout -k 5 15m claude -p \"…\" --output-format stream-json --verbose \\
      | sojx extract --activity --tee run.ndjson --timeout 15m --schema x.json
  sojx extract --output-format text --schema x.json run.ndjson  # for people
  sojx extract --markers --handoff handoff.json session.ndjson
  sojx extract --schema review.json run.ndjson \\
      --assert 'all(.findings[]; .severity != \"blocker\")'  # no blocker
  sojx extract --schema story.json runs/*.ndjson  # a batch, in order";

const VALIDATE_EXAMPLES: &str = "\
Examples:
  sojx validate --schema x.json answer.json
  sojx validate --schema x.json answers.jsonl      # one envelope per line
  cat answer.json | sojx validate --schema '{\"type\":\"object\"}'";

const LINT_EXAMPLES: &str = "\
Examples:
  sojx lint schema.json                    # providers' limits as warnings
  sojx lint --provider openai schema.json  # what OpenAI strict mode refuses
  sojx lint --provider claude-code schema.json  # what Claude Code refuses
  sojx lint schema.json | jq '.error.details.findings[]?'  # the errors

Exit status: 0 when no finding is an error, 1 otherwise (error.kind schema_invalid, with the
findings in error.details), 3 when the schema cannot be read or the command is wrong.";

const COMPILE_EXAMPLES: &str = "\
Examples:
  sojx compile -r --provider openai schema.json > openai.schema.json
  sojx compile --provider anthropic --compat strict schema.json
  claude -p \"…\" \\
      --json-schema \"$(sojx compile -r --provider claude-code schema.json)\"";

const PRODUCERS_EXAMPLES: &str = "\
Examples:
  sojx producers --output-format text
  sojx producers check acme.toml run.jsonl
  sojx extract --producer-file acme.toml run.jsonl";

const COMPARE_EXAMPLES: &str = "\
Examples:
  sojx compare --items '.findings[]' --key '[.file, .line]' --field .severity \\
      security.ndjson style.json ollama.ndjson
  sojx extract a.ndjson b.ndjson > verdicts.jsonl
  sojx compare --items '.findings[]' --key '[.file, .line]' --field .severity \\
      verdicts.jsonl";

/// Extract the final structured output of an LLM agent run, validate it against a JSON Schema,
/// and print one JSON envelope per input.
#[derive(Debug, Parser)]
#[command(name = "sojx", version, about, long_about = None, max_term_width = 100)]
#[command(
    after_help = "Exit status: 0 success, 1 no valid answer (the agent's side), 2 timeout, \
3 usage, schema or file error (the caller's side); the envelope's error.kind says which.\n\
Run `sojx <command> --help` for examples."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Extract, validate and print an envelope per input (the main job).
    #[command(after_help = EXTRACT_EXAMPLES)]
    Extract(Lazy<ExtractArgs>),
    /// Run an agent, extract and validate its answer from its output, and say how it ended.
    #[command(after_help = RUN_EXAMPLES)]
    Run(Lazy<RunArgs>),
    /// Validate plain JSON documents, or JSON Lines (one document per line), against a schema.
    #[command(after_help = VALIDATE_EXAMPLES)]
    Validate(Lazy<ValidateArgs>),
    /// Report contradictions between sibling outputs (same key, different field value).
    #[command(after_help = COMPARE_EXAMPLES)]
    Compare(Lazy<CompareArgs>),
    /// Check that a schema is valid and that a provider's structured output accepts it.
    #[command(after_help = LINT_EXAMPLES)]
    Lint(Lazy<LintArgs>),
    /// Print a schema lowered for a provider's structured-output feature.
    #[command(after_help = COMPILE_EXAMPLES)]
    Compile(Lazy<CompileArgs>),
    /// List the producers sojx reads, or check a producer file against inputs.
    #[command(after_help = PRODUCERS_EXAMPLES)]
    Producers(Lazy<ProducersArgs>),
    /// Print a shell completion script or the man page, generated from this definition.
    #[command(hide = true)]
    Generate(Lazy<GenerateArgs>),
}

/// A subcommand's arguments, added to its `clap::Command` only when that subcommand is the one
/// that runs (or when help, completions or the man page need them all). Building every
/// subcommand's arguments at every start was 40% of sojx's heap (123 KB → 73 KB at its peak)
/// and 0.14 million instructions of an 80 KB run, on code spread over many pages.
#[derive(Debug)]
pub struct Lazy<T>(pub T);

impl<T: Args> Args for Lazy<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(|c| keep_texts(c, T::augment_args))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(|c| keep_texts(c, T::augment_args_for_update))
    }

    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

/// `augment(cmd)` with the texts `cmd` already has: the subcommand's own (its doc comment and
/// examples) are set before a deferred `augment` runs, and the doc comments of the structs it
/// flattens would otherwise replace them.
fn keep_texts(cmd: clap::Command, augment: fn(clap::Command) -> clap::Command) -> clap::Command {
    let about = cmd.get_about().cloned();
    let long_about = cmd.get_long_about().cloned();
    let after_help = cmd.get_after_help().cloned();
    let after_long_help = cmd.get_after_long_help().cloned();
    let before_help = cmd.get_before_help().cloned();
    let before_long_help = cmd.get_before_long_help().cloned();
    augment(cmd)
        .about(Resettable::from(about))
        .long_about(Resettable::from(long_about))
        .after_help(Resettable::from(after_help))
        .after_long_help(Resettable::from(after_long_help))
        .before_help(Resettable::from(before_help))
        .before_long_help(Resettable::from(before_long_help))
}

impl<T: FromArgMatches> FromArgMatches for Lazy<T> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(m).map(Self)
    }

    fn from_arg_matches_mut(m: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(m).map(Self)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(m)
    }

    fn update_from_arg_matches_mut(&mut self, m: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(m)
    }
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// The schema: a path, `@path`, or inline JSON (wrappers are unwrapped).
    #[arg(value_name = "SCHEMA")]
    pub schema: String,

    /// Check what PROVIDER refuses, as errors. Without it, the schema itself is checked, and
    /// what each provider would say is reported as warnings.
    #[arg(long, value_parser = values::lint_provider(), value_name = "PROVIDER")]
    pub(crate) provider: Option<LintProvider>,

    #[command(flatten)]
    pub refs: RefArgs,

    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct CompileArgs {
    /// The schema: a path, `@path`, or inline JSON (wrappers are unwrapped).
    #[arg(value_name = "SCHEMA")]
    pub schema: String,

    /// The provider to lower the schema for.
    #[arg(long, value_parser = values::provider(), value_name = "PROVIDER")]
    pub(crate) provider: Provider,

    /// `lossy` drops what the provider does not support, with a warning per drop; `strict`
    /// refuses instead.
    #[arg(long, value_parser = values::compat(), default_value = "lossy", value_name = "MODE")]
    pub(crate) compat: Compat,

    #[command(flatten)]
    pub refs: RefArgs,

    #[command(flatten)]
    pub output: OutputArgs,
}

/// The schema options of `lint` and `compile` (the schema itself is positional).
#[derive(Debug, Args)]
pub struct RefArgs {
    /// Force the schema's draft instead of reading `$schema` (default 2020-12).
    #[arg(long, value_name = "DRAFT", value_parser = draft_parser())]
    pub draft: Option<jsonschema::Draft>,

    /// Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps
    /// every file under it by a plain relative path. Remote references are never fetched, and an
    /// unmapped `$ref` reads a local file only inside the schema file's own directory.
    #[arg(long, value_name = "URI=FILE", value_parser = parse_resource)]
    pub resource: Vec<Resource>,
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Input files; none, or `-`, reads standard input. One envelope per input, in order.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

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

    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Where `extract` and `run` also write their envelopes.
#[derive(Debug, Args)]
pub struct KeptArgs {
    /// Also write each envelope to FILE as one line of JSON (created or truncated), whatever
    /// stdout shows: `--output-format github` for the annotations and the JSON for the next
    /// step, from one run. `-` is refused.
    #[arg(long, value_name = "FILE", value_parser = parse_tee)]
    pub envelope_file: Option<PathBuf>,
}

/// How `extract` and `run` find the answer in an agent's output.
#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// Which producer wrote the input; `auto` detects it from the content. A producer file's id
    /// (--producer-file, the config folder) is one too.
    #[arg(long, value_parser = FromParser, default_value = "auto", value_name = "PRODUCER")]
    pub from: From,

    /// Also read the producer FILE describes (a producer file, TOML or JSON:
    /// docs/producer-files.md), beside sojx's own and those of
    /// `$XDG_CONFIG_HOME/sojx/producers/` (repeatable). Its producer is detected first.
    #[arg(long = "producer-file", value_name = "FILE")]
    pub producer_files: Vec<PathBuf>,

    /// Accept only a value that is exactly one JSON document: no code fences, no JSON dug out
    /// of prose, no repair.
    #[arg(long, conflicts_with = "repair")]
    pub strict: bool,

    /// Read answers as models write them: comments, raw newlines in strings, single quotes,
    /// bare keys, Python's True/False/None, trailing commas, a stray prefix or suffix; a
    /// cut-off answer keeps only its complete members (the cut one is dropped, never
    /// completed). Only where the reading is unambiguous; every change is listed in
    /// `source.repairs`.
    #[arg(long)]
    pub repair: bool,

    /// Convert a string where the schema asks for a boolean or a number, and that is exactly one
    /// (`"true"`, `"3"`), before validation; each conversion is listed in `source.coercions`.
    ///
    /// Needs a schema. `true`/`false` for a boolean; for an integer, digits with no fraction or
    /// exponent; for a number, a JSON number. Never `"yes"`, `"1"` for a boolean, `"1.0"` for
    /// an integer, a padded or `03` number, nor where the schema allows a string too.
    #[arg(long)]
    pub coerce: bool,

    /// Print one line per event on stderr as it arrives: tool calls, text, retries, errors,
    /// the final cost and turns.
    #[arg(long)]
    pub activity: bool,

    /// Legacy fallback: when the run holds no structured output, read `[EVENT:level[:service]]
    /// message` and `[MEMORY:category[:service]] observation` lines of the final answer text
    /// into `{events, memories}` (`source.kind: markers`).
    #[arg(long, conflicts_with = "strict")]
    pub markers: bool,

    /// With --markers: add this legacy escalation file's content (JSON if it parses, else its
    /// text) to the marker data as `escalation`. A regular file of at most 64 MiB.
    #[arg(long, value_name = "FILE", requires = "markers")]
    pub handoff: Option<PathBuf>,

    /// A semantic check in jq syntax, evaluated on `data` after schema validation (repeatable).
    /// It passes when it yields at least one value and none is false or null; otherwise the input
    /// fails with `assertion_failed`.
    #[arg(long = "assert", value_name = "EXPR")]
    pub asserts: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Documents to validate; none, or `-`, reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub schema: SchemaArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub live: LiveArgs,

    #[command(flatten)]
    pub limits: LineLimit,

    /// Validate on N threads (default: one per core). Used for a regular file of 1 MiB or
    /// more; the envelopes keep the input's order either way.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<std::num::NonZeroUsize>,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Runs (any producer, extracted as `sojx extract` would) or printed sojx envelopes (one
    /// per line); none, or `-`, reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// jq expression yielding the items to compare from each input's `data`, e.g. `.findings[]`.
    #[arg(long, value_name = "EXPR")]
    pub items: String,

    /// jq expression yielding an item's identity, e.g. `[.file, .line]`.
    #[arg(long, value_name = "EXPR")]
    pub key: String,

    /// jq expression yielding the value that must agree between items with the same key, e.g.
    /// `.severity`.
    #[arg(long, value_name = "EXPR")]
    pub field: String,

    /// Which producer wrote the runs; `auto` detects it from the content. A producer file's id
    /// (--producer-file, the config folder) is one too.
    #[arg(long, value_parser = FromParser, default_value = "auto", value_name = "PRODUCER")]
    pub from: From,

    /// As for `sojx extract`: also read the producer FILE describes (repeatable).
    #[arg(long = "producer-file", value_name = "FILE")]
    pub producer_files: Vec<PathBuf>,

    /// As for `sojx extract`: only a value that is exactly one JSON document.
    #[arg(long, conflicts_with = "repair")]
    pub strict: bool,

    /// As for `sojx extract`: repair almost-JSON answers.
    #[arg(long)]
    pub repair: bool,

    /// As for `sojx extract`: convert a string to the boolean or number the schema asks for.
    #[arg(long)]
    pub coerce: bool,

    #[command(flatten)]
    pub schema: SchemaArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    /// JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict,
    /// compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped.
    #[arg(long, short = 's', value_name = "SCHEMA")]
    pub schema: Option<String>,

    /// Force the schema's draft instead of reading `$schema` (default 2020-12).
    #[arg(long, value_name = "DRAFT", value_parser = draft_parser())]
    pub draft: Option<jsonschema::Draft>,

    /// Do not check the `format` keyword (it is checked by default).
    #[arg(long)]
    pub ignore_formats: bool,

    /// Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps
    /// every file under it by a plain relative path. Remote references are never fetched, and an
    /// unmapped `$ref` reads a local file only inside the schema file's own directory.
    #[arg(long, value_name = "URI=FILE", value_parser = parse_resource)]
    pub resource: Vec<Resource>,

    /// The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`):
    /// it is checked in that shape, lifted back to the schema's (a wrapped root unwrapped, a
    /// null that means "not given" removed, a map's entries made an object), then validated.
    #[arg(
        long,
        value_parser = values::provider(),
        value_name = "PROVIDER",
        requires = "schema"
    )]
    pub(crate) provider: Option<Provider>,

    /// With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses
    /// meaning (`schema_invalid`, each place named).
    #[arg(
        long,
        value_parser = values::compat(),
        default_value = "lossy",
        value_name = "MODE",
        requires = "provider"
    )]
    pub(crate) compat: Compat,
}

#[derive(Debug, Args)]
pub struct OutputArgs {
    /// `json` (the default) prints the envelope; `text` prints a short summary for people (the
    /// default of `lint` on a terminal); `github`, GitHub Actions annotations.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) output_format: Option<OutputFormat>,

    /// Pretty-print the envelope (the default when stdout is a terminal).
    #[arg(long)]
    pub pretty: bool,

    /// Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is
    /// printed on failure; the exit status says what happened.
    #[arg(long, short = 'r', conflicts_with = "pretty")]
    pub raw: bool,

    /// Print nothing on stdout, as `grep -q` does: the exit status says what happened, and
    /// failures are still told on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// When to use colors on stderr and in `--output-format text`.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub(crate) color: ColorWhen,
}

/// `sojx producers`: the list, or `check`.
#[derive(Debug, Args)]
pub struct ProducersArgs {
    #[command(subcommand)]
    pub check: Option<ProducersCommand>,

    /// Also list the producer FILE describes (a producer file, as `extract --producer-file`
    /// takes it; repeatable).
    #[arg(long = "producer-file", value_name = "FILE")]
    pub producer_files: Vec<PathBuf>,

    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Subcommand)]
pub enum ProducersCommand {
    /// Check a producer file; with INPUTs, extract each as its producer (one envelope each).
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The producer file (TOML, or JSON by its name's `.json`).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Inputs to read as the file's producer (`-` is stdin).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to print on stdout.
    #[arg(value_enum)]
    pub what: Generated,
}

/// The files under `completions/` and `man/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Generated {
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
    Man,
}

/// How inputs are read while they arrive.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a
    /// unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit
    /// status 2.
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
    pub timeout: Option<Duration>,

    /// Copy every input byte to FILE as it is read (created or truncated; several inputs are
    /// copied one after the other). `-` is refused: stdout carries the envelopes.
    #[arg(long, value_name = "FILE", value_parser = parse_tee)]
    pub tee: Option<PathBuf>,
}

/// The limits of reading an agent's output: the line limit every command shares, and the
/// answer's.
#[derive(Debug, Args)]
pub struct LimitArgs {
    #[command(flatten)]
    pub line: LineLimit,

    /// Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions;
    /// past it the answer (the last) is not reached, a `parse` failure.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_candidates: usize,

    /// Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer
    /// accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI,
    /// opencode) and the tool calls, ids and error messages kept across lines. Past it the input
    /// is a `parse` error; the rest is not read into memory.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub max_answer_bytes: usize,
}

/// `--max-line-bytes`, alone for `validate` (which looks for no answer in text).
#[derive(Debug, Args)]
pub struct LineLimit {
    /// Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are
    /// powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error
    /// when nothing else is left), never read into memory. Also bounds one multi-line JSON
    /// document and the text kept to look for an answer in.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub max_line_bytes: usize,
}

/// `--from`: `auto` to detect the producer from the content, or a producer's id: one of sojx's
/// own (their ids and help come from `Producer`'s table, for the help and completions) or a
/// loaded producer file's, which `cmd/` resolves once the files are loaded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum From {
    #[default]
    Auto,
    Id(String),
}
