//! JSON from model text: the whole text, fenced blocks, and a string-aware balanced `{…}` /
//! `[…]` scan. Every candidate is reported in text order with where it came from; the caller
//! decides which one wins. Nothing here invents keys or repairs: text that looks like JSON but
//! does not parse is reported as `broken`, never silently fixed.
//!
//! The scan is linear in the text length: brackets are matched in one pass with a stack, and a
//! region that fails to parse is not searched again for smaller pieces (a nested value of a
//! broken object is not an answer).

use serde_json::Value;

use crate::brackets::{self, looks_like_json_start};
use crate::producer::SourceKind;

/// A JSON value found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub kind: SourceKind,
    pub value: Value,
    /// Byte offset of the value in the text.
    pub offset: usize,
    /// Byte offset just past the value's last byte.
    pub end: usize,
    /// 0-based line of the text where the value starts.
    pub line: usize,
    /// The candidate's position among all candidates (1-based), for `source`.
    pub index: usize,
    /// Its text held lone UTF-16 surrogate escapes, read as U+FFFD (the one rule of
    /// `crate::json`; the caller warns when it is the answer).
    pub lone_surrogates: bool,
}

/// Text that looks like JSON but does not parse (a cut-off answer, a trailing comma).
#[derive(Debug, Clone, PartialEq)]
pub struct Broken {
    pub kind: SourceKind,
    pub text: String,
    pub offset: usize,
    pub line: usize,
    /// It runs to the end of the text (a fenced block's, or the answer's): a value cut off
    /// there may be completed (`--repair`).
    pub cut: bool,
    /// Only `--repair`'s readings took it for a value (`{'a': 1}`, `{name: 1}`): when they do
    /// not repair it, it is prose, not a broken answer.
    pub lenient: bool,
}

#[derive(Debug, Default)]
pub struct Mined {
    pub candidates: Vec<Candidate>,
    pub broken: Vec<Broken>,
    /// The candidate limit was reached while the rule named was searched (`code_fence`: the
    /// fenced blocks, `embedded`: the prose); later text was not searched.
    pub capped: Option<SourceKind>,
}

/// The whole text, trimmed, as one JSON value (`final_text`).
pub fn whole(text: &str) -> Option<Value> {
    whole_read(text).map(|r| r.value)
}

/// [`whole`], with lone UTF-16 surrogate escapes read as U+FFFD (and said so).
pub fn whole_read(text: &str) -> Option<crate::json::Read> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.is_empty() {
        return None;
    }
    crate::json::from_str_lenient(t).ok()
}

/// Whether the trimmed text looks like a JSON document (so a parse failure is `json_invalid`):
/// it starts like JSON, and is not one complete value followed by prose (`[1](https://…) says
/// so`, a Markdown link or footnote that opens with a bracket).
pub fn looks_like_json(text: &str) -> bool {
    let t = text.trim();
    looks_like_json_start(t.as_bytes()) && !value_then_prose(t)
}

/// `t` starts with one complete JSON value and text follows it.
fn value_then_prose(t: &str) -> bool {
    matches!(crate::json::first_value(t.as_bytes()), Some((Ok(_), end)) if !t[end..].trim().is_empty())
}

/// How brackets open values: as JSON's ([`looks_like_json_start`], [`brackets::span_at`]), or,
/// with `--repair`, as its readings too ([`brackets::lenient`]).
#[derive(Debug)]
struct Reading {
    lenient: bool,
    /// Under JSON's reading, a bracket only `--repair` reads was found prose up to here: the
    /// brackets inside it are not looked at again as such (a scan from each of them, to the
    /// same end, made `{a: ` repeated quadratic).
    prose_until: usize,
}

impl Reading {
    fn looks(&self, b: &[u8]) -> bool {
        if self.lenient {
            brackets::lenient::looks_like_start(b)
        } else {
            looks_like_json_start(b)
        }
    }

