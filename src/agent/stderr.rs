//! The agent's stderr as the envelope shows it: terminal escapes removed, and the line that
//! says why it failed picked out of stack traces and retry noise (display only: `retryable`
//! never follows stderr's wording).

/// The most of one stderr line looked at for [`first_error`](Lines::first_error).
const LINE_BYTES: usize = 1024;

/// The most characters of an OSC sequence dropped while looking for its end; an unterminated
/// one does not swallow the rest of the text.
const OSC_CHARS: usize = 512;

/// `text` without terminal escape sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL`, `ESC \`
/// or the C1 ST), and the other escapes (`ESC ( B`: intermediates, then one final character).
/// A lone ESC at the end is dropped; a character after ESC that ends no escape is kept.
pub(crate) fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('[') => {
                chars.next();
                // Parameters and intermediates, then one final character in @..~.
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                for _ in 0..OSC_CHARS {
                    match chars.next() {
                        None | Some('\u{7}' | '\u{9c}') => break,
                        Some('\u{1b}') if chars.peek() == Some(&'\\') => {
                            chars.next();
                            break;
                        }
                        Some(_) => {}
                    }
                }
            }
            Some(' '..='/') => {
                while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
                chars.next_if(|c| ('0'..='~').contains(c));
            }
            Some('0'..='~') => {
                chars.next();
            }
            _ => {}
        }
    }
    out
}

/// Whether a line is a frame of a stack trace (`    at f (file.js:1:2)`, Python's
/// `  File "x.py", line 3`): it says where, not why.
pub(crate) fn is_stack_frame(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("at ") || t.starts_with("File \"") || t == "^"
}

/// Whether a line reports an error (it holds `error`, in any case, or `failed`), and is not a
/// stack frame.
fn is_error_line(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    !is_stack_frame(line) && (lower.contains("error") || lower.contains("failed"))
}

/// The last line of `tail` worth showing: the last non-empty line that is not a stack frame.
pub(crate) fn last_line(tail: &str) -> Option<&str> {
    tail.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !is_stack_frame(l))
}

/// Splits stderr, arriving in pieces, into lines, and keeps the first that reports an error.
#[derive(Debug, Default)]
pub(crate) struct Lines {
    partial: Vec<u8>,
    first_error: Option<String>,
}

impl Lines {
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if self.first_error.is_some() {
            return;
        }
        // A carriage return ends a line too: a spinner rewrites one line in place.
        for piece in bytes.split_inclusive(|&b| b == b'\n' || b == b'\r') {
            let room = LINE_BYTES.saturating_sub(self.partial.len());
            self.partial
                .extend_from_slice(&piece[..piece.len().min(room)]);
            if piece.ends_with(b"\n") || piece.ends_with(b"\r") {
                let line = strip_ansi(&String::from_utf8_lossy(&self.partial));
                self.partial.clear();
                let line = line.trim();
                if is_error_line(line) {
                    self.first_error = Some(line.to_owned());
                    return;
                }
            }
        }
    }

    /// The first line that reported an error (a last line without its newline too).
    pub(crate) fn first_error(&self) -> Option<String> {
        self.first_error.clone().or_else(|| {
            let line = strip_ansi(&String::from_utf8_lossy(&self.partial));
            is_error_line(line.trim()).then(|| line.trim().to_owned())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_removed() {
        assert_eq!(
            strip_ansi("\u{1b}[31mGemini CLI is not trusted\u{1b}[0m"),
            "Gemini CLI is not trusted"
        );
        assert_eq!(strip_ansi("a\u{1b}[1;38;5;196mb\u{1b}[K"), "ab");
        assert_eq!(strip_ansi("\u{1b}]0;title\u{7}x\u{1b}]8;;u\u{1b}\\y"), "xy");
        assert_eq!(strip_ansi("end\u{1b}"), "end");
        assert_eq!(strip_ansi("a\u{1b}(Bb\u{1b}7c\u{1b}\né"), "abc\né");
        assert_eq!(strip_ansi("x\u{1b}]0;t\u{9c}y"), "xy");
        let unterminated = format!("a\u{1b}]{}", "z".repeat(600));
        assert_eq!(
            strip_ansi(&unterminated),
            format!("a{}", "z".repeat(600 - OSC_CHARS))
        );
        assert_eq!(strip_ansi("é plain"), "é plain");
    }

    /// Gemini CLI's retries print a stack trace after each attempt: the cause is the line
    /// before the frames, and the first such line is kept even when the frames push it out of
    /// the tail.
    #[test]
    fn the_cause_is_found_between_stack_frames() {
        let stderr = "Warning: 256-color support not detected.\n\
                      Attempt 1 failed. Retrying with backoff... Error: fetch failed\n    \
                      at file:///x.js:1:2\n    at async f (file:///x.js:3:4)\n\
                      Attempt 2 failed. Retrying with backoff... Error: fetch failed\n    \
                      at file:///x.js:1:2\n";
        assert_eq!(
            last_line(stderr),
            Some("Attempt 2 failed. Retrying with backoff... Error: fetch failed")
        );
        let mut lines = Lines::default();
        for chunk in stderr.as_bytes().chunks(7) {
            lines.push(chunk);
        }
        assert_eq!(
            lines.first_error().as_deref(),
            Some("Attempt 1 failed. Retrying with backoff... Error: fetch failed")
        );
        let mut none = Lines::default();
        none.push(b"Please set an Auth method\n");
        assert_eq!(none.first_error(), None);
        let mut spinner = Lines::default();
        spinner.push(b"| working\r/ working\rError: no network\r");
        assert_eq!(spinner.first_error().as_deref(), Some("Error: no network"));
        let mut cut = Lines::default();
        cut.push(b"\x1b[31mERROR: no key");
        assert_eq!(cut.first_error().as_deref(), Some("ERROR: no key"));
    }
}
