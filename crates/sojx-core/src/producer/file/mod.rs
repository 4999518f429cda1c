//! Producers described as data (contract §10, docs/producer-files.md): the file format
//! (`spec`), reading and checking a file (`load`), the extractor that reads a stream by a
//! file (`events`), the files compiled into sojx (`builtin`), and the [`Registry`] of
//! every producer a command knows: the built-in ones and those a user loaded.

mod builtin;
mod compile;
mod events;
mod load;
mod shown;
mod spec;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Family, Producer};
use crate::files::{FileId, Files};

pub use builtin::spec_of;
pub(crate) use events::{Events, Relabel};
pub use load::{LoadError, MAX_FILE_BYTES, SCHEMA, load, parse};
pub use shown::SHOWN_DEPTH;
pub use spec::{Event, FORMAT, Origin, Resume, Spec, Values};

/// The words the flags that name a producer take for something else: never a file's id.
const KEYWORDS: [(&str, &str); 2] = [
    ("auto", "`--from auto`, detection by content"),
    ("none", "`--resume-profile none`, never resume"),
];

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

/// What one value says about the producer of an input while it is unknown
/// ([`Registry::sight`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sight {
    /// This producer's.
    Decided(Producer),
    /// This producer's by sojx's own detection, but these file producers have an event the
    /// value is too: the next values decide ([`Registry::holds`]).
    Held(Producer, Vec<Producer>),
    /// No producer's, yet.
    Unknown,
}

/// The registry of the built-in producers only.
pub static BUILT_IN: Registry = Registry { user: Vec::new() };

