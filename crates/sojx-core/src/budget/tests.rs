//! The budget walk's and the depth measure's unit tests.
use super::*;
use serde_json::json;

struct Offline;

impl Retrieve for Offline {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("offline: {uri}").into())
    }
}

fn graph(schema: &Value) -> Graph {
    Graph::new(schema, None, Draft::Draft202012, Offline).unwrap()
}

/// `n` definitions `{prefix}0` … each a `$ref` to the next, under `at` (a JSON Pointer
/// prefix), the last `last`.
fn chain_defs(
    defs: &mut serde_json::Map<String, Value>,
    prefix: &str,
    at: &str,
    n: usize,
    last: Value,
) {
    for i in 0..n {
        defs.insert(
            format!("{prefix}{i}"),
            json!({"$ref": format!("{at}{prefix}{}", i + 1)}),
        );
    }
    defs.insert(format!("{prefix}{n}"), last);
}

#[test]
fn names_are_not_keywords_to_the_depth() {
    // A property or definition called `default` or `enum` is a subschema, not data.
    let mut chain = serde_json::Map::new();
    chain_defs(&mut chain, "c", "#/$defs/enum/", 300, json!({}));
    let schema = json!({
        "properties": {"default": {"$ref": "#/$defs/enum/c0"}},
        "$defs": {"enum": chain},
    });
    assert!(graph(&schema).deeper_than(256));
}

#[test]
fn a_loop_cut_on_one_path_does_not_shorten_another() {
    // X reaches Y, which loops back to X (cut there), then a chain of 200; a second chain of
    // 200 ends in Y. The path b0 … b200 → Y → X → a0 … a200 is over 400 levels, though Y,
    // measured first from X, has one level below it on that way in.
    let mut defs = serde_json::Map::new();
    defs.insert(
        "X".into(),
        json!({"allOf": [{"$ref": "#/$defs/Y"}, {"$ref": "#/$defs/a0"}]}),
    );
    defs.insert("Y".into(), json!({"$ref": "#/$defs/X"}));
    chain_defs(&mut defs, "a", "#/$defs/", 200, json!({}));
    chain_defs(
        &mut defs,
        "b",
        "#/$defs/",
        200,
        json!({"$ref": "#/$defs/Y"}),
    );
    let schema = json!({
        "allOf": [{"$ref": "#/$defs/X"}, {"$ref": "#/$defs/b0"}],
        "$defs": defs,
    });
    assert!(graph(&schema).deeper_than(256));
    assert!(!graph(&schema).deeper_than(500));
}

#[test]
fn depth_counts_each_ref_followed_as_a_level_and_cuts_loops() {
    // Root → $ref d0 → … → $ref d9 → d10: 11 levels by the refs, 12 by `$defs`/d0/….
    let mut defs = serde_json::Map::new();
    for i in 0..10 {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(
        "d10".into(),
        json!({"properties": {"a": {"type": "string"}}}),
    );
    let chain = graph(&json!({"$ref": "#/$defs/d0", "$defs": defs.clone()}));
    assert!(chain.deeper_than(10));
    assert!(!chain.deeper_than(14));
    // A loop is cut where it meets itself, however often it could be followed.
    let looped = graph(
        &json!({"properties": {"next": {"$ref": "#"}}, "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}),
    );
    assert!(!looped.deeper_than(8));
    // Data (`const`, `enum`, …) is not a subschema, however deep.
    let mut deep = json!(1);
    for _ in 0..20 {
        deep = json!({ "a": deep });
    }
    assert!(graph(&json!({"properties": {"a": deep.clone()}})).deeper_than(10));
    assert!(!graph(&json!({"enum": [deep.clone()], "const": deep})).deeper_than(10));
}

#[test]
fn only_schemas_that_can_blow_up_are_walked() {
    let verdict: Value =
        serde_json::from_str(include_str!("../../../../examples/verdict.schema.json")).unwrap();
    assert!(!walk_needed(&verdict));
    assert!(walk_needed(
        &json!({"$defs": {"a": {}}, "anyOf": [{"$ref": "#/$defs/a"}]})
    ));
    assert!(walk_needed(
        &json!({"properties": {"k": {"pattern": "^(a+(?!x))+$"}}})
    ));
    assert!(walk_needed(&json!({"patternProperties": {"(a)\\1": {}}})));
    assert!(!walk_needed(
        &json!({"properties": {"k": {"pattern": "^(a+)+$"}}})
    ));
    let wide: serde_json::Map<String, Value> = (0..200)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    assert!(walk_needed(&json!({"properties": wide})));
}

#[test]
fn backtracking_patterns_are_recognized() {
    for p in ["^(a+(?!x))+$", "(?<=a)b", "(a)\\1", "a++", "(?>a)"] {
        assert!(backtracks(p), "{p}");
    }
    assert!(!backtracks("^(a+)+$"));
    assert!(!backtracks("^\\d+$"));
}

#[test]
fn regex_limit_shrinks_with_the_matches() {
    let c = |m| Cost {
        steps: 0,
        budget: 1,
        fancy_matches: m,
        too_deep: false,
    };
    assert_eq!(c(0).regex_limit(), 100_000);
    assert_eq!(c(10).regex_limit(), 100_000);
    assert_eq!(c(11).regex_limit(), 10_000);
    assert_eq!(c(20_000).regex_limit(), 100);
}

#[test]
fn sites_are_located_as_the_validator_reports_them() {
    let schema = json!({
        "$defs": {"p": {"pattern": "(?!x)a"}},
        "properties": {"a/b": {"items": {"$ref": "#/$defs/p"}}},
        "patternProperties": {"(?<=k)y": true},
        "propertyNames": {"anyOf": [{"pattern": "(a)\\1"}]},
    });
    let graph = graph(&schema);
    let sites = graph.sites(&json!({"a/b": ["s", 1]}));
    let located: Vec<(&str, &str, &str)> = sites
        .iter()
        .map(|s| {
            (
                s.instance_location.as_str(),
                s.keyword_location.as_str(),
                s.subject.as_str(),
            )
        })
        .collect();
    assert_eq!(
        located,
        [
            ("", "/patternProperties/(?<=k)y", "a/b"),
            ("/a~1b/0", "/properties/a~1b/items/$ref/pattern", "s"),
            ("", "/propertyNames/anyOf/0/pattern", "a/b"),
        ]
    );
    assert_eq!(graph.cost(&json!({"a/b": ["s", 1]})).fancy_matches, 4);
}

#[test]
fn nodes_count_keys() {
    assert_eq!(nodes(&json!({"a": [1, 2]})), 5);
}
