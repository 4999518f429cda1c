//! `{"$ref": "#/$defs/d0", "$defs": {"d0": {"$ref": "#/$defs/d1"}, …, "dN": {"type": "object"}}}`
//! for each N given: the time `jsonschema::validator_for` takes. Doubling N about quadruples it.

use std::time::Instant;

use serde_json::{Map, Value, json};

fn chain(n: usize) -> Value {
    let mut defs = Map::new();
    for i in 0..n {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(format!("d{n}"), json!({"type": "object"}));
    json!({"$ref": "#/$defs/d0", "$defs": defs})
}

fn main() {
    for n in std::env::args().skip(1) {
        let n: usize = n.parse().expect("a chain length");
        let schema = chain(n);
        let started = Instant::now();
        let validator = jsonschema::validator_for(&schema).expect("compiles");
        let compiled = started.elapsed();
        assert!(validator.is_valid(&json!({})));
        println!("{n:>7} $refs: compiled in {compiled:?}");
    }
}
