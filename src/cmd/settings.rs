//! Arguments become settings here, once: the engine's own types, built from what clap parsed.
//! Below `cmd/` nothing knows clap or [`crate::cli`]; each module takes its settings.

use crate::cli;
use crate::disk::Disk;
use crate::error::{ErrorKind, Failure, Operation};
use crate::provider::{Compat, Provider};
use crate::{lint, lower, schema};

/// `--schema`, `--draft`, `--ignore-formats` and `--resource`.
pub(super) fn schema(a: &cli::SchemaArgs) -> schema::Settings {
    schema::Settings {
        schema: a.schema.clone(),
        draft: a.draft,
        ignore_formats: a.ignore_formats,
        resources: a.resource.clone(),
        files: Some(std::sync::Arc::new(Disk)),
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
        files: Some(std::sync::Arc::new(Disk)),
    }
}

/// `--provider` and `--compat`: the provider answers are given under, if any.
pub(super) fn given_under(a: &cli::SchemaArgs) -> Option<(Provider, Compat)> {
    a.provider.map(|p| (p, a.compat))
}

/// Read and compile the schema the settings name ([`schema::load`]), with what every envelope
/// validated against it should warn of: its keyword typos, found by `lint`'s rule. Given
/// `under` a provider (`--provider`), answers are checked against the schema lowered for it
/// and lifted (a lowering `--compat strict` refuses is `schema_invalid`).
pub(super) fn load(
    s: &schema::Settings,
    under: Option<(Provider, Compat)>,
) -> Result<Option<schema::Schema>, Failure> {
    let mut schema = schema::load(s)?;
    if let Some(schema) = &mut schema {
        schema.warnings = lint::schema_warnings(&schema.document);
        if let Some((provider, compat)) = under {
            lower::given::under(schema, s, provider, compat)?;
        }
    }
    Ok(schema)
}

/// The producers a command knows: sojx's own, the producer files of `--producer-file`
/// (`files`) and of the config folder ([`Env::producers_dir`]). A file that cannot be read
/// or does not validate is `usage` (exit 3), naming the file and the place in it.
pub(super) fn producers(
    files: &[std::path::PathBuf],
    env: &super::Env,
) -> Result<crate::producer::Registry, Failure> {
    crate::producer::Registry::load(files, env.producers_dir.as_deref(), &Disk)
        .map_err(|e| producer_failure(&e))
}

/// The `usage` failure of a producer file that cannot be used: the file and the place in it.
pub(super) fn producer_failure(e: &crate::producer::file::LoadError) -> Failure {
    Failure::new(ErrorKind::Usage, Operation::Read, e.to_string())
        .target(e.file.clone())
        .hint("fix the producer file (docs/producer-files.md; `sojx producers check FILE` shows what it reads), or move it out of the config folder")
        .retryable(false)
}

/// The producer `--from` names, among those `registry` knows (`None`: `auto`).
pub(super) fn from(
    from: &cli::From,
    registry: &crate::producer::Registry,
) -> Result<Option<crate::producer::Producer>, Failure> {
    let cli::From::Id(id) = from else {
        return Ok(None);
    };
    registry.resolve(id).map(Some).ok_or_else(|| {
        let ids: Vec<&str> = std::iter::once("auto")
            .chain(registry.all().iter().map(|p| p.id()))
            .collect();
        Failure::new(
            ErrorKind::Usage,
            Operation::ParseArguments,
            format!(
                "invalid value '{id}' for '--from <PRODUCER>': no producer has this id [possible values: {}]",
                ids.join(", ")
            ),
        )
        .hint("describe the producer in a producer file and give it with --producer-file FILE (docs/producer-files.md)")
        .retryable(false)
    })
}

/// `--coerce` converts by the schema: without one it is a `usage` failure, not a silent no-op.
pub(super) fn coerce_needs_schema(
    coerce: bool,
    schema: Option<&crate::schema::Schema>,
) -> Result<(), Failure> {
    if !coerce || schema.is_some() {
        return Ok(());
    }
    Err(Failure::new(
        ErrorKind::Usage,
        Operation::ParseArguments,
        "--coerce converts a string to the type the schema asks for, and no schema was given",
    )
    .hint("give --schema S with --coerce, or leave --coerce out")
    .retryable(false))
}
