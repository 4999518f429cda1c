//! Bracketed spans of text that look like JSON, told by structure (issue 39): where a value
//! that opens at a bracket ends, counting brackets of either kind outside strings, and whether
//! each was closed by its own kind. The text miner (`text.rs`) and the framer's salvage of text
//! glued to an event (`framing/glued.rs`) share it, so that both agree on what is one value:
//! a value inside another bracketed span is part of that span, parsed or not, never a value of
//! its own. It also holds the two token rules both readers share: JSON's number grammar and
//! Markdown's fence lines.

pub mod lenient;

/// Whether `b` starts like a JSON container: `{` followed by `"` or `}`, or `[` followed by a
/// JSON value start or `]` (whitespace between), or a bracket at the very end (a cut-off
/// value). `{see below}` and `[1](…)`'s `(` are not; `[1` is (a citation in prose is told from
/// a value later, by what it parses to).
pub fn looks_like_json_start(b: &[u8]) -> bool {
    let Some((&first, rest)) = b.split_first() else {
        return false;
    };
    let at = rest.iter().position(|c| !c.is_ascii_whitespace());
    let next = at.map(|p| rest[p]);
    match (first, next) {
        (b'{', Some(b'"' | b'}') | None) => true,
        (b'[', Some(b't' | b'f' | b'n')) => starts_with_literal(&rest[at.unwrap_or(0)..]),
        (b'[', Some(c)) => matches!(c, b'{' | b'[' | b'"' | b']' | b'-' | b'0'..=b'9'),
        (b'[', None) => true,
        _ => false,
    }
}

/// `true`, `false` or `null` as a whole word (`[true, 1]`, not `[the docs]` or `[note]`), or a
/// start of one cut off at the end of the text (`[tr`).
fn starts_with_literal(b: &[u8]) -> bool {
    let word_end = b
        .iter()
        .position(|c| !c.is_ascii_alphanumeric())
        .unwrap_or(b.len());
    let word = &b[..word_end];
    [&b"true"[..], b"false", b"null"]
        .iter()
        .any(|lit| *lit == word || (word_end == b.len() && lit.starts_with(word)))
}

/// A bracketed span that opens at `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    /// Just past its closing bracket, or the end of the text when it never closed.
    pub end: usize,
    /// Its brackets came back to the depth it opened at.
    pub closed: bool,
    /// Some bracket in it was closed by the other kind (`["x"}`): it is not one JSON value,
    /// whatever a part of it parses to.
    pub mismatched: bool,
}

/// The span of the bracket at `bytes[start]` (`{` or `[`): brackets of either kind are counted
/// outside strings until the depth is back to zero, so a bracket closed by the wrong kind does
/// not end the span early (`{"a": ["x"}, "b": ["y"]}` is one broken span, not a broken
/// `{"a": ["x"}` and a value `["y"]`). A raw newline ends a string (JSON strings cannot hold
/// one: the quote was prose). Linear in the span's length; the kinds are kept on a stack that
/// grows with the nesting.
pub fn span_at(bytes: &[u8], start: usize) -> Span {
    let mut kinds: Vec<u8> = Vec::new();
    let mut mismatched = false;
    let mut in_str = false;
    let mut esc = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' || b == b'\n' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' | b'}' | b']' => {
                if let Some(span) = bracket(&mut kinds, b, start, i, &mut mismatched) {
                    return span;
                }
            }
            _ => {}
        }
    }
    Span {
        start,
        end: bytes.len(),
        closed: false,
        mismatched,
    }
}

/// The bracket `b` at `i`, counted on `kinds` (the kinds open, since `start`): the span, when it
/// closes the outermost; a closer of the other kind is `mismatched`.
#[inline]
fn bracket(
    kinds: &mut Vec<u8>,
    b: u8,
    start: usize,
    i: usize,
    mismatched: &mut bool,
) -> Option<Span> {
    if matches!(b, b'{' | b'[') {
        kinds.push(b);
        return None;
    }
    let open = if b == b'}' { b'{' } else { b'[' };
    *mismatched |= kinds.pop() != Some(open);
    kinds.is_empty().then_some(Span {
        start,
        end: i + 1,
        closed: true,
        mismatched: *mismatched,
    })
}

/// The JSON-looking spans of a text at its top level, in order: each opens at a bracket that
/// [looks like JSON](looks_like_json_start) outside every other such span. Brackets of prose
/// (`{see below}`, `[x]`) neither open a span nor hide one inside them. The last span may be
/// unclosed (then it runs to the end of the text and nothing follows it).
pub fn top_level(bytes: &[u8]) -> impl Iterator<Item = Span> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            if matches!(b, b'{' | b'[') && looks_like_json_start(&bytes[i..]) {
                let s = span_at(bytes, i);
                i = s.end;
                return Some(s);
            }
            i += 1;
        }
        None
    })
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`: JSON's number grammar
/// (the fast path's scan and the text miner's chains read numbers alike).
#[inline]
pub fn is_json_number(b: &[u8]) -> bool {
    let digits = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = usize::from(b.first() == Some(&b'-'));
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

/// A Markdown fence line: ```` ``` ```` or `~~~` after at most three spaces, and its indent.
/// The text miner (`text.rs`) and the framer read fences alike.
pub fn fence_marker(line: &[u8]) -> Option<(&'static str, usize)> {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    let t = &line[indent..];
    if indent > 3 {
        None
    } else if t.starts_with(b"```") {
        Some(("```", indent))
    } else if t.starts_with(b"~~~") {
        Some(("~~~", indent))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(t: &str) -> Vec<(&str, bool, bool)> {
        top_level(t.as_bytes())
            .map(|s| (&t[s.start..s.end], s.closed, s.mismatched))
            .collect()
    }

    #[test]
    fn a_value_inside_a_span_is_part_of_it() {
        assert_eq!(
            spans(r#"x {"a":{"type":"result"}} y"#),
            [(r#"{"a":{"type":"result"}}"#, true, false)]
        );
        assert_eq!(
            spans(r#"{"a": ["x"}, "b": ["y"]}"#),
            [(r#"{"a": ["x"}, "b": ["y"]}"#, true, true)]
        );
        assert_eq!(
            spans(r#"[{"k":"v"}},{"k":"v"}]"#),
            [
                (r#"[{"k":"v"}}"#, true, true),
                (r#"{"k":"v"}"#, true, false)
            ]
        );
    }

    #[test]
    fn prose_brackets_and_strings() {
        assert_eq!(
            spans(r#"{see} [x] {"a":"}{]["} [1, 2"#),
            [(r#"{"a":"}{]["}"#, true, false), ("[1, 2", false, false)]
        );
        // A raw newline ends a string: the quote was prose.
        assert_eq!(
            spans("[\"it's\n] {\"a\":1}"),
            [("[\"it's\n]", true, false), ("{\"a\":1}", true, false)]
        );
    }

    #[test]
    fn literals_start_json_only_as_whole_words() {
        for t in ["[true]", "[ false,", "[null]", "[tr", "[n"] {
            assert!(looks_like_json_start(t.as_bytes()), "{t}");
        }
        for t in ["[the docs]", "[note]", "[fix] it", "[nullable]"] {
            assert!(!looks_like_json_start(t.as_bytes()), "{t}");
        }
    }

    #[test]
    fn deep_nesting_is_linear() {
        let t = "[".repeat(200_000) + &"]".repeat(200_000);
        assert_eq!(top_level(t.as_bytes()).count(), 1);
    }
}
