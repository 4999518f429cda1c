//! Offline retrieval of referenced schemas: `--resource` mappings, `file:` references read only
//! inside the schema's own directory tree, never the network. A refusal is the retriever's own
//! error (`NotRetrieved`), which the compile error carries and `schema` turns into a failure.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use jsonschema::{Retrieve, Uri};
use serde_json::Value;

use super::{Resource, Settings, called, invalid};
use crate::error::{ErrorKind, Failure, Operation};
use crate::files::{Files, Kind};

/// The offline retriever of a schema given as `base` (`None`: inline), and the URI of its file,
/// the base of relative references.
pub(super) fn retriever(
    base: Option<&Path>,
    settings: &Settings,
) -> Result<(LocalRetriever, Option<String>), Failure> {
    let files = settings.files();
    let resources = usable_resources(&settings.resources, files.as_ref())?;
    // The schema file, symlinks resolved: its URI is the base of relative references, and its
    // directory the only tree that a `file:` reference may read.
    let real = base.and_then(|b| files.canonical(b).ok());
    let retriever = LocalRetriever {
        files,
        resources: Arc::new(resources),
        root: real
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf),
    };
    Ok((retriever, real.as_deref().and_then(file_uri)))
}

/// The retriever's own error inside a referencing error, when it is one.
pub(super) fn retriever_error(e: &referencing::Error) -> Option<&NotRetrieved> {
    match e {
        referencing::Error::Unretrievable { source, .. } => source.downcast_ref(),
        _ => None,
    }
}

/// The failure for a reference the retriever refused to fetch or to read (`None` for a file it
/// could not read, which is reported with the compile error).
pub(super) fn not_retrieved(name: &str, why: &NotRetrieved) -> Option<Failure> {
    let (uri, reason) = match why {
        NotRetrieved::Remote(uri) => {
            return Some(
                invalid(
                    name,
                    format!(
                        "{} references {uri}, and sojx never fetches remote references",
                        called(name)
                    ),
                )
                .hint(format!(
                    "map it to a local copy with --resource {uri}=FILE (a URI ending in / maps a directory)"
                )),
            );
        }
        NotRetrieved::Refused(uri, reason) => (uri, reason),
        NotRetrieved::CannotRead(..) => return None,
    };
    let hint = if reason.starts_with(INLINE) {
        format!(
            "a $ref from an inline schema reads no file: give the schema as a file (a $ref may then read files in its directory), or map this one to a file you trust with --resource {uri}=FILE"
        )
    } else if uri.starts_with("file:") {
        format!(
            "a $ref reads files only inside the schema's own directory; to read this one, map it to a file you trust with --resource {uri}=FILE"
        )
    } else {
        format!(
            "--resource URI/=DIR/ reads only plain relative paths inside DIR; to read this one, map it to a file you trust with --resource {uri}=FILE"
        )
    };
    Some(
        invalid(
            name,
            format!(
                "{} references {uri}, which sojx does not read: {reason}",
                called(name)
            ),
        )
        .hint(hint),
    )
}

/// Marks a referenced local file that could not be read.
const CANNOT_READ: &str = "cannot read the referenced file";

/// Marks the retriever's refusal of a remote reference in the crate's error message.
const NOT_FETCHED: &str = "not fetched (sojx never uses the network)";

/// Marks the retriever's refusal of a local file in the crate's error message.
const REFUSED: &str = "not read by sojx:";

/// Why a `file:` reference from an inline schema is refused.
const INLINE: &str = "the schema was given inline, so it has no directory to read files from";

/// `file://` URI of an absolute path (reserved bytes percent-encoded).
fn file_uri(abs: &Path) -> Option<String> {
    let s = abs.to_str()?;
    let mut out = String::from("file://");
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Some(out)
}

/// Decode `%XX` escapes of a URI path (or fragment).
pub(super) fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| char::from(c).to_digit(16);
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            // Two hex digits: at most 255.
            out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// A decoded URI path as a file path.
