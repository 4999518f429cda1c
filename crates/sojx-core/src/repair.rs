//! `--repair`: bounded, named repairs of almost-JSON. Each repair is reported; none changes a
//! string's contents, invents a key, or turns prose into JSON:
//!
//! * `stray_prefix` / `stray_suffix`: text before the first `{`/`[` or after the value ends;
//! * `trailing_comma`: a `,` right before `}` or `]`;
//! * `dropped_incomplete_member`: in a cut-off answer, the last member of the outermost value
//!   whose value was cut (a string, a number that may have lost digits, a literal, an object
//!   or array never closed: `"blockers": [`) is removed whole, never completed: `[]` or `12`
//!   for `120` could read as another answer. A cut-off answer with no complete member left is
//!   not repaired;
//! * `unclosed_brackets`: the outermost bracket, left open by the cut, is closed.

use serde::Serialize;
use serde_json::Value;

use crate::warning::WarningKind;

/// One change `--repair` made (the envelope's `source.repairs[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub kind: WarningKind,
    /// Byte offset of the change in the answer text.
    pub offset: usize,
    /// The text that was there (at most [`MAX_QUOTED`] bytes, then `…`).
    pub from: String,
    /// What it became (empty: removed).
    pub to: String,
}

/// Most bytes of the text a change quotes in `from`.
pub const MAX_QUOTED: usize = 80;

/// Deepest nesting a repair will track.
const MAX_DEPTH: usize = 512;

/// A successful repair: the value and the repairs applied, in order.
#[derive(Debug, PartialEq)]
pub struct Repaired {
    pub value: Value,
    pub repairs: Vec<(WarningKind, String)>,
}

/// Try to repair `text` into one JSON value. `None` when it cannot be done within the rules.
pub fn repair(text: &str) -> Option<Repaired> {
    let mut repairs: Vec<(WarningKind, String)> = Vec::new();
    let start = text.find(['{', '['])?;
    if !text[..start].trim().is_empty() {
        repairs.push((
            WarningKind::StrayPrefix,
            format!(
                "removed {} bytes of text before the JSON value",
                text[..start].trim().len()
            ),
        ));
    }
    let scan = Scan::of(&text.as_bytes()[start..])?;
    if scan.trailing_commas > 0 {
        repairs.push((
            WarningKind::TrailingComma,
            format!("removed {} trailing comma(s)", scan.trailing_commas),
        ));
    }
    match scan.ended_at {
        Some(end) => ended(&text[start + end..], &scan.out, repairs),
        None => cut_off(&scan, repairs),
    }
}

/// The value's bytes as read up to where it ends (or the text does), trailing commas removed.
struct Scan {
    out: Vec<u8>,
    /// The brackets open at the end (outermost first).
    stack: Vec<u8>,
    /// Whether the text ended inside a string.
    in_str: bool,
    trailing_commas: usize,
    /// Where the last member of the outermost value starts in `out`: just after its opening
    /// bracket, or after the last `,` between its members.
    member_start: usize,
    /// Where the value ended in the bytes, when it did.
    ended_at: Option<usize>,
}

impl Scan {
    /// Read `bytes` (from the first bracket) to the end of the value; `None` for brackets that
    /// do not match, or deeper than [`MAX_DEPTH`].
    fn of(bytes: &[u8]) -> Option<Self> {
        let mut s = Self {
            out: Vec::with_capacity(bytes.len() + 8),
            stack: Vec::new(),
            in_str: false,
            trailing_commas: 0,
            member_start: 1,
            ended_at: None,
        };
        let mut esc = false;
        for (i, &b) in bytes.iter().enumerate() {
            if s.in_str {
                s.out.push(b);
                if esc {
                    esc = false;
                } else if b == b'\\' {
                    esc = true;
                } else if b == b'"' {
                    s.in_str = false;
                }
                continue;
            }
            match b {
                b'"' => {
                    s.in_str = true;
                    s.out.push(b);
                }
                b'{' | b'[' => {
                    if s.stack.len() >= MAX_DEPTH {
                        return None;
                    }
                    s.stack.push(b);
                    s.out.push(b);
                }
                b'}' | b']' => {
                    let want = if b == b'}' { b'{' } else { b'[' };
                    if s.stack.pop() != Some(want) {
                        return None;
                    }
                    if strip_trailing_comma(&mut s.out) {
                        s.trailing_commas += 1;
                    }
                    s.out.push(b);
                    if s.stack.is_empty() {
                        s.ended_at = Some(i + 1);
                        break;
                    }
                }
                b',' => {
                    s.out.push(b);
                    if s.stack.len() == 1 {
                        s.member_start = s.out.len();
                    }
                }
                _ => s.out.push(b),
            }
        }
        Some(s)
    }
}

