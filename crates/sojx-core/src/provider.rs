//! Structured-output providers: the ones `lint` checks a schema for and `compile` lowers it
//! for, their ids, and what `compile` does with what a provider does not support.

/// Structured-output providers (`compile --provider`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// Claude: tool input schemas, structured outputs (the API).
    Anthropic,
    /// OpenAI Structured Outputs, strict mode.
    Openai,
    /// Gemini `responseJsonSchema`.
    Gemini,
    /// Claude Code `--json-schema`: draft-07, keywords Ajv knows (its validator), object root.
    ClaudeCode,
}

/// The providers `lint --provider` checks a schema for: one, or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LintProvider {
    Anthropic,
    Openai,
    Gemini,
    ClaudeCode,
    /// The three APIs (contract §1); Claude Code's CLI check is asked for by name.
    All,
}

/// The provider's id in findings and messages (`claude-code`), and on the command line.
pub fn provider_id(p: Provider) -> &'static str {
    match p {
        Provider::Anthropic => "anthropic",
        Provider::Openai => "openai",
        Provider::Gemini => "gemini",
        Provider::ClaudeCode => "claude-code",
    }
}

/// What `compile` does with what a provider does not support (`--compat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compat {
    /// Drop it, with a warning per drop.
    Lossy,
    /// Refuse a schema that cannot be lowered without loss.
    Strict,
}
