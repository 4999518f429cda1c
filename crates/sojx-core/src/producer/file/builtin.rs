//! The producer files compiled into sojx (`producers/*.toml` in its source): the same format
//! users write, each read the first time it is needed (detection reaches them when sojx's own
//! code recognized nothing, or, for a file that shares its shapes, when it named the producer).

use std::sync::OnceLock;

use super::spec::Spec;
use crate::producer::{Family, Producer};

include!(concat!(env!("OUT_DIR"), "/producers.rs"));

/// Each file read the first time it is needed, on its own: a Claude Code stream asks Droid's
/// file about its init line, and reads no other (parsing all of them costs about 0.7 ms).
static SPECS: [OnceLock<Spec>; FILES.len()] = [const { OnceLock::new() }; FILES.len()];

/// The spec `p` is read by: a loaded file's, or a built-in file's (`None` for the producers
/// sojx reads in code).
pub fn spec_of(p: Producer) -> Option<&'static Spec> {
    match p {
        Producer::File(s) => Some(s),
        _ if p.family() == Family::Described => {
            let i = FILES.iter().position(|(id, ..)| *id == p.id())?;
            Some(SPECS[i].get_or_init(|| {
                let (id, _, text) = FILES[i];
                super::load::parse_built_in(text, &format!("producers/{id}.toml"))
                    .unwrap_or_else(|e| panic!("a built-in producer file is wrong: {e}"))
            }))
        }
        _ => None,
    }
}

/// Whether the built-in file of `id` has events and shares the shapes of the producer of id
/// `code` (`reads_like`), without reading the file.
pub(crate) fn shares_shapes(id: &str, code: &str) -> bool {
    FILES
        .iter()
        .any(|&(i, like, _)| i == id && like == Some(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_file_is_read_and_has_its_row() {
        for &(id, like, _) in FILES {
            let p = Producer::ALL
                .iter()
                .find(|p| p.id() == id)
                .unwrap_or_else(|| panic!("{id} has no row in the producers' table"));
            let spec = spec_of(*p).unwrap_or_else(|| panic!("{id} is not described"));
            assert_eq!(spec.id, id);
            let shares = (!spec.events.is_empty()).then_some(spec.reads_like.as_deref());
            assert_eq!(shares.flatten(), like, "{id}: the table's reads_like");
            // What users' files go through: the schema, then the checks; the TOML in the source
            // says what the JSON compiled in says.
            let json = FILES.iter().find(|(i, ..)| *i == id).unwrap().2;
            let path = format!(
                "{}/producers/{id}.toml",
                concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
            );
            let toml = std::fs::read_to_string(&path).unwrap();
            let as_json: serde_json::Value = serde_json::from_str(json).unwrap();
            let as_toml: serde_json::Value = toml::from_str(&toml).unwrap();
            assert_eq!(as_json, as_toml, "{id}");
            super::super::parse(&toml, id, false, super::super::Origin::BuiltIn)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        for p in Producer::ALL {
            if p.family() == Family::Described {
                assert!(FILES.iter().any(|(id, ..)| *id == p.id()), "{}", p.id());
            }
        }
    }
}
