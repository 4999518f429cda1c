//! A valid document's envelope, written straight into bytes.
//!
//! Most documents of a JSON Lines file are valid, and their envelope differs from the next one's
//! only in its timestamp, its line and its `data`. So the envelope around `data` is serialized
//! once per input, from a real [`Envelope`](crate::envelope::Envelope) (the one serializer stays
//! the only spelling of an envelope), and each valid document's envelope is that text with the
//! timestamp, the line and the document put in. The document is copied as it was read when its
//! bytes are exactly what serde_json would write for it ([`verbatim`]), and serialized otherwise.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::envelope::{self, Parts, Source};
use crate::names::Command;
use crate::schema::Schema;

/// The text of a valid document's envelope around its timestamp, line and data.
#[derive(Debug)]
pub(super) struct Template {
    /// `{"timestamp":"`
    open: String,
    /// From the end of the timestamp to the line number.
    head: String,
    /// Between the line number and the data.
    mid: String,
    /// After the data, with the newline.
    tail: String,
}

/// What stands for the line and the data in the envelope the template is cut from. The input's
/// name cannot hold it: inside a JSON string a quote is escaped.
const LINE_DATA: &str = r#""line":0},"data":null,"#;

impl Template {
    /// The template for the valid documents of `input`.
    pub(super) fn new(input: &str, schema: &Schema) -> Self {
        let env = envelope::success(
            Command::Validate,
            input,
            Value::Null,
            Parts {
                source: Some(Source::document(0)),
                validation: Some(schema.report(true)),
                warnings: schema.warnings.clone(),
                ..Parts::default()
            },
        );
        // The cuts cannot miss: this is sojx's own envelope, serialized just above from typed
        // fields (no map with other than string keys, so serde_json cannot fail). It opens with
        // its first field, the timestamp, a string without a quote inside; the input's name
        // cannot hold LINE_DATA (see there), so its first match is `source`'s end and `data`.
        // `a_written_envelope_is_the_serialized_one` checks the result with awkward names.
        let text = serde_json::to_string(&env).expect("an Envelope always serializes");
        let open = r#"{"timestamp":""#;
        let rest = text
            .strip_prefix(open)
            .expect("an envelope opens with its timestamp");
        let ts_end = rest.find('"').expect("the timestamp is a string");
        let rest = &rest[ts_end..];
        let at = rest
            .find(LINE_DATA)
            .expect("the template's source and data are LINE_DATA");
        let line_key = r#""line":"#.len();
        Self {
            open: open.to_owned(),
            head: rest[..at + line_key].to_owned(),
            mid: r#"},"data":"#.to_owned(),
            tail: format!("{}\n", &rest[at + LINE_DATA.len() - 1..]),
        }
    }

    /// Append the envelope of the valid document `value` of line `line` (`raw`: its bytes, when
    /// it was one line) to `out`.
    pub(super) fn write(
        &self,
        clock: &mut Clock,
        line: u64,
        value: &Value,
        raw: Option<&[u8]>,
        out: &mut Vec<u8>,
    ) {
        if let Some(raw) = raw.filter(|r| verbatim(r).is_some_and(|keys| keys == members(value))) {
            self.write_plain(clock, line, raw, out);
        } else {
            self.write_head(clock, line, out);
            // Writing to a Vec cannot fail, and a Value always serializes.
            serde_json::to_writer(&mut *out, value).unwrap_or_default();
            out.extend_from_slice(self.tail.as_bytes());
        }
    }

    /// The bytes an envelope takes besides its document: the template's, a timestamp's and a
    /// line number's at most.
    pub(super) fn overhead(&self) -> usize {
        self.open.len() + self.head.len() + self.mid.len() + self.tail.len() + 24 + 20
    }

    /// Append the envelope of the valid document of line `line` whose bytes `raw` are exactly
    /// what serde_json writes for it.
    pub(super) fn write_plain(&self, clock: &mut Clock, line: u64, raw: &[u8], out: &mut Vec<u8>) {
        self.write_head(clock, line, out);
        out.extend_from_slice(raw);
        out.extend_from_slice(self.tail.as_bytes());
    }

    fn write_head(&self, clock: &mut Clock, line: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(self.open.as_bytes());
        out.extend_from_slice(clock.now().as_bytes());
        out.extend_from_slice(self.head.as_bytes());
        // Writing to a Vec cannot fail.
        let _ = write!(out, "{line}");
        out.extend_from_slice(self.mid.as_bytes());
    }
}

/// The envelopes' timestamp, formatted again only when the millisecond changed.
#[derive(Debug, Default)]
pub(super) struct Clock {
    at: (u64, u32),
    text: String,
}

