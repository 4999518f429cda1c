//! The work a validation may take, bounded before it starts.
//!
//! The `jsonschema` crate validates exactly, but on an invalid value it explores every branch of
//! `anyOf`/`oneOf` and builds every branch's errors. When branches `$ref` a shared definition
//! that itself branches, the work doubles per level (22 levels: 27 s and 6.4 GB, then an abort),
//! and the crate has no budget of its own. Its regex engine bounds each match by a backtracking
//! limit, but not their number: 20,000 keys against a catastrophic `patternProperties` pattern
//! cost 20,000 times that limit.
//!
//! So before the crate runs, sojx walks the schema along the value and counts an upper bound of
//! the crate's work: every subschema that could be applied to every node of the value (all
//! branches, both sides of `if`, every `$ref` followed; `$ref` loops on the same node cut), and
//! every match of a lookaround or backreference pattern (the only ones the backtracking engine
//! runs; other patterns run in the linear-time `regex` engine). The walk stops as soon as it
//! passes the budget, so it is itself bounded. Within the budget the crate runs as before and
//! its answer is exact; past it, the value gets a typed error naming the bound.

use jsonschema::{Draft, Registry, Retrieve};

mod depth;
use referencing::Resolver;
use serde_json::Value;

/// Subschema applications allowed for one value: this many, or [`STEPS_PER_NODE`] per node of the
/// value when that is more.
pub const STEP_BUDGET: u64 = 200_000;

/// Subschema applications allowed per node of the value (its objects, arrays, keys and scalars).
pub const STEPS_PER_NODE: u64 = 100;

/// Backtracking steps allowed for one value, shared by its lookaround/backreference matches.
pub const REGEX_BUDGET: u64 = 1_000_000;

/// Backtracking limits per match that schemas are compiled with, the first the default; a value
/// whose matches would exceed [`REGEX_BUDGET`] at one limit gets the next.
pub const REGEX_LIMITS: [usize; 4] = [100_000, 10_000, 1_000, 100];

/// Subschemas nested in one another in a schema, each `$ref` followed counting one level (a
/// `$ref` loop is cut where it meets itself), checked before the schema is compiled: the
/// `jsonschema` crate compiles a chain of `$ref`s in time that grows with its square (80,000
/// `$defs` each a `$ref` to the next: 11 s and 210 MB), and sojx's walk and the validator recurse
/// along it (a chain of 20,000 overflowed sojx's stack).
pub const SCHEMA_DEPTH: u32 = 2_000;

/// Subschemas nested in one another along one path of a value's walk: each `$ref` followed, each
/// in-place keyword (`allOf`, `not`, …) and each member or item of the value one level. A `$ref`
/// loop that descends the value (a recursive schema) passes [`SCHEMA_DEPTH`] but not this: the
/// value gets a typed error before the validator, whose recursion follows the same path, runs.
pub const WALK_DEPTH: u32 = 1_000;

/// What the walk found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// Subschema applications counted (an upper bound of the crate's).
    pub steps: u64,
    /// The budget they were counted against.
    pub budget: u64,
    /// Matches of patterns the backtracking engine runs.
    pub fancy_matches: u64,
    /// The walk went deeper than [`WALK_DEPTH`] levels.
    pub too_deep: bool,
}

impl Cost {
    pub fn over(&self) -> bool {
        self.steps > self.budget || self.too_deep
    }

    /// The backtracking limit per match for this value: the largest of [`REGEX_LIMITS`] whose
    /// total over its matches stays within [`REGEX_BUDGET`], else the smallest.
    pub fn regex_limit(&self) -> usize {
        REGEX_LIMITS
            .iter()
            .copied()
            .find(|&l| (l as u64).saturating_mul(self.fancy_matches) <= REGEX_BUDGET)
            .unwrap_or(REGEX_LIMITS[REGEX_LIMITS.len() - 1])
    }
}

/// The schema indexed for the walk: every resource the validator reads, with its URIs.
pub struct Graph {
    registry: Registry<'static>,
    base: jsonschema::Uri<String>,
    draft: Draft,
}

impl Graph {
    /// Index `document` at `base` (`None`: the crate's default base), reading references with
    /// `retriever`; `None` when it cannot be indexed (then the validator could not be built
    /// either, and nothing is walked).
    pub fn new(
        document: &Value,
        base: Option<&str>,
        draft: Draft,
        retriever: impl Retrieve + 'static,
    ) -> Option<Graph> {
        let base = jsonschema::uri::from_str(base.unwrap_or("json-schema:///")).ok()?;
        let registry = Registry::new()
            .draft(draft)
            .retriever(retriever)
            .add(base.as_str(), draft.create_resource(document.clone()))
            .ok()?
            .prepare()
            .ok()?;
        Some(Graph {
            registry,
            base,
            draft,
        })
    }

