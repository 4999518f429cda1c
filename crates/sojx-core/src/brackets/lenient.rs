//! The tokens `--repair` reads besides JSON's own (issue 59), shared by the text miner's spans
//! (which value a bracket opens) and the repair itself (what the value reads as), so that both
//! agree on where strings and comments are:
//!
//! * a comment, `//` or `# ` to the end of the line, or `/* … */`, where one can start: at
//!   the value's opening bracket, or after whitespace, `,`, `{` or `[` (`http://x`, `a#b` and
//!   `#fff` are not comments);
//! * a single-quoted string, where a string can start: after `{`, `[`, `,` or `:` (the `'` of
//!   `it's` is not a quote);
//! * a bare word: an identifier key (`{name: 1}`) or Python's `True`, `False`, `None`.

use super::{Span, bracket, looks_like_json_start};

/// Whether `b` starts like a value `--repair` reads: like JSON ([`looks_like_json_start`]), or
/// `{` then a single-quoted key or an identifier key (`{name:`), or `[` then a single-quoted
/// string or `True`, `False`, `None`; or either with comments first, then what starts a member
/// or an element (`{ // note` then `"a"`). A comment alone is not a start (`[# 42]`, Jinja's
/// `{# … #}`).
pub fn looks_like_start(b: &[u8]) -> bool {
    if looks_like_json_start(b) {
        return true;
    }
    let Some(&first) = b.first() else {
        return false;
    };
    if !matches!(first, b'{' | b'[') {
        return false;
    }
    let mut i = 1;
    loop {
        i += b[i..]
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        match comment_at(b, i) {
            Some(c) if c.closed => i = c.end,
            _ => break,
        }
    }
    let rest = &b[i..];
    let Some(&next) = rest.first() else {
        return false;
    };
    let end = word_end(rest, 0);
    let word = &rest[..end];
    match first {
        b'{' => {
            matches!(next, b'"' | b'}' | b'\'')
                || is_identifier(word) && next_significant(rest, end) == Some(b':')
        }
        _ => {
            matches!(next, b'{' | b'[' | b'"' | b']' | b'-' | b'0'..=b'9' | b'\'')
                || matches!(word, b"true" | b"false" | b"null")
                || python_literal(word).is_some()
        }
    }
}

/// A comment that starts at `bytes[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment {
    /// Just past it: the newline that ends a line comment is not part of it.
    pub end: usize,
    /// A block comment found its `*/` (a line comment always ends).
    pub closed: bool,
}

/// The comment at `bytes[i]`, when one starts there: `//`, `#` then whitespace, or `/*`, after
/// whitespace, `,`, `{` or `[` (or at the start).
pub fn comment_at(bytes: &[u8], i: usize) -> Option<Comment> {
    let opens = i == 0 || {
        let p = bytes[i - 1];
        p.is_ascii_whitespace() || matches!(p, b',' | b'{' | b'[')
    };
    if !opens {
        return None;
    }
    let rest = &bytes[i..];
    let line_end = || {
        let end = rest
            .iter()
            .position(|&c| c == b'\n')
            .map_or(bytes.len(), |p| i + p);
        Some(Comment { end, closed: true })
    };
    // `#` then a space (`# note`): `#fff`, `#42` and `#!` are not comments.
    let hash = rest.starts_with(b"#") && rest.get(1).is_none_or(u8::is_ascii_whitespace);
    if rest.starts_with(b"//") || hash {
        return line_end();
    }
    if rest.starts_with(b"/*") {
        return Some(match rest[2..].windows(2).position(|w| w == b"*/") {
            Some(p) => Comment {
                end: i + 2 + p + 2,
                closed: true,
            },
            None => Comment {
                end: bytes.len(),
                closed: false,
            },
        });
    }
    None
}

/// Whether a string may start after `last`, the last byte outside strings and comments that is
/// not whitespace: after `{`, `[`, `,` or `:`.
#[inline]
pub fn quote_opens(last: u8) -> bool {
    matches!(last, b'{' | b'[' | b',' | b':')
}

/// Where the run of word bytes (`[A-Za-z0-9_$]`) that starts at `bytes[i]` ends.
pub fn word_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$'))
        .map_or(bytes.len(), |p| i + p)
}

/// `[A-Za-z_$][A-Za-z0-9_$]*`, and not a literal (`true`, `None`, …: as a key, its reading is
/// not one).
pub fn is_identifier(word: &[u8]) -> bool {
    word.first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'$')
        && word
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
        && !matches!(word, b"true" | b"false" | b"null")
        && python_literal(word).is_none()
}

