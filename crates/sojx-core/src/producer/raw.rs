//! The raw-line fast path: read the top-level members of a one-line JSON object without building
//! it, so that an extractor can tell, before any parse, that a line cannot change the outcome.
//!
//! The scan never depends on key order or on a line prefix: it walks every top-level member.
//! It is deliberately conservative: a key written with an escape, a member it cannot delimit, or
//! a line whose string-aware bracket depth does not close exactly at its last byte makes it give
//! up, and the line takes the slow path (a full parse). When it accepts a line, the framer would
//! have made exactly one item of it (a value, or junk when the line is not valid JSON), never the
//! start of a multi-line document: the scan tracks the same string-aware depth as the framer's
//! `DepthScan`, so both agree on where the object closes.

mod string;

use string::string_end;

/// A top-level member's value, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Raw<'a> {
    /// A string without escapes: its content, without the quotes.
    Plain(&'a [u8]),
    /// Anything else (a string with an escape keeps its quotes).
    Other(&'a [u8]),
}

impl<'a> Raw<'a> {
    /// The content of a string without escapes.
    pub(crate) fn plain(self) -> Option<&'a [u8]> {
        match self {
            Self::Plain(s) => Some(s),
            Self::Other(_) => None,
        }
    }
}

/// Calls `f(key, value)` for each top-level member of the object on `line`, in order, while
/// `f` returns `true`. `key` is the raw key without its quotes (it never holds an escape).
/// Returns `true` when the line is such an object and `f` saw all of its members.
pub(crate) fn members<'a>(line: &'a [u8], mut f: impl FnMut(&'a [u8], Raw<'a>) -> bool) -> bool {
    let t = line.trim_ascii();
    if t.len() < 2 || t[0] != b'{' || t[t.len() - 1] != b'}' {
        return false;
    }
    let last = t.len() - 1;
    let mut i = skip_ws(t, 1);
    if i == last {
        return true;
    }
    loop {
        if t.get(i) != Some(&b'"') {
            return false;
        }
        let Some((key_end, false)) = string_end(t, i) else {
            return false;
        };
        let key = &t[i + 1..key_end - 1];
        // Whitespace is looked for only where the byte expected is not found.
        i = key_end;
        if t.get(i) != Some(&b':') {
            i = skip_ws(t, i);
            if t.get(i) != Some(&b':') {
                return false;
            }
        }
        i += 1;
        if t.get(i).is_some_and(|&b| is_ws(b)) {
            i = skip_ws(t, i);
        }
        let start = i;
        let (end, value) = match t.get(i) {
            Some(b'"') => match string_end(t, i) {
                Some((end, false)) => (end, Raw::Plain(&t[start + 1..end - 1])),
                Some((end, true)) => (end, Raw::Other(&t[start..end])),
                None => return false,
            },
            Some(b'{' | b'[') => match nested_end(t, i) {
                Some(end) => (end, Raw::Other(&t[start..end])),
                None => return false,
            },
            _ => match scalar_end(t, i) {
                Some(end) => (end, Raw::Other(&t[start..end])),
                None => return false,
            },
        };
        // The value must end before the closing brace of the object.
        if end > last {
            return false;
        }
        if !f(key, value) {
            return false;
        }
        i = end;
        if !matches!(t.get(i), Some(b',' | b'}')) {
            i = skip_ws(t, i);
        }
        match t.get(i) {
            Some(b',') if i < last => {
                i += 1;
                if t.get(i) != Some(&b'"') {
                    i = skip_ws(t, i);
                }
            }
            Some(b'}') => return i == last,
            _ => return false,
        }
    }
}

fn skip_ws(t: &[u8], mut i: usize) -> usize {
    while t.get(i).is_some_and(|&b| is_ws(b)) {
        i += 1;
    }
    i
}

/// `t[i]` opens an object or array: the index just past the bracket that closes it. (Outside
/// strings the brackets and quotes are too close together for a word-at-a-time scan to pay:
/// it ran more instructions than this loop on Claude Code streams.)
fn nested_end(t: &[u8], i: usize) -> Option<usize> {
    nested_end_with(t, i, string_end)
}

