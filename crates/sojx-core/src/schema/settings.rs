//! The schema's settings: which schema, and how it is read and compiled. The command layer
//! builds them once from `--schema`, `--draft`, `--ignore-formats` and `--resource`; tests and
//! benchmarks build them directly.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use jsonschema::Draft;

use crate::files::{Files, NoFiles};

/// Which schema a command uses, and how it is read and compiled.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The schema: a path, `@path`, or inline JSON; `None` for no schema.
    pub schema: Option<String>,
    /// The draft forced on it; `None` reads its `$schema` (2020-12 without one).
    pub draft: Option<Draft>,
    /// Leave the `format` keyword unchecked (it is checked by default).
    pub ignore_formats: bool,
    /// `$ref` URIs mapped to local files or directories, in the order given.
    pub resources: Vec<Resource>,
    /// How the schema file, its `$ref`s and the resources are read; `None` reads none (a
    /// schema given by path cannot be read, a `$ref` to a file is refused as unreadable).
    pub files: Option<Arc<dyn Files>>,
}

impl Settings {
    /// The files these settings read through ([`NoFiles`] without any).
    pub fn files(&self) -> Arc<dyn Files> {
        self.files.clone().unwrap_or_else(|| Arc::new(NoFiles))
    }
}

/// One `--resource URI=PATH`, split at its first `=`. A text without `=` maps nothing: it is
/// kept, in its place among the others, for the schema's compile to refuse (a `usage` failure,
/// told only when a schema is compiled, after the schema itself was read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    /// `URI=PATH`: a URI (ending in `/` for a directory) and the file or directory it maps to.
    Map { uri: String, path: PathBuf },
    /// A text that is not `URI=PATH`, as given.
    Malformed(String),
}

impl Resource {
    /// The file or directory it maps to, when it maps one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Self::Map { path, .. } => Some(path),
            Self::Malformed(_) => None,
        }
    }
}
