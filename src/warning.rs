//! The envelope's `warnings`: something the reader should know about an answer that still
//! stands (or a failure's context). Each kind is a [`WarningKind`], spelled once.

use serde::Serialize;

use crate::names::wire_enum;

wire_enum! {
    /// What a warning is about (`warnings[].kind` on the wire).
    pub enum WarningKind {
        // Reading the input.
        /// A line longer than `--max-line-bytes` was skipped.
        LineTooLong = "line_too_long",
        /// A line nested deeper than serde_json reads was skipped.
        TooDeep = "too_deep",
        /// Text was glued to an event on its line, and the event was read.
        GluedText = "glued_text",
        /// The input was not valid UTF-8; invalid bytes were replaced.
        InvalidUtf8 = "invalid_utf8",
        /// A lone UTF-16 surrogate escape was read as U+FFFD.
        LoneSurrogate = "lone_surrogate",
        /// `compare`: an input failed and was left out of the comparison.
        InputFailed = "input_failed",
        // Finding the answer.
        /// The answer text held more candidates than `--max-candidates`.
        CandidatesCapped = "candidates_capped",
        /// Claude Code's `structured_output` and its StructuredOutput call differ.
        CrossCheckMismatch = "cross_check_mismatch",
        /// `--markers`: the run had no structured output; the legacy text protocol was read.
        LegacyMarkers = "legacy_markers",
        /// `--markers`: a marker's value was not valid.
        MarkerInvalid = "marker_invalid",
        /// `compare`: an input was left out of the comparison.
        ItemSkipped = "item_skipped",
        // `--repair`'s named repairs.
        /// Text before the value was removed.
        StrayPrefix = "stray_prefix",
        /// Text after the value was removed.
        StraySuffix = "stray_suffix",
        /// A trailing comma was removed.
        TrailingComma = "trailing_comma",
        /// Brackets left open at a cut-off end were closed.
        UnclosedBrackets = "unclosed_brackets",
        /// A member cut off at the end was dropped whole.
        DroppedIncompleteMember = "dropped_incomplete_member",
        // A schema read or lowered (`compile`, `lint`, `--schema`).
        /// The schema is `{}` or `true`: it accepts anything.
        EmptySchema = "empty_schema",
        /// The schema's draft was changed to the provider's.
        SchemaDraftChanged = "schema_draft_changed",
        /// An external `$ref` was inlined.
        ExternalRefInlined = "external_ref_inlined",
        /// A keyword the provider does not know was dropped.
        UnknownKeywordDropped = "unknown_keyword_dropped",
        /// A keyword the provider refuses was dropped.
        KeywordDropped = "keyword_dropped",
        /// A `format` the provider refuses was dropped.
        FormatDropped = "format_dropped",
        /// `minItems` was lowered to what the provider accepts.
        MinItemsLowered = "min_items_lowered",
        /// `oneOf` was read as `anyOf`.
        OneOfAsAnyOf = "one_of_as_any_of",
        /// An optional property became required and nullable.
        OptionalMadeNullable = "optional_made_nullable",
        /// `additionalProperties: false` was added.
        AdditionalPropertiesClosed = "additional_properties_closed",
        /// A subschema has no type, which OpenAI's strict mode cannot express (left as is).
        UntypedSchema = "untyped_schema",
        /// A non-object root was wrapped in an object.
        RootWrapped = "root_wrapped",
        // `run`.
        /// The agent exited non-zero although its output held an answer.
        AgentFailed = "agent_failed",
        /// The agent's group lingered after it answered and was stopped.
        AgentLingered = "agent_lingered",
        /// The schema the agent was given differs from `--schema`.
        SchemaMismatch = "schema_mismatch",
        /// Claude Code dropped the `--json-schema` it was given.
        JsonSchemaDropped = "json_schema_dropped",
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
