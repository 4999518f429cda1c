//! Walking schemas: the subschemas under each keyword, with their JSON Pointers, and the
//! small judgements the rules share.

use serde_json::{Map, Value};

use super::KNOWN;
use crate::pointer::escape;

/// How a keyword holds subschemas.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    One,
    List,
    Map,
    /// `items`: one schema, or (before 2020-12) a list.
    OneOrList,
}

pub(crate) fn shape(keyword: &str) -> Option<Shape> {
    Some(match keyword {
        "additionalProperties"
        | "additionalItems"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => Shape::One,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Shape::List,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        | "dependencies" => Shape::Map,
        "items" => Shape::OneOrList,
        _ => return None,
    })
}

/// The direct subschemas of `v` with their pointers.
pub(crate) fn children<'a>(v: &'a Value, ptr: &str) -> Vec<(&'a Value, String)> {
    let mut out = Vec::new();
    let Value::Object(o) = v else { return out };
    for (k, child) in o {
        // The pointer is built only for a keyword that holds subschemas: most keys do not
        // (`type`, `description`, `enum`), and every schema sojx loads is walked (issue 60).
        let p = || format!("{ptr}/{}", escape(k));
        match (shape(k), child) {
            (Some(Shape::One | Shape::OneOrList), Value::Object(_) | Value::Bool(_)) => {
                out.push((child, p()));
            }
            (Some(Shape::List | Shape::OneOrList), Value::Array(a)) => {
                let p = p();
                out.extend(a.iter().enumerate().map(|(i, c)| (c, format!("{p}/{i}"))));
            }
            (Some(Shape::Map), Value::Object(m)) => {
                let p = p();
                out.extend(
                    m.iter()
                        .filter(|(_, c)| c.is_object() || c.is_boolean())
                        .map(|(name, c)| (c, format!("{p}/{}", escape(name)))),
                );
            }
            _ => {}
        }
    }
    out
}

/// Pre-order walk over every subschema.
pub(crate) fn walk<'a>(v: &'a Value, ptr: &str, f: &mut dyn FnMut(&'a Value, &str)) {
    f(v, ptr);
    for (c, p) in children(v, ptr) {
        walk(c, &p, f);
    }
}

/// The node describes an object (its `type` says so, or it has `properties`).
pub(crate) fn is_object_node(o: &Map<String, Value>) -> bool {
    match o.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => o.contains_key("properties"),
    }
}

pub(super) fn has_type(o: &Map<String, Value>, t: &str) -> bool {
    match o.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(ts)) => ts.iter().any(|x| x == t),
        _ => false,
    }
}

/// `$ref`s that leave the document (not `#…`).
pub(crate) fn external_refs(doc: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk(doc, "", &mut |v, p| {
        if let Some(Value::String(r)) = v.get("$ref")
            && !r.starts_with('#')
        {
            out.push((format!("{p}/$ref"), r.clone()));
        }
    });
    out
}

/// A node with nothing that gives it a type: OpenAI strict mode rejects it.
pub(crate) fn untyped(o: &Map<String, Value>) -> bool {
    !["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
        .iter()
        .any(|k| o.contains_key(*k))
}

/// The regex feature Claude's constrained decoding lacks, if `re` uses one.
pub(super) fn unsupported_regex(re: &str) -> Option<&'static str> {
    if ["(?=", "(?!", "(?<=", "(?<!"]
        .iter()
        .any(|x| re.contains(x))
    {
        return Some("lookaround");
    }
    let b = re.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            match b[i + 1] {
                b'b' | b'B' => return Some("a word boundary"),
                b'1'..=b'9' | b'k' => return Some("a backreference"),
                _ => {}
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    None
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A key of a subschema that is no keyword of any draft: every validator ignores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unknown {
    /// OpenAPI 3.0's `nullable`.
    OpenApiNullable,
    /// A misspelt keyword (`requird`): the constraint it was meant to be is not enforced.
    Typo(Typo),
    /// Anything else (an extension without the `x-` prefix).
    Other,
}

impl Unknown {
    /// What the key `k` of a subschema is, when no draft defines it (`None`: a keyword, or an
    /// `x-` extension).
    pub(crate) fn of(k: &str) -> Option<Self> {
        if KNOWN.contains(&k) || k.starts_with("x-") {
            return None;
        }
        Some(if k == "nullable" {
            Self::OpenApiNullable
        } else if let Some(meant) = did_you_mean(k) {
            Self::Typo(Typo {
                keyword: k.to_owned(),
                meant,
            })
        } else {
            Self::Other
        })
    }
}

/// A keyword typo: `keyword` is no keyword, and probably meant `meant`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Typo {
    pub keyword: String,
    pub meant: &'static str,
}

impl Typo {
    pub(crate) fn message(&self) -> String {
        format!(
            "unknown keyword `{}` is ignored, so this constraint is not enforced",
            self.keyword
        )
    }

    pub(crate) fn fix(&self) -> String {
        format!("rename it to `{}`", self.meant)
    }
}

/// Every keyword typo of the schema `doc`, with its JSON Pointer (lint's rule
/// `keyword_typo`).
pub(crate) fn typos(doc: &Value) -> Vec<(String, Typo)> {
    let mut out = Vec::new();
    walk(doc, "", &mut |v, p| {
        let Value::Object(o) = v else { return };
        for k in o.keys() {
            if let Some(Unknown::Typo(t)) = Unknown::of(k) {
                out.push((format!("{p}/{}", crate::pointer::escape(k)), t));
            }
        }
    });
    out
}

/// The known keyword `k` was probably meant as, if any.
pub(super) fn did_you_mean(k: &str) -> Option<&'static str> {
    if k.chars().count() < 3 {
        return None;
    }
    let lower = k.to_ascii_lowercase();
    KNOWN
        .iter()
        .map(|w| (distance(&lower, &w.to_ascii_lowercase()), *w))
        .filter(|(d, w)| *d <= if w.len() > 6 { 2 } else { 1 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, w)| w)
}
