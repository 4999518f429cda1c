//! The values of flags that clap does not read by itself: durations, sizes, the tee file.

use std::path::PathBuf;
use std::time::Duration;

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
