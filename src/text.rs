//! JSON from model text: the whole text, fenced blocks, and a string-aware balanced `{…}` /
//! `[…]` scan. Every candidate is reported in text order with where it came from; the caller
//! decides which one wins. Nothing here invents keys or repairs: text that looks like JSON but
//! does not parse is reported as `broken`, never silently fixed.
//!
//! The scan is linear in the text length: brackets are matched in one pass with a stack, and a
//! region that fails to parse is not searched again for smaller pieces (a nested value of a
//! broken object is not an answer).

use serde_json::Value;

use crate::producer::SourceKind;

/// A JSON value found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub kind: SourceKind,
    pub value: Value,
    /// Byte offset of the value in the text.
    pub offset: usize,
    /// 0-based line of the text where the value starts.
    pub line: usize,
    /// The candidate's position among all candidates (1-based), for `source`.
    pub index: usize,
}

/// Text that looks like JSON but does not parse (a cut-off answer, a trailing comma).
#[derive(Debug, Clone, PartialEq)]
pub struct Broken {
    pub kind: SourceKind,
    pub text: String,
    pub offset: usize,
    pub line: usize,
}

#[derive(Debug, Default)]
pub struct Mined {
    pub candidates: Vec<Candidate>,
    pub broken: Vec<Broken>,
    /// The candidate limit was reached; later text was not searched.
    pub capped: bool,
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

/// `{` followed by `"` or `}`, or `[` followed by a JSON value start or `]`.
fn looks_like_json_start(b: &[u8]) -> bool {
    let Some((&first, rest)) = b.split_first() else {
        return false;
    };
    let next = rest.iter().copied().find(|c| !c.is_ascii_whitespace());
    match (first, next) {
        (b'{', Some(b'"' | b'}') | None) => true,
        (b'[', Some(c)) => matches!(
            c,
            b'{' | b'[' | b'"' | b']' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
        ),
        (b'[', None) => true,
        _ => false,
    }
}

/// Find every candidate: fenced blocks first, then the balanced scan of the text outside them.
pub fn mine(text: &str, max_candidates: usize) -> Mined {
    let mut mined = Mined::default();
    let mut lines = Lines::new(text);
    let fences = fences(text);
    let mut masked: Option<Vec<u8>> = None;
    for f in &fences {
        let body = &text[f.body.clone()];
        let trimmed = body.trim();
        let json_label = f.lang.eq_ignore_ascii_case("json")
            || f.lang.eq_ignore_ascii_case("jsonc")
            || f.lang.eq_ignore_ascii_case("json5");
        let looks = looks_like_json_start(trimmed.as_bytes());
        if !json_label && !looks {
            // A bare fence holding `npm test` or `hello` is not a broken answer: like another
            // language's block, it is left to the prose scan (which finds `{"a": 1}` after a
            // `Result:` line in it, and nothing in `npm test`).
            continue;
        }
        let bytes = masked.get_or_insert_with(|| text.as_bytes().to_vec());
        bytes[f.whole.clone()].fill(b' ');
        let start = f.body.start + (body.len() - body.trim_start().len());
        match crate::json::from_str(trimmed) {
            Ok(value) => mined.candidates.push(Candidate {
                kind: SourceKind::CodeFence,
                value,
                offset: start,
                line: lines.of(start),
                index: 0,
            }),
            Err(_) if json_label && !trimmed.is_empty() || looks => {
                mined.broken.push(Broken {
                    kind: SourceKind::CodeFence,
                    text: trimmed.to_owned(),
                    offset: start,
                    line: lines.of(start),
                });
            }
            Err(_) => {}
        }
    }
    let scan_bytes = masked.as_deref().unwrap_or(text.as_bytes());
    scan(text, scan_bytes, max_candidates, &mut lines, &mut mined);
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
struct Fence {
    lang: String,
    whole: std::ops::Range<usize>,
    body: std::ops::Range<usize>,
}

/// Markdown fenced blocks (``` or ~~~, up to three spaces of indent), and one-line
/// ```` ```{…}``` ```` spans.
fn fences(text: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, usize, &str)> = None; // (start, lang, body start, marker)
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let indent = content.len() - content.trim_start_matches(' ').len();
        let t = &content[indent..];
        let marker = if t.starts_with("```") {
            "```"
        } else if t.starts_with("~~~") {
            "~~~"
        } else {
            ""
        };
        match &open {
            None if indent <= 3 && !marker.is_empty() => {
                let after = &t[3..];
                if let Some(end) = after.find(marker) {
                    // One-line span: ```{"a":1}```
                    let body_start = start + indent + 3;
                    out.push(Fence {
                        lang: String::new(),
                        whole: start..start + indent + 3 + end + 3,
                        body: body_start..body_start + end,
                    });
                } else {
                    let lang = after.split_whitespace().next().unwrap_or("").to_owned();
                    open = Some((start, lang, pos, marker));
                }
            }
            Some((s, lang, body_start, m))
                if indent <= 3 && t.starts_with(m) && t[3..].trim().is_empty() =>
            {
                out.push(Fence {
                    lang: lang.clone(),
                    whole: *s..start + content.len(),
                    body: *body_start..start,
                });
                open = None;
            }
            _ => {}
        }
    }
    if let Some((s, lang, body_start, _)) = open {
        // An unclosed fence (a cut-off answer): its body runs to the end.
        out.push(Fence {
            lang,
            whole: s..text.len(),
            body: body_start..text.len(),
        });
    }
    out
}

