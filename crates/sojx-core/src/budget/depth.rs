//! How deep a schema nests its subschemas, each `$ref` followed counting one level: measured
//! once, before the schema is compiled ([`super::SCHEMA_DEPTH`]).

use std::collections::HashMap;

use jsonschema::Draft;
use referencing::Resolver;
use serde_json::Value;

use super::{Graph, REFS, enter, follow};

impl Graph {
    /// Whether the schema nests subschemas more than `limit` levels deep, each `$ref` followed
    /// counting one level ([`super::SCHEMA_DEPTH`]); the measure stops as soon as it passes
    /// `limit`. A subschema outside `$ref` loops is measured once; one inside a loop again from
    /// each way in, so that a loop cut on one path never shortens another. When that takes more
    /// than [`VISITS`] steps (large mutually recursive definitions), each subschema is measured
    /// once, from the first way in, as the validator compiles it: linear either way.
    pub fn deeper_than(&self, limit: u32) -> bool {
        // The measure recurses once per level: on a stack of its own, as deep as any limit
        // needs, whichever thread compiles the schema.
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("sojx-schema-depth".to_owned())
                .stack_size(MEASURE_STACK)
                .spawn_scoped(s, || self.measured_deeper_than(limit))
                .ok()
                .and_then(|t| t.join().ok())
        })
        .unwrap_or_else(|| self.measured_deeper_than(limit))
    }

    fn measured_deeper_than(&self, limit: u32) -> bool {
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
        let measure = |exact| {
            let mut depth = Depth {
                limit,
                exact,
                below: HashMap::new(),
                on_path: HashMap::new(),
                visits: 0,
            };
            depth.of(schema, &resolver, draft, 0, false)
        };
        match measure(true) {
            Ok(_) => false,
            Err(Stop::TooDeep) => true,
            // Too many ways through the loops to measure each: measured once each, as the
            // validator compiles them.
            Err(Stop::Visits) => measure(false).is_err(),
        }
    }
}

/// The measuring thread's stack: room for [`super::SCHEMA_DEPTH`] levels of two frames each,
/// many times over (a debug build's frames are the largest).
const MEASURE_STACK: usize = 64 << 20;

/// Subschemas measured (memoised ones not counted) before the exact measure gives way to the
/// one that measures each subschema once.
pub(crate) const VISITS: u32 = 100_000;

/// Keywords whose value is data, never a subschema (a `$ref` inside is not followed).
const DATA: [&str; 4] = ["const", "enum", "examples", "default"];

/// Keywords whose value maps names (of properties, patterns, definitions) to subschemas: its
/// keys are names, never keywords (a property called `default` is a subschema).
const NAMED: [&str; 6] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Measures how deep a schema nests its subschemas ([`Graph::deeper_than`]). Every object and
/// array under a keyword is taken for a subschema (an over-count for annotations, which only
/// nest as deep as the document does).
struct Depth {
    limit: u32,
    /// Measure a subschema inside a `$ref` loop from each way in (else once).
    exact: bool,
    /// Levels below each subschema measured exactly, by its address in the registry.
    below: HashMap<usize, u32>,
    /// The subschemas on the current path, with their depth: meeting one again is a loop, cut
    /// there.
    on_path: HashMap<usize, u32>,
    visits: u32,
}

/// Why the measure stopped.
enum Stop {
    /// The schema nests deeper than [`Depth::limit`].
    TooDeep,
    /// The exact measure took more than [`VISITS`] steps.
    Visits,
}

/// A subschema measured: the levels below it, and the depth of the shallowest subschema on the
/// path above it that a loop inside it was cut at (`u32::MAX`: none). Only a measure cut at
/// nothing above it is exact for every path that reaches it.
#[derive(Clone, Copy)]
struct Measure {
    below: u32,
    cut_above: u32,
}

impl Measure {
    fn leaf() -> Self {
        Measure {
            below: 0,
            cut_above: u32::MAX,
        }
    }

    /// `child`, one level below, taken into this measure.
    fn add(&mut self, child: Measure) {
        self.below = self.below.max(child.below + 1);
        self.cut_above = self.cut_above.min(child.cut_above);
    }
}

impl Depth {
    /// `v`, which is `depth` levels below the root; `names` when its keys are names
    /// ([`NAMED`]).
    fn of(
        &mut self,
        v: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        depth: u32,
        names: bool,
    ) -> Result<Measure, Stop> {
        if depth > self.limit {
            return Err(Stop::TooDeep);
        }
        let key = std::ptr::from_ref(v) as usize;
        if let Some(&below) = self.below.get(&key) {
            return if depth.saturating_add(below) > self.limit {
                Err(Stop::TooDeep)
            } else {
                Ok(Measure {
                    below,
                    cut_above: u32::MAX,
                })
            };
        }
        if let Some(&at) = self.on_path.get(&key) {
            return Ok(Measure {
                below: 0,
                cut_above: at,
            });
        }
        self.visits += 1;
        if self.exact && self.visits > VISITS {
            return Err(Stop::Visits);
        }
        self.on_path.insert(key, depth);
        let m = self.children(v, resolver, draft, depth, names);
        self.on_path.remove(&key);
        let mut m = m?;
        // Cut only at itself (or nothing): exact from any way in.
        if m.cut_above >= depth || !self.exact {
            m.cut_above = u32::MAX;
            self.below.insert(key, m.below);
        }
        Ok(m)
    }

    fn children(
        &mut self,
        v: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        depth: u32,
        names: bool,
    ) -> Result<Measure, Stop> {
        let mut m = Measure::leaf();
        match v {
            Value::Object(o) if names => {
                for x in o.values().filter(|x| x.is_object() || x.is_array()) {
                    m.add(self.of(x, resolver, draft, depth + 1, false)?);
                }
            }
            Value::Object(o) => {
                let entered = enter(resolver, draft, v);
                let resolver = entered.as_ref().unwrap_or(resolver);
                for (k, x) in o {
                    let child = match (k.as_str(), x) {
                        (k, _) if DATA.contains(&k) => continue,
                        (k, Value::String(r)) if REFS.contains(&k) => {
                            let Some((target, inner, d)) = follow(resolver, k, r, draft) else {
                                continue;
                            };
                            self.of(target, &inner, d, depth + 1, false)?
                        }
                        (k, Value::Object(_) | Value::Array(_)) => {
                            self.of(x, resolver, draft, depth + 1, NAMED.contains(&k))?
                        }
                        _ => continue,
                    };
                    m.add(child);
                }
            }
            Value::Array(a) => {
                for x in a.iter().filter(|x| x.is_object() || x.is_array()) {
                    m.add(self.of(x, resolver, draft, depth + 1, false)?);
                }
            }
            _ => {}
        }
        Ok(m)
    }
}