    /// The cost of validating `value`, counted until it passes the budget.
    pub fn cost(&self, value: &Value) -> Cost {
        let budget = STEP_BUDGET.max(STEPS_PER_NODE.saturating_mul(nodes(value)));
        let mut walk = Walk {
            steps: 0,
            budget,
            fancy: 0,
            refs: Vec::new(),
            depth: 0,
            too_deep: false,
            trail: None,
        };
        self.walk(&mut walk, value);
        walk.cost()
    }

    /// Every match of a backtracking pattern that validating `value` could run, with where the
    /// validator would report it. For a value whose [`Graph::cost`] is within the budget.
    pub fn sites(&self, value: &Value) -> Vec<Site> {
        let mut walk = Walk {
            steps: 0,
            budget: u64::MAX,
            fancy: 0,
            refs: Vec::new(),
            depth: 0,
            too_deep: false,
            trail: Some(Trail::default()),
        };
        self.walk(&mut walk, value);
        walk.trail.map(|t| t.sites).unwrap_or_default()
    }

    fn walk(&self, walk: &mut Walk, value: &Value) {
        let resolver = self.registry.resolver(self.base.clone());
        let Ok(root) = resolver.lookup("") else {
            return;
        };
        let (schema, resolver, draft) = root.into_inner();
        let draft = if draft == Draft::Unknown {
            self.draft
        } else {
            draft
        };
        let _ = walk.schema(schema, &resolver, draft, value);
    }
}

/// A match of a backtracking pattern against a string of the value, located as the validator
/// locates its errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// JSON Pointer to the string (`pattern`) or to the object whose key is matched
    /// (`patternProperties`).
    pub instance_location: String,
    /// JSON Pointer to the keyword along the evaluation path (`$ref`s included).
    pub keyword_location: String,
    pub pattern: String,
    pub subject: String,
}

/// Where the walk is, when it records [`Site`]s.
#[derive(Default)]
struct Trail {
    instance: String,
    keyword: String,
    sites: Vec<Site>,
}

/// Append one JSON Pointer segment.
fn push_segment(pointer: &mut String, segment: &dyn std::fmt::Display) {
    pointer.push('/');
    pointer.push_str(&crate::pointer::escape(&segment.to_string()));
}

/// Nodes of a value: every object, array, key and scalar.
fn nodes(v: &Value) -> u64 {
    match v {
        Value::Object(m) => 1 + m.values().map(|x| 1 + nodes(x)).sum::<u64>(),
        Value::Array(a) => 1 + a.iter().map(nodes).sum::<u64>(),
        _ => 1,
    }
}

/// The walk ran past its budget.
struct Over;

struct Walk {
    steps: u64,
    budget: u64,
    fancy: u64,
    /// `$ref` targets being walked, with the value node each is applied to: a target met again
    /// on the same node is a loop, which the crate cuts too.
    refs: Vec<(usize, usize)>,
    /// Subschemas nested along the current path ([`WALK_DEPTH`]).
    depth: u32,
    too_deep: bool,
    /// Where the walk is, when it records sites; `None` when it only counts.
    trail: Option<Trail>,
}

/// The reference keywords.
const REFS: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];

/// The resolver inside `schema` (`draft`'s), when `schema` is a resource of its own (`$id`).
fn enter<'r>(resolver: &Resolver<'r>, draft: Draft, schema: &'r Value) -> Option<Resolver<'r>> {
    resolver
        .in_subresource(draft.create_resource_ref(schema))
        .ok()
}

/// What `keyword` (one of [`REFS`]) with `reference` points to, with its resolver and draft
/// (`draft` when it names none); `None` when it does not resolve (the validator reports it).
fn follow<'r>(
    resolver: &Resolver<'r>,
    keyword: &str,
    reference: &str,
    draft: Draft,
) -> Option<(&'r Value, Resolver<'r>, Draft)> {
    let found = if keyword == "$recursiveRef" {
        resolver.lookup_recursive_ref()
    } else {
        resolver.lookup(reference)
    };
    let (target, inner, target_draft) = found.ok()?.into_inner();
    let d = if target_draft == Draft::Unknown {
        draft
    } else {
        target_draft
    };
    Some((target, inner, d))
}

