//! Bytes → lines ([`LineSplitter`]): memory bounded by the longest line, the result independent
//! of how the bytes were split across reads, the byte order mark removed here and only here.

/// Splits a byte stream into lines. Lines end at `\n`; a trailing `\r` is removed; the last line
/// may lack its newline; the first line loses its UTF-8 byte order mark, if any. A line longer
/// than `max` bytes (byte order mark included) is reported once and its bytes dropped.
#[derive(Debug)]
pub struct LineSplitter {
    carry: Vec<u8>,
    max: usize,
    line_no: u64,
    overlong: bool,
}

/// What the splitter hands out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    Line {
        no: u64,
        bytes: &'a [u8],
    },
    /// A line that went past the limit; its content was not kept.
    TooLong {
        no: u64,
    },
}

impl LineSplitter {
    pub fn new(max: usize) -> Self {
        Self {
            carry: Vec::new(),
            max,
            line_no: 0,
            overlong: false,
        }
    }

    /// Complete lines handed out so far.
    pub fn lines(&self) -> u64 {
        self.line_no
    }

    /// Feed a chunk; `f` is called once per complete line.
    pub fn push(&mut self, chunk: &[u8], f: &mut dyn FnMut(Piece<'_>)) {
        self.push_spans(chunk, &mut |span| f(span.piece()));
    }

    /// [`LineSplitter::push`], handing out a line that began in an earlier chunk as the
    /// splitter's own buffer, which the callee may take instead of copying it.
    pub fn push_spans(&mut self, mut chunk: &[u8], f: &mut dyn FnMut(Span<'_>)) {
        while let Some(i) = memchr(b'\n', chunk) {
            let (head, rest) = (&chunk[..i], &chunk[i + 1..]);
            chunk = rest;
            self.line_no += 1;
            if self.overlong {
                self.overlong = false;
                self.carry.clear();
                f(Span::Piece(Piece::TooLong { no: self.line_no }));
            } else if self.carry.is_empty() {
                if head.len() > self.max {
                    f(Span::Piece(Piece::TooLong { no: self.line_no }));
                } else {
                    f(Span::Piece(Piece::Line {
                        no: self.line_no,
                        bytes: strip_cr(strip_bom(self.line_no, head)),
                    }));
                }
            } else if self.carry.len() + head.len() > self.max {
                self.carry.clear();
                f(Span::Piece(Piece::TooLong { no: self.line_no }));
            } else {
                self.carry.extend_from_slice(head);
                self.hand_out_carry(f);
                self.carry.clear();
            }
        }
        if !chunk.is_empty() && !self.overlong {
            if self.carry.len() + chunk.len() > self.max {
                self.overlong = true;
                self.carry = Vec::new();
            } else {
                self.carry.extend_from_slice(chunk);
            }
        }
    }

    /// Take `buf` as the buffer for lines that span chunks when it is larger than the one in
    /// use (what that one holds is copied over); `buf` gets the other buffer.
    pub fn reuse(&mut self, buf: &mut Vec<u8>) {
        if buf.capacity() > self.carry.capacity() {
            buf.clear();
            buf.extend_from_slice(&self.carry);
            std::mem::swap(&mut self.carry, buf);
        }
    }

    /// End of input: hand out the last line if it had no newline.
    pub fn finish(&mut self, f: &mut dyn FnMut(Piece<'_>)) {
        self.finish_spans(&mut |span| f(span.piece()));
    }

    /// [`LineSplitter::finish`], as [`LineSplitter::push_spans`] hands lines out.
    pub fn finish_spans(&mut self, f: &mut dyn FnMut(Span<'_>)) {
        if self.overlong {
            self.overlong = false;
            self.line_no += 1;
            f(Span::Piece(Piece::TooLong { no: self.line_no }));
        } else if !self.carry.is_empty() {
            self.line_no += 1;
            self.hand_out_carry(f);
            self.carry = Vec::new();
        }
    }

    /// Hand out the line assembled in `carry` (the line numbered `line_no`), its byte order
    /// mark removed when it is the first line.
    fn hand_out_carry(&mut self, f: &mut dyn FnMut(Span<'_>)) {
        if self.line_no == 1 && self.carry.starts_with(BOM) {
            self.carry.drain(..BOM.len());
        }
        f(Span::Carried {
            no: self.line_no,
            line: &mut self.carry,
        });
    }
}

/// The UTF-8 byte order mark. The one place sojx removes it: from the first line of every input,
/// whatever reads it (`extract`, `validate`, `compare`), before any other step sees the line.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `line` without a byte order mark when it is line 1.
fn strip_bom(no: u64, line: &[u8]) -> &[u8] {
    if no == 1 {
        line.strip_prefix(BOM).unwrap_or(line)
    } else {
        line
    }
}

/// A line as [`LineSplitter::push_spans`] hands it out.
#[derive(Debug)]
pub enum Span<'a> {
    /// A line inside the chunk, or a line past the limit.
    Piece(Piece<'a>),
    /// A line that began in an earlier chunk, in the splitter's buffer (a trailing `\r`
    /// included). Taking the buffer leaves the splitter an empty one.
    Carried { no: u64, line: &'a mut Vec<u8> },
}

impl<'a> Span<'a> {
    /// The line as a [`Piece`].
    pub fn piece(self) -> Piece<'a> {
        match self {
            Self::Piece(p) => p,
            Self::Carried { no, line } => Piece::Line {
                no,
                bytes: strip_cr(line),
            },
        }
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Position of the first `needle` in `hay` (SIMD; the standard library's `position` is a
/// byte-at-a-time loop).
pub fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    memchr::memchr(needle, hay)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], max: usize) -> Vec<String> {
        let mut s = LineSplitter::new(max);
        let mut out = Vec::new();
        let mut f = |p: Piece<'_>| match p {
            Piece::Line { no, bytes } => {
                out.push(format!("{no}:{}", String::from_utf8_lossy(bytes)));
            }
            Piece::TooLong { no } => out.push(format!("{no}:<too long>")),
        };
        for c in chunks {
            s.push(c, &mut f);
        }
        s.finish(&mut f);
        out
    }

    #[test]
    fn the_byte_order_mark_is_removed_from_the_first_line_only() {
        let bom = "\u{feff}";
        let input = format!("{bom}a\n{bom}b\n");
        assert_eq!(
            split(&[input.as_bytes()], 100),
            ["1:a", format!("2:{bom}b").as_str()]
        );
        // Across reads, and on a last line without a newline.
        let bytes = input.as_bytes();
        assert_eq!(
            split(&[&bytes[..1], &bytes[1..2], &bytes[2..]], 100),
            ["1:a", format!("2:{bom}b").as_str()]
        );
        assert_eq!(split(&[&bytes[..2], &bytes[2..4]], 100), ["1:a"]);
        assert_eq!(split(&[b"\xEF\xBB\xBF"], 100), ["1:"]);
    }

    #[test]
    fn splits_lines_crlf_and_last_line() {
        assert_eq!(split(&[b"a\r\nb\n\nc"], 100), ["1:a", "2:b", "3:", "4:c"]);
    }

    #[test]
    fn chunk_boundaries_do_not_matter() {
        let whole = split(&[b"abc\ndef\r\nghi\n"], 100);
        assert_eq!(
            split(&[b"ab", b"c\nde", b"f\r", b"\ngh", b"i\n"], 100),
            whole
        );
    }

    #[test]
    fn overlong_lines_are_reported_not_kept() {
        assert_eq!(split(&[b"12345\nab\n"], 4), ["1:<too long>", "2:ab"]);
        assert_eq!(
            split(&[b"12", b"34", b"5\nab"], 4),
            ["1:<too long>", "2:ab"]
        );
        assert_eq!(split(&[b"12", b"345"], 4), ["1:<too long>"]);
    }
}
