//! `--coerce`'s places: where the schema's own `type` errors say that a string stands where a
//! boolean, an integer or a number is asked for ([`crate::coerce`] converts it).

use jsonschema::JsonType;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use super::Schema;
use crate::coerce::{Coercion, Wanted, convert};

/// Most places `--coerce` converts in one answer (docs/limits.md): each is checked again with
/// the others converted, so the work grows with their number.
const MAX_COERCED: usize = 256;

/// Rounds of converting and checking again (a conversion may change which `if` branch applies,
/// and so what the schema asks for elsewhere).
const MAX_ROUNDS: usize = 4;

impl Schema {
    /// Convert each string of `value` that the schema's `type` keyword refuses where it asks
    /// for a boolean, an integer or a number, and that [`convert`] reads as one; the
    /// conversions in the order the validator met them. A place where the schema allows a
    /// string too gives no `type` error, so nothing is converted there; nor where only an
    /// `anyOf`/`oneOf` fails (its branches' errors are not reported one by one). A conversion
    /// is kept only while the schema still asks for it with the others made: one that flips an
    /// `if` so that its place no longer asks for a number is undone. At most [`MAX_COERCED`]
    /// places. Nothing when validating `value` would pass sojx's budget (the validation says
    /// so). Under `--provider`, by the lowered schema: the shape the agent answered in.
    pub fn coerce(&self, value: &mut Value) -> Vec<Coercion> {
        if let Some(l) = &self.lifting {
            return l.lowered.coerce(value);
        }
        let mut done: Vec<Coercion> = Vec::new();
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for (pointer, wanted) in self.slips(value) {
                if done.len() >= MAX_COERCED || done.iter().any(|c| c.pointer == pointer) {
                    continue;
                }
                let Some(Value::String(s)) = value.pointer(&pointer) else {
                    continue;
                };
                let Some(to) = convert(s, wanted) else {
                    continue;
                };
                let from = s.clone();
                set(value, &pointer, to.clone());
                let read_as = wanted.read_as(&to);
                done.push(Coercion {
                    pointer,
                    from,
                    to,
                    read_as,
                });
                changed = true;
            }
            changed |= self.keep_asked(value, &mut done);
            if !changed {
                break;
            }
        }
        done
    }

    /// Undo each conversion of `done` that the schema no longer asks for, the others made: its
    /// string put back is no type slip there, or not one it converts to the same value.
    /// Whether one was undone.
    fn keep_asked(&self, value: &mut Value, done: &mut Vec<Coercion>) -> bool {
        let mut undone = false;
        let mut i = 0;
        while i < done.len() {
            let c = &done[i];
            set(value, &c.pointer, Value::String(c.from.clone()));
            let asked = self
                .slips(value)
                .into_iter()
                .find(|(p, _)| *p == c.pointer)
                .and_then(|(_, wanted)| convert(&c.from, wanted));
            if asked.as_ref() == Some(&c.to) {
                set(value, &c.pointer, c.to.clone());
                i += 1;
            } else {
                done.remove(i);
                undone = true;
            }
        }
        undone
    }

    /// Each place where a string stands and the schema's `type` asks for something else, with
    /// what every `type` keyword there allows; none when validating `value` would pass sojx's
    /// budget.
    fn slips(&self, value: &Value) -> Vec<(String, Wanted)> {
        let cost = self.cost(value);
        if cost.over() {
            return Vec::new();
        }
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
        places
    }
}

/// Put `v` at `pointer` in `value` (a place that exists).
fn set(value: &mut Value, pointer: &str, v: Value) {
    if let Some(slot) = value.pointer_mut(pointer) {
        *slot = v;
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

    /// A conversion kept only while the schema asks for it: flipping an `if` undoes it; at
    /// most `MAX_COERCED` places.
    #[test]
    fn only_what_is_still_asked_for_is_kept() {
        let schema = r#"{"properties":{"a":{"type":"boolean"}},"if":{"properties":{"a":{"const":true}}},"then":{"properties":{"b":{"type":"string"}}},"else":{"properties":{"b":{"type":"integer"}}}}"#;
        let (v, places) = coerced(schema, json!({"a": "true", "b": "5"}));
        assert_eq!(v, json!({"a": true, "b": "5"}));
        assert_eq!(places, [("/a".to_owned(), "true".to_owned())]);
        let many: Vec<Value> = (0..300).map(|i| Value::from(i.to_string())).collect();
        let (v, places) = coerced(r#"{"items":{"type":"integer"}}"#, Value::from(many));
        assert_eq!(places.len(), super::MAX_COERCED);
        assert_eq!(v[255], json!(255));
        assert_eq!(v[256], json!("256"));
    }

    /// The type a string was read as is the one the schema asked for (the feedback names it).
    #[test]
    fn read_as_the_type_asked_for() {
        let settings = Settings {
            schema: Some(r#"{"properties":{"x":{"type":"number"},"n":{"type":"integer"},"b":{"type":"boolean"}}}"#.to_owned()),
            ..Settings::default()
        };
        let s = load(&settings).unwrap().unwrap();
        let mut v = json!({"x": "5", "n": "5", "b": "true"});
        let read: Vec<&str> = s.coerce(&mut v).iter().map(|c| c.read_as).collect();
        assert_eq!(read, ["number", "integer", "boolean"]);
    }
}
