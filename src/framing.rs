//! Framing: turn input lines into JSON items, whatever the framing (NDJSON, one compact or
//! pretty-printed document, a JSON array, Server-Sent Events, bare event lines), detected from
//! the content of each line, never from a file name or the first line alone.
//!
//! Lines that are not JSON (recorder echoes, prose) are counted and kept in the raw text while
//! the producer is unknown, so that plain-text inputs can still be read as `text`.

use serde_json::Value;

/// One framed item.
#[derive(Debug, Clone)]
pub enum Item {
    /// A JSON value that started on input line `line` (1-based).
    Value { line: u64, value: Value },
    /// SSE `data: [DONE]`: the OpenAI stream terminator.
    Done { line: u64 },
    /// A non-blank line that is neither JSON nor an SSE field (prose, a recorder's echo).
    Junk { line: u64 },
}

impl Item {
    /// The input line the item came from (where it started).
    pub fn line(&self) -> u64 {
        match self {
            Self::Value { line, .. } | Self::Done { line } | Self::Junk { line } => *line,
        }
    }
}

/// Counters over the whole input.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub lines: u64,
    pub blank: u64,
    pub values: u64,
    pub sse_lines: u64,
    /// Non-blank lines that are neither JSON nor SSE fields.
    pub text_lines: u64,
    pub too_long: u64,
    pub invalid_utf8: u64,
    /// JSON values that nest deeper than [`MAX_DEPTH`] (read as text instead).
    pub too_deep: u64,
    /// Bytes of input that parsed into values (bounds what is kept before detection).
    pub value_bytes: u64,
    /// Lines (where their value starts; the first few) whose value held lone UTF-16 surrogate
    /// escapes, read as U+FFFD.
    pub surrogate_lines: Vec<u64>,
}

/// Deepest nesting of a JSON value sojx reads (arrays and objects, 127 levels): serde_json's
/// recursion limit (it refuses the 128th level), which keeps parsing, validating and printing
/// off the end of the stack. Fixed, not configurable.
pub const MAX_DEPTH: usize = 127;

/// Whether a serde_json error is its recursion limit (past [`MAX_DEPTH`]).
pub fn is_too_deep(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("recursion limit exceeded")
}

#[derive(Debug)]
enum State {
    Normal,
    /// Inside a multi-line JSON document that started on `start`.
    Doc {
        start: u64,
        buf: Vec<u8>,
        scan: DepthScan,
    },
}

/// An SSE event whose `data:` lines have not formed JSON yet.
#[derive(Debug)]
struct SsePending {
    start: u64,
    buf: Vec<u8>,
    scan: DepthScan,
    /// The data can no longer become JSON (it was balanced and did not parse, or grew past the
    /// limit): later `data:` lines of the event are skipped, not parsed again. Parsing the
    /// growing buffer at every line was quadratic.
    dead: bool,
}

/// Line-by-line framer. Feed it lines; it calls back with items.
#[derive(Debug)]
pub struct Framer {
    state: State,
    sse_pending: Option<SsePending>,
    text: Option<Vec<u8>>,
    text_overflow: bool,
    max_doc: usize,
    /// A JSON document still open at the end of the input (a cut-off document): its start line
    /// and bytes.
    pub cut: Option<(u64, Vec<u8>)>,
    pub stats: Stats,
    /// Which values may be taken out of a line that has other text glued to it ([`Framer::salvage`]).
    salvage: Option<fn(&Value) -> bool>,
    /// The text dropped around salvaged values: the first [`MAX_GLUED`] lines and their text.
    pub glued: Vec<Glued>,
    /// How many lines had text dropped around a salvaged value.
    pub glued_lines: u64,
}

/// Text dropped from a line because it was glued to a salvaged JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glued {
    pub line: u64,
    /// The text before the value, then the text after it (either may be empty), lossy UTF-8,
    /// at most [`MAX_GLUED_TEXT`] characters each.
    pub before: String,
    pub after: String,
}