#[cfg(unix)]
fn to_path(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn to_path(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// The local path of a `file:` URI (`file:///p` or `file://localhost/p`); `None` for any other
/// URI, a file on another host included.
fn local_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest
        .strip_prefix("localhost")
        .filter(|r| r.starts_with('/'))
        .unwrap_or(rest);
    rest.starts_with('/').then(|| to_path(percent_decode(rest)))
}

/// The `--resource` mappings, each checked in turn: a text that is not `URI=FILE` is a `usage`
/// failure, a FILE that cannot be read (or is not a directory for a URI ending in `/`) a
/// `filesystem` one.
fn usable_resources(
    resources: &[Resource],
    files: &dyn Files,
) -> Result<Vec<(String, PathBuf)>, Failure> {
    resources
        .iter()
        .map(|r| {
            let (uri, file) = match r {
                Resource::Map { uri, path } => (uri, path),
                Resource::Malformed(s) => {
                    return Err(Failure::new(
                        ErrorKind::Usage,
                        Operation::ParseArguments,
                        format!("--resource {s}: expected URI=FILE"),
                    )
                    .retryable(false));
                }
            };
            // The caller's file, told as such before any schema is compiled (a `$ref` to it
            // would otherwise blame the schema).
            let dir = uri.ends_with('/');
            let usable = files.kind(file).and_then(|k| {
                if (k == Kind::Dir) == dir {
                    Ok(())
                } else {
                    Err(std::io::Error::other(if dir {
                        "not a directory (a URI ending in / maps a directory)"
                    } else {
                        "not a regular file"
                    }))
                }
            });
            if let Err(e) = usable {
                return Err(Failure::new(
                    ErrorKind::Filesystem,
                    Operation::Read,
                    format!(
                        "cannot read --resource {}: {}",
                        file.display(),
                        crate::input::io_reason(&e)
                    ),
                )
                .target(file.to_string_lossy().into_owned())
                .retryable(false)
                .hint("--resource URI=FILE maps a reference to a local file; URI/=DIR/ maps a directory"));
            }
            Ok((uri.clone(), file.clone()))
        })
        .collect()
}

/// Resolves references offline, never the network: a URI mapped by `--resource` (a file, or a
/// plain relative path under a mapped directory), or a `file:` URI inside the schema's own
/// directory tree. Every other reference is refused, whatever it names.
#[derive(Clone)]
pub(super) struct LocalRetriever {
    /// What reads the files.
    files: Arc<dyn Files>,
    resources: Arc<Vec<(String, PathBuf)>>,
    /// The schema file's directory, symlinks resolved; `None` for an inline schema, which has
    /// no directory and so reads no file that `--resource` does not map.
    root: Option<PathBuf>,
}

/// Why a reference was not retrieved.
#[derive(Debug)]
pub(super) enum NotRetrieved {
    /// A remote URI: sojx never uses the network.
    Remote(String),
    /// A local file that sojx does not read: the URI and why.
    Refused(String, String),
    /// A file sojx may read but could not.
    CannotRead(PathBuf, String),
}

impl std::fmt::Display for NotRetrieved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Remote(uri) => write!(f, "{uri} {NOT_FETCHED}"),
            Self::Refused(uri, why) => write!(f, "{uri} {REFUSED} {why}"),
            Self::CannotRead(path, why) => write!(f, "{CANNOT_READ} {}: {why}", path.display()),
        }
    }
}

impl std::error::Error for NotRetrieved {}

impl Retrieve for LocalRetriever {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let s = uri.as_str();
        let s = s.split('#').next().unwrap_or(s);
        let refused = |why: String| NotRetrieved::Refused(s.to_owned(), why);
        for (prefix, path) in self.resources.iter() {
            if prefix == s {
                return read_json(self.files.as_ref(), path);
            }
            if prefix.ends_with('/')
                && let Some(rest) = s.strip_prefix(prefix.as_str())
            {
                let rel = relative(rest).ok_or_else(|| {
                    refused(format!(
                        "`{rest}` is not a plain relative path under --resource {prefix}={}",
                        path.display()
                    ))
                })?;
                let file = inside(self.files.as_ref(), path, &path.join(rel), || {
                    refused(format!(
                        "it is outside the directory {} that --resource {prefix} maps (symlinks followed)",
                        path.display()
                    ))
                })?;
                return read_json(self.files.as_ref(), &file);
            }
        }
        if let Some(p) = local_path(s) {
            let Some(root) = &self.root else {
                return Err(Box::new(refused(INLINE.to_owned())));
            };
            let file = inside(self.files.as_ref(), root, &p, || {
                refused(format!(
                    "it is outside the schema's directory {} (symlinks followed)",
                    root.display()
                ))
            })?;
            return read_json(self.files.as_ref(), &file);
        }
        Err(Box::new(NotRetrieved::Remote(s.to_owned())))
    }
}

