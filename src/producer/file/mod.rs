//! Producers described as data (contract §10, docs/producer-files.md): the file format
//! ([`spec`]), reading and checking a file ([`load`]), the extractor that reads a stream by a
//! file ([`events`]), the files compiled into sojx ([`builtin`]), and the [`Registry`] of
//! every producer a command knows: the built-in ones and those a user loaded.

mod builtin;
mod compile;
mod events;
mod load;
mod spec;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Family, Producer};
use crate::input::FileId;

pub(crate) use builtin::spec_of;
pub(crate) use events::{Events, Relabel};
pub use load::{LoadError, MAX_FILE_BYTES, SCHEMA, load, parse};
pub use spec::{Event, FORMAT, Origin, Spec};

/// Whether `id` is a producer id of the producer-file format: `[a-z0-9][a-z0-9-]{0,62}`
/// (`schemas/producer-file.schema.json`).
pub fn valid_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
}

/// Every producer a command knows: the built-in ones, and the producer files a user loaded
/// (`--producer-file`, then the config folder), which come first in detection and take the
/// place of a built-in file producer of the same id.
#[derive(Debug, Default)]
pub struct Registry {
    user: Vec<&'static Spec>,
}

/// The registry of the built-in producers only.
pub static BUILT_IN: Registry = Registry { user: Vec::new() };

impl Registry {
    /// Load the producer files of `flags` (`--producer-file`, in order), then those of the
    /// config folder `config` (`*.toml` and `*.json`, by name; a folder that does not exist
    /// holds none). A file of an id that a flag's file has is not loaded (the flag's wins); two
    /// flags' files of one id, or a file of the id of a producer sojx reads in code, are
    /// errors.
    pub fn load(flags: &[PathBuf], config: Option<&Path>) -> Result<Self, LoadError> {
        let mut user: Vec<&'static Spec> = Vec::new();
        // One file named twice (by two paths, a link) is loaded once: by device and inode.
        let mut seen: Vec<FileId> = Vec::new();
        let mut fresh = |path: &Path| match FileId::of_path(path) {
            Some(id) if seen.contains(&id) => false,
            Some(id) => {
                seen.push(id);
                true
            }
            None => true,
        };
        for path in flags {
            if fresh(path) {
                let spec = load(path, Origin::Flag(path.display().to_string()))?;
                add(&mut user, spec, true)?;
            }
        }
        if let Some(dir) = config {
            for path in config_files(dir)? {
                if fresh(&path) {
                    let spec = load(&path, Origin::Config(path.display().to_string()))?;
                    add(&mut user, spec, false)?;
                }
            }
        }
        Ok(Self { user })
    }

    /// The producer named `id` (`--from`): a loaded file's, else a built-in one.
    pub fn resolve(&self, id: &str) -> Option<Producer> {
        if let Some(s) = self.user.iter().find(|s| s.id == id) {
            return Some(Producer::File(s));
        }
        Producer::ALL.iter().copied().find(|p| p.id() == id)
    }

    /// The loaded producers, in order.
    pub fn loaded(&self) -> &[&'static Spec] {
        &self.user
    }

    /// Every producer, for `sojx producers`: the built-in ones (a built-in file producer a
    /// loaded file replaces is left out), then the loaded ones.
    pub fn all(&self) -> Vec<Producer> {
        let replaced = |p: &Producer| self.user.iter().any(|s| s.id == p.id());
        Producer::ALL
            .iter()
            .copied()
            .filter(|p| !replaced(p))
            .chain(self.user.iter().map(|s| Producer::File(s)))
            .collect()
    }

    /// Which producer wrote `v`, when `v` is decisive: a loaded file's event that claims it,
    /// else sojx's own detection ([`super::detect`]), else a built-in file's event that claims
    /// it.
    pub fn detect(&self, v: &Value) -> Option<Producer> {
        self.claim(v)
            .or_else(|| super::detect(v))
            .or_else(|| self.claim_built_in(v))
    }

    /// [`Registry::detect`] for a value that must carry a run's identity
    /// ([`super::detect_output`]); a file's claiming event is the producer's own.
    pub fn detect_output(&self, v: &Value) -> Option<Producer> {
        let output = |s: &Spec| s.claims_output(v, super::run_identity);
        if !v.is_object() {
            return super::detect_output(v);
        }
        self.user
            .iter()
            .find(|s| output(s))
            .map(|s| Producer::File(s))
            .or_else(|| super::detect_output(v))
            .or_else(|| self.built_in(output))
    }

    fn claim(&self, v: &Value) -> Option<Producer> {
        if !v.is_object() {
            return None;
        }
        self.user
            .iter()
            .find(|s| s.claims(v))
            .map(|s| Producer::File(s))
    }

    fn claim_built_in(&self, v: &Value) -> Option<Producer> {
        if !v.is_object() {
            return None;
        }
        self.built_in(|s| s.claims(v))
    }

