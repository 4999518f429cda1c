//! `--repair`: bounded, named repairs of almost-JSON. Each change is recorded (kind, byte
//! offset, what was there, what it became); none changes what a string says, invents a key,
//! or turns prose into JSON. Each reading applies only where it has one meaning
//! ([`crate::brackets::lenient`] says where a comment or a single-quoted string can start);
//! anything else stays a failure:
//!
//! * `stray_prefix` / `stray_suffix`: text before the first `{`/`[` or after the value ends;
//! * `trailing_comma`: a `,` right before `}` or `]`;
//! * `comment_removed`: `//` or `#` to the end of the line, or `/* … */`, outside strings;
//! * `control_character_escaped`: a raw newline, tab or other control character inside a
//!   string, escaped (`\n`);
//! * `single_quoted_string`: `'…'` as a key or a value, read as a JSON string (`\'` is `'`, a
//!   `"` in it is escaped);
//! * `unquoted_key`: a key written as an identifier (`{name: 1}`), quoted; never `true`,
//!   `null`, `True`, … (as keys, their reading is not one);
//! * `python_literal`: `True`, `False`, `None` as values, read as `true`, `false`, `null`;
//! * `dropped_incomplete_member`: in a cut-off answer, the last member of the outermost value
//!   whose value was cut (a string, a number that may have lost digits, a literal, an object
//!   or array never closed: `"blockers": [`) is removed whole, never completed: `[]` or `12`
//!   for `120` could read as another answer. A cut-off answer with no complete member left is
//!   not repaired;
//! * `unclosed_brackets`: the outermost bracket, left open by the cut, is closed. Only a text
//!   cut off at its end is completed ([`Rules::cut`]).

use serde::Serialize;
use serde_json::Value;

use crate::warning::WarningKind;

mod lex;
use lex::Scan;

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

/// Which of the readings a repair may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Read what models write besides JSON: comments, raw control characters in strings,
    /// single quotes, identifier keys, Python's literals (`--repair`).
    pub lenient: bool,
    /// The text is cut off at its end (the answer's end, not a span of it that closed): a
    /// value still open there may be completed.
    pub cut: bool,
}

impl Rules {
    /// Every reading, the text's end being the answer's.
    pub const ALL: Self = Self {
        lenient: true,
        cut: true,
    };
}

/// A successful repair: the value, one warning per kind of repair (in the order they apply),
/// and each change in text order.
#[derive(Debug, PartialEq)]
pub struct Repaired {
    pub value: Value,
    pub warnings: Vec<(WarningKind, String)>,
    /// Offsets in the text given.
    pub changes: Vec<Change>,
}

/// [`repair_with`] every reading.
pub fn repair(text: &str) -> Option<Repaired> {
    repair_with(text, Rules::ALL)
}

/// Try to repair `text` into one JSON value by `rules`. `None` when it cannot be done within
/// them (and for valid JSON, which needs no repair).
pub fn repair_with(text: &str, rules: Rules) -> Option<Repaired> {
    let start = text.find(['{', '['])?;
    let mut head = Vec::new();
    let mut changes = Vec::new();
    let prefix = text[..start].trim();
    if !prefix.is_empty() {
        head.push((
            WarningKind::StrayPrefix,
            format!(
                "removed {} bytes of text before the JSON value",
                prefix.len()
            ),
        ));
        changes.push(removed(
            WarningKind::StrayPrefix,
            text.len() - text.trim_start().len(),
            prefix,
        ));
    }
    let mut scan = Scan::of(&text.as_bytes()[start..], rules.lenient)?;
    let mut tail = Vec::new();
    let value = match scan.ended_at {
        Some(end) => ended(text, start + end, &scan.out, &mut tail, &mut changes)?,
        None if rules.cut => cut_off(text, start, &mut scan, &mut tail, &mut changes)?,
        None => return None,
    };
    if head.is_empty()
        && tail.is_empty()
        && scan.changes.is_empty()
        && scan.trailing_commas.is_empty()
    {
        return None;
    }
    for c in &mut scan.changes {
        c.offset += start;
    }
    head.extend(kinds(&scan.changes));
    if !scan.trailing_commas.is_empty() {
        head.push((
            WarningKind::TrailingComma,
            format!("removed {} trailing comma(s)", scan.trailing_commas.len()),
        ));
    }
    head.extend(tail);
    changes.extend(scan.changes);
    changes.extend(
        scan.trailing_commas
            .iter()
            .map(|&at| removed(WarningKind::TrailingComma, start + at, ",")),
    );
    changes.sort_by_key(|c| c.offset);
    Some(Repaired {
        value,
        warnings: head,
        changes,
    })
}

/// One warning per kind of the lexer's changes, in a fixed order.
fn kinds(changes: &[Change]) -> Vec<(WarningKind, String)> {
    let count = |k: WarningKind| changes.iter().filter(|c| c.kind == k).count();
    [
        (WarningKind::CommentRemoved, "removed {} comment(s)"),
        (
            WarningKind::ControlCharacterEscaped,
            "escaped raw control characters inside strings in {} place(s)",
        ),
        (
            WarningKind::PythonLiteral,
            "read {} Python literal(s) (True, False, None) as JSON's true, false, null",
        ),
        (
            WarningKind::SingleQuotedString,
            "read {} single-quoted string(s) as JSON strings",
        ),
        (WarningKind::UnquotedKey, "quoted {} bare key(s)"),
    ]
    .into_iter()
    .filter_map(|(k, m)| {
        let n = count(k);
        (n > 0).then(|| (k, m.replace("{}", &n.to_string())))
    })
    .collect()
}