/// Lines whose dropped text is kept for the warning.
pub const MAX_GLUED: usize = 3;
/// Characters of dropped text kept per side.
const MAX_GLUED_TEXT: usize = 200;
/// `{` positions tried in a line that does not start with JSON.
const GLUED_STARTS: usize = 4;

impl Framer {
    pub fn new(max_doc: usize) -> Self {
        Self {
            state: State::Normal,
            sse_pending: None,
            text: Some(Vec::new()),
            text_overflow: false,
            max_doc,
            cut: None,
            stats: Stats::default(),
            salvage: None,
            glued: Vec::new(),
            glued_lines: 0,
        }
    }

    /// Read a line that holds one JSON value with other text glued before or after it (a
    /// warning printed on the same line, an unterminated line of another writer) as that value,
    /// when `accept` says the value is worth it (extract: a known producer's event). The text
    /// is dropped and recorded in [`Framer::glued`]. Off by default: for `validate`, such a
    /// line is not a JSON document.
    pub fn salvage(mut self, accept: fn(&Value) -> bool) -> Self {
        self.salvage = Some(accept);
        self
    }

    /// Stop keeping the raw text (once a producer is known, it is not needed).
    pub fn drop_text(&mut self) {
        self.text = None;
    }

    /// The raw text kept so far, or `None` when it went past the size limit.
    pub fn take_text(&mut self) -> Option<Vec<u8>> {
        if self.text_overflow {
            None
        } else {
            Some(self.text.take().unwrap_or_default())
        }
    }

    pub fn keeps_text(&self) -> bool {
        self.text.is_some()
    }

    fn keep(&mut self, line: &[u8]) {
        if let Some(t) = &mut self.text {
            if t.len() + line.len() + 1 > self.max_doc {
                self.text = None;
                self.text_overflow = true;
            } else {
                t.extend_from_slice(line);
                t.push(b'\n');
            }
        }
    }

    /// A line that went past the line limit.
    pub fn too_long(&mut self, _line: u64) {
        self.stats.lines += 1;
        self.stats.too_long += 1;
        self.text_overflow = true;
        self.text = None;
    }

    /// Whether the next line would be read on its own (not inside a multi-line document), so
    /// that a caller may decide from its raw bytes that it need not be parsed.
    pub fn between_items(&self) -> bool {
        matches!(self.state, State::Normal)
    }

    /// Account for a line the caller decided not to parse (the fast path): a one-line JSON
    /// value, counted as [`Framer::line`] would have counted it. `utf8`: whether the line is
    /// valid UTF-8, when that is already known.
    pub fn skipped(&mut self, bytes: &[u8], utf8: Option<bool>) {
        self.stats.lines += 1;
        self.stats.values += 1;
        self.keep(bytes);
        let valid = utf8.unwrap_or_else(|| bytes.is_ascii() || std::str::from_utf8(bytes).is_ok());
        if !valid {
            self.stats.invalid_utf8 += 1;
        }
    }

