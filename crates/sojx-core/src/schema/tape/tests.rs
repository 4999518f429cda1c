use proptest::prelude::*;
use serde_json::Value;

use jsonschema::json::Node;

use super::*;

/// What the tape holds, as a `Value` (`None`: it did not take the text).
fn taped(text: &str) -> Option<(Value, bool)> {
    let mut tape = Tape::default();
    let doc = tape.read(text.as_bytes())?;
    Some((doc.root().to_value().into_owned(), doc.plain))
}

#[test]
fn reads_what_serde_json_reads() {
    for text in [
        r#"{"a":1,"b":[true,false,null,"x"],"c":{"d":-0.10,"e":{}},"f":[]}"#,
        r#"{ "a" : [ 1 , 2 ] }"#,
        r#""\"\\\/\b\f\n\r\t\u00e9\ud83e\udd80""#,
        r#"["a\u0000b","é\u007f"]"#,
        "-0",
        "0.5",
        "12345678901234567890123",
        r#"{"":1,"\u0061b":2,"ab ":3}"#,
    ] {
        let want: Value = serde_json::from_str(text).unwrap();
        let (got, _) = taped(text).unwrap_or_else(|| panic!("not taken: {text}"));
        assert_eq!(
            serde_json::to_string(&got).unwrap(),
            serde_json::to_string(&want).unwrap(),
            "{text}"
        );
    }
}

#[test]
fn leaves_to_serde_json_what_it_might_read_differently() {
    let deep = format!("{}{}", "[".repeat(101), "]".repeat(101));
    for text in [
        "",
        "1e5",
        "1.5E-3",
        r#"{"a":1,"a":2}"#,
        r#"{"a":{"b":1,"b":1}}"#,
        r#""\ud800""#,
        r#""\udc00""#,
        r#""\ud800\u0041""#,
        "\"a\u{1}\"",
        r#""\x""#,
        "01",
        "1.",
        "-",
        ".5",
        "+1",
        "[1,]",
        r#"{"a":1,}"#,
        "{1:2}",
        "nul",
        "[1] 2",
        "\u{feff}{}",
        r#"{"$serde_json::private::Number":"123"}"#,
        r#"{"$serde_json::private::Number":"x"}"#,
        r#"{"\u0024serde_json::private::Number":"1","a":2}"#,
        &deep,
    ] {
        assert!(taped(text).is_none(), "taken: {text}");
    }
    assert!(Tape::default().read(b"\"\xff\"").is_none());
    // Many keys: the sorted check finds the duplicate too.
    let wide: Vec<String> = (0..40).map(|i| format!("\"k{}\":{i}", i % 39)).collect();
    assert!(taped(&format!("{{{}}}", wide.join(","))).is_none());
    let wide: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
    assert!(taped(&format!("{{{}}}", wide.join(","))).is_some());
}

/// `read_plain` takes what `read` takes as plain, and nothing else.
#[test]
fn read_plain_stops_at_what_is_not_plain() {
    let mut tape = Tape::default();
    for text in [
        r#"{"a":[1,"\n"]}"#,
        r#"{"a": 1}"#,
        r#"["\/"]"#,
        r#"["\u0041"]"#,
        "[1,\n2]",
        "1e5",
    ] {
        let plain = tape.read(text.as_bytes()).is_some_and(|d| d.plain);
        assert_eq!(tape.read_plain(text.as_bytes()).is_some(), plain, "{text}");
    }
}

