//! Functions and their lengths in Rust source: a lexer that blanks out comments, strings and
//! character literals (so that no bracket in them counts), then each `fn` with a body matched to
//! its closing brace.

/// A function with a body: the line of its `fn` (1-based), its name, and how many lines it
/// spans, from that line to the line of its closing brace.
#[derive(Debug, PartialEq, Eq)]
pub struct Function {
    pub line: usize,
    pub name: String,
    pub lines: usize,
}

/// Every function with a body in `text`, nested ones and those of test modules included.
pub fn functions(text: &str) -> Vec<Function> {
    let code = blank(text);
    let mut found = Vec::new();
    let mut i = 0;
    while i + 2 <= code.len() {
        if code[i] == 'f' && code[i + 1] == 'n' && is_keyword_at(&code, i, 2) {
            if let Some(f) = function_at(&code, i) {
                found.push(f);
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    found
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether the `len` characters at `i` are a word of their own.
fn is_keyword_at(code: &[char], i: usize, len: usize) -> bool {
    (i == 0 || !is_ident(code[i - 1])) && code.get(i + len).is_none_or(|&c| !is_ident(c))
}

/// The function whose `fn` is at `at` in blanked code, when it is named and has a body (not a
/// `fn(u8) -> u8` type, a trait's declaration or a macro's `fn $name`).
fn function_at(code: &[char], at: usize) -> Option<Function> {
    let mut i = at + 2;
    while code.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    let start = i;
    while code.get(i).copied().is_some_and(is_ident) {
        i += 1;
    }
    if i == start || code[start].is_ascii_digit() {
        return None;
    }
    let name: String = code[start..i].iter().collect();
    // The body's `{`, or the `;` of a declaration, outside the signature's brackets
    // (`[u8; 4]`).
    let mut nesting = 0usize;
    let open = loop {
        match code.get(i)? {
            '(' | '[' => nesting += 1,
            ')' | ']' => nesting = nesting.saturating_sub(1),
            ';' if nesting == 0 => return None,
            '{' if nesting == 0 => break i,
            _ => {}
        }
        i += 1;
    };
    let mut depth = 0usize;
    let close = (open..code.len()).find(|&j| {
        match code[j] {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        depth == 0
    })?;
    let line_of = |pos: usize| 1 + code[..pos].iter().filter(|&&c| c == '\n').count();
    let line = line_of(at);
    Some(Function {
        line,
        name,
        lines: line_of(close) - line + 1,
    })
}

/// `text` with the inside of every comment, string and character literal replaced by spaces
/// (newlines kept, so lines stay where they were); lifetimes and labels (`'a`) left as they
/// are.
pub fn blank(text: &str) -> Vec<char> {
    let mut c: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < c.len() {
        let end = match c[i] {
            '/' if c.get(i + 1) == Some(&'/') => Some(line_comment_end(&c, i)),
            '/' if c.get(i + 1) == Some(&'*') => Some(block_comment_end(&c, i)),
            '"' => Some(string_end(&c, i)),
            'r' if starts_word(&c, i) => raw_string_end(&c, i),
            'b' | 'c' if starts_word(&c, i) && c.get(i + 1) == Some(&'r') => {
                raw_string_end(&c, i + 1)
            }
            '\'' => char_end(&c, i),
            _ => None,
        };
        match end {
            Some(end) => {
                for ch in &mut c[i..end] {
                    if *ch != '\n' {
                        *ch = ' ';
                    }
                }
                i = end;
            }
            None => i += 1,
        }
    }
    c
}

/// Whether `c[i]` starts a word (a raw string's `r`, `br` or `cr`, not the end of `bar`).
fn starts_word(c: &[char], i: usize) -> bool {
    i == 0 || !is_ident(c[i - 1])
}

fn line_comment_end(c: &[char], i: usize) -> usize {
    (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len())
}

/// Where the block comment at `i` ends (after its `*/`); block comments nest.
fn block_comment_end(c: &[char], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j + 1 < c.len() {
        match (c[j], c[j + 1]) {
            ('/', '*') => {
                depth += 1;
                j += 2;
            }
            ('*', '/') => {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return j;
                }
            }
            _ => j += 1,
        }
    }
    c.len()
}

/// Where the string whose `"` is at `i` ends (after its closing `"`; `\"` escaped).
fn string_end(c: &[char], i: usize) -> usize {
    let mut j = i + 1;
    while j < c.len() {
        match c[j] {
            '\\' => j += 2,
            '"' => return j + 1,
            _ => j += 1,
        }
    }
    c.len()
}

/// Where the raw string whose `r` is at `i` ends (`r"…"`, `r#"…"#`, any number of `#`), or
/// `None` when the `r` starts something else (a name, `r#type`).
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    let hashes = j - i - 1;
    let mut k = j + 1;
    while k < c.len() {
        if c[k] == '"'
            && c[k + 1..]
                .iter()
                .take(hashes)
                .filter(|&&h| h == '#')
                .count()
                == hashes
        {
            return Some(k + 1 + hashes);
        }
        k += 1;
    }
    Some(c.len())
}

/// Where the character literal whose `'` is at `i` ends (`'{'`, `'\''`, `'\u{7B}'`; a `b'…'`
/// reads the same), or `None` for a lifetime or a label (`'a`, `'static`).
fn char_end(c: &[char], i: usize) -> Option<usize> {
    match c.get(i + 1)? {
        '\\' => {
            // An escape: `\u{…}` runs to its `}`, any other is one character.
            let mut j = i + 3;
            if c.get(i + 2) == Some(&'u') && c.get(i + 3) == Some(&'{') {
                j = (i + 3..c.len()).find(|&k| c[k] == '}')? + 1;
            }
            (c.get(j) == Some(&'\'')).then_some(j + 1)
        }
        _ => (c.get(i + 2) == Some(&'\'')).then_some(i + 3),
    }
}
