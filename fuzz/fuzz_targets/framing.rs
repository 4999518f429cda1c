//! Framing and detection: arbitrary bytes, split into lines by the real splitter (with a small
//! line limit so the too-long path is exercised too), framed, and every value shown to detect().
#![no_main]

use libfuzzer_sys::fuzz_target;
use sojx_core::framing::{Framer, Item};
use sojx_core::input::{LineSplitter, Piece};

fuzz_target!(|data: &[u8]| {
    let max = 4096;
    let mut splitter = LineSplitter::new(max);
    let mut framer = Framer::new(max);
    let mut items = 0u64;
    let mut on_piece = |p: Piece<'_>, framer: &mut Framer| match p {
        Piece::Line { no, bytes } => framer.line(no, bytes, &mut |item| {
            items += 1;
            if let Item::Value { value, .. } = &item {
                let _ = sojx_core::producer::detect(value);
            }
        }),
        Piece::TooLong { no } => framer.too_long(no),
    };
    // Odd-sized chunks: line boundaries fall anywhere.
    for chunk in data.chunks(7) {
        splitter.push(chunk, &mut |p| on_piece(p, &mut framer));
    }
    splitter.finish(&mut |p| on_piece(p, &mut framer));
    framer.finish();
    assert!(framer.stats.values <= framer.stats.lines);
    let _ = framer.take_text();
});