impl Clock {
    fn now(&mut self) -> &str {
        let now = SystemTime::now();
        let d = now.duration_since(UNIX_EPOCH).unwrap_or_default();
        let at = (d.as_secs(), d.subsec_millis());
        if at != self.at || self.text.is_empty() {
            self.at = at;
            self.text = envelope::format_utc(now);
        }
        &self.text
    }
}

/// When `bytes` (a JSON value that parsed) are spelled exactly as serde_json writes the value
/// back, the number of object members in them; `None` when they might not be: whitespace
/// between tokens, an escape serde_json spells differently (`\/`, `\u…`), or a number with an
/// exponent (serde_json writes `1E5` as `1e+5`). Duplicate keys collapse into one member, so
/// the caller compares the count with the parsed value's ([`members`]).
pub(super) fn verbatim(bytes: &[u8]) -> Option<usize> {
    let mut keys = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                loop {
                    let at = i + memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
                    if bytes[at] == b'"' {
                        i = at + 1;
                        break;
                    }
                    match bytes.get(at + 1)? {
                        b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f' => i = at + 2,
                        _ => return None,
                    }
                }
                continue;
            }
            b':' => keys += 1,
            b' ' | b'\t' | b'\n' | b'\r' | b'E' => return None,
            // An exponent (the `e` of `true` and `false` follows a letter).
            b'e' if i > 0 && bytes[i - 1].is_ascii_digit() => return None,
            _ => {}
        }
        i += 1;
    }
    Some(keys)
}

/// Object members in `value`, all levels.
pub(super) fn members(value: &Value) -> usize {
    match value {
        Value::Object(m) => m.len() + m.values().map(members).sum::<usize>(),
        Value::Array(a) => a.iter().map(members).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The template's envelope is the one the serializer writes, for any document, spelled
    /// verbatim or not.
    #[test]
    fn a_written_envelope_is_the_serialized_one() {
        let schema = crate::schema::load(&crate::schema::Settings {
            schema: Some("{}".into()),
            ..crate::schema::Settings::default()
        })
        .unwrap()
        .unwrap();
        for input in [
            "v.jsonl",
            "we\"ird\\name\n\u{7}",
            r#""line":0},"data":null,"#,
        ] {
            let t = Template::new(input, &schema);
            for doc in [
                r#"{"a":1,"b":[true,null,"x\"y\\z\n"],"c":{"d":-0.10}}"#,
                r#"{"a":1,"a":2}"#,
                r#"{ "a" : 1 }"#,
                r#"["\/","\u00e9",1E5,1e5,2e-3]"#,
                r#""plain""#,
                "3",
                "[]",
            ] {
                let value: Value = serde_json::from_str(doc).unwrap();
                let mut out = Vec::new();
                t.write(
                    &mut Clock::default(),
                    42,
                    &value,
                    Some(doc.as_bytes()),
                    &mut out,
                );
                let env = envelope::success(
                    Command::Validate,
                    input,
                    value,
                    Parts {
                        source: Some(Source::document(42)),
                        validation: Some(schema.report(true)),
                        ..Parts::default()
                    },
                );
                let want = format!("{}\n", serde_json::to_string(&env).unwrap());
                let got = String::from_utf8(out).unwrap();
                // The timestamps are the only difference allowed (both are 24 bytes long).
                let strip = |s: &str| format!("{}{}", &s[..14], &s[38..]);
                assert_eq!(strip(&got), strip(&want), "{input} / {doc}");
            }
        }
    }

    proptest::proptest! {
        /// Whenever `verbatim` lets the bytes stand for the value, they are what serde_json
        /// writes for it.
        #[test]
        fn bytes_let_stand_are_the_serialized_value(text in crate::schema::tape::tests::texts()) {
            if let Ok(value) = serde_json::from_str::<Value>(&text) {
                if verbatim(text.as_bytes()) == Some(members(&value)) {
                    proptest::prop_assert_eq!(serde_json::to_string(&value).unwrap(), text);
                }
            }
        }
    }

    #[test]
    fn verbatim_tells_what_serde_json_would_spell_differently() {
        assert_eq!(
            verbatim(br#"{"a":{"b:c":1},"d":["e",true,false]}"#),
            Some(3)
        );
        assert_eq!(verbatim(br#"{"a":"\"\\\n\t"}"#), Some(1));
        for other in [
            &br#"{"a": 1}"#[..],
            br#"{"a":"\/"}"#,
            br#"{"a":"\u0041"}"#,
            br"[1e5]",
            br"[1E5]",
            b"[1,\n2]",
        ] {
            assert_eq!(verbatim(other), None, "{}", String::from_utf8_lossy(other));
        }
    }
}