    /// The span the bracket at `bytes[i]` opens, when it opens one, and whether it is prose
    /// unless `--repair` reads it ([`Broken::lenient`]). A bracket that only `--repair`'s
    /// readings open (`{'a': …`, `{name: …`) is a value when a JSON-looking bracket opens
    /// inside it and it closes, under JSON's reading too: `{'a': {"b": 1}}` is one broken
    /// value, and `{"b": 1}` a part of it, never the answer (contract §4). Otherwise it is
    /// prose to JSON's reading, as it always was (and so are such brackets inside it).
    fn open(&mut self, bytes: &[u8], i: usize) -> Option<(brackets::Span, bool)> {
        if looks_like_json_start(&bytes[i..]) {
            let span = if self.lenient {
                brackets::lenient::span_at(bytes, i).0
            } else {
                brackets::span_at(bytes, i)
            };
            return Some((span, false));
        }
        if i < self.prose_until || !brackets::lenient::looks_like_start(&bytes[i..]) {
            return None;
        }
        let (span, holds) = brackets::lenient::span_at(bytes, i);
        if !(self.lenient || holds && span.closed) {
            self.prose_until = span.end;
            return None;
        }
        Some((span, !holds))
    }
}

/// Find every candidate: fenced blocks first, then the balanced scan of the text outside them.
/// Each fenced block tried as JSON counts as a candidate, as each region of the scan does:
/// past `max_candidates` in all, later blocks and the scan are not tried (`capped`). With
/// `lenient` (`--repair`), brackets that open what its readings read are tried too.
pub fn mine(text: &str, max_candidates: usize, lenient: bool) -> Mined {
    let reading = Reading {
        lenient,
        prose_until: 0,
    };
    let mut mined = Mined::default();
    let mut lines = Lines::new(text);
    // The blocks tried, blanked out of the text the scan reads (a copy made only if it runs).
    let mut blanked: Vec<std::ops::Range<usize>> = Vec::new();
    let mut tried = 0usize;
    for f in Fences::new(text) {
        let body = &text[f.body.clone()];
        let trimmed = body.trim();
        let json_label = f.lang.eq_ignore_ascii_case("json")
            || f.lang.eq_ignore_ascii_case("jsonc")
            || f.lang.eq_ignore_ascii_case("json5");
        let strict = looks_like_json_start(trimmed.as_bytes());
        let looks = reading.looks(trimmed.as_bytes());
        if !json_label && !looks {
            // A bare fence holding `npm test` or `hello` is not a broken answer: like another
            // language's block, it is left to the prose scan (which finds `{"a": 1}` after a
            // `Result:` line in it, and nothing in `npm test`).
            continue;
        }
        tried += 1;
        if tried > max_candidates {
            mined.capped = Some(SourceKind::CodeFence);
            break;
        }
        blanked.push(f.whole.clone());
        let start = f.body.start + (body.len() - body.trim_start().len());
        match crate::json::from_str_lenient(trimmed) {
            Ok(read) => mined.candidates.push(Candidate {
                kind: SourceKind::CodeFence,
                value: read.value,
                offset: start,
                end: start + trimmed.len(),
                line: lines.of(start),
                index: 0,
                lone_surrogates: read.lone_surrogates,
            }),
            Err(_) if json_label && !trimmed.is_empty() || looks => {
                mined.broken.push(Broken {
                    kind: SourceKind::CodeFence,
                    text: trimmed.to_owned(),
                    offset: start,
                    line: lines.of(start),
                    cut: true,
                    lenient: !json_label && !strict,
                });
            }
            Err(_) => {}
        }
    }
    if mined.capped.is_none() {
        let masked = (!blanked.is_empty()).then(|| {
            let mut bytes = text.as_bytes().to_vec();
            for r in blanked {
                bytes[r].fill(b' ');
            }
            bytes
        });
        let scan_bytes = masked.as_deref().unwrap_or(text.as_bytes());
        let left = max_candidates - tried;
        scan(text, scan_bytes, left, reading, &mut lines, &mut mined);
    }
    mined.candidates.sort_by_key(|c| c.offset);
    mined.broken.sort_by_key(|b| b.offset);
    for (i, c) in mined.candidates.iter_mut().enumerate() {
        c.index = i + 1;
    }
    mined
}