/// The deepest nesting a member's value may have for the scan to accept the line (the object
/// itself is one more level).
const MAX_NESTING: usize = 120;

/// A string scan: [`string_end`]'s signature.
type StringEnd = fn(&[u8], usize) -> Option<(usize, bool)>;

/// Whether `b` is JSON whitespace.
#[inline(always)]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// [`nested_end`] with `strings` to skip each string (the tests pass a byte-wise one).
///
/// The value is read by JSON's grammar, so that the scan accepts only what serde_json parses
/// (issue 39): brackets closed by their own kind, `:` and `,` where they belong, no trailing
/// comma, numbers and literals as JSON spells them. Anything else gives up, and the line takes
/// the full parse.
///
/// The grammar is the loop's shape, not a table of states: each turn of `'value` reads one
/// value at `t[i]`, then the inner loop reads what may follow a value (`,` or the closing
/// bracket of the container it is in), and a `,` in an object reads the next key and its `:`
/// before the next value. Whitespace is looked for only where a byte is not what is expected.
#[inline(always)]
fn nested_end_with(t: &[u8], mut i: usize, strings: StringEnd) -> Option<usize> {
    // Whether the innermost open container is an array, and the same for the ones around it,
    // pushed on open and popped on close (bit 0: the one just around it, bit 1 the next; depth
    // is at most MAX_NESTING < 128, so none is lost).
    let mut array = false;
    let mut outer: u128 = 0;
    let mut depth = 0usize;
    'value: loop {
        // A value at `t[i]`.
        match *t.get(i)? {
            b'"' => i = strings(t, i)?.0,
            b @ (b'{' | b'[') => {
                // Past serde_json's recursion limit (128) the full parse fails: give up well
                // before it (the line is parsed, and read as the full parse reads it).
                if depth >= MAX_NESTING {
                    return None;
                }
                outer = (outer << 1) | u128::from(array);
                depth += 1;
                array = b == b'[';
                i += 1;
                let mut c = *t.get(i)?;
                if is_ws(c) {
                    i = skip_ws(t, i);
                    c = *t.get(i)?;
                }
                if c != close(array) {
                    if !array {
                        i = key(t, i, strings)?;
                    }
                    continue 'value;
                }
                // Empty: it closes at once.
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
                array = outer & 1 == 1;
                outer >>= 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {
                i = skip_ws(t, i);
                continue 'value;
            }
            _ => i = scalar_end(t, i)?,
        }
        // After a value: `,` or the closing bracket of its container.
        loop {
            let b = *t.get(i)?;
            i += 1;
            match b {
                b',' => {
                    if !array {
                        i = key(t, i, strings)?;
                    }
                    continue 'value;
                }
                b' ' | b'\t' | b'\r' | b'\n' => {
                    i = skip_ws(t, i);
                    continue;
                }
                // `}` closes an object, `]` an array.
                _ if b != close(array) => return None,
                _ => {}
            }
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
            array = outer & 1 == 1;
            outer >>= 1;
        }
    }
}

/// The bracket that closes an array (`array`) or an object.
#[inline(always)]
fn close(array: bool) -> u8 {
    if array { b']' } else { b'}' }
}

/// A key at `t[i]` (whitespace around it allowed), then its `:`: the index just past the `:`.
#[inline(always)]
fn key(t: &[u8], mut i: usize, strings: StringEnd) -> Option<usize> {
    if *t.get(i)? != b'"' {
        i = skip_ws(t, i);
        if *t.get(i)? != b'"' {
            return None;
        }
    }
    let mut i = strings(t, i)?.0;
    if *t.get(i)? != b':' {
        i = skip_ws(t, i);
        if *t.get(i)? != b':' {
            return None;
        }
    }
    Some(i + 1)
}

/// Whether `b` may continue a number or literal (a byte `scalar_end` reads as part of it).
#[inline(always)]
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
}

