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

/// Calls `f(key, value)` for each top-level member of the object on `line`, in order. `key` is
/// the raw key without its quotes (it never holds an escape); `value` is the raw value as
/// written (a string keeps its quotes and escapes). Returns `false`, possibly after some calls,
/// when the line is not such an object.
pub(crate) fn members<'a>(line: &'a [u8], f: &mut dyn FnMut(&'a [u8], &'a [u8])) -> bool {
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
        let Some(key_end) = string_end(t, i) else {
            return false;
        };
        let key = &t[i + 1..key_end - 1];
        if key.contains(&b'\\') {
            return false;
        }
        i = skip_ws(t, key_end);
        if t.get(i) != Some(&b':') {
            return false;
        }
        i = skip_ws(t, i + 1);
        let start = i;
        let end = match t.get(i) {
            Some(b'"') => string_end(t, i),
            Some(b'{' | b'[') => nested_end(t, i),
            Some(_) => scalar_end(t, i),
            None => None,
        };
        let Some(end) = end else {
            return false;
        };
        // The value must end before the closing brace of the object.
        if end > last {
            return false;
        }
        f(key, &t[start..end]);
        i = skip_ws(t, end);
        match t.get(i) {
            Some(b',') if i < last => i = skip_ws(t, i + 1),
            Some(b'}') => return i == last,
            _ => return false,
        }
    }
}

/// A raw value that is a plain string (no escape): its content without the quotes.
pub(crate) fn plain_str(value: &[u8]) -> Option<&[u8]> {
    let s = value.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    (!s.contains(&b'\\') && !s.contains(&b'"')).then_some(s)
}

fn skip_ws(t: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\r' | b'\n') = t.get(i) {
        i += 1;
    }
    i
}

/// `t[i]` is an opening quote: the index just past the closing quote.
fn string_end(t: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        let j = i + memchr::memchr2(b'"', b'\\', t.get(i..)?)?;
        if t[j] == b'"' {
            return Some(j + 1);
        }
        // A backslash escapes the next byte, whatever it is (as the framer's depth scan reads it).
        i = j + 2;
    }
}

/// Bytes that change the string-aware bracket depth.
const STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t
};

/// `t[i]` opens an object or array: the index just past the bracket that closes it.
fn nested_end(t: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        i += t
            .get(i..)?
            .iter()
            .position(|&b| STRUCTURAL[usize::from(b)])?;
        match t[i] {
            b'"' => {
                i = string_end(t, i)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            _ => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
        }
        i += 1;
    }
}

/// A number, `true`, `false` or `null` starting at `t[i]`: the index just past it. Only bytes
/// that can appear in one are accepted, so no bracket hides in it.
fn scalar_end(t: &[u8], i: usize) -> Option<usize> {
    let n = t[i..]
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
        .unwrap_or(t.len() - i);
    (n > 0).then_some(i + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(line: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        let ok = members(line.as_bytes(), &mut |k, v| {
            out.push((
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            ));
        });
        ok.then_some(out)
    }

    #[test]
    fn reads_top_level_members_in_any_order() {
        let got = walk(r#" {"event":{"type":"x","a":[1,{"b":"}"}]},"type" : "stream_event","n":-1.5e3,"t":true} "#)
            .unwrap();
        assert_eq!(
            got,
            [
                ("event".into(), r#"{"type":"x","a":[1,{"b":"}"}]}"#.into()),
                ("type".into(), r#""stream_event""#.into()),
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
            r#"{,}"#,
            r#"[{"type":"stream_event"}]"#,
            r#"data: {"type":"stream_event"}"#,
            r#"{"a":"\"}"#,
        ] {
            assert!(walk(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn plain_strings_only() {
        assert_eq!(plain_str(br#""init""#), Some(&b"init"[..]));
        assert_eq!(plain_str(br#""in\u0069t""#), None);
        assert_eq!(plain_str(b"1"), None);
    }
}