/// Line numbers of byte offsets, counted from the offset asked for last: the scan asks for
/// offsets in (mostly) increasing order, so this stays linear in the text where counting from
/// the start each time was quadratic (thousands of candidates after megabytes of prose).
struct Lines<'t> {
    bytes: &'t [u8],
    pos: usize,
    line: usize,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            bytes: text.as_bytes(),
            pos: 0,
            line: 0,
        }
    }

    /// 0-based line of `offset`.
    fn of(&mut self, offset: usize) -> usize {
        let newlines = |r: &[u8]| r.iter().filter(|&&b| b == b'\n').count();
        if offset >= self.pos {
            self.line += newlines(&self.bytes[self.pos..offset]);
        } else {
            self.line -= newlines(&self.bytes[offset..self.pos]);
        }
        self.pos = offset;
        self.line
    }
}

#[derive(Debug)]
struct Fence<'t> {
    lang: &'t str,
    whole: std::ops::Range<usize>,
    body: std::ops::Range<usize>,
}

/// Markdown fenced blocks (``` or ~~~, up to three spaces of indent), and one-line
/// ```` ```{…}``` ```` spans, in text order, found as they are asked for (a text of a million
/// blocks is not listed whole before the first is tried).
struct Fences<'t> {
    text: &'t str,
    /// Where the next line starts.
    pos: usize,
    /// The block still open: (start, lang, body start, marker).
    open: Option<(usize, &'t str, usize, &'static str)>,
}

impl<'t> Fences<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            text,
            pos: 0,
            open: None,
        }
    }
}

impl<'t> Iterator for Fences<'t> {
    type Item = Fence<'t>;

    fn next(&mut self) -> Option<Fence<'t>> {
        while self.pos < self.text.len() {
            let start = self.pos;
            let rest = &self.text[start..];
            let line = rest.find('\n').map_or(rest, |i| &rest[..=i]);
            self.pos += line.len();
            let content = line.trim_end_matches(['\n', '\r']);
            let (marker, indent) = brackets::fence_marker(content.as_bytes()).unwrap_or(("", 0));
            let t = &content[indent..];
            match self.open {
                None if !marker.is_empty() => {
                    let after = &t[3..];
                    if let Some(end) = after.find(marker) {
                        // One-line span: ```{"a":1}```
                        let body_start = start + indent + 3;
                        return Some(Fence {
                            lang: "",
                            whole: start..start + indent + 3 + end + 3,
                            body: body_start..body_start + end,
                        });
                    }
                    let lang = after.split_whitespace().next().unwrap_or("");
                    self.open = Some((start, lang, self.pos, marker));
                }
                Some((s, lang, body_start, m)) if marker == m && t[3..].trim().is_empty() => {
                    self.open = None;
                    return Some(Fence {
                        lang,
                        whole: s..start + content.len(),
                        body: body_start..start,
                    });
                }
                _ => {}
            }
        }
        // An unclosed fence (a cut-off answer): its body runs to the end.
        self.open.take().map(|(s, lang, body_start, _)| Fence {
            lang,
            whole: s..self.text.len(),
            body: body_start..self.text.len(),
        })
    }
}