/// The balanced scan over `bytes` (the text with fences blanked out), in one pass.
///
/// Brackets are matched with a stack. A closed region is tried as JSON when no bracket that
/// *looks like* the start of JSON (`{"`, `[1`, …) encloses it: values nested in a JSON-looking
/// value are part of it (or of a broken value, and then not answers), while stray brackets of
/// prose (`{see below`) do not hide what follows them. A JSON-looking bracket still open at the
/// end is a cut-off value. Every region is tried at most once, so the scan is linear.
fn scan(text: &str, bytes: &[u8], max_candidates: usize, lines: &mut Lines<'_>, mined: &mut Mined) {
    // (bracket, offset, looks like JSON)
    let mut stack: Vec<(u8, usize, bool)> = Vec::new();
    let mut json_open = 0usize;
    let mut in_str = false;
    let mut esc = false;
    let mut attempts = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' || b == b'\n' {
                // JSON strings cannot hold a raw newline: a quote in prose ends here.
                in_str = false;
            }
            continue;
        }
        match b {
            b'{' | b'[' => {
                let json = looks_like_json_start(&bytes[i..]);
                json_open += usize::from(json);
                stack.push((b, i, json));
            }
            b'}' | b']' => {
                let open = if b == b'}' { b'{' } else { b'[' };
                // Unmatched brackets above the match are prose: drop them.
                while let Some(&(o, _, json)) = stack.last() {
                    if o == open {
                        break;
                    }
                    json_open -= usize::from(json);
                    stack.pop();
                }
                if let Some((_, start, json)) = stack.pop() {
                    json_open -= usize::from(json);
                    // `[label](https://…)`: a Markdown link's label, not a value.
                    let link = b == b']' && bytes.get(i + 1) == Some(&b'(');
                    if json_open == 0 && !link {
                        attempts += 1;
                        if attempts > max_candidates {
                            mined.capped = true;
                            return;
                        }
                        region(text, start, i + 1, lines, mined);
                    }
                }
            }
            b'"' if !stack.is_empty() => in_str = true,
            _ => {}
        }
    }
    // A JSON-looking value still open at the end: a cut-off answer.
    if let Some(&(_, open, _)) = stack.iter().find(|e| e.2) {
        mined.broken.push(Broken {
            kind: SourceKind::Embedded,
            text: text[open..].trim_end().to_owned(),
            offset: open,
            line: lines.of(open),
        });
    }
}

fn region(text: &str, start: usize, end: usize, lines: &mut Lines<'_>, mined: &mut Mined) {
    let slice = &text[start..end];
    match crate::json::from_str(slice) {
        Ok(value) => {
            if is_answer_like(&value) {
                mined.candidates.push(Candidate {
                    kind: SourceKind::Embedded,
                    value,
                    offset: start,
                    line: lines.of(start),
                    index: 0,
                });
            }
        }
        Err(_) => {
            if looks_like_json_start(slice.as_bytes()) {
                mined.broken.push(Broken {
                    kind: SourceKind::Embedded,
                    text: slice.to_owned(),
                    offset: start,
                    line: lines.of(start),
                });
            }
        }
    }
}

