//! A schema whose answers are given lowered for a provider (`--provider`): checked against the
//! lowered schema, lifted, then checked against the user's.

use crate::error::Failure;
use crate::provider::{Compat, Provider};
use crate::schema::{self, Schema};

/// Make `schema` (read with `settings`) take answers in its shape lowered for `provider`: each
/// is checked against the lowered schema and lifted ([`Schema::given_lowered`]). A lowering that
/// `compat` refuses is `schema_invalid`.
pub fn under(
    schema: &mut Schema,
    settings: &schema::Settings,
    provider: Provider,
    compat: Compat,
) -> Result<(), Failure> {
    let loaded = schema.loaded();
    let (plan, _) = super::lower(&loaded, settings, provider, compat)?;
    let lowered = schema::SchemaDoc {
        name: format!("{} (lowered for {})", loaded.name, plan.provider),
        document: plan.schema().clone(),
        base: loaded.base,
    };
    // The lowered schema names its own draft where it changed it (Claude Code's).
    let draft = if provider == Provider::ClaudeCode {
        None
    } else {
        settings.draft
    };
    let settings = schema::Settings {
        draft,
        ..settings.clone()
    };
    let lowered = Schema::compiled(lowered, &settings)?;
    schema.given_lowered(lowered, plan);
    Ok(())
}