    /// Feed one line (without its newline).
    pub fn line(&mut self, no: u64, bytes: &[u8], out: &mut dyn FnMut(Item)) {
        self.stats.lines += 1;
        self.keep(bytes);
        if std::str::from_utf8(bytes).is_err() {
            self.stats.invalid_utf8 += 1;
        }

        if let State::Doc { start, buf, scan } = &mut self.state {
            let before = buf.len();
            buf.extend_from_slice(bytes);
            buf.push(b'\n');
            let closed = scan.close_in(bytes).map(|end| before + end + 1);
            if closed.is_some() || buf.len() > self.max_doc {
                let start = *start;
                let State::Doc { buf, .. } = std::mem::replace(&mut self.state, State::Normal)
                else {
                    unreachable!("matched above")
                };
                let parsed = if closed.is_some() {
                    parse_counted(&mut self.stats, start, &buf)
                } else {
                    None
                };
                match parsed {
                    Some(value) => {
                        self.stats.values += 1;
                        out(Item::Value { line: start, value });
                    }
                    None => {
                        // Text glued after the closing bracket (`}Ripgrep is not available…`).
                        let glued = closed.is_some_and(|end| {
                            let after = trim(&buf[end..]);
                            !after.is_empty()
                                && self.glued_value((start, no), &buf[..end], b"", after, out)
                        });
                        if !glued {
                            self.stats.text_lines += 1;
                            out(Item::Junk { line: start });
                        }
                    }
                }
            }
            return;
        }

        let t = trim(bytes);
        if t.is_empty() {
            self.stats.blank += 1;
            self.flush_sse(out);
            return;
        }
        if let Some(payload) = sse_field(t, b"data") {
            self.stats.sse_lines += 1;
            self.sse_data(no, payload, out);
            return;
        }
        if t[0] == b':'
            || sse_field(t, b"event").is_some()
            || sse_field(t, b"id").is_some()
            || sse_field(t, b"retry").is_some()
        {
            self.stats.sse_lines += 1;
            return;
        }
        if t[0] == b'{' || t[0] == b'[' {
            if let Some(value) = parse_counted(&mut self.stats, no, t) {
                self.stats.values += 1;
                out(Item::Value { line: no, value });
                return;
            }
            let mut scan = DepthScan::default();
            match scan.close_in(t) {
                None if scan.depth > 0 => {
                    let mut buf = Vec::with_capacity(t.len() + 1);
                    buf.extend_from_slice(t);
                    buf.push(b'\n');
                    self.state = State::Doc {
                        start: no,
                        buf,
                        scan,
                    };
                    return;
                }
                // Text glued after the value (`{…}Ripgrep is not available.`).
                Some(end)
                    if end + 1 < t.len()
                        && self.glued_value((no, no), &t[..=end], b"", &t[end + 1..], out) =>
                {
                    return;
                }
                _ => {}
            }
        }
        // Text before the event, which may itself start with a bracket (`[dotenv@17] …{…}`,
        // `[ERROR] {…}`).
        if self.salvage.is_some() && self.glued_after_text(no, t, out) {
            return;
        }
        self.stats.text_lines += 1;
        out(Item::Junk { line: no });
    }