/// A value that ended, `out`, followed by `rest`: text after it is a stray suffix, unless it
/// shows that the value ended early.
fn ended(rest: &str, out: &[u8], mut repairs: Vec<(WarningKind, String)>) -> Option<Repaired> {
    // A value followed by `, "b": 2}` or a stray `}` ended early (an object closed before its
    // members end): the rest is part of it, not prose to drop.
    if rest.trim_start().starts_with([',', ':', '}', ']']) {
        return None;
    }
    if !rest.trim().is_empty() {
        repairs.push((
            WarningKind::StraySuffix,
            format!(
                "removed {} bytes of text after the JSON value",
                rest.trim().len()
            ),
        ));
    }
    let value: Value = crate::json::from_slice(out).ok()?;
    (!repairs.is_empty()).then_some(Repaired { value, repairs })
}

/// A value cut off. Only complete members of the outermost value are kept: a member whose
/// value was cut (a string, a number that may have lost digits, a literal, a container never
/// closed: `"blockers": [`) is dropped whole, never completed into something that may read as a
/// different answer (`[]`, `12` for `120`). The outermost bracket is then closed.
fn cut_off(scan: &Scan, mut repairs: Vec<(WarningKind, String)>) -> Option<Repaired> {
    let out = &scan.out;
    let outer = scan.stack.first().copied()?;
    // Only a value cut off at the end is completed: serde_json must stop at the end of the
    // text, not at a break in its middle (`{"a": 1, "b": "x, "c": 2}`, a quote missing).
    let end = out
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    match crate::json::from_slice(&out[..end]) {
        Err(e) if e.classify() == serde_json::error::Category::Eof => {}
        _ => return None,
    }
    let close_outer = if outer == b'{' { b'}' } else { b']' };
    let member_start = scan.member_start.min(out.len());
    let tail = &out[member_start..];
    let last_complete = scan.stack.len() == 1 && !scan.in_str && !ends_in_number(tail);
    if last_complete {
        let mut closed = out.clone();
        let mut attempt = repairs.clone();
        if strip_trailing_comma(&mut closed) {
            attempt.push((
                WarningKind::TrailingComma,
                "removed a trailing comma".into(),
            ));
        }
        closed.push(close_outer);
        if let Ok(value) = crate::json::from_slice(&closed)
            && !is_empty_container(&value)
        {
            attempt.push((
                WarningKind::UnclosedBrackets,
                "closed the outermost bracket, left open at the end".into(),
            ));
            return Some(Repaired {
                value,
                repairs: attempt,
            });
        }
    }
    let dropped = String::from_utf8_lossy(tail).trim().to_owned();
    let mut kept = out[..member_start].to_vec();
    strip_trailing_comma(&mut kept);
    kept.push(close_outer);
    let value: Value = crate::json::from_slice(&kept).ok()?;
    if is_empty_container(&value) {
        return None;
    }
    repairs.push((
        WarningKind::DroppedIncompleteMember,
        format!(
            "removed the cut-off last {} ({} bytes); its value was incomplete",
            member_name(outer, &dropped),
            dropped.len()
        ),
    ));
    repairs.push((
        WarningKind::UnclosedBrackets,
        "closed the outermost bracket, left open at the end".into(),
    ));
    Some(Repaired { value, repairs })
}

/// `{}` or `[]`: with nothing complete left of a cut-off value, an empty one would be an
/// invented answer (`Answer: {` is not `{}`).
fn is_empty_container(value: &Value) -> bool {
    value.as_object().is_some_and(serde_json::Map::is_empty)
        || value.as_array().is_some_and(Vec::is_empty)
}

