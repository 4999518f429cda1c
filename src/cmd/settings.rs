//! Arguments become settings here, once: the engine's own types, built from what clap parsed.
//! Below `cmd/` nothing knows clap or [`crate::cli`]; each module takes its settings.

use crate::cli;
use crate::error::Failure;
use crate::{lint, schema};

/// `--schema`, `--draft`, `--ignore-formats` and `--resource`.
pub(super) fn schema(a: &cli::SchemaArgs) -> schema::Settings {
    schema::Settings {
        schema: a.schema.clone(),
        draft: a.draft,
        ignore_formats: a.ignore_formats,
        resources: a.resource.clone(),
    }
}

/// `lint`'s and `compile`'s SCHEMA with their `--draft` and `--resource`, as `--schema SCHEMA`
/// would give them.
pub(super) fn schema_of(schema: &str, r: &cli::RefArgs) -> schema::Settings {
    schema::Settings {
        schema: Some(schema.to_owned()),
        draft: r.draft,
        ignore_formats: false,
        resources: r.resource.clone(),
    }
}

/// Read and compile the schema the settings name ([`schema::load`]), with what every envelope
/// validated against it should warn of: its keyword typos, found by `lint`'s rule.
pub(super) fn load(s: &schema::Settings) -> Result<Option<schema::Schema>, Failure> {
    let mut schema = schema::load(s)?;
    if let Some(schema) = &mut schema {
        schema.warnings = lint::schema_warnings(&schema.document);
    }
    Ok(schema)
}
