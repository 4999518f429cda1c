//! The changes of shape that lifting undoes: a map carried as an array of `{"key", "value"}`
//! entries (providers that need closed objects), and the marks that say where each change was
//! made, taken out of the lowered schema into a [`Plan`].

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{WRAP_KEY, for_children};
use crate::lint::untyped;
use crate::provider::Provider;
use crate::schema::lift::{Plan, local_ref};

/// Marks left in the lowered schema while it is built, moved with the nodes they mark by every
/// later step, and taken out at the end ([`plan`]). A NUL byte starts them: no schema keyword
/// does.
pub(super) const NULLED: &str = "\u{0}sojx:nulled";
pub(super) const ENTRIES: &str = "\u{0}sojx:entries";

/// Keywords a map's entries carry (the key's schema), not dropped where the provider lacks them.
pub(super) const MAP_KEYWORDS: &[&str] = &["patternProperties", "propertyNames"];

/// Whether the object node `o` is a map: an object of any keys (`additionalProperties` or
/// `patternProperties` with a schema `provider` can express), with no named properties, and
/// nothing but an object.
pub(super) fn is_map(o: &Map<String, Value>, provider: Provider) -> bool {
    let object = match o.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => {
            ts.iter().any(|t| t == "object") && !ts.iter().any(|t| t == "array")
        }
        _ => false,
    };
    let named = o
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    object && !named && !values(o, provider).is_empty()
}

/// The schemas of a map's values that `provider` can express: OpenAI strict mode has no
/// "any value" (a value of any key it cannot express is left out; the user's schema still
/// holds the answer to all of them).
fn values(o: &Map<String, Value>, provider: Provider) -> Vec<Value> {
    let patterns = o
        .get("patternProperties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values());
    patterns
        .chain(o.get("additionalProperties"))
        .filter(|s| {
            s.as_object()
                .is_some_and(|s| provider != Provider::Openai || !untyped(s))
        })
        .cloned()
        .collect()
}

/// The map `o` as an array of `{"key": K, "value": V}` entries: `K` is `propertyNames` (a
/// string; with the pattern of a lone `patternProperties`), `V` the values' schema (`anyOf` of
/// several). Marked for lifting.
pub(super) fn to_entries(o: &mut Map<String, Value>, provider: Provider) {
    let mut values = values(o, provider);
    let additional = o
        .shift_remove("additionalProperties")
        .filter(Value::is_object);
    let patterns = match o.shift_remove("patternProperties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let mut key = match o.shift_remove("propertyNames") {
        Some(Value::Object(k)) => k,
        _ => Map::new(),
    };
    o.shift_remove("properties");
    o.shift_remove("required");
    if !key.contains_key("type") {
        key.insert("type".into(), json!("string"));
    }
    if patterns.len() == 1
        && additional.is_none()
        && !key.contains_key("pattern")
        && let Some(p) = patterns.keys().next()
    {
        key.insert("pattern".into(), json!(p));
    }
    let value = if values.len() == 1 {
        values.pop().unwrap_or(Value::Bool(true))
    } else {
        json!({ "anyOf": values })
    };
    let types = match o.shift_remove("type") {
        Some(Value::Array(ts)) => Value::Array(
            ts.into_iter()
                .map(|t| if t == "object" { json!("array") } else { t })
                .collect(),
        ),
        _ => json!("array"),
    };
    o.insert("type".into(), types);
    o.insert(
        "items".into(),
        json!({
            "type": "object",
            "properties": {"key": Value::Object(key), "value": value},
            "required": ["key", "value"],
            "additionalProperties": false,
        }),
    );
    o.insert(ENTRIES.into(), Value::Bool(true));
}

/// Whether schema `s` (in document `root`) accepts `null`, as far as its `type`, `enum`,
/// `const`, local `$ref`s and `anyOf`/`oneOf`/`allOf` say (anything else: it does).
pub(super) fn accepts_null(s: &Value, root: &Value, depth: u32) -> bool {
    let Value::Object(o) = s else {
        return s.as_bool().unwrap_or(true);
    };
    if depth > 32 {
        return true;
    }
    if let Some(t) = o.get("type") {
        let null = match t {
            Value::String(t) => t == "null",
            Value::Array(ts) => ts.iter().any(|t| t == "null"),
            _ => true,
        };
        if !null {
            return false;
        }
    }
    if o.get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.contains(&Value::Null))
        || o.get("const").is_some_and(|c| !c.is_null())
    {
        return false;
    }
    if let Some(target) = local_ref(o).and_then(|p| root.pointer(&p))
        && !accepts_null(target, root, depth + 1)
    {
        return false;
    }
    let branches = |k: &str| o.get(k).and_then(Value::as_array);
    for k in ["anyOf", "oneOf"] {
        if branches(k).is_some_and(|b| !b.iter().any(|b| accepts_null(b, root, depth + 1))) {
            return false;
        }
    }
    branches("allOf").is_none_or(|b| b.iter().all(|b| accepts_null(b, root, depth + 1)))
}