/// The balanced scan over `bytes` (the text with fences blanked out), in one pass.
///
/// Each bracket that *looks like* the start of JSON (`{"`, `[1`, …) outside another such span
/// opens a span ([`brackets::span_at`]: brackets of either kind counted outside strings), which
/// is tried as JSON once: a value nested in it is part of it, never a candidate of its own,
/// whether it parses or not. Stray brackets of prose (`{see below`) do not hide what follows.
///
/// A value that ends early is told by what follows it: spans and JSON tokens (`, "b": "y"`)
/// joined by commas form a chain, and a closing bracket that no bracket of prose opened ends
/// it as one broken span (`{"a": "x"}, "b": "y"}`: the object closed before its members
/// ended), dropping what was found inside it. A word of prose ends a chain. A JSON-looking
/// span still open at the end is a cut-off value. Every span is tried at most once, so the
/// scan is linear.
fn scan(
    text: &str,
    bytes: &[u8],
    max_candidates: usize,
    mut reading: Reading,
    lines: &mut Lines<'_>,
    mined: &mut Mined,
) {
    let mut prose = Prose::default();
    // The chain being read: where it starts, how many candidates and broken values were
    // found before it, and whether it holds a `,` or `:` between its values (member syntax).
    let mut chain: Option<Chain> = None;
    let mut attempts = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let opened = match b {
            b'{' | b'[' => reading.open(bytes, i),
            _ => None,
        };
        match b {
            b'{' | b'[' if opened.is_some() => {
                let (span, lenient) = opened.expect("a span");
                if !span.closed {
                    // A JSON-looking value still open at the end: a cut-off answer.
                    mined.broken.push(Broken {
                        kind: SourceKind::Embedded,
                        text: text[i..].trim_end().to_owned(),
                        offset: i,
                        line: lines.of(i),
                        cut: true,
                        lenient,
                    });
                    return;
                }
                i = span.end;
                // `[label](https://…)`: a Markdown link's label, not a value.
                if b == b'[' && bytes.get(i) == Some(&b'(') {
                    chain = None;
                    continue;
                }
                attempts += 1;
                if attempts > max_candidates {
                    mined.capped = Some(SourceKind::Embedded);
                    return;
                }
                chain.get_or_insert(Chain {
                    start: span.start,
                    candidates: mined.candidates.len(),
                    broken: mined.broken.len(),
                    separated: false,
                });
                region(text, span, lenient, lines, mined);
                continue;
            }
            b'{' | b'[' => {
                prose.open(b, i);
                chain = None;
            }
            b'}' | b']' => {
                let opener = prose.opener(b);
                let chain = chain.take();
                // A closer after a chain ends it. A closer no bracket opened means the value
                // before it ended early; so does one that closes a bracket of "prose" around
                // values joined as members (`{]verdict":"FAIL","meta":{"by":"x"}}`: its opening
                // bracket was broken). Either way the whole span is one broken value.
                let broken_from = match (chain, opener) {
                    (Some(c), None) => Some((c, c.start)),
                    (Some(c), Some(p)) if c.separated => Some((c, prose.at(p).min(c.start))),
                    _ => None,
                };
                if let Some((c, start)) = broken_from {
                    broken_chain(text, c, start, i, lines, mined);
                }
                if let Some(p) = opener {
                    prose.close(p);
                }
            }
            _ if chain.is_some() => {
                if let Some(next) = json_token(bytes, i) {
                    if let Some(c) = &mut chain {
                        c.separated |= matches!(b, b',' | b':');
                    }
                    i = next;
                    continue;
                }
                chain = None;
            }
            _ => {}
        }
        i += 1;
    }
}

/// Brackets of prose still open (`(see [the docs`), and where: a closer of their kind closes
/// them.
#[derive(Default)]
struct Prose {
    stack: Vec<(u8, usize)>,
    /// How many of each kind are open (`{`, `[`), so that a closer with no opener of its kind
    /// costs nothing (a stack of `[` and a run of `}` stays linear).
    kinds: [usize; 2],
}

impl Prose {
    /// The kind of a bracket, opening or closing: 0 for braces, 1 for square brackets.
    #[inline]
    fn kind(b: u8) -> usize {
        usize::from(matches!(b, b'[' | b']'))
    }

    /// A bracket of prose `b` opened at `at`.
    #[inline]
    fn open(&mut self, b: u8, at: usize) {
        self.stack.push((b, at));
        self.kinds[Self::kind(b)] += 1;
    }

    /// The innermost open bracket that the closer `b` closes: its place on the stack.
    #[inline]
    fn opener(&self, b: u8) -> Option<usize> {
        let open = if b == b'}' { b'{' } else { b'[' };
        if self.kinds[Self::kind(b)] > 0 {
            self.stack.iter().rposition(|&o| o.0 == open)
        } else {
            None
        }
    }