    /// A line that starts with text and holds a JSON value after it (`MCP issues detected. Run
    /// /mcp list for status.{"type":"init",…}`): the first value the salvage rule accepts that
    /// parses from one of the line's first [`GLUED_STARTS`] `{` (after its first byte), with
    /// whatever follows it as text too.
    fn glued_after_text(&mut self, no: u64, t: &[u8], out: &mut dyn FnMut(Item)) -> bool {
        let starts = t
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'{')
            .map(|(i, _)| i)
            .take(GLUED_STARTS);
        for start in starts.filter(|&s| s > 0) {
            let rest = &t[start..];
            let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
            if let Some(Ok(_)) = values.next() {
                let end = start + values.byte_offset();
                if self.glued_value((no, no), &t[start..end], &t[..start], &t[end..], out) {
                    return true;
                }
            }
        }
        false
    }

    /// Hand out `json` as a value when it parses and the salvage rule accepts it, recording the
    /// text `before` and `after` it as dropped. `lines`: where the value starts, and the line
    /// that holds the dropped text.
    fn glued_value(
        &mut self,
        (start, no): (u64, u64),
        json: &[u8],
        before: &[u8],
        after: &[u8],
        out: &mut dyn FnMut(Item),
    ) -> bool {
        let Some(accept) = self.salvage else {
            return false;
        };
        let Ok(value) = serde_json::from_slice::<Value>(json) else {
            return false;
        };
        if !accept(&value) {
            return false;
        }
        self.stats.values += 1;
        self.stats.value_bytes += json.len() as u64;
        self.glued_lines += 1;
        if self.glued.len() < MAX_GLUED {
            let text = |b: &[u8]| {
                String::from_utf8_lossy(trim(b))
                    .chars()
                    .take(MAX_GLUED_TEXT)
                    .collect()
            };
            self.glued.push(Glued {
                line: no,
                before: text(before),
                after: text(after),
            });
        }
        out(Item::Value { line: start, value });
        true
    }

    fn sse_data(&mut self, no: u64, payload: &[u8], out: &mut dyn FnMut(Item)) {
        let payload = trim(payload);
        let Some(p) = &mut self.sse_pending else {
            if payload == b"[DONE]" {
                out(Item::Done { line: no });
            } else if let Some(value) = parse_counted(&mut self.stats, no, payload) {
                self.stats.values += 1;
                out(Item::Value { line: no, value });
            } else {
                let mut scan = DepthScan::default();
                // Already balanced and not JSON (`data: hello`): it cannot become JSON.
                let dead = scan.balanced_after(payload);
                self.sse_pending = Some(SsePending {
                    start: no,
                    buf: if dead { Vec::new() } else { payload.to_vec() },
                    scan,
                    dead,
                });
            }
            return;
        };
        if p.dead {
            return;
        }
        // A payload split over several `data:` lines (the SSE spec joins them with \n). It is
        // parsed only once its brackets balance, so each byte is scanned once.
        p.buf.push(b'\n');
        p.buf.extend_from_slice(payload);
        if p.scan.balanced_after(payload) {
            if let Some(value) = parse_counted(&mut self.stats, p.start, &p.buf) {
                let line = p.start;
                self.sse_pending = None;
                self.stats.values += 1;
                out(Item::Value { line, value });
                return;
            }
            p.dead = true;
        } else if p.buf.len() > self.max_doc {
            p.dead = true;
        }
        if p.dead {
            p.buf = Vec::new();
        }
    }

    fn flush_sse(&mut self, out: &mut dyn FnMut(Item)) {
        if let Some(p) = self.sse_pending.take() {
            // An SSE event whose data never formed JSON.
            self.stats.text_lines += 1;
            out(Item::Junk { line: p.start });
        }
    }

    /// End of input.
    pub fn finish(&mut self) {
        self.finish_items(&mut |_| {});
    }

    /// End of input, handing out what was still open as [`Item::Junk`] (so that `validate`
    /// reports a cut-off last document instead of dropping it).
    pub fn finish_items(&mut self, out: &mut dyn FnMut(Item)) {
        self.flush_sse(out);
        if let State::Doc { start, buf, .. } = std::mem::replace(&mut self.state, State::Normal) {
            // A document that never closed (a cut-off answer or result object): its lines are
            // text, and the caller may look at what it was.
            self.stats.text_lines += 1;
            self.cut = Some((start, buf));
            out(Item::Junk { line: start });
        }
    }
}

/// `name:` field of an SSE line, with one optional space after the colon removed.
fn sse_field<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let rest = line.strip_prefix(name)?.strip_prefix(b":")?;
    Some(rest.strip_prefix(b" ").unwrap_or(rest))
}

