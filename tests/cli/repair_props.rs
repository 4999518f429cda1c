//! Property tests of `--repair` (issue 59): it never changes the answer of an input that parses
//! as JSON, and an answer written the ways models write (comments, raw control characters in
//! strings, single quotes, identifier keys, Python's literals, trailing commas) reads as the
//! value it was written from, or not at all: never as another value.

use proptest::prelude::*;
use serde_json::{Map, Value};
use sojx_core::brackets::lenient::is_identifier;

use crate::props::{envelope, options};

/// A value whose strings and keys hold what breaks readers: quotes of both kinds, brackets,
/// backslashes, control characters, comment starts, non-ASCII.
fn value() -> impl Strategy<Value = Value> {
    let text = "[a-z '\"{}\\[\\]:,#/*\\\\\t\n\r\u{1}é]{0,10}";
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1.0e6..1.0e6f64).prop_map(Value::from),
        text.prop_map(Value::from),
    ];
    let key = prop_oneof!["[a-zA-Z_$][a-zA-Z0-9_$]{0,5}", text];
    let tree = leaf.prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((key.clone(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    });
    // The answer is an object or an array.
    tree.prop_filter("a container", |v| v.is_object() || v.is_array())
}

/// Writes a value the ways models do, each choice taken from `choices` in turn.
struct Writer<'c> {
    choices: &'c [u8],
    at: usize,
    out: String,
}

impl Writer<'_> {
    fn pick(&mut self, n: u8) -> u8 {
        let c = self.choices[self.at % self.choices.len()];
        self.at += 1;
        c % n
    }

    /// Whitespace or a comment between tokens.
    fn gap(&mut self) {
        let g = match self.pick(8) {
            0 | 1 => "",
            2 => " ",
            3 => "\n  ",
            4 => " // a note, ] } 'x'\n",
            5 => " # a note {\n",
            6 => " /* ] } \" */ ",
            _ => "\t",
        };
        self.out.push_str(g);
    }

    fn string(&mut self, s: &str) {
        let single = self.pick(3) == 0;
        let raw = self.pick(2) == 0;
        let quote = if single { '\'' } else { '"' };
        self.out.push(quote);
        for c in s.chars() {
            match c {
                '\\' => self.out.push_str("\\\\"),
                c if c == quote => {
                    self.out.push('\\');
                    self.out.push(c);
                }
                // (A raw CR before a newline is the line's end to the reader of lines.)
                c if (c as u32) < 0x20 && c != '\r' && raw => self.out.push(c),
                c if (c as u32) < 0x20 => self.out.push_str(&format!("\\u{:04x}", c as u32)),
                c => self.out.push(c),
            }
        }
        self.out.push(quote);
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.literal("null", "None"),
            Value::Bool(true) => self.literal("true", "True"),
            Value::Bool(false) => self.literal("false", "False"),
            Value::Number(n) => self.out.push_str(&n.to_string()),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    self.gap();
                    self.value(item);
                    self.gap();
                    if i + 1 < items.len() || self.pick(4) == 0 {
                        self.out.push(',');
                    }
                }
                self.gap();
                self.out.push(']');
            }
            Value::Object(members) => {
                self.out.push('{');
                for (i, (k, item)) in members.iter().enumerate() {
                    self.gap();
                    if is_identifier(k.as_bytes()) && self.pick(2) == 0 {
                        self.out.push_str(k);
                    } else {
                        self.string(k);
                    }
                    // Between a bare key and its `:`, whitespace only.
                    let space = if self.pick(2) == 0 { " " } else { "" };
                    self.out.push_str(space);
                    self.out.push(':');
                    self.gap();
                    self.value(item);
                    self.gap();
                    if i + 1 < members.len() || self.pick(4) == 0 {
                        self.out.push(',');
                    }
                }
                self.gap();
                self.out.push('}');
            }
        }
    }

    fn literal(&mut self, json: &str, python: &str) {
        let word = if self.pick(2) == 0 { python } else { json };
        self.out.push_str(word);
    }
}

fn written(v: &Value, choices: &[u8]) -> String {
    let mut w = Writer {
        choices,
        at: 0,
        out: String::new(),
    };
    w.value(v);
    w.out
}

/// The envelope of `text` read with or without `--repair`, without its timestamp.
fn extracted(text: &str, repair: bool) -> Value {
    envelope(&options(false, repair), &[text.as_bytes()])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// JSON is never repaired: the repair reads nothing in it, and the answer of an input that
    /// parses as JSON is the same with `--repair`, envelope for envelope.
    #[test]
    fn repair_never_changes_an_answer_that_parses(v in value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            v.to_string()
        };
        prop_assert_eq!(sojx_core::repair::repair(&text), None);
        prop_assert_eq!(extracted(&text, true), extracted(&text, false));
    }

    /// An answer written the ways models write reads as the value it was written from, by the
    /// repair and by the whole extraction (the answer found in the text, exit 0).
    #[test]
    fn what_models_write_reads_as_what_they_meant(
        v in value(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
        wrap in 0..4u8,
    ) {
        let text = written(&v, &choices);
        if let Some(r) = sojx_core::repair::repair(&text) {
            prop_assert_eq!(&r.value, &v, "{}", text);
            prop_assert!(!r.changes.is_empty());
            for c in &r.changes {
                prop_assert!(text.is_char_boundary(c.offset.min(text.len())), "{:?}", c);
            }
        } else {
            let parsed: Value = serde_json::from_str(&text).expect("unrepaired: JSON");
            prop_assert_eq!(&parsed, &v);
        }
        // As the whole answer, after and before prose (which holds braces that are not a
        // value), or in a fenced block.
        let answer = match wrap {
            0 => text.clone(),
            1 => format!("Notes {{a: b c}} (see [x]).\nHere it is: {text}\nHope it helps!"),
            2 => format!("Sure:\n```json\n{text}\n```\n"),
            _ => format!("```\n{text}\n```"),
        };
        let env = extracted(&answer, true);
        // (In prose, `{}`, `[]` and lists of numbers are citations and ranges, not answers;
        // an answer repaired is read as if found in prose.)
        let answer_like = match &v {
            Value::Object(o) => !o.is_empty(),
            Value::Array(a) => a.iter().any(|x| x.is_string() || x.is_object() || x.is_array()),
            _ => false,
        };
        if env["exit_code"] != 0 && wrap < 2 && !answer_like {
            return Ok(());
        }
        prop_assert_eq!(&env["exit_code"], 0, "{}: {}", answer, env);
        prop_assert_eq!(&env["data"], &v, "{}", answer);
    }
}
