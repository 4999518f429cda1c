//! The round trip (issue 56): for the example schemas and generated ones (maps, optional
//! properties, non-object roots, arrays of maps, nested optional objects, recursive `$defs`,
//! `anyOf`), and for instances valid under the user's schema, the instance in the lowered shape
//! validates under the lowered schema, and lifting it gives back the instance exactly, for
//! every provider.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

use super::lower;
use crate::provider::{Compat, Provider};
use crate::schema::{Schema, SchemaDoc, Settings};
use crate::warning::WarningKind;

const PROVIDERS: [Provider; 4] = [
    Provider::Openai,
    Provider::Anthropic,
    Provider::Gemini,
    Provider::ClaudeCode,
];

fn compiled(doc: &Value) -> Schema {
    let d = SchemaDoc {
        name: "<test>".into(),
        document: doc.clone(),
        base: None,
    };
    Schema::compiled(d, &Settings::default()).expect("the schema compiles")
}

/// Instances of schema `s` (of document `root`): the subset of JSON Schema the example schemas
/// and the generated ones use. Not every instance is valid (a map's key may be a named
/// property's): the test skips those the user's schema refuses.
fn sample(s: &Value, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let Value::Object(o) = s else {
        return Just(json!("any")).boxed();
    };
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        let target = root
            .pointer(r.trim_start_matches('#'))
            .expect("a local $ref");
        return sample(target, root, depth + 1);
    }
    if let Some(Value::Array(e)) = o.get("enum") {
        return proptest::sample::select(e.clone()).boxed();
    }
    if let Some(c) = o.get("const") {
        return Just(c.clone()).boxed();
    }
    if let Some(Value::Array(any)) = o.get("anyOf") {
        return Union::new(any.iter().map(|b| sample(b, root, depth + 1))).boxed();
    }
    let types: Vec<&str> = match o.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec!["string"],
    };
    Union::new(types.into_iter().map(|t| typed(t, o, root, depth))).boxed()
}

fn typed(t: &str, o: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let deep = depth > 5;
    match t {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "integer" => {
            let min = o.get("minimum").and_then(Value::as_i64).unwrap_or(-50);
            (min..min + 100).prop_map(|i| json!(i)).boxed()
        }
        "number" => (-400i32..400)
            .prop_map(|i| json!(f64::from(i) / 4.0))
            .boxed(),
        "string" if o.get("format") == Some(&json!("date-time")) => {
            Just(json!("2026-11-29T02:00:00Z")).boxed()
        }
        "string" => {
            let min = o.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            proptest::string::string_regex(&format!("[a-z ]{{{min},6}}"))
                .expect("a regex")
                .prop_map(Value::String)
                .boxed()
        }
        "array" => {
            let items = o.get("items").cloned().unwrap_or(json!({}));
            let min = o
                .get("minItems")
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0);
            if deep && min == 0 {
                return Just(json!([])).boxed();
            }
            let max = if deep { min } else { min + 3 };
            proptest::collection::vec(sample(&items, root, depth + 1), min..=max)
                .prop_map(Value::Array)
                .boxed()
        }
        _ => object(o, root, depth),
    }
}

fn object(o: &Map<String, Value>, root: &Value, depth: u32) -> BoxedStrategy<Value> {
    let deep = depth > 5;
    let required: Vec<&str> = o
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let props = o.get("properties").and_then(Value::as_object);
    let named: Vec<BoxedStrategy<Option<(String, Value)>>> = props
        .into_iter()
        .flatten()
        .map(|(name, s)| {
            let is_required = required.contains(&name.as_str());
            if deep && !is_required {
                return Just(None).boxed();
            }
            let name = name.clone();
            let value = sample(s, root, depth + 1).prop_map(move |v| (name.clone(), v));
            if is_required {
                value.prop_map(Some).boxed()
            } else {
                proptest::option::of(value).boxed()
            }
        })
        .collect();
    let mut values: Vec<Value> = o
        .get("patternProperties")
        .and_then(Value::as_object)
        .map(|p| p.values().cloned().collect())
        .unwrap_or_default();
    values.extend(
        o.get("additionalProperties")
            .filter(|a| a.is_object())
            .cloned(),
    );
    let extra: BoxedStrategy<Vec<(String, Value)>> = if values.is_empty() || deep {
        // (Not built when deep: a recursive schema would build strategies without end.)
        Just(Vec::new()).boxed()
    } else {
        let value = Union::new(values.iter().map(|v| sample(v, root, depth + 1)));
        proptest::collection::vec(("[a-z]{1,4}", value), 0..4).boxed()
    };
    (named, extra)
        .prop_map(|(named, extra)| {
            let mut m = Map::new();
            for (k, v) in extra.into_iter().chain(named.into_iter().flatten()) {
                m.insert(k, v);
            }
            Value::Object(m)
        })
        .boxed()
}

