//! `--coerce`'s places: where the schema's own `type` errors say that a string stands where a
//! boolean, an integer or a number is asked for ([`crate::coerce`] converts it).

use jsonschema::JsonType;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use super::Schema;
use crate::coerce::{Coercion, Wanted, convert};

impl Schema {
    /// Convert each string of `value` that the schema's `type` keyword refuses where it asks
    /// for a boolean, an integer or a number, and that [`convert`] reads as one; the
    /// conversions in the order the validator met them. A place where the schema allows a
    /// string too gives no `type` error, so nothing is converted there; nor where only an
    /// `anyOf`/`oneOf` fails (its branches' errors are not reported one by one). Nothing when
    /// validating `value` would pass sojx's budget (the validation says so). Under
    /// `--provider`, by the lowered schema: the shape the agent answered in.
    pub fn coerce(&self, value: &mut Value) -> Vec<Coercion> {
        if let Some(l) = &self.lifting {
            return l.lowered.coerce(value);
        }
        let cost = self.cost(value);
        if cost.over() {
            return Vec::new();
        }
        // Each place once, with what every `type` keyword there allows.
        let mut places: Vec<(String, Wanted)> = Vec::new();
        for e in self.validator_for(&cost).iter_errors(value) {
            let ValidationErrorKind::Type { kind } = e.kind() else {
                continue;
            };
            if !e.instance().is_string() {
                continue;
            }
            let wanted = wanted(kind);
            let at = e.instance_path().as_str();
            match places.iter_mut().find(|(p, _)| p == at) {
                Some((_, w)) => *w = w.and(wanted),
                None => places.push((at.to_owned(), wanted)),
            }
        }
        let mut done = Vec::new();
        for (pointer, wanted) in places {
            let Some(slot) = value.pointer_mut(&pointer) else {
                continue;
            };
            let Value::String(s) = slot else { continue };
            let Some(to) = convert(s, wanted) else {
                continue;
            };
            let from = std::mem::take(s);
            *slot = to.clone();
            done.push(Coercion { pointer, from, to });
        }
        done
    }
}

/// What a `type` keyword allows, of the types a string can be converted to.
fn wanted(kind: &TypeKind) -> Wanted {
    let has = |t: JsonType| match kind {
        TypeKind::Single(one) => *one == t,
        TypeKind::Multiple(set) => set.contains(t),
    };
    Wanted {
        boolean: has(JsonType::Boolean),
        integer: has(JsonType::Integer),
        number: has(JsonType::Number),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::schema::{Settings, load};

    /// `value` coerced by `schema`: the value, and each conversion as `(pointer, from)`.
    fn coerced(schema: &str, mut value: Value) -> (Value, Vec<(String, String)>) {
        let settings = Settings {
            schema: Some(schema.to_owned()),
            ..Settings::default()
        };
        let s = load(&settings).unwrap().unwrap();
        let done = s.coerce(&mut value);
        let places = done.into_iter().map(|c| (c.pointer, c.from)).collect();
        (value, places)
    }

    #[test]
    fn strings_become_the_type_the_schema_asks_for() {
        let schema = r#"{"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer"},"x":{"type":"number"},"s":{"type":"string"}}}"#;
        let (v, places) = coerced(
            schema,
            json!({"ok": "true", "n": "3", "x": "2.5", "s": "4"}),
        );
        assert_eq!(v, json!({"ok": true, "n": 3, "x": 2.5, "s": "4"}));
        assert_eq!(
            places,
            [("/ok", "true"), ("/n", "3"), ("/x", "2.5")]
                .map(|(p, f)| (p.to_owned(), f.to_owned()))
        );
    }

    #[test]
    fn refusals_are_left_alone() {
        let schema = r#"{"properties":{"ok":{"type":"boolean"},"n":{"type":"integer"},"x":{"type":"number"},"e":{"type":["string","number"]},"a":{"anyOf":[{"type":"string"},{"type":"integer"}]},"b":{"anyOf":[{"type":"boolean"},{"type":"integer"}]}}}"#;
        let given = json!({"ok": "yes", "n": "1.0", "x": " 3", "e": "5", "a": "6", "b": "7"});
        let (v, places) = coerced(schema, given.clone());
        assert_eq!(v, given);
        assert!(places.is_empty());
    }

    #[test]
    fn nested_places_and_escaped_keys() {
        let schema = r#"{"type":"array","items":{"type":"object","additionalProperties":{"type":["integer","null"]}}}"#;
        let (v, places) = coerced(schema, json!([{"a/b": "1"}, {"c~d": "-2", "e": null}]));
        assert_eq!(v, json!([{"a/b": 1}, {"c~d": -2, "e": null}]));
        let pointers: Vec<&str> = places.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(pointers, ["/0/a~1b", "/1/c~0d"]);
    }

    #[test]
    fn two_type_keywords_at_one_place_must_both_allow_it() {
        let schema = r#"{"allOf":[{"type":["boolean","integer"]},{"type":"integer"}]}"#;
        assert_eq!(coerced(schema, json!("true")).0, json!("true"));
        assert_eq!(coerced(schema, json!("8")).0, json!(8));
    }
}
