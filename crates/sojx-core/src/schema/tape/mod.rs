//! One JSON document read into a flat buffer that is reused from document to document, and
//! validated from there without building a `serde_json::Value`.
//!
//! `validate` on JSON Lines spends most of its time building and dropping a `Value` per
//! document (map inserts, hashing, an allocation per key, string and number). The `jsonschema`
//! crate validates any representation that implements its `json` traits (`options_for`), so a
//! valid document is read here into items that borrow the line's bytes, and validated there.
//!
//! The tape stands in for the `Value` only where the two cannot differ: [`Tape::read`] takes a
//! text only when `serde_json::from_slice` would read it as the same value, and answers `None`
//! otherwise (not JSON, a duplicate key, an exponent, a lone surrogate, deep nesting, serde_json's
//! private number key `$serde_json::private::Number`), and the
//! caller then goes the `Value` way. Its answer is only ever "valid"; an invalid document is
//! validated again as a `Value`, which reports the violations.

mod json;

pub use json::{TapeJson, TapeNode};

/// Nesting beyond this goes the `Value` way (serde_json's own limit is 128).
const MAX_DEPTH: u32 = 100;

/// The prefix of serde_json's private keys (`$serde_json::private::Number`): an object whose
/// first key is one is not read as an object.
const PRIVATE_KEY: &str = "$serde_json::private::";

/// Objects up to this many members are checked for duplicate keys pair by pair.
const PAIRWISE_KEYS: usize = 16;

/// One node. Containers are followed by their elements (objects: key, then value), and `end`
/// is the index after their last descendant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Null,
    False,
    True,
    /// A number's literal (integer or decimal, never an exponent): `at..at + len` of the source.
    Num {
        at: u32,
        len: u32,
    },
    /// A string's text: `at..at + len` of the source, or of the unescaped text when `own`.
    Str {
        at: u32,
        len: u32,
        own: bool,
    },
    Arr {
        len: u32,
        end: u32,
    },
    Obj {
        len: u32,
        end: u32,
    },
}

/// The buffers a document is read into, kept from one document to the next.
#[derive(Debug, Default)]
pub struct Tape {
    items: Vec<Item>,
    /// Strings that had escapes, unescaped.
    text: String,
    /// The keys of the objects being read (indices into `items`), for the duplicate check.
    keys: Vec<u32>,
}

/// A document read by [`Tape::read`].
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    items: &'a [Item],
    src: &'a str,
    text: &'a str,
    /// Its bytes are exactly what serde_json writes for the value: no whitespace between
    /// tokens, no escape serde_json spells differently (`\/`, `\u…`).
    pub plain: bool,
}

impl Tape {
    /// Read `bytes` as one JSON value; `None` when they are not one, or when serde_json might
    /// read them as a different value than the tape holds.
    pub fn read<'a>(&'a mut self, bytes: &'a [u8]) -> Option<Doc<'a>> {
        self.parse(bytes, false)
    }

    /// [`Tape::read`], for a caller that only wants a plain document: `None` as soon as the text
    /// is not plain (whitespace between tokens, `\/`, `\u`), without reading the rest.
    pub fn read_plain<'a>(&'a mut self, bytes: &'a [u8]) -> Option<Doc<'a>> {
        self.parse(bytes, true)
    }

    fn parse<'a>(&'a mut self, bytes: &'a [u8], only_plain: bool) -> Option<Doc<'a>> {
        let src = std::str::from_utf8(bytes).ok()?;
        u32::try_from(bytes.len()).ok()?;
        self.items.clear();
        self.text.clear();
        self.keys.clear();
        let mut p = Parser {
            src,
            b: bytes,
            i: 0,
            tape: self,
            plain: true,
            only_plain,
            depth: 0,
        };
        p.ws()?;
        p.value()?;
        p.ws()?;
        if p.i != bytes.len() {
            return None;
        }
        let plain = p.plain;
        Some(Doc {
            items: &self.items,
            src,
            text: &self.text,
            plain,
        })
    }
}

impl<'a> Doc<'a> {
    /// The node of the whole document.
    pub fn root(&'a self) -> TapeNode<'a> {
        TapeNode { doc: self, at: 0 }
    }

    fn str_of(&self, item: Item) -> &'a str {
        text_of(item, self.src, self.text)
    }