impl Registry {
    /// Load the producer files of `flags` (`--producer-file`, in order), then those of the
    /// config folder `config` (`*.toml` and `*.json`, by name; a folder that does not exist
    /// holds none). A file of an id that a flag's file has is not loaded (the flag's wins); two
    /// flags' files of one id, or a file of the id of a producer sojx reads in code, are
    /// errors. Every file is read through `files`.
    pub fn load(
        flags: &[PathBuf],
        config: Option<&Path>,
        files: &dyn Files,
    ) -> Result<Self, LoadError> {
        let mut user: Vec<&'static Spec> = Vec::new();
        // One file named twice (by two paths, a link) is loaded once: by device and inode.
        let mut seen: Vec<FileId> = Vec::new();
        let mut fresh = |path: &Path| match files.id(path) {
            Some(id) if seen.contains(&id) => false,
            Some(id) => {
                seen.push(id);
                true
            }
            None => true,
        };
        for path in flags {
            if fresh(path) {
                let spec = load(path, Origin::Flag(path.display().to_string()), files)?;
                add(&mut user, spec, true)?;
            }
        }
        if let Some(dir) = config {
            for path in config_files(dir, files)? {
                if fresh(&path) {
                    let spec = load(&path, Origin::Config(path.display().to_string()), files)?;
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

    /// Which producer wrote `v`, when `v` is decisive ([`Registry::sight`]).
    pub fn detect(&self, v: &Value) -> Option<Producer> {
        match self.sight(v) {
            Sight::Decided(p) | Sight::Held(p, _) => Some(p),
            Sight::Unknown => None,
        }
    }

    /// What `v`, a value of an input whose producer is still unknown, says about it:
    /// - where sojx's own detection ([`super::detect`]) names no producer, a loaded file's
    ///   event that claims `v` decides (the user's files come first), then a built-in file's;
    /// - where it names `p`, `p` decides, unless file producers have an event `v` is too: a
    ///   file whose event claims `v` by a place `p` never shows decides for the file
    ///   ([`refining`]: Droid's `-o json` result is Claude Code's with
    ///   `usage.factory_credits`); the others — a loaded file's event that claims `v` by what
    ///   `p` shows too, an event that does not claim — hold the choice for the next values
    ///   ([`Registry::holds`]: Droid's stream starts with Claude Code's init line). A loaded
    ///   file never takes a value sojx's own reader reads otherwise (issue 55, item 4).
    pub fn sight(&self, v: &Value) -> Sight {
        let Some(p) = super::detect(v) else {
            return self
                .claim_loaded(v)
                .or_else(|| self.claim_built_in(v))
                .map_or(Sight::Unknown, Sight::Decided);
        };
        let files = self.alike(p, v);
        if let Some(&f) = files.iter().find(|&&f| refining(f, p, v)) {
            Sight::Decided(f)
        } else if files.is_empty() {
            Sight::Decided(p)
        } else {
            Sight::Held(p, files)
        }
    }

    /// What `v` says about an input sojx's own detection named `held` from values that the
    /// file producers `files` have events for too: `Some` when `v` decides, `None` while it is
    /// of both vocabularies.
    /// - A value sojx's detection does not name `held` for: a loaded file's event that claims
    ///   it decides for that file, as does one of `files`' (the fork's own `message` line).
    /// - A value it names `held` for: one of `files` that claims it by a place `held` never
    ///   shows decides for the file (Droid's init line with `reasoning_effort`).
    /// - A value one of `files` has an event for: held while sojx's detection names `held`
    ///   too; else that file's (Droid's `error` after Claude Code's init line).
    /// - A value none of `files` has an event for: `held`'s.
    pub fn holds(&self, held: Producer, files: &[Producer], v: &Value) -> Option<Producer> {
        let own = super::detect(v) == Some(held);
        if !own && let Some(p) = self.claim_loaded(v) {
            return Some(p);
        }
        let event = |f: Producer| spec_of(f).and_then(|s| s.event(v));
        if let Some(f) = files.iter().copied().find(|&f| {
            if own {
                refining(f, held, v)
            } else {
                event(f).is_some_and(|e| e.claims)
            }
        }) {
            return Some(f);
        }
        match files.iter().copied().find(|&f| event(f).is_some()) {
            Some(_) if own => None,
            Some(f) => Some(f),
            None => Some(held),
        }
    }

    /// The loaded file whose event claims `v` although sojx's own detection names a producer
    /// for `v`: two readers claim the value, and sojx's own reads it unless the stream's
    /// other values decide for the file (issue 55, item 4).
    pub fn contested(&self, v: &Value) -> Option<Producer> {
        if self.user.is_empty() || !v.is_object() {
            return None;
        }
        let p = super::detect(v)?;
        self.user
            .iter()
            .map(|s| Producer::File(s))
            .find(|&f| spec_of(f).is_some_and(|s| s.claims(v)) && !refining(f, p, v))
    }

    /// [`Registry::detect`] for a value that must carry a run's identity
    /// ([`super::detect_output`]), in the order of [`Registry::sight`]: sojx's own producer,
    /// refined by a built-in file that shares its shapes; else a loaded file's claiming event,
    /// then a built-in file's.
    pub fn detect_output(&self, v: &Value) -> Option<Producer> {
        let output = |s: &Spec| s.claims_output(v, super::run_identity);
        if !v.is_object() {
            return super::detect_output(v);
        }
        match super::detect_output(v) {
            Some(p) => Some(
                self.alike(p, v)
                    .into_iter()
                    .find(|&f| refining(f, p, v) && spec_of(f).is_some_and(output))
                    .unwrap_or(p),
            ),
            None => self
                .user
                .iter()
                .find(|s| output(s))
                .map(|s| Producer::File(s))
                .or_else(|| self.built_in(v, output)),
        }
    }

    /// The producer of a loaded file with an event that claims `v`.
    fn claim_loaded(&self, v: &Value) -> Option<Producer> {
        if !v.is_object() {
            return None;
        }
        self.user
            .iter()
            .find(|s| s.claims(v))
            .map(|s| Producer::File(s))
    }

    /// The producer of a built-in file with an event that claims `v`.
    fn claim_built_in(&self, v: &Value) -> Option<Producer> {
        if !v.is_object() {
            return None;
        }
        self.built_in(v, |s| s.claims(v))
    }

    /// The file producers with events that have an event `v` is where sojx's own detection
    /// names `p`: the loaded ones that share `p`'s shapes (`reads_like = p`, claiming or not)
    /// or claim `v`, then the built-in ones that share `p`'s shapes.
    fn alike(&self, p: Producer, v: &Value) -> Vec<Producer> {
        if !v.is_object() {
            return Vec::new();
        }
        let alike = |s: &Spec| {
            !s.events.is_empty() && s.reads_like.as_deref() == Some(p.id()) && s.event(v).is_some()
        };
        let mut files: Vec<Producer> = self
            .user
            .iter()
            .filter(|s| alike(s) || s.claims(v))
            .map(|s| Producer::File(s))
            .collect();
        // Only the built-in files that share `p`'s shapes are read.
        files.extend(
            self.built_ins()
                .filter(|f| builtin::shares_shapes(f.id(), p.id()))
                .filter(|&f| builtin::may_have_event(f, v) && spec_of(f).is_some_and(alike)),
        );
        files
    }

    /// The first built-in file producer (in the producers' table's order) whose spec says yes,
    /// but for those a loaded file replaces; `yes` says no where the spec has no event `v` is.
    fn built_in(&self, v: &Value, yes: impl Fn(&Spec) -> bool) -> Option<Producer> {
        self.built_ins()
            .find(|&p| builtin::may_have_event(p, v) && spec_of(p).is_some_and(&yes))
    }

    /// The built-in file producers, in the producers' table's order, but for those a loaded
    /// file replaces.
    fn built_ins(&self) -> impl Iterator<Item = Producer> + '_ {
        Producer::ALL
            .iter()
            .copied()
            .filter(|p| p.family() == Family::Described)
            .filter(|p| !self.user.iter().any(|s| s.id == p.id()))
    }
}

/// Whether the file producer `f` has an event that claims `v` by a place that sojx's own
/// producer `p` never shows in its captures ([`Event::refines`], [`shown::SHOWN`]): then `v`
/// is `f`'s, though sojx's detection names `p` for it. A producer without captures is never
/// refined.
fn refining(f: Producer, p: Producer, v: &Value) -> bool {
    let Some((_, shown)) = shown::SHOWN.iter().find(|(id, _)| *id == p.id()) else {
        return false;
    };
    spec_of(f)
        .and_then(|s| s.event(v))
        .is_some_and(|e| e.claims && e.refines(shown))
}

fn add(user: &mut Vec<&'static Spec>, spec: Spec, flag: bool) -> Result<(), LoadError> {
    let file = spec.origin.path().unwrap_or_default().to_owned();
    let refuse = |message: String| LoadError {
        file: file.clone(),
        place: "/id".into(),
        message,
    };
    if let Some(keyword) = KEYWORDS.iter().find(|(k, _)| *k == spec.id) {
        return Err(refuse(format!(
            "`{}` is {}, so no flag could name this file's producer; give the file another id",
            spec.id, keyword.1
        )));
    }
    if let Some(p) = Producer::ALL.iter().find(|p| p.id() == spec.id)
        && p.family() != Family::Described
    {
        return Err(refuse(format!(
            "`{}` is a producer sojx reads in code; give the file another id",
            p.id()
        )));
    }
    // A file without events is read by the producer its `reads_like` names: one sojx reads
    // in code. With events, a `reads_like` that names one refines its detection
    // ([`Registry::sight`]); any other is for people (as format 1 has always said).
    let reader = spec.reads_like.as_deref().and_then(Producer::read_in_code);
    if spec.events.is_empty() && reader.is_none() {
        return Err(LoadError {
            file: file.clone(),
            place: "/reads_like".into(),
            message: format!(
                "`{}` is not a producer sojx reads in code, so it cannot read this file's producer; describe its events instead",
                spec.reads_like.as_deref().unwrap_or_default()
            ),
        });
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
fn config_files(dir: &Path, files: &dyn Files) -> Result<Vec<PathBuf>, LoadError> {
    let entries = match files.list(dir) {
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
    let mut found: Vec<PathBuf> = entries
        .into_iter()
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
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests;
