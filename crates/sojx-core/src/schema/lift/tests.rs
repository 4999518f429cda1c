//! Lifting's bound.

use super::*;

#[test]
fn a_walk_past_the_bound_is_refused_not_cut_short() {
    // A chain of 1,100 `$ref`s to a map: lifting would have to follow all of them.
    let mut defs = Map::new();
    for i in 0..1100 {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(
        "d1100".into(),
        json!({"type": "array", "items": {"type": "object"}}),
    );
    let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
    let entries = HashSet::from(["/$defs/d1100".to_owned()]);
    let plan = Plan::new("openai", schema, None, HashSet::new(), entries);
    assert_eq!(
        plan.lift(json!([{"key": "a", "value": 1}])),
        Err(Unlifted::TooDeep)
    );
    // Within the bound, the same map is lifted.
    let near = json!({"$defs": {"m": {"type": "array"}}, "$ref": "#/$defs/m"});
    let plan = Plan::new(
        "openai",
        near,
        None,
        HashSet::new(),
        HashSet::from(["/$defs/m".to_owned()]),
    );
    let (v, _) = plan.lift(json!([{"key": "a", "value": 1}])).unwrap();
    assert_eq!(v, json!({"a": 1}));
}
