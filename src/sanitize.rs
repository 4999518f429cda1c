//! Make untrusted text safe for a terminal: control characters, escapes, bidi overrides and
//! zero-width characters are shown escaped (as fd's `sanitize` does). Text is sanitized one
//! line at a time: a newline in it is escaped too. JSON meant for a terminal escapes the same
//! characters as `\uXXXX` (`render`); serde_json itself escapes only C0 controls.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether a terminal would act on `c` instead of showing it: control characters (C0, DEL and
/// C1, which includes the 8-bit CSI U+009B and OSC U+009D; a newline too, so that a file name or
/// message cannot start a line of its own), bidi controls, zero-width and tag characters.
pub(crate) fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c,
            '\u{200B}'..='\u{200F}'   // zero-width, LRM/RLM
            | '\u{202A}'..='\u{202E}' // bidi embeddings and overrides
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{FEFF}'              // zero-width no-break space
            | '\u{E0000}'..='\u{E007F}' // tag characters
        )
}

/// The text with every unsafe character escaped (`\x1b`, `\u{202e}`); borrowed when clean.
pub(crate) fn sanitize(s: &str) -> Cow<'_, str> {
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
        assert_eq!(sanitize("plain\ttext"), "plain\ttext");
        assert_eq!(sanitize("a.json\n✓ forged"), "a.json\\x0a✓ forged");
        assert_eq!(
            sanitize("\u{9b}31m\u{9d}0;t\u{9c}"),
            "\\x9b31m\\x9d0;t\\x9c"
        );
        assert!(matches!(sanitize("plain"), Cow::Borrowed(_)));
        assert_eq!(sanitize("\x1b[31mred\x07"), "\\x1b[31mred\\x07");
        assert_eq!(sanitize("a\u{202e}b\u{200b}"), "a\\u{202e}b\\u{200b}");
    }
}
