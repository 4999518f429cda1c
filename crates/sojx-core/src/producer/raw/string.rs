//! The scan of a string's content: straight to the first quote, backslash or control
//! character, sixteen bytes at a time with SSE2 on x86_64, eight elsewhere.

/// `t[i]` is an opening quote: the index just past the closing quote, and whether the string
/// holds an escape.
#[inline(always)]
pub(super) fn string_end(t: &[u8], i: usize) -> Option<(usize, bool)> {
    string_end_by(t, i, next_stop)
}

/// [`string_end`] with `stop` to find the next quote, backslash or control character (the tests
/// pass each scan).
#[inline(always)]
pub(super) fn string_end_by(t: &[u8], i: usize, stop: Stop) -> Option<(usize, bool)> {
    let mut i = i + 1;
    let mut escaped = false;
    loop {
        i = stop(t, i)?;
        match t[i] {
            b'"' => return Some((i + 1, escaped)),
            // A control character: serde_json refuses the line, so the scan gives up.
            b if b < 0x20 => return None,
            _ => {}
        }
        // An escape serde_json reads as written; a `\u` escape (which may be a lone surrogate,
        // read by the full parse with a warning) or any other gives up.
        if !matches!(
            t.get(i + 1),
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
        ) {
            return None;
        }
        escaped = true;
        i += 2;
    }
}

/// A scan for the first quote, backslash or control character at or after `t[i]`: its index.
pub(super) type Stop = fn(&[u8], usize) -> Option<usize>;

/// Sixteen bytes at a time with SSE2 (every x86_64 processor has it; `safe_arch` calls its
/// instructions without `unsafe`), [`next_stop_words`] for a line shorter than sixteen bytes.
/// Four in five bytes of a Claude Code session are inside strings: the eight-byte scan took
/// 18 instructions a word, this one 12 for two.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn next_stop(t: &[u8], mut i: usize) -> Option<usize> {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, load_unaligned_m128i, min_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    // `"` and `\`, as the signed bytes the instructions take.
    let quote = set_splat_i8_m128i(0x22);
    let backslash = set_splat_i8_m128i(0x5c);
    let controls = set_splat_i8_m128i(0x1f);
    // Bit k set when byte k of the sixteen at `w` ends plain string content.
    let stops = |w: &[u8]| {
        let v = load_unaligned_m128i(w.try_into().expect("sixteen bytes"));
        // A byte at most 0x1f is its own minimum with 0x1f.
        let stops = cmp_eq_mask_i8_m128i(v, quote)
            | cmp_eq_mask_i8_m128i(v, backslash)
            | cmp_eq_mask_i8_m128i(min_u8_m128i(v, controls), v);
        move_mask_i8_m128i(stops)
    };
    while let Some(w) = t.get(i..i + 16) {
        let hit = stops(w);
        if hit != 0 {
            return Some(i + hit.trailing_zeros() as usize);
        }
        i += 16;
    }
    // Fewer than sixteen bytes left: the line's last sixteen, without those before `i` (the
    // last string of most lines ends here).
    match t.len().checked_sub(16) {
        Some(last) if i <= t.len() => {
            let hit = stops(&t[last..]) >> (i - last);
            (hit != 0).then(|| i + hit.trailing_zeros() as usize)
        }
        _ => next_stop_words(t, i),
    }
}

/// [`next_stop_words`] where SSE2 is not there.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn next_stop(t: &[u8], i: usize) -> Option<usize> {
    next_stop_words(t, i)
}

/// Eight bytes at a time, straight to the first quote, backslash or control character, then a
/// byte at a time for the last few. The inner loop only tests words; the byte found is looked
/// at once, after it (testing the byte after every word, as before, ran 10% more instructions
/// in the scan of Claude Code lines).
#[inline(always)]
pub(super) fn next_stop_words(t: &[u8], i: usize) -> Option<usize> {
    let rest = t.get(i..)?;
    let mut words = rest.chunks_exact(8);
    let mut skipped = 0;
    loop {
        let Some(w) = words.next() else {
            // The last few bytes of the line.
            let tail = words.remainder();
            let mut k = 0;
            loop {
                let b = *tail.get(k)?;
                if b == b'"' || b == b'\\' || b < 0x20 {
                    return Some(i + skipped + k);
                }
                k += 1;
            }
        };
        let hit = string_stop(u64::from_le_bytes(w.try_into().expect("eight bytes")));
        if hit != 0 {
            return Some(i + skipped + first(hit));
        }
        skipped += 8;
    }
}

/// Non-zero when a byte of `x` ends a run of plain string content: a quote, a backslash or a
/// control character (below 0x20). Exact as [`has_byte`] is: the lowest marked byte
/// ([`first`]) is always one of them.
///
/// Two tests, not three: with bit 1 flipped, a quote (0x22) becomes 0x20 and the control
/// characters stay among 0x00..=0x1f, so "below 0x21" finds both, and no other byte lands
/// there.
#[inline(always)]
fn string_stop(x: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let q = x ^ (LO * 0x02);
    (q.wrapping_sub(LO * 0x21) & !q & HI) | has_byte(x, b'\\')
}

/// The index in its word of the first byte that a non-zero [`has_byte`] (or [`string_stop`])
/// mask marks.
#[inline(always)]
fn first(hit: u64) -> usize {
    (hit.trailing_zeros() / 8) as usize
}

/// Non-zero when a byte of `x` is `b` (exact: no false positive when none is). A false
/// positive can only follow a true one, so the lowest marked byte ([`first`]) is always a
/// real `b`.
#[inline(always)]
fn has_byte(x: u64, b: u8) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let y = x ^ (LO * u64::from(b));
    y.wrapping_sub(LO) & !y & HI
}
