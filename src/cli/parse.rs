//! The values of flags that clap does not read by itself: durations, sizes, the tee file, the
//! schema's draft and `--resource` mappings.

use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;
use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};
use jsonschema::Draft;

use crate::schema::{DRAFTS, Resource, draft_name};

/// Parse `--timeout DURATION`: a non-negative number of seconds (fractions allowed), or a
/// duration with units as `humantime` reads them (`90s`, `15m`, `1h 30m`, `500ms`).
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).map_err(|_| {
            format!("`{s}` is not a usable timeout (a non-negative number of seconds is expected)")
        });
    }
    humantime::parse_duration(t).map_err(|e| {
        format!("`{s}` is not a duration ({e}): give seconds (`90`, `1.5`) or a unit (`90s`, `15m`, `1h`)")
    })
}

/// Parse a size (`--max-line-bytes`, `--max-answer-bytes`): bytes, or a number with a unit as
/// `bytesize` reads it (`8MiB`, `512 KiB`, `1.5GiB`; `MB`, `KB` are powers of ten).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let size: bytesize::ByteSize = s.trim().parse().map_err(|_| {
        format!("`{s}` is not a size: give bytes (`1048576`) or a unit (`8MiB`, `512KiB`)")
    })?;
    usize::try_from(size.as_u64())
        .map_err(|_| format!("`{s}` is larger than this machine's memory"))
}

/// Parse `--tee FILE`: any path but `-` (standard output carries the envelopes).
pub fn parse_tee(s: &str) -> Result<PathBuf, String> {
    if s == "-" {
        return Err(
            "`-` is not allowed: standard output carries the envelopes; name a file".into(),
        );
    }
    if s.is_empty() {
        return Err("an empty path is not a file".into());
    }
    Ok(PathBuf::from(s))
}

/// Parse `--draft DRAFT`: a draft by the name the envelope gives it (`7`, `2020-12`).
pub fn draft_parser() -> impl TypedValueParser<Value = Draft> {
    EnumValueParser::<DraftName>::new().map(|d| d.0)
}

/// A draft as `--draft` names it: clap's enum parser, with its errors, over [`DRAFTS`].
#[derive(Debug, Clone, Copy)]
struct DraftName(Draft);

impl ValueEnum for DraftName {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::LazyLock<[DraftName; DRAFTS.len()]> =
            std::sync::LazyLock::new(|| DRAFTS.map(DraftName));
        &*ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(draft_name(self.0)))
    }
}

/// Parse `--resource URI=PATH`, split at the first `=`. A text without one is kept as given
/// (`Resource::Malformed`): the schema's compile refuses it, after the schema is read, as it
/// always has.
pub fn parse_resource(s: &str) -> Result<Resource, std::convert::Infallible> {
    Ok(match s.split_once('=') {
        Some((uri, path)) => Resource::Map {
            uri: uri.to_owned(),
            path: PathBuf::from(path),
        },
        None => Resource::Malformed(s.to_owned()),
    })
}
