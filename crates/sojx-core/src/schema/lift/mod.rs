//! Lifting: an answer given in the shape of a schema lowered for a provider (`sojx compile`)
//! brought back to the user's shape, by the exact inverse of each change the lowering made to
//! the shape of an answer:
//!
//! - a root wrapped as `{"value": …}` is unwrapped;
//! - a `null` in an optional property that was made required and nullable (OpenAI strict mode),
//!   where the user's schema does not accept null, means "not given": the property is removed;
//! - an array of `{"key", "value"}` entries that stands for a map becomes an object again; a key
//!   given twice is a violation, never a silent merge.
//!
//! A [`Plan`] is the lowered schema with the places of these changes (JSON Pointers into it).
//! Lifting walks the answer and the lowered schema together; the lowered shape is checked first
//! (`Schema::violations`), so that lifting never turns an answer that is not in that shape into
//! one that passes. [`Plan::lower_value`] is the forward direction, for tests and for naming a
//! place of the lifted answer in the answer as the agent gave it ([`Plan::agent_pointer`]).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::details::Violation;
use crate::pointer::escape;

/// How deep lifting walks along one path of the answer: each member or item of the answer, each
/// `$ref` followed and each `anyOf`/`oneOf`/`allOf` branch taken one level, as the validation
/// budget counts them (`budget::WALK_DEPTH`; docs/limits.md).
const DEPTH: u32 = crate::budget::WALK_DEPTH;

/// The lowered schema and where its shape differs from the user's.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The provider's id (`openai`), for `validation.provider` and messages.
    pub provider: &'static str,
    schema: Value,
    /// The key the root was wrapped under, when it was.
    wrapped: Option<String>,
    /// Property schemas (pointers into `schema`) whose `null` means "not given".
    nulled: HashSet<String>,
    /// Arrays of `{"key", "value"}` entries that stand for a map.
    entries: HashSet<String>,
}

/// What lifting changed at one place of the answer (its pointer in the answer as given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The root was taken out of its wrapper.
    Unwrapped(String),
    /// A property given as `null` was removed: not given.
    NullRemoved(String),
    /// An array of entries became an object.
    EntriesToObject(String),
}

impl Change {
    /// The place, and what was done there, in words.
    pub fn describe(&self) -> String {
        match self {
            Self::Unwrapped(at) => format!("{} unwrapped", at_or_root(at)),
            Self::NullRemoved(at) => format!("{} null removed (not given)", at_or_root(at)),
            Self::EntriesToObject(at) => {
                format!("{} entries made an object", at_or_root(at))
            }
        }
    }
}

fn at_or_root(at: &str) -> &str {
    if at.is_empty() { "/" } else { at }
}

/// Why an answer has no value in the user's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unlifted {
    /// A map's key given twice: the violations naming both places.
    Twice(Vec<Violation>),
    /// The walk would go deeper than `DEPTH` along one path of the answer.
    TooDeep,
}

/// Which shape a value is in, for choosing among `anyOf` branches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// As the agent gave it: the lowered schema's shape.
    Lowered,
    /// The user's.
    User,
}

impl Plan {
    /// A plan for `schema` (lowered for `provider`, its marks already taken out).
    pub fn new(
        provider: &'static str,
        schema: Value,
        wrapped: Option<String>,
        nulled: HashSet<String>,
        entries: HashSet<String>,
    ) -> Self {
        Self {
            provider,
            schema,
            wrapped,
            nulled,
            entries,
        }
    }

    /// The lowered schema.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Whether lifting can change anything at all.
    pub fn changes_shape(&self) -> bool {
        self.wrapped.is_some() || !self.nulled.is_empty() || !self.entries.is_empty()
    }

    /// `value`, given in the lowered shape, in the user's: the value and what changed, or why
    /// it has none.
    pub fn lift(&self, mut value: Value) -> Result<(Value, Vec<Change>), Unlifted> {
        if !self.changes_shape() {
            return Ok((value, Vec::new()));
        }
        let mut lift = Lift {
            plan: self,
            changes: Vec::new(),
            violations: Vec::new(),
            too_deep: false,
        };
        lift.walk("", &mut value, "", 0);
        if lift.too_deep {
            return Err(Unlifted::TooDeep);
        }
        if !lift.violations.is_empty() {
            return Err(Unlifted::Twice(lift.violations));
        }
        if let Some(key) = &self.wrapped
            && let Value::Object(o) = &mut value
            && o.len() == 1
            && let Some(inner) = o.remove(key)
        {
            lift.changes
                .insert(0, Change::Unwrapped(format!("/{}", escape(key))));
            value = inner;
        }
        Ok((value, lift.changes))
    }

