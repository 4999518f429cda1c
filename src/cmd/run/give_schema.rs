//! `run --schema` and the agent's own schema flag (docs/run.md, "sojx gives the agent its
//! schema"). A COMMAND whose CLI takes a schema and was given none gets `--schema` lowered for
//! it on every attempt (resumes carry the flag), and its answers are lifted back; one that was
//! given `--schema` or its lowering for the agent is not told of a mismatch (and a lowering is
//! lifted); another schema is a `schema_mismatch`; a CLI with no schema flag is told of in a
//! `schema_checked_by_sojx` warning.

use std::ffi::OsString;

use serde_json::Value;

use crate::agent::{Profile, SchemaFlag, Spec};
use crate::error::Failure;
use crate::provider::{Compat, Provider, provider_id};
use crate::warning::{Warning, WarningKind};
use crate::{lower, schema};

/// What `run` does with `--schema` for COMMAND's agent, decided before the schema is loaded.
pub(super) struct AgentSchema {
    /// The provider answers are lifted from: `--provider`'s, or the agent's when it gets (or
    /// was given) the schema lowered for it.
    pub(super) under: Option<(Provider, Compat)>,
    /// sojx adds the agent's flag to the first attempt's argv.
    add: Option<(Profile, SchemaFlag)>,
    /// For the run's envelope: the agent was given another schema, or none.
    pub(super) warning: Option<Warning>,
}

/// Decide for COMMAND (`first`, of profile `known`, which gave its agent `from_argv`), with
/// `--schema` as `settings` say and `--provider` as `explicit`; `give` is false with
/// `--no-agent-schema`.
pub(super) fn decide(
    settings: &schema::Settings,
    explicit: Option<(Provider, Compat)>,
    give: bool,
    known: Option<Profile>,
    first: &[OsString],
    from_argv: Option<&(&'static str, String)>,
    name: &str,
) -> AgentSchema {
    let none = AgentSchema {
        under: explicit,
        add: None,
        warning: None,
    };
    let (Some(user), Some(p)) = (&settings.schema, known) else {
        return none;
    };
    if p.takes_no_schema() {
        let warning = Warning::new(
            WarningKind::SchemaCheckedBySojx,
            format!(
                "{name} has no option that gives its model a schema: the answer was checked against --schema by sojx alone (ask for the JSON in the prompt)"
            ),
        );
        return AgentSchema {
            warning: Some(warning),
            ..none
        };
    }
    let Some(sf) = p.schema_flag() else {
        return none;
    };
    let Some((flag, value)) = from_argv else {
        if !give || p.with_schema(first, "").is_none() {
            return none;
        }
        let under = explicit.unwrap_or((sf.provider, Compat::Lossy));
        return AgentSchema {
            under: Some(under),
            add: Some((p, sf)),
            warning: None,
        };
    };
    // Unreadable: the run's own checks say so (Claude Code's refusal), not a mismatch.
    let (Ok(given), Ok(doc)) = (
        schema::read(value, &crate::disk::Disk),
        schema::read(user, &crate::disk::Disk),
    ) else {
        return none;
    };
    if given.document == doc.document {
        return none;
    }
    let lowered = lower::lower(&doc, settings, sf.provider, Compat::Lossy);
    if lowered.is_ok_and(|(plan, _)| *plan.schema() == given.document) {
        return AgentSchema {
            under: explicit.or(Some((sf.provider, Compat::Lossy))),
            ..none
        };
    }
    let warning = Warning::new(
        WarningKind::SchemaMismatch,
        format!(
            "--schema {} differs from the schema {name} was given ({flag}), and from its lowering for {name} (`sojx compile --provider {}`); the answer is validated against --schema",
            doc.name,
            provider_id(sf.provider)
        ),
    );
    AgentSchema {
        warning: Some(warning),
        ..none
    }
}

impl AgentSchema {
    /// Give the agent its schema: `first` gains the flag with `lowered` (the schema as the agent
    /// takes it), inline or in a file the run keeps (`keep`, removed when the run ends).
    pub(super) fn give(
        &self,
        first: &mut Spec,
        lowered: Option<&Value>,
        keep: impl FnOnce(&str) -> Result<String, Failure>,
    ) -> Result<(), Failure> {
        let (Some((p, sf)), Some(lowered)) = (self.add, lowered) else {
            return Ok(());
        };
        let value = if sf.file {
            keep(&serde_json::to_string_pretty(lowered).unwrap_or_default())?
        } else {
            lowered.to_string()
        };
        if let Some(argv) = p.with_schema(&first.argv, &value) {
            first.argv = argv;
        }
        Ok(())
    }
}
