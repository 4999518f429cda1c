//! How deep a schema nests its subschemas, each `$ref` followed counting one level: measured
//! once, before the schema is compiled ([`super::SCHEMA_DEPTH`]).

use std::collections::{HashMap, HashSet};

use jsonschema::Draft;
use referencing::Resolver;
use serde_json::Value;

use super::{Graph, REFS, enter, follow};

impl Graph {
    /// Whether the schema nests subschemas more than `limit` levels deep, each `$ref` followed
    /// counting one level ([`SCHEMA_DEPTH`]). Linear in the schema: each subschema is measured
    /// once, and the measure stops as soon as it passes `limit`.
    pub(crate) fn deeper_than(&self, limit: u32) -> bool {
        let resolver = self.registry.resolver(self.base.clone());
        let Ok(root) = resolver.lookup("") else {
            return false;
        };
        let (schema, resolver, draft) = root.into_inner();
        let draft = if draft == Draft::Unknown {
            self.draft
        } else {
            draft
        };
        let mut depth = Depth {
            limit,
            below: HashMap::new(),
            on_path: HashSet::new(),
        };
        depth.of(schema, &resolver, draft, 0).is_err()
    }
}

/// Keywords whose value is data, never a subschema (a `$ref` inside is not followed).
const DATA: [&str; 4] = ["const", "enum", "examples", "default"];

/// Measures how deep a schema nests its subschemas ([`Graph::deeper_than`]). Every object and
/// array under a keyword is taken for a subschema (an over-count for annotations, which only
/// nest as deep as the document does).
struct Depth {
    limit: u32,
    /// Levels below each subschema measured, by its address in the registry.
    below: HashMap<usize, u32>,
    /// The subschemas on the current path: meeting one again is a loop, cut there.
    on_path: HashSet<usize>,
}

/// The schema nests deeper than [`Depth::limit`].
struct TooDeep;

impl Depth {
    /// Levels below `v`, which is `depth` levels below the root.
    fn of(
        &mut self,
        v: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        depth: u32,
    ) -> Result<u32, TooDeep> {
        if depth > self.limit {
            return Err(TooDeep);
        }
        let key = std::ptr::from_ref(v) as usize;
        if let Some(&below) = self.below.get(&key) {
            return if depth.saturating_add(below) > self.limit {
                Err(TooDeep)
            } else {
                Ok(below)
            };
        }
        if !self.on_path.insert(key) {
            return Ok(0);
        }
        let below = self.children(v, resolver, draft, depth);
        self.on_path.remove(&key);
        let below = below?;
        self.below.insert(key, below);
        Ok(below)
    }

    fn children(
        &mut self,
        v: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        depth: u32,
    ) -> Result<u32, TooDeep> {
        let mut below = 0;
        match v {
            Value::Object(o) => {
                let entered = enter(resolver, draft, v);
                let resolver = entered.as_ref().unwrap_or(resolver);
                for (k, x) in o {
                    let b = match (k.as_str(), x) {
                        (k, _) if DATA.contains(&k) => continue,
                        (k, Value::String(r)) if REFS.contains(&k) => {
                            let Some((target, inner, d)) = follow(resolver, k, r, draft) else {
                                continue;
                            };
                            self.of(target, &inner, d, depth + 1)?
                        }
                        (_, Value::Object(_) | Value::Array(_)) => {
                            self.of(x, resolver, draft, depth + 1)?
                        }
                        _ => continue,
                    };
                    below = below.max(b + 1);
                }
            }
            Value::Array(a) => {
                for x in a.iter().filter(|x| x.is_object() || x.is_array()) {
                    below = below.max(self.of(x, resolver, draft, depth + 1)? + 1);
                }
            }
            _ => {}
        }
        Ok(below)
    }
}
