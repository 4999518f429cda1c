//! Arguments become settings here, once: the engine's own types, built from what clap parsed.
//! Below `cmd/` nothing knows clap or [`crate::cli`]; each module takes its settings.

use crate::cli;
use crate::schema;

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