    /// `value`, given in the user's shape, in the lowered one: what a model under the lowered
    /// schema answers for it.
    pub fn lower_value(&self, mut value: Value) -> Value {
        if let Some(key) = &self.wrapped {
            value = json!({ key.as_str(): value });
        }
        self.down("", &mut value, 0);
        value
    }

    /// The place `lifted` (a pointer into the lifted answer) in `given`, the answer as the agent
    /// gave it: a map's key becomes its entry's `value`, a wrapped root gains its key.
    pub fn agent_pointer(&self, given: &Value, lifted: &str) -> String {
        if !self.changes_shape() {
            return lifted.to_owned();
        }
        let mut tokens: Vec<String> = lifted
            .split('/')
            .skip(1)
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect();
        if let Some(key) = &self.wrapped {
            tokens.insert(0, key.clone());
        }
        let mut out = String::new();
        let mut node = String::new();
        let mut value = Some(given);
        for (i, token) in tokens.iter().enumerate() {
            let Some(v) = value else {
                for t in &tokens[i..] {
                    out.push('/');
                    out.push_str(&escape(t));
                }
                break;
            };
            node = self.branch(&node, v, Shape::Lowered, 0);
            if self.entries.contains(&node)
                && let Value::Array(a) = v
                && let Some(j) = a.iter().position(|e| e.get("key") == Some(&json!(token)))
            {
                out.push_str(&format!("/{j}/value"));
                value = a[j].get("value");
                node = format!("{node}/items/properties/value");
                continue;
            }
            out.push('/');
            out.push_str(&escape(token));
            match v {
                Value::Object(o) => {
                    value = o.get(token);
                    node = self.member(&node, token);
                }
                Value::Array(a) => {
                    let j = token.parse::<usize>().ok();
                    value = j.and_then(|j| a.get(j));
                    node = self.item(&node, j.unwrap_or(0));
                }
                _ => value = None,
            }
        }
        out
    }

    fn node(&self, ptr: &str) -> Option<&Map<String, Value>> {
        self.schema.pointer(ptr).and_then(Value::as_object)
    }

