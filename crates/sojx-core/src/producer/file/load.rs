//! Reading a producer file: TOML (or JSON, by the name's `.json`), checked against
//! `schemas/producer-file.schema.json`, then against what the schema cannot say
//! ([`Spec::compile`]). Every failure names the file and the place in it.

use std::fmt;
use std::path::Path;
use std::sync::LazyLock;

use serde_json::Value;

use super::spec::{Origin, Raw, Spec};
use crate::files::{Files, Kind};

/// The schema of the file format, compiled once.
pub const SCHEMA: &str = include_str!("../../../schemas/producer-file.schema.json");

/// Most bytes a producer file may have (docs/limits.md): the built-in ones have a few KiB.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

static VALIDATOR: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(SCHEMA).expect("the producer-file schema is JSON");
    jsonschema::validator_for(&schema).expect("the producer-file schema compiles")
});

/// Why a producer file cannot be used: the file, the place in it (a JSON Pointer, or a line
/// and column for a syntax error; empty for the whole file), and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    pub place: String,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.place.is_empty() {
            write!(f, "producer file {}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "producer file {}, at {}: {}",
                self.file, self.place, self.message
            )
        }
    }
}

/// Read (through `files`) and check the producer file at `path`.
pub fn load(path: &Path, origin: Origin, files: &dyn Files) -> Result<Spec, LoadError> {
    let name = path.display().to_string();
    let fail = |message: String| LoadError {
        file: name.clone(),
        place: String::new(),
        message,
    };
    // A regular file only (a FIFO would hang, a folder is a mistake), opened as checked.
    if let Ok(Kind::File(size)) = files.kind(path)
        && size > MAX_FILE_BYTES
    {
        return Err(fail(format!(
            "is larger than {MAX_FILE_BYTES} bytes, sojx's bound on a producer file"
        )));
    }
    let bytes = files
        .read_regular(path, crate::input::MAX_FILE_BYTES)
        .map_err(|e| fail(format!("cannot be read: {}", crate::input::io_reason(&e))))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(fail(format!(
            "is larger than {MAX_FILE_BYTES} bytes, sojx's bound on a producer file"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| fail("is not UTF-8 text".into()))?;
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    parse(&text, &name, json, origin)
}

/// Check a producer file's `text` (`json`: JSON, else TOML), named `name` in errors.
pub fn parse(text: &str, name: &str, json: bool, origin: Origin) -> Result<Spec, LoadError> {
    let at = |place: String, message: String| LoadError {
        file: name.to_owned(),
        place,
        message,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = if json {
        serde_json::from_str(text).map_err(|e| {
            at(
                format!("line {}, column {}", e.line(), e.column()),
                format!("not JSON: {e}"),
            )
        })?
    } else {
        toml::from_str(text).map_err(|e| {
            let place = e
                .span()
                .map(|s| line_column(text, s.start))
                .unwrap_or_default();
            at(place, format!("not TOML: {}", e.message().trim_end()))
        })?
    };
    if let Some(e) = VALIDATOR.iter_errors(&value).next() {
        let place = match e.instance_path().as_str() {
            "" => "the top".to_owned(),
            p => p.to_owned(),
        };
        return Err(at(place, e.to_string()));
    }
    let raw: Raw = serde_json::from_value(value).map_err(|e| at(String::new(), e.to_string()))?;
    Spec::compile(raw, origin).map_err(|w| at(w.place, w.message))
}

/// A built-in producer file, compiled into sojx as JSON (`json`, by build.rs) and checked
/// against the schema by its tests (`builtin.rs`): read without the schema, whose compilation
/// would cost every run that reaches the built-in files a millisecond.
pub(super) fn parse_built_in(json: &str, name: &str) -> Result<Spec, LoadError> {
    let at = |place: String, message: String| LoadError {
        file: name.to_owned(),
        place,
        message,
    };
    let raw: Raw = serde_json::from_str(json).map_err(|e| at(String::new(), e.to_string()))?;
    Spec::compile(raw, Origin::BuiltIn).map_err(|w| at(w.place, w.message))
}

/// `line L, column C` (1-based, columns in characters) of byte `at` in `text`.
fn line_column(text: &str, at: usize) -> String {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("line {line}, column {column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> LoadError {
        parse(text, "x.toml", false, Origin::BuiltIn).unwrap_err()
    }

    const OK: &str = r#"
sojx_producer = 1
id = "acme"
name = "Acme"
[[event]]
name = "done"
when = { type = "done" }
text = "answer"
end = true
"#;

    #[test]
    fn a_good_file_is_read() {
        let s = parse(OK, "x.toml", false, Origin::BuiltIn).unwrap();
        assert_eq!(s.id, "acme");
        assert_eq!(s.events.len(), 1);
    }

    #[test]
    fn each_mistake_names_its_place() {
        let e = err("sojx_producer = 1\nid = \"acme\"\nname = \n");
        assert_eq!(e.place, "line 3, column 8", "{e}");
        assert!(e.message.starts_with("not TOML"), "{e}");
        let e = err(&OK.replace("id = \"acme\"", "id = \"Acme!\""));
        assert_eq!(e.place, "/id", "{e}");
        let e = err(&OK.replace("end = true", "end = true\ntext_mode = \"sometimes\""));
        assert_eq!(e.place, "/event/0/text_mode", "{e}");
        let e = err(&OK.replace("end = true", "end = false"));
        assert_eq!(e.place, "/event", "{e}");
        let e = err(&OK.replace("text = \"answer\"", "text = \"/a/*\""));
        assert_eq!(e.place, "/event/0/text", "{e}");
        let e = err(&OK.replace("sojx_producer = 1", "sojx_producer = 2"));
        assert_eq!(e.place, "/sojx_producer", "{e}");
        assert_eq!(
            e.to_string(),
            format!("producer file x.toml, at /sojx_producer: {}", e.message)
        );
    }
}
