//! The first attempt's flags each resume profile carries to the resumed attempt, with how
//! many values each takes (to skip them, and the prompt, correctly).

/// How many values a carried flag takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Arity {
    /// A switch.
    Zero,
    /// One value (`--flag V` or `--flag=V`).
    One,
    /// Values up to the next option (commander's `<values...>`, yargs' arrays).
    Many,
}

use Arity::{Many, One, Zero};

/// One flag carried from the first attempt: its spellings and arity.
pub(super) type Carried = (&'static [&'static str], Arity);

pub(super) const CLAUDE_CARRY: &[Carried] = &[
    (&["--output-format"], One),
    (&["--input-format"], One),
    (&["--verbose"], Zero),
    (&["--json-schema"], One),
    (&["--model"], One),
    (&["--fallback-model"], One),
    (&["--effort"], One),
    (&["--permission-mode"], One),
    (&["--permission-prompt-tool"], One),
    (&["--dangerously-skip-permissions"], Zero),
    (&["--allow-dangerously-skip-permissions"], Zero),
    (&["--allowedTools", "--allowed-tools"], Many),
    (&["--disallowedTools", "--disallowed-tools"], Many),
    (&["--tools"], Many),
    (&["--mcp-config"], Many),
    (&["--strict-mcp-config"], Zero),
    (&["--settings"], One),
    (&["--setting-sources"], One),
    (&["--add-dir"], Many),
    (&["--plugin-dir"], One),
    (&["--agents"], One),
    (&["--agent"], One),
    (&["--max-turns"], One),
    (&["--max-budget-usd"], One),
    (&["--system-prompt"], One),
    (&["--system-prompt-file"], One),
    (&["--append-system-prompt"], One),
    (&["--append-system-prompt-file"], One),
    (&["--include-partial-messages"], Zero),
    (&["--include-hook-events"], Zero),
    (&["--bare"], Zero),
    (&["--betas"], Many),
];

/// Given before `resume`, as options of `codex exec` (after it, `-s`, `-C`, `--add-dir` and
/// `--color` are refused, and older versions refuse `--output-schema` and `--json`).
pub(super) const CODEX_CARRY: &[Carried] = &[
    (&["-s", "--sandbox"], One),
    (&["-C", "--cd"], One),
    (&["--add-dir"], One),
    (&["--color"], One),
    (&["-p", "--profile"], One),
    (&["--oss"], Zero),
    (&["--local-provider"], One),
    (&["--json"], Zero),
    (&["--output-schema"], One),
    (&["-m", "--model"], One),
    (&["-c", "--config"], One),
    (&["--enable"], One),
    (&["--disable"], One),
    (&["--skip-git-repo-check"], Zero),
    (&["--dangerously-bypass-approvals-and-sandbox"], Zero),
    (&["--full-auto"], Zero),
    (&["--ignore-user-config"], Zero),
    (&["--ignore-rules"], Zero),
    (&["--strict-config"], Zero),
];

pub(super) const GEMINI_CARRY: &[Carried] = &[
    (&["-o", "--output-format"], One),
    (&["-m", "--model"], One),
    (&["-y", "--yolo"], Zero),
    (&["--approval-mode"], One),
    (&["--skip-trust"], Zero),
    (&["-s", "--sandbox"], Zero),
    (&["--policy"], Many),
    (&["--allowed-mcp-server-names"], Many),
    (&["--allowed-tools"], Many),
    (&["-e", "--extensions"], Many),
    (&["--include-directories"], Many),
];

pub(super) const QWEN_CARRY: &[Carried] = &[
    (&["-o", "--output-format"], One),
    (&["--json-schema"], One),
    (&["-m", "--model"], One),
    (&["-y", "--yolo"], Zero),
    (&["--approval-mode"], One),
    (&["-s", "--sandbox"], Zero),
    (&["--include-partial-messages"], Zero),
    (&["--allowed-mcp-server-names"], Many),
    (&["--mcp-config"], One),
    (&["--allowed-tools"], Many),
    (&["--core-tools"], Many),
    (&["--exclude-tools"], Many),
    (&["-e", "--extensions"], Many),
    (&["--include-directories", "--add-dir"], Many),
    (&["--auth-type"], One),
    (&["--system-prompt"], One),
    (&["--append-system-prompt"], One),
    (&["--max-session-turns"], One),
    (&["--bare"], Zero),
];

pub(super) const OPENCODE_CARRY: &[Carried] = &[
    (&["--format"], One),
    (&["-m", "--model"], One),
    (&["--agent"], One),
    (&["--variant"], One),
    (&["--dir"], One),
    (&["--attach"], One),
    (&["--pure"], Zero),
    (&["--auto"], Zero),
];

pub(super) const AMP_CARRY: &[Carried] = &[
    (&["--stream-json"], Zero),
    (&["--stream-json-thinking"], Zero),
    (&["-m", "--mode"], One),
    (&["--mcp-config"], One),
    (&["--settings-file"], One),
    (&["--dangerously-allow-all"], Zero),
];

pub(super) const CURSOR_CARRY: &[Carried] = &[
    (&["--output-format"], One),
    (&["--model"], One),
    (&["-f", "--force"], Zero),
    (&["--trust"], Zero),
    (&["--stream-partial-output"], Zero),
];