/// Generated schemas: leaves, and objects, maps, arrays and `anyOf`s of them.
fn schemas() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "minLength": 1})),
        Just(json!({"type": "integer", "minimum": 0})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"enum": ["low", "high"]})),
        Just(json!({"const": "fixed"})),
        Just(json!({"$ref": "#/$defs/tree"})),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let members = proptest::collection::vec(("[a-z]{1,3}", inner.clone(), any::<bool>()), 1..4);
        prop_oneof![
            members.clone().prop_map(|m| object_schema(m, false)),
            members.prop_map(|m| object_schema(m, true)),
            inner
                .clone()
                .prop_map(|s| json!({"type": "object", "additionalProperties": s})),
            inner
                .clone()
                .prop_map(|s| json!({"type": "object", "patternProperties": {"^[a-z]+$": s}})),
            inner
                .clone()
                .prop_map(|s| json!({"type": "array", "items": s})),
            inner.prop_map(|s| json!({"anyOf": [s, {"type": "boolean"}]})),
        ]
    })
}

/// An object schema with `members` (name, schema, required); an optional member that accepts
/// null is made required (optional and nullable has no exact inverse for OpenAI).
fn object_schema(members: Vec<(String, Value, bool)>, nullable: bool) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for (name, s, req) in members {
        if props.contains_key(&name) {
            continue;
        }
        if req || super::shape::accepts_null(&s, &Value::Null, 0) {
            required.push(json!(name));
        }
        props.insert(name, s);
    }
    let t = if nullable {
        json!(["object", "null"])
    } else {
        json!("object")
    };
    json!({"type": t, "properties": props, "required": required})
}

/// A recursive definition, in every generated schema: a tree with an optional map and an
/// optional list of trees.
fn with_defs(mut s: Value) -> Value {
    if let Value::Object(o) = &mut s {
        o.insert(
            "$defs".into(),
            json!({"tree": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "meta": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}
                },
                "required": ["name"]
            }}),
        );
    }
    s
}

/// The round trip of `instance` through `schema` lowered for `provider`; `false` when the
/// instance is not valid under the schema (the generator's slip), so nothing was checked.
fn round_trip(schema: &Value, instance: &Value, provider: Provider) -> Result<bool, TestCaseError> {
    let user = compiled(schema);
    if !user.is_valid(instance) {
        return Ok(false);
    }
    let doc = SchemaDoc {
        name: "<test>".into(),
        document: schema.clone(),
        base: None,
    };
    let (plan, warnings) = lower(&doc, &Settings::default(), provider, Compat::Lossy)
        .map_err(|f| TestCaseError::fail(f.message))?;
    prop_assert!(
        !warnings.iter().any(|w| w.kind == WarningKind::AbsentAsNull),
        "the generator made an optional nullable property"
    );
    let lowered = compiled(plan.schema());
    let given = plan.lower_value(instance.clone());
    let violations = lowered
        .violations(&given)
        .map_err(|f| TestCaseError::fail(f.message))?;
    prop_assert!(
        violations.is_empty(),
        "{provider:?}: {given} is not valid under {}: {violations:?}",
        plan.schema()
    );
    let lifted = plan.lift(given.clone());
    let back = lifted.map(|(v, _)| v).ok();
    prop_assert_eq!(back.as_ref(), Some(instance));
    // The whole check, as `--provider` runs it: the answer in the lowered shape passes, lifted;
    // the instance in the user's shape, where that differs, never does.
    let mut checked = compiled(schema);
    checked.given_lowered(lowered, plan);
    prop_assert!(
        checked.is_valid(&given),
        "{provider:?}: {given} was refused"
    );
    if given != *instance {
        prop_assert!(
            !checked.is_valid(instance),
            "{provider:?}: {instance}, not in the lowered shape, passed"
        );
    }
    Ok(true)
}

static CHECKED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn generated_schemas_round_trip_exactly() {
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    let case = schemas().prop_map(with_defs).prop_flat_map(|s| {
        let root = s.clone();
        (
            Just(s.clone()),
            proptest::collection::vec(sample(&s, &root, 0), 4),
        )
    });
    runner
        .run(&case, |(schema, instances)| {
            for instance in &instances {
                for p in PROVIDERS {
                    if round_trip(&schema, instance, p)? {
                        CHECKED.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    // 256 schemas × 4 instances × 4 providers = 4,096 at most (a generator's slip is skipped).
    let checked = CHECKED.load(Ordering::Relaxed);
    assert!(checked > 3000, "only {checked} cases were valid instances");
}

#[test]
fn example_schemas_round_trip_exactly() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("schemas/examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).expect("schemas/examples") {
        let path = entry.expect("an entry").path();
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
        let mut runner = TestRunner::new(Config {
            cases: 32,
            failure_persistence: None,
            ..Config::default()
        });
        let root = schema.clone();
        let n = AtomicUsize::new(0);
        runner
            .run(&sample(&schema, &root, 0), |instance| {
                for p in PROVIDERS {
                    if round_trip(&schema, &instance, p)? {
                        n.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let n = n.load(Ordering::Relaxed);
        assert!(n > 0, "{}: no valid instance was generated", path.display());
        checked += n;
    }
    // 5 schemas × 32 instances × 4 providers.
    assert_eq!(checked, 640);
}
