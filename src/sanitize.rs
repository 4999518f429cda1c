//! Make untrusted text safe for a terminal: control characters, escapes, bidi overrides and
//! zero-width characters are shown escaped (as fd's `sanitize` does). JSON output needs none of
//! this: serde_json escapes control characters itself.

use std::borrow::Cow;
use std::fmt::Write;

fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{200B}'..='\u{200F}'   // zero-width, LRM/RLM
            | '\u{202A}'..='\u{202E}' // bidi embeddings and overrides
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{FEFF}'              // zero-width no-break space
            | '\u{E0000}'..='\u{E007F}' // tag characters
        )
}

/// The text with every unsafe character escaped (`\x1b`, `\u{202e}`); borrowed when clean.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            if (c as u32) < 0x100 {
                let _ = write!(out, "\\x{:02x}", c as u32);
            } else {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(sanitize("plain\ntext"), "plain\ntext");
        assert!(matches!(sanitize("plain"), Cow::Borrowed(_)));
        assert_eq!(sanitize("\x1b[31mred\x07"), "\\x1b[31mred\\x07");
        assert_eq!(sanitize("a\u{202e}b\u{200b}"), "a\\u{202e}b\\u{200b}");
    }
}
