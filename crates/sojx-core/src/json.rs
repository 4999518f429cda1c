//! JSON text read into a `Value` exactly: the one way sojx reads JSON text into a `Value`.
//!
//! sojx builds serde_json with `arbitrary_precision`, where serde_json's `Value` reads an object
//! whose first key is `$serde_json::private::Number` (spelled raw or with escapes) as a number
//! (`{"$serde_json::private::Number":"5"}` is `5`, and `{"…Number":null}` an error). That key is
//! an object key like any other: [`from_slice`] and [`from_str`] read it as one. A text that
//! cannot hold the key (no `private::Number` raw and no `\u00XX` escape of one of its
//! characters: [`might_hold_private_key`], two `memmem` scans) is read by serde_json's `Value`
//! as before; the others through [`Exact`], which builds the `Value` itself from the same
//! deserializer (same syntax, errors, positions and recursion limit), telling the numbers that
//! serde_json delivers as one-member maps from real keys by how their key answers
//! `deserialize_option` (a real key is `Some(key)`; the number's key is the bare token).
//!
//! Lone UTF-16 surrogate escapes (`"\ud83d"` with no low half: Node's `JSON.stringify` writes
//! them when it cuts a string inside an emoji) are read as U+FFFD by [`from_slice_lenient`] and
//! [`from_str_lenient`], which say that they did ([`Read::lone_surrogates`]).

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// serde_json's private number key (`serde_json::number::TOKEN`).
pub const PRIVATE_NUMBER: &str = "$serde_json::private::Number";

static RAW_KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("private::Number"));
static ESCAPE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\\u00"));

/// Whether a JSON text may spell [`PRIVATE_NUMBER`] in one of its strings: `private::Number`
/// appears raw, or one of the key's characters (all ASCII) is written as a `\u00XX` escape.
/// Never false for a text that holds the key.
pub fn might_hold_private_key(bytes: &[u8]) -> bool {
    RAW_KEY.find(bytes).is_some()
        || ESCAPE.find_iter(bytes).any(|at| {
            bytes
                .get(at + 4..at + 6)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .is_some_and(|c| PRIVATE_NUMBER.as_bytes().contains(&c))
        })
}

/// About how many bytes `v` takes in memory once parsed: each node's `Value`, each member's
/// key and map entry, each string's (and, with arbitrary precision, each number's) text. A
/// value of tiny items takes many times its JSON text (`[0,0,…]`: about 16 times), so what an
/// extractor keeps between lines is counted by this, not by its text.
pub fn footprint(v: &Value) -> usize {
    const NODE: usize = std::mem::size_of::<Value>();
    // A member's key (a `String`), its hash and index slot in the map.
    const MEMBER: usize = std::mem::size_of::<String>() + 16;
    NODE + match v {
        Value::String(s) => s.len(),
        Value::Number(n) => n.as_str().len(),
        Value::Array(a) => a.iter().map(footprint).sum(),
        Value::Object(m) => m.iter().map(|(k, x)| MEMBER + k.len() + footprint(x)).sum(),
        Value::Null | Value::Bool(_) => 0,
    }
}

/// One JSON text (surrounding whitespace allowed) as a `Value`, serde_json's errors included.
pub fn from_slice(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    if might_hold_private_key(bytes) {
        serde_json::from_slice::<Exact>(bytes).map(|e| e.0)
    } else {
        serde_json::from_slice(bytes)
    }
}

/// [`from_slice`] for a `str`.
pub fn from_str(text: &str) -> Result<Value, serde_json::Error> {
    if might_hold_private_key(text.as_bytes()) {
        serde_json::from_str::<Exact>(text).map(|e| e.0)
    } else {
        serde_json::from_str(text)
    }
}

/// The first JSON value at the start of `text` (after whitespace), and the byte offset just
/// past it; `None` when the text holds only whitespace.
pub fn first_value(text: &[u8]) -> Option<(Result<Value, serde_json::Error>, usize)> {
    if might_hold_private_key(text) {
        let mut values = serde_json::Deserializer::from_slice(text).into_iter::<Exact>();
        let v = values.next()?.map(|e| e.0);
        Some((v, values.byte_offset()))
    } else {
        let mut values = serde_json::Deserializer::from_slice(text).into_iter::<Value>();
        let v = values.next()?;
        Some((v, values.byte_offset()))
    }
}