    /// The first built-in file producer (in the producers' table's order) whose spec says yes,
    /// but for those a loaded file replaces.
    fn built_in(&self, yes: impl Fn(&Spec) -> bool) -> Option<Producer> {
        Producer::ALL
            .iter()
            .copied()
            .filter(|p| p.family() == Family::Described)
            .filter(|p| !self.user.iter().any(|s| s.id == p.id()))
            .find(|&p| spec_of(p).is_some_and(&yes))
    }
}

fn add(user: &mut Vec<&'static Spec>, spec: Spec, flag: bool) -> Result<(), LoadError> {
    let file = spec.origin.path().unwrap_or_default().to_owned();
    let refuse = |message: String| LoadError {
        file: file.clone(),
        place: "/id".into(),
        message,
    };
    if let Some(p) = Producer::ALL.iter().find(|p| p.id() == spec.id)
        && p.family() != Family::Described
    {
        return Err(refuse(format!(
            "`{}` is a producer sojx reads in code; give the file another id",
            p.id()
        )));
    }
    if spec.events.is_empty() {
        let code = spec.reads_like.as_deref().and_then(|id| {
            Producer::ALL.iter().find(|p| {
                p.id() == id
                    && !matches!(p.family(), Family::Described | Family::Json | Family::Text)
            })
        });
        if code.is_none() {
            return Err(LoadError {
                file: file.clone(),
                place: "/reads_like".into(),
                message: format!(
                    "`{}` is not a producer sojx reads in code, so it cannot read this file's producer; describe its events instead",
                    spec.reads_like.as_deref().unwrap_or_default()
                ),
            });
        }
    }
    if let Some(other) = user.iter().find(|s| s.id == spec.id) {
        if flag {
            return Err(refuse(format!(
                "`{}` is also the id of {}; each producer file needs its own id",
                spec.id,
                other.origin.path().unwrap_or_default()
            )));
        }
        // A config folder's file of an id a flag's file has: the flag's wins.
        return Ok(());
    }
    user.push(Box::leak(Box::new(spec)));
    Ok(())
}

/// The producer files of the config folder `dir`, by name.
fn config_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(LoadError {
                file: dir.display().to_string(),
                place: String::new(),
                message: format!("the folder cannot be read: {e}"),
            });
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "toml" | "json"))
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ACME: &str = r#"
sojx_producer = 1
id = "acme"
name = "Acme"
[[event]]
name = "done"
when = { type = "acme.done" }
text = "answer"
end = true
"#;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sojx-registry-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn loaded_files_are_detected_first_and_named_by_id() {
        let d = dir("load");
        let f = d.join("acme.toml");
        std::fs::write(&f, ACME).unwrap();
        // The same file twice (by a second path) is loaded once.
        let twice = [f.clone(), d.join(".").join("acme.toml")];
        let r = Registry::load(&twice, Some(&d.join("none"))).unwrap();
        assert_eq!(r.loaded().len(), 1);
        let p = r.resolve("acme").unwrap();
        assert_eq!(p.id(), "acme");
        assert_eq!(p.family(), Family::Described);
        assert_eq!(
            r.detect(&json!({"type": "acme.done", "answer": "{}"})),
            Some(p)
        );
        assert_eq!(BUILT_IN.detect(&json!({"type": "acme.done"})), None);
        assert_eq!(r.resolve("codex"), Some(Producer::Codex));
        assert_eq!(r.all().len(), Producer::ALL.len() + 1);
        // The config folder's file of the same id: the flag's wins.
        let conf = dir("conf");
        std::fs::write(conf.join("acme.toml"), ACME.replace("Acme", "Other")).unwrap();
        let r = Registry::load(std::slice::from_ref(&f), Some(&conf)).unwrap();
        assert_eq!(r.loaded()[0].name, "Acme");
        let r = Registry::load(&[], Some(&conf)).unwrap();
        assert_eq!(r.loaded()[0].origin.kind(), "config");
    }

    #[test]
    fn ids_must_not_collide() {
        let d = dir("collide");
        let (a, b) = (d.join("a.toml"), d.join("b.json"));
        std::fs::write(&a, ACME).unwrap();
        let json = r#"{"sojx_producer": 1, "id": "acme", "name": "B",
            "event": [{"name": "x", "when": {"type": "x"}, "end": true}]}"#;
        std::fs::write(&b, json).unwrap();
        let e = Registry::load(&[a.clone(), b.clone()], None).unwrap_err();
        assert_eq!(e.place, "/id", "{e}");
        assert!(
            e.message.contains("each producer file needs its own id"),
            "{e}"
        );
        std::fs::write(&b, json.replace("acme", "codex")).unwrap();
        let e = Registry::load(&[b], None).unwrap_err();
        assert!(e.message.contains("reads in code"), "{e}");
        // A built-in file's id may be taken: the user's file replaces it.
        let c = d.join("c.toml");
        std::fs::write(&c, ACME.replace("\"acme\"", "\"grok-cli\"")).unwrap();
        let r = Registry::load(&[c], None).unwrap();
        assert!(matches!(r.resolve("grok-cli"), Some(Producer::File(_))));
        assert_eq!(r.all().len(), Producer::ALL.len());
    }
}
