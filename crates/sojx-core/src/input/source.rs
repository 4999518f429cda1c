//! Where an input comes from ([`Source`], which the caller implements: the engine opens no file
//! of its own), and what reading whole files shares with the caller ([`read_capped`],
//! [`io_reason`]).

use std::io::{self, Read};
use std::time::Duration;

use crate::error::Failure;

/// One input, opened by the caller when the engine is ready to read it (so that a batch opens
/// each input on the worker that reads it, and a FIFO is opened within `--timeout`). The
/// command line's are files and standard input (`src/disk/source.rs`).
pub trait Source: Sync {
    /// The name used in envelopes: the file name as given, or `<stdin>`.
    fn name(&self) -> String;

    /// The input's bytes; a missing or unreadable file is a `filesystem` failure. With a
    /// `timeout`, nothing may block past it here: a FIFO is opened by its first read instead,
    /// on the thread that reads it.
    fn open_within(&self, timeout: Option<Duration>) -> Result<Box<dyn Read + Send>, Failure>;

    /// The size of a regular file (also one redirected to standard input), which plans the
    /// read; `None` for pipes, terminals and anything whose size is not known in advance.
    fn size(&self) -> Option<u64>;

    /// Whether this is the process's standard input, which two inputs cannot both read in
    /// parallel.
    fn is_stdin(&self) -> bool;
}

/// Largest file sojx reads whole besides its inputs: a schema, a file a `$ref` or `--resource`
/// points to, the `--handoff` file. A path like `/dev/zero` or an endless pipe must not be read
/// into memory without bound.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Read all of `r`, refusing more than [`MAX_FILE_BYTES`].
pub fn read_capped(r: impl Read) -> io::Result<Vec<u8>> {
    read_at_most(r, MAX_FILE_BYTES)
}

/// Read all of `r`, refusing (never truncating) more than `max` bytes.
pub fn read_at_most(r: impl Read, max: u64) -> io::Result<Vec<u8>> {
    const MIB: u64 = 1 << 20;
    let mut bytes = Vec::new();
    r.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::other(if max % MIB == 0 {
            format!("larger than {} MiB", max / MIB)
        } else {
            format!("larger than {max} bytes")
        }));
    }
    Ok(bytes)
}

/// A short lower-case reason for an I/O error, without the `(os error N)` suffix.
pub fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_owned(),
                None => s,
            }
        }
    }
}