/// A value read by the lenient readers.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub value: Value,
    /// The text held lone UTF-16 surrogate escapes, read as U+FFFD.
    pub lone_surrogates: bool,
}

/// [`from_slice`], with lone UTF-16 surrogate escapes read as U+FFFD. The error is the one
/// the text as given had.
pub fn from_slice_lenient(bytes: &[u8]) -> Result<Read, serde_json::Error> {
    match from_slice(bytes) {
        Ok(value) => Ok(Read {
            value,
            lone_surrogates: false,
        }),
        Err(e) => match fix_lone_surrogates(bytes).map(|fixed| from_slice(&fixed)) {
            Some(Ok(value)) => Ok(Read {
                value,
                lone_surrogates: true,
            }),
            _ => Err(e),
        },
    }
}

/// [`from_slice_lenient`] for a `str`.
pub fn from_str_lenient(text: &str) -> Result<Read, serde_json::Error> {
    from_slice_lenient(text.as_bytes())
}

/// `bytes` with every lone UTF-16 surrogate escape (`\uD800`–`\uDFFF` not part of a
/// high-low pair) replaced by `\ufffd`; `None` when there is none. Escaped backslashes
/// (`\\ud83d` is text) are skipped.
pub fn fix_lone_surrogates(bytes: &[u8]) -> Option<Vec<u8>> {
    let hex4 = |at: usize| -> Option<u32> {
        let h = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
        u32::from_str_radix(h, 16).ok()
    };
    let surrogate = |at: usize| -> Option<u32> {
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u'))
            .then(|| hex4(at + 2))
            .flatten()
            .filter(|u| (0xD800..=0xDFFF).contains(u))
    };
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut i = 0;
    while let Some(off) = bytes.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let p = i + off;
        i = p + 2;
        if bytes.get(p + 1) != Some(&b'u') {
            continue;
        }
        let Some(u) = surrogate(p) else {
            continue;
        };
        i = p + 6;
        if (0xD800..=0xDBFF).contains(&u) && surrogate(p + 6).is_some_and(|l| l >= 0xDC00) {
            i = p + 12;
            continue;
        }
        let o = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
        o.extend_from_slice(&bytes[copied..p]);
        o.extend_from_slice(b"\\ufffd");
        copied = p + 6;
    }
    let mut o = out?;
    o.extend_from_slice(&bytes[copied..]);
    Some(o)
}

/// A `Value` deserialized without serde_json's private number key: an object with the key
/// [`PRIVATE_NUMBER`] stays an object. Deserialized from serde_json's `Deserializer` only (its
/// numbers are maps whose key is not a `Some`).
#[derive(Debug, Clone, PartialEq)]
pub struct Exact(pub Value);

impl<'de> Deserialize<'de> for Exact {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor).map(Exact)
    }
}

struct ValueSeed;

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

/// serde_json's `ValueVisitor`, but for the map's keys.
struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Number::deserialize(de::value::I128Deserializer::new(v)).map(Value::Number)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Number::deserialize(de::value::U128Deserializer::new(v)).map(Value::Number)
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ValueSeed)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        match map.next_key_seed(KeySeed)? {
            None => return Ok(Value::Object(members)),
            // serde_json's number: one member, the token, whose value is the literal.
            Some(Key::Token) => {
                let literal: String = map.next_value()?;
                return Number::from_str(&literal)
                    .map(Value::Number)
                    .map_err(de::Error::custom);
            }
            Some(Key::Real(k)) => {
                let v = map.next_value_seed(ValueSeed)?;
                members.insert(k, v);
            }
        }
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let Key::Real(k) = key else {
                return Err(de::Error::custom(
                    "a number token after an object's first key",
                ));
            };
            let v = map.next_value_seed(ValueSeed)?;
            members.insert(k, v);
        }
        Ok(Value::Object(members))
    }
}

/// An object's key as serde_json gives it: a key of the text answers `deserialize_option`
/// with `Some` (serde_json's map keys are never null), the private token of a number answers
/// with the bare string.
enum Key {
    Real(String),
    Token,
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_option(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        String::deserialize(d).map(Key::Real)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        if v == PRIVATE_NUMBER {
            Ok(Key::Token)
        } else {
            Err(E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }
}

#[cfg(test)]
mod tests;