    /// Where the bracket at place `p` on the stack is in the text.
    fn at(&self, p: usize) -> usize {
        self.stack[p].1
    }

    /// The bracket at place `p` closed, and every one opened after it with it.
    #[inline]
    fn close(&mut self, p: usize) {
        for &(o, _) in &self.stack[p..] {
            self.kinds[Self::kind(o)] -= 1;
        }
        self.stack.truncate(p);
    }
}

/// The chain `c`, ended early by the closer at `end`, is one broken value from `start`: what
/// was found inside it is dropped.
fn broken_chain(
    text: &str,
    c: Chain,
    start: usize,
    end: usize,
    lines: &mut Lines<'_>,
    mined: &mut Mined,
) {
    mined.candidates.truncate(c.candidates);
    mined.broken.truncate(c.broken);
    mined.broken.push(Broken {
        kind: SourceKind::Embedded,
        text: text[start..=end].to_owned(),
        offset: start,
        line: lines.of(start),
        cut: false,
        lenient: false,
    });
}

/// Values in the text joined by JSON tokens (`{"a": "x"}, "b": "y"`), read as they come.
#[derive(Debug, Clone, Copy)]
struct Chain {
    /// Where its first value starts.
    start: usize,
    /// How many candidates and broken values were found before it.
    candidates: usize,
    broken: usize,
    /// A `,` or `:` joins its values (member syntax, not a value in prose).
    separated: bool,
}

/// Where the JSON token that starts at `bytes[i]` ends, when it is one a chain of values may
/// hold between its spans: whitespace, `,`, `:`, a string on one line, a number, `true`,
/// `false`, `null`. `None` for anything else (a word of prose).
fn json_token(bytes: &[u8], i: usize) -> Option<usize> {
    let b = bytes[i];
    if b.is_ascii_whitespace() || b == b',' || b == b':' {
        return Some(i + 1);
    }
    if b == b'"' {
        let mut esc = false;
        for (j, &c) in bytes.iter().enumerate().skip(i + 1) {
            match c {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => return Some(j + 1),
                // A JSON string never holds a raw newline nor `{"`: the quote was prose, and
                // the scan must not jump over the start of a value (`"see {"evidence": …}`).
                b'\n' => return None,
                b'{' | b'[' if looks_like_json_start(&bytes[j..]) => return None,
                _ => {}
            }
        }
        return None;
    }
    let end = bytes[i..]
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-')))
        .map_or(bytes.len(), |p| i + p);
    let word = &bytes[i..end];
    let literal = matches!(word, b"true" | b"false" | b"null") || brackets::is_json_number(word);
    literal.then_some(end)
}

fn region(
    text: &str,
    span: brackets::Span,
    lenient: bool,
    lines: &mut Lines<'_>,
    mined: &mut Mined,
) {
    let (start, end) = (span.start, span.end);
    let slice = &text[start..end];
    match crate::json::from_str_lenient(slice) {
        Ok(read) if !span.mismatched => {
            if is_answer_like(&read.value) {
                mined.candidates.push(Candidate {
                    kind: SourceKind::Embedded,
                    value: read.value,
                    offset: start,
                    end,
                    line: lines.of(start),
                    index: 0,
                    lone_surrogates: read.lone_surrogates,
                });
            }
        }
        _ => mined.broken.push(Broken {
            kind: SourceKind::Embedded,
            text: slice.to_owned(),
            offset: start,
            line: lines.of(start),
            cut: false,
            lenient,
        }),
    }
}

/// Embedded values that are never answers: `{}`, `[]`, and arrays of only numbers, booleans or
/// null, which in prose are citations (`[1]`) and ranges (`[0, 10]`).
pub fn is_answer_like(v: &Value) -> bool {
    match v {
        Value::Object(o) => !o.is_empty(),
        Value::Array(a) => a
            .iter()
            .any(|x| matches!(x, Value::String(_) | Value::Object(_) | Value::Array(_))),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