/// Keywords whose value is a subschema applied to the same node.
const IN_PLACE: [&str; 4] = ["not", "if", "then", "else"];
/// Keywords whose value is an array of subschemas applied to the same node.
const IN_PLACE_ALL: [&str; 3] = ["allOf", "anyOf", "oneOf"];
/// Keywords whose value maps names to subschemas applied to the same node.
const IN_PLACE_MAP: [&str; 2] = ["dependentSchemas", "dependencies"];
/// Keywords whose value is a subschema applied to every element of an array.
const EACH_ITEM: [&str; 4] = ["items", "additionalItems", "contains", "unevaluatedItems"];
/// Keywords whose value is a subschema applied to every member value of an object.
const EACH_MEMBER: [&str; 2] = ["additionalProperties", "unevaluatedProperties"];

impl Walk {
    fn cost(&self) -> Cost {
        Cost {
            steps: self.steps,
            budget: self.budget,
            fancy_matches: self.fancy,
            too_deep: self.too_deep,
        }
    }

    fn step(&mut self, n: u64) -> Result<(), Over> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.budget {
            Err(Over)
        } else {
            Ok(())
        }
    }

    /// Run `f` one level down: `keyword` segments appended to the evaluation path and `instance`
    /// to the instance location, when the walk records sites.
    fn within(
        &mut self,
        keyword: &[&dyn std::fmt::Display],
        instance: Option<&dyn std::fmt::Display>,
        f: impl FnOnce(&mut Self) -> Result<(), Over>,
    ) -> Result<(), Over> {
        let Some(t) = self.trail.as_mut() else {
            return f(self);
        };
        let (k, i) = (t.keyword.len(), t.instance.len());
        for s in keyword {
            push_segment(&mut t.keyword, *s);
        }
        if let Some(s) = instance {
            push_segment(&mut t.instance, s);
        }
        let r = f(self);
        if let Some(t) = self.trail.as_mut() {
            t.keyword.truncate(k);
            t.instance.truncate(i);
        }
        r
    }

    /// Count a match of a backtracking pattern (`keyword` its segments below the current
    /// evaluation path), and record it when the walk records sites.
    fn fancy_match(&mut self, keyword: &[&str], pattern: &str, subject: &str) {
        self.fancy = self.fancy.saturating_add(1);
        if let Some(t) = self.trail.as_mut() {
            let mut keyword_location = t.keyword.clone();
            for s in keyword {
                push_segment(&mut keyword_location, s);
            }
            t.sites.push(Site {
                instance_location: t.instance.clone(),
                keyword_location,
                pattern: pattern.to_owned(),
                subject: subject.to_owned(),
            });
        }
    }

    /// Walk `schema` applied to `value`, one level deeper.
    fn schema(
        &mut self,
        schema: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        value: &Value,
    ) -> Result<(), Over> {
        if self.depth >= WALK_DEPTH {
            self.too_deep = true;
            return Err(Over);
        }
        self.depth += 1;
        let walked = self.applied(schema, resolver, draft, value);
        self.depth -= 1;
        walked
    }

    fn applied(
        &mut self,
        schema: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        value: &Value,
    ) -> Result<(), Over> {
        self.step(1)?;
        let Value::Object(o) = schema else {
            return Ok(());
        };
        let entered = enter(resolver, draft, schema);
        let resolver = entered.as_ref().unwrap_or(resolver);
        for key in REFS {
            let Some(Value::String(r)) = o.get(key) else {
                continue;
            };
            let Some((target, inner, d)) = follow(resolver, key, r, draft) else {
                continue;
            };
            let visit = (
                std::ptr::from_ref(target) as usize,
                std::ptr::from_ref(value) as usize,
            );
            if self.refs.contains(&visit) {
                continue;
            }
            self.refs.push(visit);
            let r = self.within(&[&key], None, |w| w.schema(target, &inner, d, value));
            self.refs.pop();
            r?;
        }
        for key in IN_PLACE {
            if let Some(s) = o.get(key) {
                self.within(&[&key], None, |w| w.schema(s, resolver, draft, value))?;
            }
        }
        for key in IN_PLACE_ALL {
            if let Some(Value::Array(all)) = o.get(key) {
                for (i, s) in all.iter().enumerate() {
                    self.within(&[&key, &i], None, |w| w.schema(s, resolver, draft, value))?;
                }
            }
        }
        for key in IN_PLACE_MAP {
            if let Some(Value::Object(m)) = o.get(key) {
                for (name, s) in m.iter().filter(|(_, s)| s.is_object() || s.is_boolean()) {
                    self.within(&[&key, name], None, |w| w.schema(s, resolver, draft, value))?;
                }
            }
        }
        if let (Some(Value::String(p)), Value::String(subject)) = (o.get("pattern"), value)
            && backtracks(p)
        {
            self.fancy_match(&["pattern"], p, subject);
        }
        match value {
            Value::Object(members) => self.members(o, members, resolver, draft)?,
            Value::Array(items) => self.items(o, items, resolver, draft)?,
            _ => {}
        }
        Ok(())
    }

    fn members(
        &mut self,
        o: &serde_json::Map<String, Value>,
        members: &serde_json::Map<String, Value>,
        resolver: &Resolver<'_>,
        draft: Draft,
    ) -> Result<(), Over> {
        let properties = o.get("properties").and_then(Value::as_object);
        let patterns = o.get("patternProperties").and_then(Value::as_object);
        if let Some(p) = patterns {
            let fancy: Vec<&String> = p.keys().filter(|k| backtracks(k)).collect();
            for k in members.keys() {
                for &p in &fancy {
                    // Each key against each pattern, by `patternProperties` and again by
                    // `additionalProperties` (recorded once: both report it at the former).
                    self.fancy_match(&["patternProperties", p], p, k);
                    self.fancy = self.fancy.saturating_add(1);
                }
            }
        }
        let names = o.get("propertyNames");
        for (k, v) in members {
            if let Some(s) = properties.and_then(|p| p.get(k)) {
                self.within(&[&"properties", k], Some(k), |w| {
                    w.schema(s, resolver, draft, v)
                })?;
            }
            for (p, s) in patterns.into_iter().flatten() {
                self.within(&[&"patternProperties", p], Some(k), |w| {
                    w.schema(s, resolver, draft, v)
                })?;
            }
            for key in EACH_MEMBER {
                if let Some(s) = o.get(key) {
                    self.within(&[&key], Some(k), |w| w.schema(s, resolver, draft, v))?;
                }
            }
            if let Some(s) = names {
                self.within(&[&"propertyNames"], None, |w| {
                    w.schema(s, resolver, draft, &Value::String(k.clone()))
                })?;
            }
        }
        Ok(())
    }

    fn items(
        &mut self,
        o: &serde_json::Map<String, Value>,
        items: &[Value],
        resolver: &Resolver<'_>,
        draft: Draft,
    ) -> Result<(), Over> {
        let prefix = match (o.get("prefixItems"), o.get("items")) {
            (Some(Value::Array(p)), _) => ("prefixItems", p.as_slice()),
            (None, Some(Value::Array(p))) => ("items", p.as_slice()),
            _ => ("", &[][..]),
        };
        for (i, v) in items.iter().enumerate() {
            if let Some(s) = prefix.1.get(i) {
                self.within(&[&prefix.0, &i], Some(&i), |w| {
                    w.schema(s, resolver, draft, v)
                })?;
            }
            for key in EACH_ITEM {
                if let Some(s) = o.get(key).filter(|s| !s.is_array()) {
                    self.within(&[&key], Some(&i), |w| w.schema(s, resolver, draft, v))?;
                }
            }
        }
        Ok(())
    }
}