/// A number, `true`, `false` or `null` starting at `t[i]`, spelled as JSON spells it (no
/// `NaN`, `Infinity`, `tru`, `01`, `1.`, `+1`): the index just past it. `None` for anything
/// else, which serde_json refuses.
#[inline(always)]
fn scalar_end(t: &[u8], i: usize) -> Option<usize> {
    // The common cases first: an integer without a sign (a count, an index), and the literals.
    let mut j = i;
    while t.get(j).is_some_and(u8::is_ascii_digit) {
        j += 1;
    }
    if j > i {
        if (t[i] != b'0' || j == i + 1) && !t.get(j).copied().is_some_and(is_token) {
            return Some(j);
        }
    } else {
        let n = match t.get(i..i + 4) {
            Some(b"null" | b"true") => 4,
            Some(b"fals") if t.get(i + 4) == Some(&b'e') => 5,
            _ => 0,
        };
        if n > 0 && !t.get(i + n).copied().is_some_and(is_token) {
            return Some(i + n);
        }
    }
    let n = t[i..]
        .iter()
        .position(|&b| !is_token(b))
        .unwrap_or(t.len() - i);
    let token = &t[i..i + n];
    (matches!(token, b"true" | b"false" | b"null") || crate::brackets::is_json_number(token))
        .then_some(i + n)
}

#[cfg(test)]
mod tests {
    use super::string::{next_stop_words, string_end_by};
    use super::*;
    use proptest::prelude::*;

    /// [`string_end`] a byte at a time.
    fn string_end_bytewise(t: &[u8], i: usize) -> Option<(usize, bool)> {
        let mut i = i + 1;
        let mut escaped = false;
        loop {
            match *t.get(i)? {
                b'"' => return Some((i + 1, escaped)),
                b'\\' => {
                    if !b"\"\\/bfnrt".contains(t.get(i + 1)?) {
                        return None;
                    }
                    escaped = true;
                    i += 2;
                }
                b if b < 0x20 => return None,
                _ => i += 1,
            }
        }
    }

    proptest! {
        /// `string_end`'s word-at-a-time scan, and `nested_end`, which uses it, find exactly what
        /// byte-at-a-time scans find, wherever the quotes, backslashes and brackets fall against
        /// the eight-byte words (bytes that are one off from them, or a bit away, included).
        #[test]
        fn word_scans_agree_with_byte_scans(
            body in prop::collection::vec(prop::sample::select(
                b"\"\\{}[]a ;=}{!#[]\x5c\x22\x7a\x7c\x7e\x5a\x5e\x02\xdb\xfb\x00\x1f\x80\xff".to_vec()), 0..80),
            open in prop::sample::select(vec![b'"', b'{', b'[']),
        ) {
            let mut t = vec![open];
            t.extend_from_slice(&body);
            if open == b'"' {
                prop_assert_eq!(string_end(&t, 0), string_end_bytewise(&t, 0));
                prop_assert_eq!(string_end_by(&t, 0, next_stop_words), string_end_bytewise(&t, 0));
            } else {
                prop_assert_eq!(nested_end(&t, 0), nested_end_with(&t, 0, string_end_bytewise));
            }
        }
    }

    fn walk(line: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        let ok = members(line.as_bytes(), |k, v| {
            let v = match v {
                Raw::Plain(s) => format!("plain {}", String::from_utf8_lossy(s)),
                Raw::Other(s) => String::from_utf8_lossy(s).into_owned(),
            };
            out.push((String::from_utf8_lossy(k).into_owned(), v));
            true
        });
        ok.then_some(out)
    }