/// The change that removed `text` at `offset`.
fn removed(kind: WarningKind, offset: usize, text: &str) -> Change {
    Change {
        kind,
        offset,
        from: quoted(text),
        to: String::new(),
    }
}

/// `text`, cut at [`MAX_QUOTED`] bytes (on a character's boundary) with `…` after.
fn quoted(text: &str) -> String {
    if text.len() <= MAX_QUOTED {
        return text.to_owned();
    }
    let mut end = MAX_QUOTED;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// A value that ended at `text[end]`, read as `out`: text after it is a stray suffix, unless
/// it shows that the value ended early.
fn ended(
    text: &str,
    end: usize,
    out: &[u8],
    tail: &mut Vec<(WarningKind, String)>,
    changes: &mut Vec<Change>,
) -> Option<Value> {
    let rest = &text[end..];
    // A value followed by `, "b": 2}` or a stray `}` ended early (an object closed before its
    // members end): the rest is part of it, not prose to drop.
    if rest.trim_start().starts_with([',', ':', '}', ']']) {
        return None;
    }
    let suffix = rest.trim();
    if !suffix.is_empty() {
        tail.push((
            WarningKind::StraySuffix,
            format!(
                "removed {} bytes of text after the JSON value",
                suffix.len()
            ),
        ));
        let at = end + (rest.len() - rest.trim_start().len());
        changes.push(removed(WarningKind::StraySuffix, at, suffix));
    }
    crate::json::from_slice(out).ok()
}

/// A value cut off. Only complete members of the outermost value are kept: a member whose
/// value was cut (a string, a number that may have lost digits, a literal, a container never
/// closed: `"blockers": [`) is dropped whole, never completed into something that may read as a
/// different answer (`[]`, `12` for `120`). The outermost bracket is then closed.
fn cut_off(
    text: &str,
    start: usize,
    scan: &mut Scan,
    tail: &mut Vec<(WarningKind, String)>,
    changes: &mut Vec<Change>,
) -> Option<Value> {
    // A quote missing before a line's end, or a line comment that may have swallowed the
    // closing bracket, is a break on the page, not a cut.
    if scan.open_string_lines || scan.ends_in_comment {
        return None;
    }
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
    let tail_bytes = &out[member_start..];
    let last_complete = scan.stack.len() == 1 && !scan.in_str && !ends_in_number(tail_bytes);
    if last_complete
        && let Some(value) = close_complete(text, start, scan, close_outer, tail, changes)
    {
        return Some(value);
    }
    let dropped = String::from_utf8_lossy(tail_bytes).trim().to_owned();
    let mut kept = out[..member_start].to_vec();
    strip_trailing_comma(&mut kept);
    kept.push(close_outer);
    let value: Value = crate::json::from_slice(&kept).ok()?;
    if is_empty_container(&value) {
        return None;
    }
    // What was read in the member dropped is dropped with it.
    let member_at = scan.member_at;
    scan.changes.retain(|c| c.offset < member_at);
    scan.trailing_commas.retain(|&at| at < member_at);
    let bytes = text.as_bytes();
    let mut at = start + member_at;
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    tail.push((
        WarningKind::DroppedIncompleteMember,
        format!(
            "removed the cut-off last {} ({} bytes); its value was incomplete",
            member_name(outer, &dropped),
            dropped.len()
        ),
    ));
    tail.push((
        WarningKind::UnclosedBrackets,
        "closed the outermost bracket, left open at the end".into(),
    ));
    changes.push(removed(
        WarningKind::DroppedIncompleteMember,
        at,
        text[at.min(text.len())..].trim_end(),
    ));
    changes.push(Change {
        kind: WarningKind::UnclosedBrackets,
        offset: text.trim_end().len(),
        from: String::new(),
        to: String::from(char::from(close_outer)),
    });
    Some(value)
}

/// A cut-off value whose last member is complete, closed as it is (a trailing comma removed):
/// `None` when that does not parse or leaves it empty.
fn close_complete(
    text: &str,
    start: usize,
    scan: &Scan,
    close_outer: u8,
    tail: &mut Vec<(WarningKind, String)>,
    changes: &mut Vec<Change>,
) -> Option<Value> {
    let mut closed = scan.out.clone();
    let mut attempt = Vec::new();
    if strip_trailing_comma(&mut closed) {
        attempt.push((
            WarningKind::TrailingComma,
            "removed a trailing comma".to_owned(),
        ));
    }
    closed.push(close_outer);
    let value = crate::json::from_slice(&closed).ok()?;
    if is_empty_container(&value) {
        return None;
    }
    if !attempt.is_empty()
        && let Some(at) = scan.last_comma
    {
        changes.push(removed(WarningKind::TrailingComma, start + at, ","));
    }
    attempt.push((
        WarningKind::UnclosedBrackets,
        "closed the outermost bracket, left open at the end".into(),
    ));
    changes.push(Change {
        kind: WarningKind::UnclosedBrackets,
        offset: text.trim_end().len(),
        from: String::new(),
        to: String::from(char::from(close_outer)),
    });
    tail.extend(attempt);
    Some(value)
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
mod tests;