/// JSON's spelling of Python's `True`, `False`, `None`.
pub fn python_literal(word: &[u8]) -> Option<&'static str> {
    match word {
        b"True" => Some("true"),
        b"False" => Some("false"),
        b"None" => Some("null"),
        _ => None,
    }
}

/// The first byte at or after `i` that is not whitespace.
pub fn next_significant(bytes: &[u8], i: usize) -> Option<u8> {
    bytes[i.min(bytes.len())..]
        .iter()
        .copied()
        .find(|c| !c.is_ascii_whitespace())
}

/// The span of the bracket at `bytes[start]` as `--repair` reads it: [`super::span_at`]'s
/// rules, with single-quoted strings and comments skipped (a bracket in them is not counted),
/// and a raw newline read inside a string, as the repair reads it (where JSON's spans end a
/// string there: the quote may have been prose). Ending it there would cut the value short
/// at a bracket in its string, and leave a part of it to be read as a value of its own. Also
/// whether a bracket inside it [looks like JSON](looks_like_json_start).
pub fn span_at(bytes: &[u8], start: usize) -> (Span, bool) {
    let mut holds = false;
    let mut kinds: Vec<u8> = Vec::new();
    let mut mismatched = false;
    let mut quote: Option<u8> = None;
    let mut esc = false;
    let mut last = 0u8;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = quote {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == q {
                quote = None;
                last = b'"';
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => quote = Some(b'"'),
            b'\'' if quote_opens(last) => quote = Some(b'\''),
            b'/' | b'#' if i > start => {
                if let Some(c) = comment_at(bytes, i) {
                    i = c.end;
                    continue;
                }
            }
            b'{' | b'[' | b'}' | b']' => {
                holds |= i > start && looks_like_json_start(&bytes[i..]);
                if let Some(span) = bracket(&mut kinds, b, start, i, &mut mismatched) {
                    return (span, holds);
                }
            }
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            last = b;
        }
        i += 1;
    }
    let span = Span {
        start,
        end: bytes.len(),
        closed: false,
        mismatched,
    };
    (span, holds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(t: &str) -> (&str, bool) {
        let s = span_at(t.as_bytes(), 0).0;
        (&t[..s.end], s.closed)
    }

    #[test]
    fn starts() {
        for t in [
            "{'a': 1}",
            "{ name: 1}",
            "{_x$1 :",
            "{ // c\n\"a\": 1}",
            "{# c\n\"a\": 1}",
            "{/* c */}",
            "[ // c\n 1]",
            "['a']",
            "[True]",
            "[ None,",
            "{\"a\": 1}",
        ] {
            assert!(looks_like_start(t.as_bytes()), "{t}");
        }
        for t in [
            "{see below}",
            "{name}",
            "{True: 1}",
            "{null: 1}",
            "[note]",
            "[Truely]",
            "{1: 2}",
            "[#42]",
            "{# comment #} in Jinja",
            "[ // only a comment",
            "{ /* never closed",
        ] {
            assert!(!looks_like_start(t.as_bytes()), "{t}");
        }
    }

    #[test]
    fn comments_start_only_where_a_token_may() {
        let b = b"{\"u\": http://x, a#b, // c\n}";
        assert!(comment_at(b, 11).is_none(), "http://");
        assert!(comment_at(b, 17).is_none(), "a#b");
        assert!(comment_at(b"{\"c\": #fff}", 6).is_none(), "#fff");
        assert!(comment_at(b"[ # 42", 2).is_some());
        assert_eq!(
            comment_at(b, 21),
            Some(Comment {
                end: 25,
                closed: true
            })
        );
        assert_eq!(
            comment_at(b"[ /* x", 2),
            Some(Comment {
                end: 6,
                closed: false
            })
        );
    }

    #[test]
    fn spans_skip_single_quoted_strings_and_comments() {
        assert_eq!(span("{'a': '}'} x"), ("{'a': '}'}", true));
        assert_eq!(span("{\"a\": 1 // }\n} x"), ("{\"a\": 1 // }\n}", true));
        assert_eq!(span("{\"a\": 1 /* } */ } x"), ("{\"a\": 1 /* } */ }", true));
        // An apostrophe is not a quote; a raw newline is in a string, as the repair reads it.
        assert_eq!(span("{\"a\": it's} x"), ("{\"a\": it's}", true));
        assert_eq!(span("{'a\n]' : 1} x"), ("{'a\n]' : 1}", true));
        assert_eq!(span("{\"a\n}\": 1} x"), ("{\"a\n}\": 1}", true));
    }
}