/// Whether `out` ends (before trailing whitespace) with a number, which a cut may have
/// shortened (`12` of `120`, `1.` of `1.5`).
fn ends_in_number(out: &[u8]) -> bool {
    let end = out
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    let token_start = out[..end]
        .iter()
        .rposition(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-')))
        .map_or(0, |p| p + 1);
    out.get(token_start)
        .is_some_and(|b| b.is_ascii_digit() || *b == b'-')
        && token_start < end
}

/// How a dropped member is named: `member "blockers"` for an object, `element` for an array.
fn member_name(outer: u8, dropped: &str) -> String {
    if outer != b'{' {
        return "element".to_owned();
    }
    let mut keys = serde_json::Deserializer::from_str(dropped).into_iter::<String>();
    match keys.next() {
        Some(Ok(k)) => format!("member {}", serde_json::to_string(&k).unwrap_or_default()),
        _ => "member".to_owned(),
    }
}

/// Remove a `,` (and the whitespace after it) at the end of `out`.
fn strip_trailing_comma(out: &mut Vec<u8>) -> bool {
    let end = out
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    if end > 0 && out[end - 1] == b',' {
        out.truncate(end - 1);
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(r: &Repaired) -> Vec<&'static str> {
        r.repairs.iter().map(|(n, _)| n.as_str()).collect()
    }

    #[test]
    fn trailing_commas() {
        let r = repair(r#"{"a": [1, 2,], }"#).unwrap();
        assert_eq!(r.value, json!({"a": [1, 2]}));
        assert_eq!(names(&r), ["trailing_comma"]);
    }

    #[test]
    fn cut_off_members_are_dropped_never_completed() {
        let cases = [
            // A container never closed is not `[]` nor a shorter list.
            (
                r#"{"verdict": "FAIL", "blockers": ["#,
                json!({"verdict": "FAIL"}),
            ),
            (r#"{"a": 1, "b": ["x", "y"#, json!({"a": 1})),
            (
                r#"{"a": 1, "b": {"c": 2}, "d": {"e": 3"#,
                json!({"a": 1, "b": {"c": 2}}),
            ),
            // A number at the cut may have lost digits; a cut string or literal is incomplete.
            (r#"{"ok": true, "count": 12"#, json!({"ok": true})),
            (r#"{"a": 1, "b": tr"#, json!({"a": 1})),
            (r#"{"a": 1, "s": "x\u00"#, json!({"a": 1})),
            (r#"{"a": 1, "s": "all tests pa"#, json!({"a": 1})),
            (r#"[{"a": 1}, {"b": 2"#, json!([{"a": 1}])),
            // A complete last member is kept.
            (r#"{"a": 1, "s": "done""#, json!({"a": 1, "s": "done"})),
            (r#"{"a": 1, "b": [1, 2]"#, json!({"a": 1, "b": [1, 2]})),
            (r#"{"a": 1, "ok": false,"#, json!({"a": 1, "ok": false})),
            (r#"{"a": 1, "ok": true"#, json!({"a": 1, "ok": true})),
            (r#"{"a": 1, "n": null"#, json!({"a": 1, "n": null})),
            (r#"{"a": 1, "x": 1e5"#, json!({"a": 1})),
            (r#"{"a": 1, "x": -"#, json!({"a": 1})),
        ];
        for (text, want) in cases {
            let r = repair(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(r.value, want, "{text}");
            assert!(names(&r).contains(&"unclosed_brackets"), "{text}");
        }
        let r = repair(r#"{"verdict": "FAIL", "blockers": ["#).unwrap();
        assert_eq!(
            names(&r),
            ["dropped_incomplete_member", "unclosed_brackets"]
        );
        assert!(
            r.repairs[0].1.contains(r#"member "blockers""#),
            "{:?}",
            r.repairs
        );
        // Nothing complete left: no repair (an empty answer would be invented).
        assert_eq!(repair(r#"{"verdict": "FA"#), None);
        assert_eq!(repair(r#"[{"a": 1"#), None);
        assert_eq!(repair("Answer: {"), None);
        assert_eq!(repair("[ "), None);
    }

    /// Only a real cut-off end is completed: a break in the middle stays broken.
    #[test]
    fn a_break_in_the_middle_is_not_a_cut_off_end() {
        for text in [
            // A quote missing mid-answer: the complete `"c": 2` would be lost.
            r#"{"a": 1, "b": "x, "c": 2}"#,
            r#"{"a": 1, "b": "x, "c": 2"#,
            // An object closed before its members end.
            r#"{"a": "x"}, "b": "y"}"#,
            r#"{"a": "x"} , "b": "y""#,
            r#"[{"key":"value"}},{"key":"value"}]"#,
            r#"{"a": ["x"}, "b": ["y"]}"#,
            r#"{"a": 1 "b": 2"#,
        ] {
            assert_eq!(repair(text), None, "{text}");
        }
    }

    #[test]
    fn stray_prefix_and_suffix() {
        let r = repair("json\n{\"a\": 1}\nHope this helps").unwrap();
        assert_eq!(r.value, json!({"a": 1}));
        assert_eq!(names(&r), ["stray_prefix", "stray_suffix"]);
    }

    #[test]
    fn never_touches_string_contents_or_prose() {
        let r = repair(r#"{"path": "C:\\Users\\x", "t": "a,}",}"#).unwrap();
        assert_eq!(r.value, json!({"path": "C:\\Users\\x", "t": "a,}"}));
        assert_eq!(repair("no json here"), None);
        assert_eq!(repair("{ see below }"), None);
        // Valid JSON needs no repair.
        assert_eq!(repair(r#"{"a":1}"#), None);
    }
}