pub fn trim(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

/// Parse one JSON value (serde_json's recursion limit guards the stack).
pub fn parse(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

/// [`parse`], counting values that went past [`MAX_DEPTH`]. A value that holds lone UTF-16
/// surrogate escapes (`"\ud83d"` with no low half: Node's `JSON.stringify` writes them when a
/// string is cut inside an emoji, and Claude Code, Gemini CLI and Qwen Code are Node programs)
/// is read with U+FFFD in their place, and its line `line` is recorded.
fn parse_counted(stats: &mut Stats, line: u64, bytes: &[u8]) -> Option<Value> {
    match serde_json::from_slice(bytes) {
        Ok(v) => {
            stats.value_bytes += bytes.len() as u64;
            Some(v)
        }
        Err(e) => {
            if is_too_deep(&e) {
                stats.too_deep += 1;
                return None;
            }
            let fixed = fix_lone_surrogates(bytes)?;
            let v = serde_json::from_slice(&fixed).ok()?;
            stats.value_bytes += bytes.len() as u64;
            if stats.surrogate_lines.len() < MAX_SURROGATE_LINES {
                stats.surrogate_lines.push(line);
            }
            Some(v)
        }
    }
}

/// Lines with lone surrogates that are remembered (for the warning on the answer's line).
const MAX_SURROGATE_LINES: usize = 64;

/// `bytes` with every lone UTF-16 surrogate escape (`\uD800`–`\uDFFF` not part of a
/// high-low pair) replaced by `\ufffd`; `None` when there is none. Escaped backslashes
/// (`\\ud83d` is text) are skipped.
pub fn fix_lone_surrogates(bytes: &[u8]) -> Option<Vec<u8>> {
    let hex4 = |at: usize| -> Option<u32> {
        let h = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
        u32::from_str_radix(h, 16).ok()
    };
    let surrogate = |at: usize| -> Option<u32> {
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u'))
            .then(|| hex4(at + 2))
            .flatten()
            .filter(|u| (0xD800..=0xDFFF).contains(u))
    };
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut i = 0;
    while let Some(off) = bytes.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let p = i + off;
        i = p + 2;
        if bytes.get(p + 1) != Some(&b'u') {
            continue;
        }
        let Some(u) = surrogate(p) else {
            continue;
        };
        i = p + 6;
        if (0xD800..=0xDBFF).contains(&u) && surrogate(p + 6).is_some_and(|l| l >= 0xDC00) {
            i = p + 12;
            continue;
        }
        let o = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
        o.extend_from_slice(&bytes[copied..p]);
        o.extend_from_slice(b"\\ufffd");
        copied = p + 6;
    }
    let mut o = out?;
    o.extend_from_slice(&bytes[copied..]);
    Some(o)
}

/// String-aware bracket depth over successive lines.
#[derive(Debug, Default)]
pub struct DepthScan {
    depth: usize,
    in_str: bool,
    esc: bool,
}

impl DepthScan {
    /// Brackets still open.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Feed bytes; true when the depth returned to zero (the document closed) in them.
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        self.close_in(bytes).is_some()
    }

    /// Feed bytes up to the one that returns the depth to zero (the document closed), and
    /// return its index; `None` when the document is still open after all of them.
    pub fn close_in(&mut self, bytes: &[u8]) -> Option<usize> {
        bytes.iter().position(|&b| self.step(b))
    }

    /// Feed all of `bytes`; true when, after them, no bracket and no string is open.
    fn balanced_after(&mut self, bytes: &[u8]) -> bool {
        for &b in bytes {
            self.step(b);
        }
        self.depth == 0 && !self.in_str
    }

    /// One byte; true when it closed the outermost bracket.
    fn step(&mut self, b: u8) -> bool {
        if self.in_str {
            if self.esc {
                self.esc = false;
            } else if b == b'\\' {
                self.esc = true;
            } else if b == b'"' {
                self.in_str = false;
            }
            return false;
        }
        match b {
            b'"' => self.in_str = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(input: &str) -> (Vec<(u64, String)>, Stats) {
        let mut f = Framer::new(1 << 20);
        let mut items = Vec::new();
        for (i, line) in input.split('\n').enumerate() {
            f.line(i as u64 + 1, line.as_bytes(), &mut |it| {
                items.push(match it {
                    Item::Value { line, value } => (line, value.to_string()),
                    Item::Done { line } => (line, "[DONE]".to_owned()),
                    Item::Junk { .. } => return,
                });
            });
        }
        f.finish();
        (items, f.stats)
    }

    /// [`frame`] with salvage on for objects that have a `type` (a stand-in for detection).
    fn frame_salvaging(input: &str) -> (Vec<(u64, String)>, Framer) {
        let mut f = Framer::new(1 << 20).salvage(|v| v.get("type").is_some());
        let mut items = Vec::new();
        for (i, line) in input.split('\n').enumerate() {
            f.line(i as u64 + 1, line.as_bytes(), &mut |it| {
                if let Item::Value { line, value } = it {
                    items.push((line, value.to_string()));
                }
            });
        }
        f.finish();
        (items, f)
    }

    #[test]
    fn text_glued_to_an_event_is_dropped_and_recorded() {
        let (items, f) = frame_salvaging(concat!(
            "MCP issues detected.{\"type\":\"init\"}\n",
            "{\"type\":\"a\"}Ripgrep is not available.\n",
            "note {x} then {\"type\":\"b\"} and more\n",
            "{\n \"type\": \"doc\"\n}trailing\n",
        ));
        assert_eq!(
            items,
            [
                (1, r#"{"type":"init"}"#.into()),
                (2, r#"{"type":"a"}"#.into()),
                (3, r#"{"type":"b"}"#.into()),
                (4, r#"{"type":"doc"}"#.into()),
            ]
        );
        assert_eq!(f.stats.text_lines, 0);
        assert_eq!(f.glued_lines, 4);
        // Text that starts with a bracket, and a first `{` the rule refuses.
        let (items, f2) = frame_salvaging(concat!(
            "[dotenv@17.2.1] injecting env {\"type\":\"result\"}\n",
            "note {\"a\":1} {\"type\":\"init\"}\n",
        ));
        assert_eq!(
            items,
            [
                (1, r#"{"type":"result"}"#.into()),
                (2, r#"{"type":"init"}"#.into())
            ]
        );
        assert_eq!(f2.glued_lines, 2);
        let g = |line: u64, before: &str, after: &str| Glued {
            line,
            before: before.into(),
            after: after.into(),
        };
        assert_eq!(
            f.glued,
            [
                g(1, "MCP issues detected.", ""),
                g(2, "", "Ripgrep is not available."),
                g(3, "note {x} then", "and more"),
            ]
        );
    }

    #[test]
    fn glued_values_the_rule_refuses_stay_text() {
        // Prose around a value no producer claims, and salvage off (validate): text.
        let (items, f) = frame_salvaging("The answer is {\"ok\": true}.\n{\"ok\":1} tail\n");
        assert!(items.is_empty());
        assert_eq!((f.stats.text_lines, f.glued_lines), (2, 0));
        let (items, stats) = frame("x {\"type\":\"a\"}\n{\"type\":\"a\"} y\n");
        assert!(items.is_empty());
        assert_eq!(stats.text_lines, 2);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let fix =
            |s: &str| fix_lone_surrogates(s.as_bytes()).map(|b| String::from_utf8(b).unwrap());
        assert_eq!(fix(r#""ok \ud83d""#).as_deref(), Some(r#""ok \ufffd""#));
        assert_eq!(
            fix(r#""\ude00 x \uD83D""#).as_deref(),
            Some(r#""\ufffd x \ufffd""#)
        );
        assert_eq!(fix(r#""\ud83d\ude00""#), None, "a pair is kept");
        assert_eq!(fix(r#""\\ud83d""#), None, "an escaped backslash is text");
        assert_eq!(
            fix(r#""\ud83d\u0041""#).as_deref(),
            Some(r#""\ufffd\u0041""#)
        );
        assert_eq!(fix(r#""\u00e9 \n""#), None);
        assert_eq!(fix("\\"), None, "a backslash at the end");
        assert_eq!(fix("x\\u"), None);
        assert_eq!(
            fix("\\ud83d"),
            Some(b"\\ufffd".to_vec()).map(|b| String::from_utf8(b).unwrap())
        );
        let (items, stats) = frame("{\"a\":\"x\\ud83d\"}\n{\"b\":1}\n");
        assert_eq!(
            items,
            [(1, "{\"a\":\"x\u{fffd}\"}".into()), (2, "{\"b\":1}".into())]
        );
        assert_eq!(stats.surrogate_lines, [1]);
    }

    proptest::proptest! {
        /// A JSON string made of valid escapes, text and lone or paired surrogate escapes
        /// always parses once the lone ones are replaced, and pairs survive.
        #[test]
        fn any_string_with_surrogate_escapes_parses_after_the_fix(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "a", "é", "\\\\", "\\n", "\\\"", "\\u0041", "\\ud83d", "\\ude00",
                "\\ud83d\\ude00", "\\\\ud83d", "\\uDBFF", "\\uDC00",
            ]), 0..12)
        ) {
            let json = format!("\"{}\"", pieces.concat());
            let fixed = fix_lone_surrogates(json.as_bytes());
            let bytes = fixed.as_deref().unwrap_or(json.as_bytes());
            let v: Value = serde_json::from_slice(bytes).expect("parses after the fix");
            let pairs = pieces.iter().filter(|p| **p == "\\ud83d\\ude00").count();
            let emoji = v.as_str().unwrap().matches('\u{1f600}').count();
            proptest::prop_assert!(emoji >= pairs);
        }
    }

    #[test]
    fn ndjson_with_noise() {
        let (items, stats) = frame(">>> {\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\r");
        assert_eq!(items, [(2, "{\"b\":2}".into()), (4, "{\"c\":3}".into())]);
        assert_eq!(stats.text_lines, 1);
    }

    #[test]
    fn pretty_document() {
        let (items, _) = frame("{\n  \"a\": [1,\n 2],\n  \"s\": \"}\"\n}\n");
        assert_eq!(items, [(1, "{\"a\":[1,2],\"s\":\"}\"}".into())]);
    }

    #[test]
    fn sse_with_comments_and_done() {
        let (items, stats) = frame(": ping\nevent: x\ndata: {\"a\":1}\n\ndata: [DONE]\n");
        assert_eq!(items, [(3, "{\"a\":1}".into()), (5, "[DONE]".into())]);
        assert_eq!(stats.sse_lines, 4);
    }

    #[test]
    fn sse_data_split_over_lines() {
        let (items, _) = frame("data: {\"a\":\ndata: 1}\n\n");
        assert_eq!(items, [(1, "{\"a\":1}".into())]);
    }

    /// The splitter removes a byte order mark (`crate::input`) before the framer sees line 1.
    #[test]
    fn bom_is_skipped() {
        use crate::input::{LineSplitter, Piece};
        let mut splitter = LineSplitter::new(1 << 20);
        let mut f = Framer::new(1 << 20);
        let mut items = Vec::new();
        let mut feed = |p: Piece<'_>| {
            if let Piece::Line { no, bytes } = p {
                f.line(no, bytes, &mut |it| {
                    if let Item::Value { line, value } = it {
                        items.push((line, value.to_string()));
                    }
                });
            }
        };
        splitter.push("\u{feff}{\"a\":1}".as_bytes(), &mut feed);
        splitter.finish(&mut feed);
        assert_eq!(items, [(1, "{\"a\":1}".to_owned())]);
    }

    #[test]
    fn sse_event_that_never_forms_json_is_linear() {
        // Every `data:` line used to re-parse the growing buffer: quadratic.
        let input = "data: [\n".to_owned() + &"data: 1,\n".repeat(200_000) + "\ndata: {\"a\":1}\n";
        let started = std::time::Instant::now();
        let (items, stats) = frame(&input);
        assert_eq!(items, [(200_003, "{\"a\":1}".into())]);
        assert_eq!(stats.text_lines, 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn sse_data_that_is_balanced_and_not_json_is_dropped_at_once() {
        let (items, stats) = frame("data: hello {x}\ndata: {\"a\":1}\n\ndata: {\"b\":2}\n");
        assert_eq!(items, [(4, "{\"b\":2}".into())]);
        assert_eq!(stats.text_lines, 1);
    }

    #[test]
    fn values_past_the_depth_limit_are_counted() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        let (items, stats) = frame(&format!("{deep}\n{ok}\n"));
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].0, 2);
        assert_eq!(stats.too_deep, 1);
    }
}
