//! The producer files compiled into sojx (`producers/*.toml` in its source): the same format
//! users write, each read the first time it is needed (detection reaches them when sojx's own
//! code recognized nothing, or, for a file that shares its shapes, when it named the producer).

use std::sync::OnceLock;

use serde_json::Value;

use super::spec::Spec;
use crate::producer::{Family, Producer};

include!(concat!(env!("OUT_DIR"), "/producers.rs"));

/// A built-in file's gate (build.rs `gate`): for each event, conditions on the keys of a place,
/// that a value is there (`None`) or is one of some strings. Each holds wherever the event's
/// own conditions do, so a value that no event's gate lets through is no event of the file.
type Gate = &'static [&'static [(&'static [&'static str], Option<&'static [&'static str]>)]];

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
                let (id, _, text, _) = FILES[i];
                super::load::parse_built_in(text, &format!("producers/{id}.toml"))
                    .unwrap_or_else(|e| panic!("a built-in producer file is wrong: {e}"))
            }))
        }
        _ => None,
    }
}

/// Whether `v` may be an event of the built-in file of `p`, told without reading the file: `false`
/// only where [`Spec::event`] would find none. (A Claude Code stream's init and result lines
/// are asked about Droid's file, whose events need `reasoning_effort` and
/// `usage.factory_credits` there: its parse, about 160,000 instructions, a tenth of a short
/// run, is left out.)
pub(crate) fn may_have_event(p: Producer, v: &Value) -> bool {
    let Some(&(.., gate)) = FILES.iter().find(|(id, ..)| *id == p.id()) else {
        return true;
    };
    gate.iter().any(|conds| {
        conds.iter().all(|&(keys, strings)| {
            let mut at = v;
            for k in keys {
                match at {
                    Value::Object(o) => match o.get(*k) {
                        Some(x) => at = x,
                        None => return false,
                    },
                    // A key is an index in an array: the gate does not follow it.
                    Value::Array(_) => return true,
                    _ => return false,
                }
            }
            match strings {
                None => !at.is_null(),
                Some(strings) => at.as_str().is_some_and(|s| strings.contains(&s)),
            }
        })
    })
}

/// Whether the built-in file of `id` has events and shares the shapes of the producer of id
/// `code` (`reads_like`), without reading the file.
pub(crate) fn shares_shapes(id: &str, code: &str) -> bool {
    FILES
        .iter()
        .any(|&(i, like, ..)| i == id && like == Some(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_file_is_read_and_has_its_row() {
        for &(id, like, ..) in FILES {
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

    /// Every value of every file under tests/fixtures that a built-in file has an event for is
    /// let through by that file's gate (the gate is a necessary condition); and the gate keeps
    /// out Claude Code's own init and result lines, which Droid's file is asked about.
    #[test]
    fn the_gate_lets_through_every_event_of_the_fixtures() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");
        let mut files = vec![std::path::PathBuf::from(root)];
        let (mut values, mut events) = (0, 0);
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let whole = serde_json::from_str::<Value>(&text).ok();
            let lines = text
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok());
            for v in whole.into_iter().chain(lines) {
                values += 1;
                for p in Producer::ALL
                    .iter()
                    .filter(|p| p.family() == Family::Described)
                {
                    if spec_of(*p).unwrap().event(&v).is_some() {
                        events += 1;
                        assert!(may_have_event(*p, &v), "{}: {v}", p.id());
                    }
                }
            }
        }
        assert!(
            values > 1_000 && events > 300,
            "{values} values, {events} events"
        );
        let droid = Producer::ALL.iter().find(|p| p.id() == "droid").unwrap();
        let init = r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#;
        let result = r#"{"type":"result","subtype":"success","usage":{"input_tokens":1}}"#;
        for line in [init, result] {
            assert!(!may_have_event(
                *droid,
                &serde_json::from_str(line).unwrap()
            ));
        }
        let droid_init = r#"{"type":"system","subtype":"init","reasoning_effort":"high"}"#;
        let droid_result = r#"{"type":"result","result":"x","usage":{"factory_credits":2}}"#;
        for line in [droid_init, droid_result] {
            let v = serde_json::from_str(line).unwrap();
            assert!(may_have_event(*droid, &v), "{line}");
            assert!(spec_of(*droid).unwrap().event(&v).is_some(), "{line}");
        }
    }
}