    /// The index after the node at `i` and its descendants.
    fn skip(&self, i: u32) -> u32 {
        match self.items.get(i as usize) {
            Some(Item::Arr { end, .. } | Item::Obj { end, .. }) => *end,
            _ => i + 1,
        }
    }
}

/// The text of a string item: `at..at + len` of the source, or of the unescaped text when it
/// owns it (`""` for any other item).
fn text_of<'s>(item: Item, src: &'s str, text: &'s str) -> &'s str {
    match item {
        Item::Str { at, len, own } => {
            let s = if own { text } else { src };
            s.get(at as usize..(at + len) as usize).unwrap_or_default()
        }
        _ => "",
    }
}

/// The first index from `i` on of a byte that ends a run of plain string bytes (`"`, `\\`, a
/// control character), or the end: eight bytes at a time.
fn stop(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTE: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASH: u64 = u64::from_ne_bytes([b'\\'; 8]);
    const SPACE: u64 = u64::from_ne_bytes([0x20; 8]);
    while let Some(chunk) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // The high bit of each byte that is zero after the xor (or below 0x20); borrows can
        // only mark bytes above a true one, so the lowest mark is exact.
        let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        let marks = zero(x ^ QUOTE) | zero(x ^ BACKSLASH) | (x.wrapping_sub(SPACE) & !x & HIGH);
        if marks != 0 {
            return i + (marks.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

struct Parser<'t> {
    src: &'t str,
    b: &'t [u8],
    i: usize,
    tape: &'t mut Tape,
    plain: bool,
    /// Give up at the first thing that is not plain.
    only_plain: bool,
    depth: u32,
}

impl Parser<'_> {
    fn ws(&mut self) -> Option<()> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
            self.not_plain()?;
        }
        Some(())
    }

    /// The text is not plain: `None` when only a plain one is wanted.
    fn not_plain(&mut self) -> Option<()> {
        self.plain = false;
        (!self.only_plain).then_some(())
    }

    fn next(&mut self) -> Option<u8> {
        let c = *self.b.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    fn at(&self) -> Option<u32> {
        u32::try_from(self.tape.items.len()).ok()
    }

    fn value(&mut self) -> Option<()> {
        match *self.b.get(self.i)? {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => {
                let s = self.string()?;
                self.tape.items.push(s);
                Some(())
            }
            b'n' => self.literal(b"null", Item::Null),
            b't' => self.literal(b"true", Item::True),
            b'f' => self.literal(b"false", Item::False),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8], item: Item) -> Option<()> {
        if !self.b.get(self.i..)?.starts_with(word) {
            return None;
        }
        self.i += word.len();
        self.tape.items.push(item);
        Some(())
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?`; an exponent goes the `Value` way (serde_json keeps the
    /// literal of a number, but spells an exponent its own way).
    fn number(&mut self) -> Option<()> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let from = p.i;
            while p.b.get(p.i).is_some_and(u8::is_ascii_digit) {
                p.i += 1;
            }
            p.i - from
        };
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        match self.b.get(self.i)? {
            b'0' => {
                self.i += 1;
                if self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                    return None;
                }
            }
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return None;
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            return None;
        }
        self.tape.items.push(Item::Num {
            at: u32::try_from(start).ok()?,
            len: u32::try_from(self.i - start).ok()?,
        });
        Some(())
    }

    /// A string at `"`: its item (not pushed).
    fn string(&mut self) -> Option<Item> {
        self.i += 1;
        let start = self.i;
        self.i = stop(self.b, self.i);
        loop {
            match self.next()? {
                b'"' => {
                    return Some(Item::Str {
                        at: u32::try_from(start).ok()?,
                        len: u32::try_from(self.i - 1 - start).ok()?,
                        own: false,
                    });
                }
                b'\\' => break,
                c if c < 0x20 => return None,
                _ => {}
            }
        }
        // An escape: the string is unescaped into the tape's text.
        let at = self.tape.text.len();
        self.tape.text.push_str(self.src.get(start..self.i - 1)?);
        let mut run = self.i - 1;
        loop {
            // `run` is at a backslash or at the start of a run of plain bytes.
            if self.b.get(run) == Some(&b'\\') {
                self.i = run + 1;
                let c = self.escape()?;
                self.tape.text.push(c);
                run = self.i;
                continue;
            }
            self.i = run;
            loop {
                match self.next()? {
                    b'"' | b'\\' => break,
                    c if c < 0x20 => return None,
                    _ => {}
                }
            }
            let end = self.i - 1;
            self.tape.text.push_str(self.src.get(run..end)?);
            if self.b[end] == b'"' {
                return Some(Item::Str {
                    at: u32::try_from(at).ok()?,
                    len: u32::try_from(self.tape.text.len() - at).ok()?,
                    own: true,
                });
            }
            run = end;
        }
    }

    /// The character of the escape after a backslash.
    fn escape(&mut self) -> Option<char> {
        Some(match self.next()? {
            b'"' => '"',
            b'\\' => '\\',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'/' => {
                self.not_plain()?;
                '/'
            }
            b'u' => {
                self.not_plain()?;
                let hi = self.hex4()?;
                match hi {
                    0xD800..=0xDBFF => {
                        if self.next()? != b'\\' || self.next()? != b'u' {
                            return None;
                        }
                        let lo = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&lo) {
                            return None;
                        }
                        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                    }
                    _ => char::from_u32(hi)?,
                }
            }
            _ => return None,
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = std::str::from_utf8(self.b.get(self.i..self.i + 4)?).ok()?;
        if !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(digits, 16).ok()
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn array(&mut self) -> Option<()> {
        self.enter()?;
        let me = self.tape.items.len();
        self.tape.items.push(Item::Arr { len: 0, end: 0 });
        self.i += 1;
        self.ws()?;
        let mut len = 0u32;
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
        } else {
            loop {
                self.value()?;
                len += 1;
                self.ws()?;
                match self.next()? {
                    b',' => self.ws()?,
                    b']' => break,
                    _ => return None,
                }
            }
        }
        let end = self.at()?;
        self.tape.items[me] = Item::Arr { len, end };
        self.depth -= 1;
        Some(())
    }

    fn object(&mut self) -> Option<()> {
        self.enter()?;
        let me = self.tape.items.len();
        self.tape.items.push(Item::Obj { len: 0, end: 0 });
        let keys = self.tape.keys.len();
        self.i += 1;
        self.ws()?;
        let mut len = 0u32;
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
        } else {
            loop {
                if self.b.get(self.i) != Some(&b'"') {
                    return None;
                }
                let key = self.string()?;
                // With `arbitrary_precision`, serde_json reads an object whose first key is
                // its private number token as a number (or an error), not as an object.
                if len == 0 && self.key_text(key).starts_with(PRIVATE_KEY) {
                    return None;
                }
                self.tape.keys.push(self.at()?);
                self.tape.items.push(key);
                self.ws()?;
                if self.next()? != b':' {
                    return None;
                }
                self.ws()?;
                self.value()?;
                len += 1;
                self.ws()?;
                match self.next()? {
                    b',' => self.ws()?,
                    b'}' => break,
                    _ => return None,
                }
            }
        }
        if self.duplicates(keys) {
            return None;
        }
        self.tape.keys.truncate(keys);
        let end = self.at()?;
        self.tape.items[me] = Item::Obj { len, end };
        self.depth -= 1;
        Some(())
    }

    /// The text of a string item just read.
    fn key_text(&self, item: Item) -> &str {
        text_of(item, self.src, &self.tape.text)
    }

    /// Whether the keys read since `from` hold one twice (serde_json keeps the last value, the
    /// tape would find the first).
    fn duplicates(&self, from: usize) -> bool {
        let key = |k: &u32| self.key_text(self.tape.items[*k as usize]);
        let keys = &self.tape.keys[from..];
        if keys.len() <= PAIRWISE_KEYS {
            let mut names = [""; PAIRWISE_KEYS];
            for (name, k) in names.iter_mut().zip(keys) {
                *name = key(k);
            }
            let names = &names[..keys.len()];
            return names
                .iter()
                .enumerate()
                .any(|(n, a)| names[n + 1..].contains(a));
        }
        let mut names: Vec<&str> = keys.iter().map(key).collect();
        names.sort_unstable();
        names.windows(2).any(|w| w[0] == w[1])
    }
}

#[cfg(test)]
pub(crate) mod tests;
