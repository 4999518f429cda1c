use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;

fn obj(k: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(k.to_owned(), v);
    Value::Object(m)
}

/// serde_json's own `Value` reading, for comparison.
fn serde(text: &str) -> Result<Value, String> {
    serde_json::from_str::<Value>(text).map_err(|e| e.to_string())
}

fn exact(text: &str) -> Result<Value, String> {
    from_str(text).map_err(|e| e.to_string())
}

/// Serialized with its members in order: equal bytes, not only equal maps.
fn bytes(v: &Result<Value, String>) -> Result<String, String> {
    v.as_ref().map(Value::to_string).map_err(Clone::clone)
}

#[test]
fn the_private_key_is_a_key() {
    let five = obj(PRIVATE_NUMBER, json!("5"));
    assert_eq!(
        exact(r#"{"$serde_json::private::Number":"5"}"#),
        Ok(five.clone())
    );
    assert_eq!(
        serde(r#"{"$serde_json::private::Number":"5"}"#),
        Ok(json!(5))
    );
    assert_eq!(
        exact(r#"{"x":{"$serde_json::private::Number":"5"}}"#),
        Ok(obj("x", five.clone()))
    );
    assert_eq!(
        exact(r#"{"$serde_json::private::Number":null}"#),
        Ok(obj(PRIVATE_NUMBER, Value::Null))
    );
    assert!(serde(r#"{"$serde_json::private::Number":null}"#).is_err());
    for spelled in [
        r#"{"\u0024serde_json::private::Number":"5"}"#,
        r#"{"$serde_json::\u0070rivate::Number":"5"}"#,
        r#"{"$serde_json::private::\u004Eumber":"5"}"#,
        r#"{"$serde_json::private::Numbe\u0072":"5"}"#,
        "{ \"$serde_json::private::Number\" :\n\"5\" }",
    ] {
        assert_eq!(exact(spelled), Ok(five.clone()), "{spelled}");
        assert!(might_hold_private_key(spelled.as_bytes()), "{spelled}");
    }
    // The key anywhere, with other members, and as a string value.
    let text = r#"[1,{"a":2,"$serde_json::private::Number":3},{"$serde_json::private::Number":{"b":[4.50,-0,1e400]},"c":"$serde_json::private::Number"}]"#;
    let v = exact(text).unwrap();
    // (serde_json writes an exponent with its sign.)
    assert_eq!(v.to_string(), text.replace("1e400", "1e+400"));
    assert_eq!(v[2][PRIVATE_NUMBER]["b"][0].to_string(), "4.50");
}

#[test]
fn numbers_and_errors_are_serde_jsons() {
    for text in [
        "5",
        "-0",
        "1.50",
        "1e400",
        "123456789012345678901234567890",
        "[1, 2.0, {\"a\": 3}]",
        r#"{"a":1,"a":2,"b":3}"#,
        r#"{"a":"\ud83d"}"#,
        r#"{"a":1,}"#,
        "[1 2]",
        "{\"a\":nul}",
        "\"\u{1}\"",
        r#"{"\u0041":1}"#,
        "",
        " ",
        "1 2",
    ] {
        let t = format!("[{text}]");
        for t in [text, t.as_str()] {
            let got = serde_json::from_str::<Exact>(t)
                .map(|e| e.0)
                .map_err(|e| e.to_string());
            assert_eq!(bytes(&got), bytes(&serde(t)), "{t}");
            assert_eq!(bytes(&exact(t)), bytes(&serde(t)), "{t}");
        }
    }
    // serde_json's recursion limit, the same error at the same place.
    for depth in [127, 128, 129, 200] {
        let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let got = serde_json::from_str::<Exact>(&deep)
            .map(|e| e.0)
            .map_err(|e| e.to_string());
        assert_eq!(bytes(&got), bytes(&serde(&deep)), "{depth}");
    }
}

#[test]
fn first_value_and_offset() {
    let (v, at) = first_value(br#" {"$serde_json::private::Number":"5"} tail"#).unwrap();
    assert_eq!(v.unwrap(), obj(PRIVATE_NUMBER, json!("5")));
    assert_eq!(at, 37);
    let (v, at) = first_value(b"[1] tail").unwrap();
    assert_eq!((v.unwrap(), at), (json!([1]), 3));
    assert!(first_value(b"  ").is_none());
}

#[test]
fn lone_surrogates_read_as_replacement_characters() {
    let r = from_str_lenient(r#"{"a":"\ud83d x"}"#).unwrap();
    assert_eq!(r.value, json!({"a": "\u{fffd} x"}));
    assert!(r.lone_surrogates);
    let r = from_str_lenient(r#"{"a":"\ud83d\ude00"}"#).unwrap();
    assert_eq!((r.value, r.lone_surrogates), (json!({"a": "😀"}), false));
    let e = from_str_lenient(r#"{"a":"\ud83d" x}"#).unwrap_err();
    assert_eq!(e.to_string(), serde(r#"{"a":"\ud83d" x}"#).unwrap_err());
    let r = from_str_lenient(r#"{"$serde_json::private::Number":"\udc00"}"#).unwrap();
    assert_eq!(r.value, obj(PRIVATE_NUMBER, json!("\u{fffd}")));
}

#[test]
fn the_pre_check_is_cheap_to_pass() {
    for text in [
        r#"{"a":"private Number","b":"\u00e9\u003c\n"}"#,
        r#"{"serde_json":"private:: Number"}"#,
    ] {
        assert!(!might_hold_private_key(text.as_bytes()), "{text}");
    }
    assert!(might_hold_private_key(br#"{"a":"\u0061"}"#));
    assert!(!might_hold_private_key(br#"{"a":"\u0041"}"#));
    assert!(might_hold_private_key(b"private::Number"));
}

/// Any value, with keys drawn from the private key, its prefixes and plain names.
fn values() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just(PRIVATE_NUMBER.to_owned()),
        Just("$serde_json::private::".to_owned()),
        Just("$".to_owned()),
        Just("a".to_owned()),
        "[a-z$:é😀\\\\\"]{0,6}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,4})?([eE][+-]?[0-9]{1,3})?"
            .prop_map(|n| n.parse::<Number>().map_or(Value::Null, Value::Number)),
        prop_oneof![Just(PRIVATE_NUMBER.to_owned()), "[a-z$ é\\n\"\\\\]{0,8}"]
            .prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `text` with the private key's characters at `which` written as `\u00XX` escapes.
fn escape_key(text: &str, which: &[bool]) -> String {
    let mut spelled = String::from("\"");
    for (i, c) in PRIVATE_NUMBER.chars().enumerate() {
        if which.get(i).copied().unwrap_or(false) {
            spelled.push_str(&format!("\\u{:04X}", c as u32));
        } else {
            spelled.push(c);
        }
    }
    spelled.push('"');
    text.replace(&format!("\"{PRIVATE_NUMBER}\""), &spelled)
}

/// JSON texts and near-JSON texts: spacing, escapes (of the key's characters too), lone
/// surrogates, exponents, duplicate keys, broken syntax.
fn texts() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z :,{}\\[\\]$]{0,4}",
        Just("\\u0041".to_owned()),
        Just("\\u0024".to_owned()),
        Just("\\u004e".to_owned()),
        Just("\\ud83e\\udd80".to_owned()),
        Just("\\ud83e".to_owned()),
        Just("\\n".to_owned()),
        Just("\\\"".to_owned()),
        Just("\\x".to_owned()),
        Just("\u{1}".to_owned()),
        Just("é🦀".to_owned()),
    ];
    let string = proptest::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()));
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("fals".to_owned()),
        "-?(0|[1-9][0-9]{0,22}|00)(\\.[0-9]{0,4})?([eE][+-]?[0-9]{1,2})?",
        string.clone(),
    ];
    leaf.prop_recursive(5, 48, 5, move |inner| {
        let key = prop_oneof![
            Just("\"a\"".to_owned()),
            Just(format!("\"{PRIVATE_NUMBER}\"")),
            Just("\"\\u0024serde_json::private::Number\"".to_owned()),
            string.clone()
        ];
        let ws = prop_oneof![Just(""), Just(" "), Just("\n")];
        prop_oneof![
            (proptest::collection::vec(inner.clone(), 0..5), ws.clone())
                .prop_map(|(items, w)| format!("[{w}{}]", items.join(&format!(",{w}")))),
            (proptest::collection::vec((key, inner), 0..5), ws).prop_map(|(members, w)| {
                let m: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("{k}{w}:{w}{v}"))
                    .collect();
                format!("{{{w}{}{w}}}", m.join(","))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// Any value written out, with the private key anywhere and spelled any way, reads back
    /// as the same value (the same bytes when written again).
    #[test]
    fn any_value_round_trips(v in values(), which in proptest::collection::vec(any::<bool>(), 28), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        let text = escape_key(&text, &which);
        let got = from_str(&text).unwrap();
        prop_assert_eq!(got.to_string(), v.to_string());
        prop_assert_eq!(from_slice(text.as_bytes()).unwrap().to_string(), v.to_string());
        let got = from_str_lenient(&text).unwrap();
        prop_assert!(!got.lone_surrogates);
        prop_assert_eq!(got.value.to_string(), v.to_string());
    }

    /// On any text, near-JSON or not, the exact reading is serde_json's (value bytes or error
    /// message) wherever serde_json's is not the private key's: the common path is unchanged.
    #[test]
    fn the_common_path_is_serde_jsons(text in texts()) {
        let theirs = serde(&text);
        let ours = serde_json::from_str::<Exact>(&text).map(|e| e.0).map_err(|e| e.to_string());
        if !might_hold_private_key(text.as_bytes()) {
            prop_assert_eq!(bytes(&exact(&text)), bytes(&theirs));
            prop_assert_eq!(bytes(&ours), bytes(&theirs));
        } else if !text.contains(PRIVATE_NUMBER) && !text.contains("\\u0024serde") {
            prop_assert_eq!(bytes(&ours), bytes(&theirs));
        }
        prop_assert_eq!(bytes(&exact(&text)), bytes(&ours));
    }
}
