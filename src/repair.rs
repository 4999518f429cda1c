//! `--repair`: bounded, named repairs of almost-JSON. Each repair is reported; none changes a
//! string's contents, invents a key, or turns prose into JSON:
//!
//! * `stray_prefix` / `stray_suffix`: text before the first `{`/`[` or after the value ends;
//! * `trailing_comma`: a `,` right before `}` or `]`;
//! * `unclosed_string`: a string cut off at the end of the text is closed (a dangling partial
//!   escape is dropped);
//! * `unclosed_brackets`: the brackets still open at the end are closed;
//! * `dropped_incomplete_member`: a cut-off last member (`"key": tr`) is removed, back to the
//!   last complete one.

use serde_json::Value;

/// Deepest nesting a repair will track.
const MAX_DEPTH: usize = 512;

/// A successful repair: the value and the repairs applied, in order.
#[derive(Debug, PartialEq)]
pub struct Repaired {
    pub value: Value,
    pub repairs: Vec<(&'static str, String)>,
}

/// Try to repair `text` into one JSON value. `None` when it cannot be done within the rules.
pub fn repair(text: &str) -> Option<Repaired> {
    let mut repairs: Vec<(&'static str, String)> = Vec::new();
    let start = text.find(['{', '['])?;
    if !text[..start].trim().is_empty() {
        repairs.push((
            "stray_prefix",
            format!(
                "removed {} bytes of text before the JSON value",
                text[..start].trim().len()
            ),
        ));
    }
    let bytes = &text.as_bytes()[start..];
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len() + 8);
    let mut stack: Vec<u8> = Vec::new();
    let mut in_str = false;
    let mut esc = false;
    let mut trailing_commas = 0;
    // The last point where everything written is complete: (output length, open brackets).
    let mut safe: Option<(usize, Vec<u8>)> = None;
    let mut ended_at = None;
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            out.push(b);
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => {
                in_str = true;
                out.push(b);
            }
            b'{' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                stack.push(b);
                out.push(b);
            }
            b'}' | b']' => {
                let want = if b == b'}' { b'{' } else { b'[' };
                if stack.pop() != Some(want) {
                    return None;
                }
                if strip_trailing_comma(&mut out) {
                    trailing_commas += 1;
                }
                out.push(b);
                if stack.is_empty() {
                    ended_at = Some(i + 1);
                    break;
                }
            }
            b',' => {
                safe = Some((out.len(), stack.clone()));
                out.push(b);
            }
            _ => out.push(b),
        }
    }
    if trailing_commas > 0 {
        repairs.push((
            "trailing_comma",
            format!("removed {trailing_commas} trailing comma(s)"),
        ));
    }
    if let Some(end) = ended_at {
        let rest = &text[start + end..];
        if !rest.trim().is_empty() {
            repairs.push((
                "stray_suffix",
                format!(
                    "removed {} bytes of text after the JSON value",
                    rest.trim().len()
                ),
            ));
        }
        let value: Value = serde_json::from_slice(&out).ok()?;
        return (!repairs.is_empty()).then_some(Repaired { value, repairs });
    }

    // Cut off: close what is open.
    let mut closed = out.clone();
    let mut attempt_repairs = repairs.clone();
    if in_str {
        if esc {
            closed.pop();
        } else if let Some(cut) = partial_unicode_escape(&closed) {
            closed.truncate(cut);
        }
        closed.push(b'"');
        attempt_repairs.push((
            "unclosed_string",
            "closed a string cut off at the end".into(),
        ));
    }
    if let Some(v) = close(&mut closed, &stack, &mut attempt_repairs) {
        return Some(Repaired {
            value: v,
            repairs: attempt_repairs,
        });
    }
    let (len, stack) = safe?;
    let mut truncated = out[..len].to_vec();
    repairs.push((
        "dropped_incomplete_member",
        format!("removed {} bytes of a cut-off last member", out.len() - len),
    ));
    let v = close(&mut truncated, &stack, &mut repairs)?;
    Some(Repaired { value: v, repairs })
}

/// Close the open brackets and parse.
fn close(
    out: &mut Vec<u8>,
    stack: &[u8],
    repairs: &mut Vec<(&'static str, String)>,
) -> Option<Value> {
    if strip_trailing_comma(out) {
        repairs.push(("trailing_comma", "removed a trailing comma".into()));
    }
    for &open in stack.iter().rev() {
        out.push(if open == b'{' { b'}' } else { b']' });
    }
    if !stack.is_empty() {
        repairs.push((
            "unclosed_brackets",
            format!("closed {} bracket(s) left open at the end", stack.len()),
        ));
    }
    serde_json::from_slice(out).ok()
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

/// Where a cut-off `\uXXX` escape at the end starts, if there is one.
fn partial_unicode_escape(out: &[u8]) -> Option<usize> {
    let tail_start = out.len().saturating_sub(6);
    let tail = &out[tail_start..];
    let pos = tail.windows(2).rposition(|w| w == b"\\u")?;
    let digits = &tail[pos + 2..];
    (digits.len() < 4 && digits.iter().all(u8::is_ascii_hexdigit)).then_some(tail_start + pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(r: &Repaired) -> Vec<&'static str> {
        r.repairs.iter().map(|(n, _)| *n).collect()
    }

    #[test]
    fn trailing_commas() {
        let r = repair(r#"{"a": [1, 2,], }"#).unwrap();
        assert_eq!(r.value, json!({"a": [1, 2]}));
        assert_eq!(names(&r), ["trailing_comma"]);
    }

    #[test]
    fn cut_off_answers() {
        let r = repair(r#"{"a": 1, "b": ["x", "y"#).unwrap();
        assert_eq!(r.value, json!({"a": 1, "b": ["x", "y"]}));
        assert_eq!(names(&r), ["unclosed_string", "unclosed_brackets"]);
        let r = repair(r#"{"a": 1, "b": tr"#).unwrap();
        assert_eq!(r.value, json!({"a": 1}));
        assert!(names(&r).contains(&"dropped_incomplete_member"));
        let r = repair(r#"{"a": "x\u00"#).unwrap();
        assert_eq!(r.value, json!({"a": "x"}));
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