    /// The subschema of member `key` of the object node at `ptr` (its property, else its
    /// `additionalProperties`).
    fn member(&self, ptr: &str, key: &str) -> String {
        let Some(o) = self.node(ptr) else {
            return String::new();
        };
        if o.get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key(key))
        {
            format!("{ptr}/properties/{}", escape(key))
        } else {
            format!("{ptr}/additionalProperties")
        }
    }

    /// The subschema of item `i` of the array node at `ptr`.
    fn item(&self, ptr: &str, i: usize) -> String {
        let Some(o) = self.node(ptr) else {
            return String::new();
        };
        for tuple in ["prefixItems", "items"] {
            if let Some(Value::Array(a)) = o.get(tuple) {
                if i < a.len() {
                    return format!("{ptr}/{tuple}/{i}");
                }
                let rest = if tuple == "items" {
                    "additionalItems"
                } else {
                    "items"
                };
                return format!("{ptr}/{rest}");
            }
        }
        format!("{ptr}/items")
    }

    /// The node that says most about `v` at `ptr`: `$ref`s followed and the fitting branch of
    /// an `anyOf`/`oneOf` taken, while the node has nothing else to say.
    fn branch(&self, ptr: &str, v: &Value, shape: Shape, depth: u32) -> String {
        let Some(o) = self.node(ptr) else {
            return ptr.to_owned();
        };
        if depth > DEPTH || self.entries.contains(ptr) || o.contains_key("properties") {
            return ptr.to_owned();
        }
        if let Some(target) = local_ref(o) {
            return self.branch(&target, v, shape, depth + 1);
        }
        if let Some(b) = self.fitting(ptr, o, v, shape, depth) {
            return self.branch(&b, v, shape, depth + 1);
        }
        ptr.to_owned()
    }

    /// The first branch of the `anyOf`/`oneOf` at `ptr` that `v` fits, by its shape.
    fn fitting(
        &self,
        ptr: &str,
        o: &Map<String, Value>,
        v: &Value,
        shape: Shape,
        depth: u32,
    ) -> Option<String> {
        ["anyOf", "oneOf"].iter().find_map(|k| {
            let branches = o.get(*k)?.as_array()?;
            (0..branches.len())
                .map(|i| format!("{ptr}/{k}/{i}"))
                .find(|b| self.fits(b, v, shape, depth + 1))
        })
    }

    /// Whether `v` (in `shape`) may be an instance of the node at `ptr`, judged by its type,
    /// `enum`, `const` and, for an object, its required and allowed members: enough to tell the
    /// branches of a lowered `anyOf` apart.
    fn fits(&self, ptr: &str, v: &Value, shape: Shape, depth: u32) -> bool {
        let Some(node) = self.schema.pointer(ptr) else {
            return false;
        };
        let Some(o) = node.as_object() else {
            return node.as_bool().unwrap_or(false);
        };
        if depth > DEPTH {
            // Past the bound a branch is not taken; the walk itself says why (`TooDeep`).
            return false;
        }
        if shape == Shape::User && self.entries.contains(ptr) && v.is_object() {
            return true;
        }
        if let Some(t) = o.get("type")
            && !types(t).any(|t| has_type(v, t))
        {
            return false;
        }
        if o.get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.contains(v))
            || o.get("const").is_some_and(|c| c != v)
        {
            return false;
        }
        if let (Value::Object(m), Some(Value::Object(props))) = (v, o.get("properties")) {
            let required = o.get("required").and_then(Value::as_array);
            let missing = required
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .any(|r| {
                    let nulled = || {
                        self.nulled
                            .contains(&format!("{ptr}/properties/{}", escape(r)))
                    };
                    !m.contains_key(r) && (shape == Shape::Lowered || !nulled())
                });
            let closed = o.get("additionalProperties") == Some(&Value::Bool(false));
            if missing || (closed && m.keys().any(|k| !props.contains_key(k))) {
                return false;
            }
        }
        if let Some(target) = local_ref(o)
            && !self.fits(&target, v, shape, depth + 1)
        {
            return false;
        }
        if (o.contains_key("anyOf") || o.contains_key("oneOf"))
            && self.fitting(ptr, o, v, shape, depth).is_none()
        {
            return false;
        }
        true
    }

    /// The forward walk of [`Plan::lower_value`].
    fn down(&self, ptr: &str, v: &mut Value, depth: u32) {
        let Some(o) = self.node(ptr) else { return };
        if depth > DEPTH {
            return;
        }
        if self.entries.contains(ptr) && v.is_object() {
            let Value::Object(m) = std::mem::take(v) else {
                unreachable!("checked: an object")
            };
            let value_at = format!("{ptr}/items/properties/value");
            let entries = m
                .into_iter()
                .map(|(k, mut val)| {
                    self.down(&value_at, &mut val, depth + 1);
                    json!({"key": k, "value": val})
                })
                .collect();
            *v = Value::Array(entries);
            return;
        }
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = o.get("properties") {
                    for name in props.keys() {
                        let at = format!("{ptr}/properties/{}", escape(name));
                        if !m.contains_key(name) && self.nulled.contains(&at) {
                            m.insert(name.clone(), Value::Null);
                        }
                    }
                }
                for (k, child) in m.iter_mut() {
                    let at = self.member(ptr, k);
                    self.down(&at, child, depth + 1);
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter_mut().enumerate() {
                    let at = self.item(ptr, i);
                    self.down(&at, child, depth + 1);
                }
            }
            _ => {}
        }
        self.applicators(ptr, o, v, Shape::User, depth, &mut |p, v, d| {
            self.down(p, v, d);
        });
    }

    /// Walk on from the node at `ptr` into its `$ref`, its fitting `anyOf`/`oneOf` branch and
    /// each `allOf` branch, for the same value.
    fn applicators(
        &self,
        ptr: &str,
        o: &Map<String, Value>,
        v: &mut Value,
        shape: Shape,
        depth: u32,
        f: &mut dyn FnMut(&str, &mut Value, u32),
    ) {
        if let Some(target) = local_ref(o) {
            f(&target, v, depth + 1);
        }
        if let Some(b) = self.fitting(ptr, o, v, shape, depth) {
            f(&b, v, depth + 1);
        }
        if let Some(Value::Array(all)) = o.get("allOf") {
            for i in 0..all.len() {
                f(&format!("{ptr}/allOf/{i}"), v, depth + 1);
            }
        }
    }
}