/// Take the marks out of the lowered schema `doc`: the plan that lifts answers given under it.
pub(super) fn plan(provider: &'static str, mut doc: Value, wrapped: Option<&str>) -> Plan {
    let mut nulled = HashSet::new();
    let mut entries = HashSet::new();
    take_marks(&mut doc, "", &mut nulled, &mut entries);
    Plan::new(provider, doc, wrapped.map(str::to_owned), nulled, entries)
}

fn take_marks(v: &mut Value, p: &str, nulled: &mut HashSet<String>, entries: &mut HashSet<String>) {
    if let Value::Object(o) = v {
        if o.shift_remove(NULLED).is_some() {
            nulled.insert(p.to_owned());
        }
        if o.shift_remove(ENTRIES).is_some() {
            entries.insert(p.to_owned());
        }
    }
    for_children(v, p, &mut |c, cp| take_marks(c, cp, nulled, entries));
}

/// Let schema `s` accept null too.
pub(super) fn nullable(s: &mut Value) {
    let Value::Object(o) = s else { return };
    if o.contains_key("const") || !o.contains_key("type") {
        if let Some(Value::Array(any)) = o.get_mut("anyOf") {
            if !any.iter().any(|b| b == &json!({"type": "null"})) {
                any.push(json!({"type": "null"}));
            }
            return;
        }
        let inner = std::mem::take(o);
        o.insert(
            "anyOf".into(),
            json!([Value::Object(inner), {"type": "null"}]),
        );
        return;
    }
    match o.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = t.clone();
            o.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(ts)) if !ts.iter().any(|t| t == "null") => ts.push(json!("null")),
        _ => {}
    }
    if let Some(Value::Array(e)) = o.get_mut("enum")
        && !e.contains(&Value::Null)
    {
        e.push(Value::Null);
    }
}

/// Rewrite local `$ref`s into the old root so that they still point at it once it is wrapped
/// under `/properties/value` (`$defs` and `definitions` move to the new root).
fn rebase_refs(v: &mut Value, p: &str) {
    if let Some(Value::String(r)) = v.get_mut("$ref")
        && let Some(rest) = r.strip_prefix('#')
        && (rest.is_empty() || rest.starts_with('/'))
        && !rest.starts_with("/$defs/")
        && !rest.starts_with("/definitions/")
    {
        *r = format!("#/properties/{WRAP_KEY}{rest}");
    }
    for_children(v, p, &mut |c, cp| rebase_refs(c, cp));
}

/// `{"type":"object","properties":{"value": root},"required":["value"]}`.
pub(super) fn wrap(mut root: Value) -> Value {
    rebase_refs(&mut root, "");
    let mut outer = Map::new();
    if let Value::Object(o) = &mut root {
        for k in ["$schema", "$id", "$defs", "definitions"] {
            if let Some(x) = o.remove(k) {
                outer.insert(k.to_owned(), x);
            }
        }
    }
    outer.insert("type".into(), json!("object"));
    outer.insert("properties".into(), json!({ WRAP_KEY: root }));
    outer.insert("required".into(), json!([WRAP_KEY]));
    outer.insert("additionalProperties".into(), json!(false));
    Value::Object(outer)
}

pub(super) fn root_is_object(doc: &Value) -> bool {
    doc.as_object()
        .is_some_and(|o| o.get("type") == Some(&json!("object")) && !o.contains_key("anyOf"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_forms() {
        let cases = [
            (
                json!({"type": "string"}),
                json!({"type": ["string", "null"]}),
            ),
            (
                json!({"type": "string", "enum": ["a"]}),
                json!({"type": ["string", "null"], "enum": ["a", null]}),
            ),
            (
                json!({"$ref": "#/$defs/x"}),
                json!({"anyOf": [{"$ref": "#/$defs/x"}, {"type": "null"}]}),
            ),
            (
                json!({"anyOf": [{"type": "integer"}]}),
                json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}),
            ),
            (
                json!({"type": ["integer", "null"]}),
                json!({"type": ["integer", "null"]}),
            ),
        ];
        for (mut input, want) in cases {
            nullable(&mut input);
            assert_eq!(input, want);
        }
    }
}