    #[test]
    fn reads_top_level_members_in_any_order() {
        let got = walk(r#" {"event":{"type":"x","a":[1,{"b":"}"}]},"type" : "stream_event","s":"a\"b","n":-1.5e3,"t":true} "#)
            .unwrap();
        assert_eq!(
            got,
            [
                ("event".into(), r#"{"type":"x","a":[1,{"b":"}"}]}"#.into()),
                ("type".into(), "plain stream_event".into()),
                ("s".into(), r#""a\"b""#.into()),
                ("n".into(), "-1.5e3".into()),
                ("t".into(), "true".into()),
            ]
        );
        assert_eq!(walk("{}").unwrap(), []);
        assert_eq!(walk("{ }").unwrap(), []);
    }

    #[test]
    fn gives_up_on_anything_unusual() {
        for bad in [
            r#"{"type":"stream_event""#,
            r#"{"type":"stream_event"} {"a":1}"#,
            r#"{"t\u0079pe":"stream_event"}"#,
            r#"{"a":"}"#,
            r#"{"a":[}"#,
            r#"{"a":1[}"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r"{,}",
            r#"[{"type":"stream_event"}]"#,
            r#"data: {"type":"stream_event"}"#,
            r#"{"a":"\"}"#,
            // What serde_json refuses inside a member's value (issue 39, item 2).
            r#"{"type":"stream_event","ttft":NaN}"#,
            r#"{"type":"stream_event","x":[1,2},"y":1}"#,
            r#"{"type":"stream_event","x":{"a":1]}"#,
            r#"{"type":"stream_event","x":[1,]}"#,
            r#"{"type":"stream_event","x":{"a" 1}}"#,
            r#"{"type":"stream_event","x":{"a":1,}}"#,
            r#"{"type":"stream_event","x":[1 2]}"#,
            r#"{"type":"stream_event","x":{1:2}}"#,
            r#"{"type":"stream_event","x":[Infinity]}"#,
            r#"{"type":"stream_event","x":01}"#,
            r#"{"type":"stream_event","x":[1.]}"#,
            r#"{"type":"stream_event","x":-}"#,
            r#"{"type":"stream_event","x":tru}"#,
            r#"{"type":"stream_event","x":"\x"}"#,
            r#"{"type":"stream_event","x":"\ud800"}"#,
            "{\"type\":\"stream_event\",\"x\":\"tab\there\"}",
        ] {
            assert!(walk(bad).is_none(), "{bad}");
        }
    }

    /// A JSON value serde_json writes, or one with a byte changed: the scan's fragments.
    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::{Value, json};
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            (-1e6f64..1e6).prop_map(|f| json!(f)),
            "[a-z\"\\\\/{}\\[\\]:, é\n\t]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec(("[a-z]{0,3}", inner), 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

        /// The scan accepts a line only when serde_json parses it (issue 39, item 2): on
        /// serde_json's own output, and on it with one byte changed into one of JSON's
        /// delimiters, a letter of `NaN`, a digit or a control character. (A planted bug — the
        /// old scan that skipped a nested value by its brackets alone — fails it at once.)
        #[test]
        fn the_scan_accepts_only_what_serde_json_parses(
            v in json_value(),
            at in any::<prop::sample::Index>(),
            with in prop::sample::select(b"{}[]:,\"\\ N0.-+et\x01".to_vec()),
            change in any::<bool>(),
        ) {
            let mut line = serde_json::to_vec(&serde_json::json!({"type": "stream_event", "v": v})).unwrap();
            let clean = line.clone();
            if change {
                let i = at.index(line.len());
                line[i] = with;
            }
            // A line that is not UTF-8 is counted alike on both paths (`Framer::skipped`).
            prop_assume!(std::str::from_utf8(&line).is_ok());
            let scanned = members(&line, |_, _| true);
            let parsed = serde_json::from_slice::<serde_json::Value>(&line).is_ok_and(|v| v.is_object());
            prop_assert!(!scanned || parsed, "accepted what serde_json refuses: {}", String::from_utf8_lossy(&line));
            // What serde_json writes without `\u` escapes is accepted whole.
            if !change && !clean.windows(2).any(|w| w == b"\\u") {
                prop_assert!(scanned, "refused {}", String::from_utf8_lossy(&clean));
            }
        }
    }

    #[test]
    fn long_strings_and_escapes_at_every_position() {
        for n in [0, 1, 23, 24, 25, 100] {
            let pad = "x".repeat(n);
            let line = format!(r#"{{"k":"{pad}\"{pad}","e":"{pad}\\"}}"#);
            let got = walk(&line).unwrap();
            assert_eq!(got.len(), 2, "{line}");
            assert!(walk(&format!(r#"{{"k":"{pad}\"}}"#)).is_none());
            assert!(walk(&format!(r#"{{"k":"{pad}"#)).is_none());
        }
    }
}