/// The part of a URI under a `--resource` directory as a relative path, when it is a plain one:
/// after percent-decoding, no root, no drive, no `..`, no backslash, no NUL, not empty.
fn relative(rest: &str) -> Option<PathBuf> {
    use std::path::Component;
    let bytes = percent_decode(rest);
    if bytes.is_empty() || bytes.contains(&b'\\') || bytes.contains(&0) {
        return None;
    }
    let rel = to_path(bytes);
    rel.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        .then_some(rel)
}

/// `file`, symlinks resolved, when it lies inside the directory `dir` (symlinks resolved too);
/// else the refusal `outside` makes. A file that does not exist is a read error when its path is
/// inside `dir`, a refusal otherwise.
fn inside(
    files: &dyn Files,
    dir: &Path,
    file: &Path,
    outside: impl FnOnce() -> NotRetrieved,
) -> Result<PathBuf, NotRetrieved> {
    let dir = files
        .canonical(dir)
        .map_err(|e| NotRetrieved::CannotRead(dir.to_path_buf(), crate::input::io_reason(&e)))?;
    match files.canonical(file) {
        Ok(real) if real.starts_with(&dir) => Ok(real),
        Ok(_) => Err(outside()),
        Err(e)
            if file.starts_with(&dir)
                && !file
                    .components()
                    .any(|c| c == std::path::Component::ParentDir) =>
        {
            Err(NotRetrieved::CannotRead(
                file.to_path_buf(),
                crate::input::io_reason(&e),
            ))
        }
        Err(_) => Err(outside()),
    }
}

/// Read a `--schema` file as UTF-8, refusing one larger than [`crate::input::MAX_FILE_BYTES`].
/// It may be a pipe (`--schema <(…)`), so it is not required to be a regular file.
pub(super) fn read_text(files: &dyn Files, path: &Path) -> std::io::Result<String> {
    text_from(files.read(path, crate::input::MAX_FILE_BYTES)?)
}

/// A schema's text from `reader`: at most [`crate::input::MAX_FILE_BYTES`], UTF-8, without a
/// byte order mark.
pub fn text_of(reader: impl std::io::Read) -> std::io::Result<String> {
    text_from(crate::input::read_capped(reader)?)
}

/// A schema's text from its `bytes`: UTF-8, without a byte order mark.
fn text_from(mut bytes: Vec<u8>) -> std::io::Result<String> {
    // A UTF-8 byte order mark (Windows editors write one) is not part of the JSON.
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// Read a referenced (or `--resource`) file: a regular file of at most
/// [`crate::input::MAX_FILE_BYTES`], as JSON.
fn read_json(
    files: &dyn Files,
    path: &Path,
) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
    let bytes = files
        .read_regular(path, crate::input::MAX_FILE_BYTES)
        .map_err(|e| NotRetrieved::CannotRead(path.to_path_buf(), crate::input::io_reason(&e)))?;
    Ok(crate::json::from_slice(
        bytes.strip_prefix(BOM).unwrap_or(&bytes),
    )?)
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_remainders_must_be_plain_relative_paths() {
        for ok in ["a.json", "sub/a.json", "./a.json", "a%20b.json"] {
            assert!(relative(ok).is_some(), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "%2e%2e/x",
            "..%2fx",
            "%2fetc%2fpasswd",
            "a\\..\\x",
            "a%5cb",
            "a%00b",
        ] {
            assert!(relative(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn file_uris_name_local_paths_only() {
        assert_eq!(local_path("file:///a%20b/c"), Some(PathBuf::from("/a b/c")));
        assert_eq!(local_path("file://localhost/a"), Some(PathBuf::from("/a")));
        assert_eq!(local_path("file://host/a"), None);
        assert_eq!(local_path("http://x/a"), None);
    }

    /// Without a `Files`, a schema named by path is not read: a `filesystem` failure that says
    /// why, not a panic or an empty schema.
    #[test]
    fn without_files_a_schema_path_is_refused() {
        let settings = crate::schema::Settings {
            schema: Some("verdict.schema.json".into()),
            ..crate::schema::Settings::default()
        };
        let e = crate::schema::load(&settings).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Filesystem);
        assert!(
            e.message.contains("lets sojx read no files"),
            "{}",
            e.message
        );
        let with = crate::schema::Settings {
            files: Some(std::sync::Arc::new(crate::files::tests::TestDisk)),
            schema: Some(
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../examples/verdict.schema.json"
                )
                .into(),
            ),
            ..crate::schema::Settings::default()
        };
        assert!(crate::schema::load(&with).unwrap().is_some());
    }
}
