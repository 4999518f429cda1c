//! The producer files compiled into sojx (`producers/*.toml` in its source): the same format
//! users write, read the first time one is needed (detection reaches them only when sojx's
//! own code recognized nothing).

use std::sync::LazyLock;

use super::spec::Spec;
use crate::producer::{Family, Producer};

/// Each built-in file: its id (the producers' table in `id.rs` has a row of family
/// `Described` for each) and its text.
pub(crate) const FILES: &[(&str, &str)] = &[
    (
        "copilot-cli",
        include_str!("../../../producers/copilot-cli.toml"),
    ),
    ("pi", include_str!("../../../producers/pi.toml")),
    ("grok-cli", include_str!("../../../producers/grok-cli.toml")),
    ("goose", include_str!("../../../producers/goose.toml")),
    (
        "kimi-code",
        include_str!("../../../producers/kimi-code.toml"),
    ),
    (
        "antigravity",
        include_str!("../../../producers/antigravity.toml"),
    ),
    (
        "bob-shell",
        include_str!("../../../producers/bob-shell.toml"),
    ),
    ("cline", include_str!("../../../producers/cline.toml")),
    ("continue", include_str!("../../../producers/continue.toml")),
    ("droid", include_str!("../../../producers/droid.toml")),
    ("kilo", include_str!("../../../producers/kilo.toml")),
    (
        "codebuddy",
        include_str!("../../../producers/codebuddy.toml"),
    ),
    ("auggie", include_str!("../../../producers/auggie.toml")),
];

static SPECS: LazyLock<Vec<Spec>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|(id, text)| {
            super::load::parse_built_in(text, &format!("producers/{id}.toml"))
                .unwrap_or_else(|e| panic!("a built-in producer file is wrong: {e}"))
        })
        .collect()
});

/// The spec `p` is read by: a loaded file's, or a built-in file's (`None` for the producers
/// sojx reads in code).
pub(crate) fn spec_of(p: Producer) -> Option<&'static Spec> {
    match p {
        Producer::File(s) => Some(s),
        _ if p.family() == Family::Described => SPECS.iter().find(|s| s.id == p.id()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_file_is_read_and_has_its_row() {
        for (id, _) in FILES {
            let p = Producer::ALL
                .iter()
                .find(|p| p.id() == *id)
                .unwrap_or_else(|| panic!("{id} has no row in the producers' table"));
            let spec = spec_of(*p).unwrap_or_else(|| panic!("{id} is not described"));
            assert_eq!(spec.id, *id);
            // What users' files go through: the schema, then the checks.
            let text = FILES.iter().find(|(i, _)| i == id).unwrap().1;
            super::super::parse(text, id, false, super::super::Origin::BuiltIn)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        for p in Producer::ALL {
            if p.family() == Family::Described {
                assert!(FILES.iter().any(|(id, _)| *id == p.id()), "{}", p.id());
            }
        }
    }
}
