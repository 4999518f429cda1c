//! The envelope's `warnings`: something the reader should know about an answer that still
//! stands (or a failure's context). Each kind is a [`WarningKind`], spelled once.

use serde::Serialize;

use crate::names::wire_enum;

wire_enum! {
    /// What a warning is about (`warnings[].kind` on the wire).
    #[non_exhaustive]
    pub enum WarningKind {
        // Reading the input.
        /// A line longer than `--max-line-bytes` was skipped.
        LineTooLong = "line_too_long",
        /// JSON values nested deeper than sojx's fixed limit were read as text.
        TooDeep = "too_deep",
        /// Text was glued to an event on its line, and the event was read.
        GluedText = "glued_text",
        /// A producer file in the config folder claims events of a stream that sojx's own
        /// reader read.
        ProducerConflict = "producer_conflict",
        /// The input was not valid UTF-8; invalid bytes were replaced with U+FFFD.
        InvalidUtf8 = "invalid_utf8",
        /// A lone UTF-16 surrogate escape was read as U+FFFD.
        LoneSurrogate = "lone_surrogate",
        /// `compare`: an input failed and was left out of the comparison.
        InputFailed = "input_failed",
        // Finding the answer.
        /// The answer was dug out of prose (`code_fence`, `embedded`) and no `--schema` checked it:
        /// it may be any JSON the text held.
        UncheckedAnswer = "unchecked_answer",
        /// Claude Code's `result.structured_output` differs from its last accepted StructuredOutput
        /// call.
        CrossCheckMismatch = "cross_check_mismatch",
        /// `--markers`: the run had no structured output; the legacy text protocol was read.
        LegacyMarkers = "legacy_markers",
        /// `--markers`: a marker line was not valid and was skipped.
        MarkerInvalid = "marker_invalid",
        /// `compare`: an item was left out (its `--key` or `--field` expression failed).
        ItemSkipped = "item_skipped",
        // `--repair`'s named repairs.
        /// `--repair` removed text before the value.
        StrayPrefix = "stray_prefix",
        /// `--repair` removed text after the value.
        StraySuffix = "stray_suffix",
        /// `--repair` removed a trailing comma.
        TrailingComma = "trailing_comma",
        /// `--repair` closed the outermost bracket, left open at a cut-off end.
        UnclosedBrackets = "unclosed_brackets",
        /// `--repair` removed the cut-off last member whole (never completed).
        DroppedIncompleteMember = "dropped_incomplete_member",
        /// `--repair` removed a comment (`//`, `#`, `/* */`) outside strings.
        CommentRemoved = "comment_removed",
        /// `--repair` escaped a raw control character (a newline, a tab) inside a string.
        ControlCharacterEscaped = "control_character_escaped",
        /// `--repair` read Python's `True`, `False`, `None` as `true`, `false`, `null`.
        PythonLiteral = "python_literal",
        /// `--repair` read a single-quoted string or key as a JSON string.
        SingleQuotedString = "single_quoted_string",
        /// `--repair` quoted a key written as a bare identifier (`{name: 1}`).
        UnquotedKey = "unquoted_key",
        // `--coerce`.
        /// `--coerce` converted a string to the boolean or number the schema asks for there.
        Coerced = "coerced",
        // A schema read or lowered (`compile`, `lint`, `--schema`).
        /// A schema keyword is misspelt (`requird`): no validator enforces it (`sojx lint`'s
        /// `keyword_typo`, said wherever a schema is compiled).
        KeywordTypo = "keyword_typo",
        /// The schema constrains nothing; the compiled schema enforces nothing either.
        EmptySchema = "empty_schema",
        /// `$schema` became the draft the provider takes (Claude Code: draft-07).
        SchemaDraftChanged = "schema_draft_changed",
        /// A `$ref` was inlined (the provider resolves only references inside the document).
        ExternalRefInlined = "external_ref_inlined",
        /// A keyword no validator checks was dropped; nothing is lost.
        UnknownKeywordDropped = "unknown_keyword_dropped",
        /// A keyword the provider does not support was dropped.
        KeywordDropped = "keyword_dropped",
        /// A `format` the provider does not support was dropped.
        FormatDropped = "format_dropped",
        /// `minItems` was lowered to 1 (Claude supports 0 or 1 only).
        MinItemsLowered = "min_items_lowered",
        /// `oneOf` became `anyOf`: a value matching several branches is no longer rejected.
        OneOfAsAnyOf = "one_of_as_any_of",
        /// An optional property became required and nullable (OpenAI strict mode).
        OptionalMadeNullable = "optional_made_nullable",
        /// `additionalProperties: false` was added where the provider requires it.
        AdditionalPropertiesClosed = "additional_properties_closed",
        /// A subschema has no type, which OpenAI's strict mode cannot express (left as is).
        UntypedSchema = "untyped_schema",
        /// A root that is not an object was wrapped in one; unwrap the answer.
        RootWrapped = "root_wrapped",
        /// A map (an object of any keys) became an array of `{"key", "value"}` entries.
        MapAsEntries = "map_as_entries",
        /// An optional property that accepts null became required: in the lowered shape, not
        /// given and `null` are one answer (read back as `null`).
        AbsentAsNull = "absent_as_null",
        /// `--provider`: the answer was lifted from the lowered schema's shape to the schema's.
        AnswerLifted = "answer_lifted",
        // `run`.
        /// `run`: another attempt was earned but not made: `--retry-command` would have passed
        /// a value (a session id, the feedback) where the agent reads options, or needs a
        /// session id the agent did not print.
        RetryRefused = "retry_refused",
        /// `run`: the agent failed after giving a valid answer; the answer stands.
        AgentFailed = "agent_failed",
        /// `run`: the agent gave its answer but had not exited at `--timeout`; sojx stopped it.
        AgentLingered = "agent_lingered",
        /// `run`: the schema COMMAND gave the agent differs from `--schema` (which the answer is held
        /// to).
        SchemaMismatch = "schema_mismatch",
        /// `run`: Claude Code dropped the `--json-schema` it was given (no StructuredOutput tool).
        JsonSchemaDropped = "json_schema_dropped",
        /// `run --schema`: the agent's CLI has no way to give its model a schema (Gemini CLI,
        /// opencode's `run`); the answer was checked by sojx alone.
        SchemaCheckedBySojx = "schema_checked_by_sojx",
    }
}

/// A warning in the envelope.
#[derive(Debug, Clone, Serialize)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
}

impl Warning {
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// The JSON read on `line` (of the input; of the answer text when `None`) held a lone
    /// UTF-16 surrogate escape, read as U+FFFD (`crate::json::from_slice_lenient`).
    pub fn lone_surrogate(line: Option<u64>) -> Self {
        let what = match line {
            Some(l) => format!("line {l} holds"),
            None => "the answer text holds".to_owned(),
        };
        Self::new(
            WarningKind::LoneSurrogate,
            format!(
                "{what} a lone UTF-16 surrogate escape (a string cut inside an emoji, as \
                 Node's JSON.stringify writes it); it was read as U+FFFD"
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::WarningKind;

    /// docs/cli.md lists every kind (its "Warnings" table).
    #[test]
    fn every_kind_is_documented() {
        let doc = include_str!("../../../docs/cli.md");
        for k in WarningKind::ALL {
            assert!(
                doc.contains(&format!("| `{k}` |")),
                "docs/cli.md's Warnings table lacks `{k}`"
            );
        }
    }
}