/// Whether values need the walk at all. A schema without references (`$ref`, `$dynamicRef`,
/// `$recursiveRef`) is a tree: each of its subschemas applies at most once to each node of the
/// value, so with at most [`STEPS_PER_NODE`] subschemas the walk could never find the budget
/// passed; and without a backtracking pattern it would find no match to share the regex budget
/// among. Such a schema (most answer schemas) skips the walk, which would otherwise cost about
/// as much as the validation (measured: 200,000 verdicts, 1.6 s without it, 2.6 s with it).
/// Objects and booleans anywhere in the document are counted as subschemas: an over-count, which
/// only makes the walk run more often.
pub fn walk_needed(schema: &Value) -> bool {
    let mut subschemas = 0u64;
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                subschemas += 1;
                for (k, x) in m {
                    let pattern_backtracks = match (k.as_str(), x) {
                        ("pattern", Value::String(p)) => backtracks(p),
                        ("patternProperties", Value::Object(ps)) => {
                            ps.keys().any(|p| backtracks(p))
                        }
                        _ => false,
                    };
                    if matches!(k.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef")
                        || pattern_backtracks
                    {
                        return true;
                    }
                    stack.push(x);
                }
            }
            Value::Array(a) => stack.extend(a),
            Value::Bool(_) => subschemas += 1,
            _ => {}
        }
        if subschemas > STEPS_PER_NODE {
            return true;
        }
    }
    false
}

/// Whether a pattern needs the backtracking engine: lookarounds, backreferences, atomic groups,
/// possessive quantifiers or conditionals (everything else runs in linear time).
pub(crate) fn backtracks(pattern: &str) -> bool {
    const MARKS: [&str; 10] = [
        "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?(", "\\k", "++", "*+", "?+",
    ];
    if MARKS.iter().any(|m| pattern.contains(m)) || pattern.contains("}+") {
        return true;
    }
    let b = pattern.as_bytes();
    b.windows(2)
        .any(|w| w[0] == b'\\' && (b'1'..=b'9').contains(&w[1]))
}

#[cfg(test)]
mod tests;