/// One lifting walk: what it changed, and the keys given twice.
struct Lift<'a> {
    plan: &'a Plan,
    changes: Vec<Change>,
    violations: Vec<Violation>,
    /// The walk went past [`DEPTH`].
    too_deep: bool,
}

impl Lift<'_> {
    fn walk(&mut self, ptr: &str, v: &mut Value, at: &str, depth: u32) {
        let plan = self.plan;
        let Some(o) = plan.node(ptr) else { return };
        if depth > DEPTH {
            self.too_deep = true;
            return;
        }
        if plan.entries.contains(ptr) && v.is_array() {
            self.entries(ptr, v, at, depth);
            return;
        }
        match v {
            Value::Object(m) => {
                for (k, child) in m.iter_mut() {
                    let node = plan.member(ptr, k);
                    self.walk(&node, child, &format!("{at}/{}", escape(k)), depth + 1);
                }
                if o.contains_key("properties") {
                    let changes = &mut self.changes;
                    m.retain(|k, child| {
                        let gone = child.is_null()
                            && plan
                                .nulled
                                .contains(&format!("{ptr}/properties/{}", escape(k)));
                        if gone {
                            changes.push(Change::NullRemoved(format!("{at}/{}", escape(k))));
                        }
                        !gone
                    });
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter_mut().enumerate() {
                    let node = plan.item(ptr, i);
                    self.walk(&node, child, &format!("{at}/{i}"), depth + 1);
                }
            }
            _ => {}
        }
        let mut next = Vec::new();
        plan.applicators(ptr, o, v, Shape::Lowered, depth, &mut |p, _, d| {
            next.push((p.to_owned(), d));
        });
        for (p, d) in next {
            self.walk(&p, v, at, d);
        }
    }

    /// An array of `{"key", "value"}` entries at `ptr` (the answer's `at`) made an object; a
    /// key given twice is a violation naming both places.
    fn entries(&mut self, ptr: &str, v: &mut Value, at: &str, depth: u32) {
        let Value::Array(items) = v else { return };
        let well_formed = items.iter().all(|e| {
            e.as_object().is_some_and(|o| {
                o.len() == 2
                    && o.get("key").is_some_and(Value::is_string)
                    && o.contains_key("value")
            })
        });
        if !well_formed {
            return;
        }
        let value_at = format!("{ptr}/items/properties/value");
        let mut first: HashMap<String, usize> = HashMap::new();
        let mut object = Map::new();
        let mut twice = false;
        for (i, e) in std::mem::take(items).into_iter().enumerate() {
            let Value::Object(mut e) = e else {
                unreachable!("checked: an object")
            };
            let Some(Value::String(key)) = e.remove("key") else {
                unreachable!("checked: a string key")
            };
            let mut value = e.remove("value").unwrap_or(Value::Null);
            self.walk(&value_at, &mut value, &format!("{at}/{i}/value"), depth + 1);
            if let Some(&j) = first.get(&key) {
                twice = true;
                self.violations.push(Violation {
                    instance_location: format!("{at}/{i}/key"),
                    keyword_location: format!("{ptr}/items/properties/key"),
                    message: format!(
                        "the key {} is given twice, at {at}/{j}/key and {at}/{i}/key: these entries stand for an object, which holds each key once",
                        json!(key)
                    ),
                });
                continue;
            }
            first.insert(key.clone(), i);
            object.insert(key, value);
        }
        if !twice {
            self.changes.push(Change::EntriesToObject(at.to_owned()));
        }
        *v = Value::Object(object);
    }
}

/// The pointer a local `$ref` (`#/…`) names, percent-decoded.
pub(crate) fn local_ref(o: &Map<String, Value>) -> Option<String> {
    let r = o.get("$ref")?.as_str()?;
    let fragment = r.strip_prefix('#')?;
    if !fragment.is_empty() && !fragment.starts_with('/') {
        return None;
    }
    let bytes = super::retrieve::percent_decode(fragment);
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn types(t: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match t {
        Value::String(s) => Box::new(std::iter::once(s.as_str())),
        Value::Array(a) => Box::new(a.iter().filter_map(Value::as_str)),
        _ => Box::new(std::iter::empty()),
    }
}

/// Whether `v` is of JSON Schema type `t` (`integer`: a number with no fraction).
fn has_type(v: &Value, t: &str) -> bool {
    match (t, v) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