#[test]
fn plain_is_serde_json_spelling() {
    assert_eq!(taped(r#"{"a":[1,"\n"]}"#).map(|t| t.1), Some(true));
    for other in [r#"{"a": 1}"#, r#"["\/"]"#, r#"["\u0041"]"#, "[1,\n2]"] {
        assert_eq!(taped(other).map(|t| t.1), Some(false), "{other}");
    }
}

/// JSON texts, and texts that are nearly JSON, in every spelling the tape must decide about
/// (and `validate`'s `verbatim` too): whitespace, every kind of escape, exponents, duplicate
/// keys.
pub(crate) fn texts() -> impl Strategy<Value = String> {
    let ws = prop_oneof![Just(""), Just(""), Just(" "), Just("\n"), Just("\t")];
    let number = "-?(0|[1-9][0-9]{0,22}|00)(\\.[0-9]{0,4})?([eE][+-]?[0-9]{1,2})?";
    let piece = prop_oneof![
        "[a-z :,{}\\[\\]]{0,4}",
        Just("\\/".to_owned()),
        Just("\\u0041".to_owned()),
        Just("\\u00E9".to_owned()),
        Just("\\u001f".to_owned()),
        Just("\\ud83e\\udd80".to_owned()),
        Just("\\ud83e".to_owned()),
        Just("\\udd80".to_owned()),
        Just("\\n".to_owned()),
        Just("\\\"".to_owned()),
        Just("\\\\".to_owned()),
        Just("\\x".to_owned()),
        Just("\u{1}".to_owned()),
        Just("é\u{7f}🦀".to_owned()),
    ];
    let string = proptest::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()));
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("fals".to_owned()),
        number.prop_map(|n| n),
        string.clone(),
    ];
    leaf.prop_recursive(5, 48, 5, move |inner| {
        let key = prop_oneof![
            Just("\"a\"".to_owned()),
            Just("\"b\"".to_owned()),
            Just("\"$serde_json::private::Number\"".to_owned()),
            string.clone()
        ];
        prop_oneof![
            (proptest::collection::vec(inner.clone(), 0..5), ws.clone())
                .prop_map(|(items, w)| format!("[{w}{}]", items.join(&format!(",{w}")))),
            (proptest::collection::vec((key, inner), 0..5), ws.clone()).prop_map(|(members, w)| {
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
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The tape takes a text only when serde_json reads it as the same value, and calls it
    /// plain only when serde_json writes that value back as the text.
    #[test]
    fn taken_texts_are_serde_json_values(text in texts()) {
        if let Some((got, plain)) = taped(&text) {
            let want: Value = serde_json::from_str(&text)
                .map_err(|e| TestCaseError::fail(format!("serde_json refuses {text}: {e}")))?;
            prop_assert_eq!(
                serde_json::to_string(&got).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
            if plain {
                prop_assert_eq!(serde_json::to_string(&want).unwrap(), text);
            }
        }
    }

    /// What serde_json writes, the tape takes (but for exponents), and as plain when it has no
    /// escapes: the fast path is not a path nothing takes.
    #[test]
    fn serde_json_texts_are_taken(text in texts()) {
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            let written = serde_json::to_string(&value).unwrap();
            if !has_exponent(&value) {
                let taken = taped(&written);
                prop_assert!(taken.is_some(), "not taken: {}", written);
                if !written.contains('\\') {
                    prop_assert_eq!(taken.map(|t| t.1), Some(true));
                }
            }
        }
    }
}

fn has_exponent(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.as_str().contains(['e', 'E']),
        Value::Array(a) => a.iter().any(has_exponent),
        Value::Object(m) => m.values().any(has_exponent),
        _ => false,
    }
}

/// The tape's validator gives the `Value` validator's verdict, on the verdict schema and its
/// near misses.
#[test]
fn validates_as_the_value_does() {
    let schema: Value =
        serde_json::from_str(include_str!("../../../../../examples/verdict.schema.json")).unwrap();
    let by_value = jsonschema::validator_for(&schema).unwrap();
    let by_tape = jsonschema::options_for::<TapeJson>()
        .build(&schema)
        .unwrap();
    let mut tape = Tape::default();
    let mut valid = 0;
    for text in [
        r#"{"verdict":"PASS","confidence":0.5,"issues":[]}"#,
        r#"{"verdict":"FAIL","confidence":1,"issues":[{"file":"a","line":3,"severity":"minor","message":"m"}]}"#,
        r#"{"verdict":"FAIL","confidence":1.0,"issues":[{"file":"a","line":3.0,"severity":"minor","message":"m"}]}"#,
        r#"{"verdict":"FAIL","confidence":1,"issues":[{"file":"a","line":3.5,"severity":"minor","message":"m"}]}"#,
        r#"{"verdict":"FAIL","confidence":1,"issues":[{"file":"a","line":0,"severity":"minor","message":"m"}]}"#,
        r#"{"verdict":"FAIL","confidence":1.01,"issues":[]}"#,
        r#"{"verdict":"MAYBE","confidence":0.5,"issues":[]}"#,
        r#"{"verdict":"PASS","confidence":0.5}"#,
        r#"{"verdict":"PASS","confidence":0.5,"issues":[],"extra":1}"#,
        r#"{"verdict":"PASS","confidence":"0.5","issues":[]}"#,
        r#"{"verdict":"PASS","confidence":0.5,"issues":[]}"#,
        r#"{"verdict":"PASS","confidence":-0,"issues":[{"file":"a","severity":"major","message":""}]}"#,
        r#"{"verdict":"PASS","confidence":0.5,"issues":[{"file":"a","severity":"major"}]}"#,
        "[]",
        "null",
    ] {
        let value: Value = serde_json::from_str(text).unwrap();
        let doc = tape.read(text.as_bytes()).unwrap();
        let want = by_value.is_valid(&value);
        assert_eq!(by_tape.is_valid(doc.root()), want, "{text}");
        valid += usize::from(want);
    }
    assert_eq!(valid, 5);
}

proptest! {
    /// The eight-bytes-at-a-time scan stops where a byte-by-byte one does.
    #[test]
    fn stop_is_the_first_special_byte(
        bytes in proptest::collection::vec(prop_oneof![Just(b'"'), Just(b'\\'), Just(0x1f), Just(0x20), Just(b'a'), Just(0xff), any::<u8>()], 0..40),
        from in 0usize..8,
    ) {
        let from = from.min(bytes.len());
        let naive = bytes[from..]
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            .map_or(bytes.len(), |p| from + p);
        let fast = stop(&bytes, from);
        // The fast scan may stop early only at the tail it reads byte by byte.
        prop_assert!(fast == naive || (fast <= naive && bytes.len() - fast < 8));
    }
}