/// Embedded values that are never answers: `{}`, `[]`, and arrays of only numbers, booleans or
/// null, which in prose are citations (`[1]`) and ranges (`[0, 10]`).
fn is_answer_like(v: &Value) -> bool {
    match v {
        Value::Object(o) => !o.is_empty(),
        Value::Array(a) => a
            .iter()
            .any(|x| matches!(x, Value::String(_) | Value::Object(_) | Value::Array(_))),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values(m: &Mined) -> Vec<(SourceKind, Value)> {
        m.candidates
            .iter()
            .map(|c| (c.kind, c.value.clone()))
            .collect()
    }

    #[test]
    fn whole_text_any_json_value() {
        assert_eq!(whole("\n\n4"), Some(json!(4)));
        assert_eq!(whole(" {\"a\":1} "), Some(json!({"a":1})));
        assert_eq!(whole("2 + 2 = 4"), None);
    }

    #[test]
    fn fences_and_embedded_in_order() {
        let t = "First {\"a\":1} then\n```json\n{\"b\":2}\n```\nand [\"c\"] end";
        let m = mine(t, 100);
        assert_eq!(
            values(&m),
            [
                (SourceKind::Embedded, json!({"a":1})),
                (SourceKind::CodeFence, json!({"b":2})),
                (SourceKind::Embedded, json!(["c"])),
            ]
        );
        assert!(m.broken.is_empty());
    }

    #[test]
    fn nested_values_are_part_of_the_outer_one() {
        let m = mine("# stdout: {\"s\":\"...\",\"o\":{\"answer\":\"4\"}}", 100);
        assert_eq!(
            values(&m),
            [(SourceKind::Embedded, json!({"s":"...","o":{"answer":"4"}}))]
        );
    }

    #[test]
    fn braces_inside_strings_do_not_count() {
        let m = mine("x {\"a\":\"}{][\"} y", 100);
        assert_eq!(values(&m), [(SourceKind::Embedded, json!({"a":"}{]["}))]);
    }

    #[test]
    fn prose_braces_and_citations_are_not_candidates() {
        let m = mine("Use {curly} braces, see [1] and [0, 10].", 100);
        assert!(m.candidates.is_empty());
        assert!(m.broken.is_empty());
    }

    #[test]
    fn broken_json_is_reported_not_repaired() {
        let m = mine("Here: {\"a\": 1,}", 100);
        assert!(m.candidates.is_empty());
        assert_eq!(m.broken.len(), 1);
        let m = mine("Answer: {\"a\": [1, 2", 100);
        assert_eq!(m.broken[0].text, "{\"a\": [1, 2");
        let m = mine("Answer: {\"a\": [\"x\", \"cut", 100);
        assert_eq!(m.broken[0].text, "{\"a\": [\"x\", \"cut");
        assert!(m.candidates.is_empty());
    }

    #[test]
    fn stray_open_brace_does_not_hide_a_later_value() {
        let m = mine("type { to start. Result: {\"ok\": true}", 100);
        assert_eq!(values(&m), [(SourceKind::Embedded, json!({"ok":true}))]);
    }

    #[test]
    fn unlabeled_and_unclosed_fences() {
        let m = mine("```\n[{\"a\":1}]\n```", 100);
        assert_eq!(values(&m), [(SourceKind::CodeFence, json!([{"a":1}]))]);
        let m = mine("```json\n{\"a\": 1", 100);
        assert_eq!(m.broken.len(), 1);
        assert_eq!(m.broken[0].kind, SourceKind::CodeFence);
    }

    #[test]
    fn prose_brackets_and_bare_code_fences_are_not_answers() {
        for t in [
            "([site](https://example.com/docs))",
            "See [\"site\"](https://example.com) and [1](https://a.b).",
            "Run this:\n```\nnpm test\n```\n",
            "```\nhello\n```",
        ] {
            let m = mine(t, 100);
            assert!(
                m.candidates.is_empty() && m.broken.is_empty(),
                "{t:?}: {m:?}"
            );
        }
        // A real value after a bare code fence still wins.
        let m = mine("```\nnpm test\n```\nThen: {\"ok\": true}", 100);
        assert_eq!(m.candidates.len(), 1);
        assert_eq!(m.candidates[0].value, serde_json::json!({"ok": true}));
        // A bare fence with prose before its JSON: the scan finds the value.
        let m = mine("```\nResult:\n{\"a\": 1}\n```", 100);
        assert_eq!(m.candidates.len(), 1);
        // A bare fence that does look like JSON is still a broken answer.
        assert_eq!(mine("```\n{\"a\": 1,}\n```", 100).broken.len(), 1);
        // Prose that opens with a complete value is not a broken document.
        assert!(!looks_like_json("[1](https://example.com/a) says so"));
        assert!(looks_like_json("{\"a\": 1,"));
    }

    #[test]
    fn other_language_fences_are_skipped() {
        let m = mine("```python\nprint({'a': 1})\n```", 100);
        assert!(m.candidates.is_empty() && m.broken.is_empty());
    }

    #[test]
    fn deep_nesting_is_linear_and_safe() {
        let t = "[".repeat(100_000) + &"]".repeat(100_000);
        let m = mine(&t, 100);
        assert!(m.candidates.is_empty());
    }

    #[test]
    fn many_candidates_after_long_prose_are_linear() {
        // Line numbers used to be counted from the start for every candidate: quadratic.
        let t = "x".repeat(2_000_000) + "\n" + &" {\"a\":1}".repeat(10_000);
        let started = std::time::Instant::now();
        let m = mine(&t, 20_000);
        assert_eq!(m.candidates.len(), 10_000);
        assert_eq!(m.candidates[9_999].line, 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
