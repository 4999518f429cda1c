//! JSON from text: fences, the balanced scan, `whole` and `looks_like_json` on any text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = sojx_core::text::whole(&text);
    let _ = sojx_core::text::looks_like_json(&text);
    let mined = sojx_core::text::mine(&text, 64);
    assert!(mined.candidates.len() <= 64 + mined.broken.len() + 64);
    for (i, c) in mined.candidates.iter().enumerate() {
        assert_eq!(c.index, i + 1);
        assert!(c.offset <= text.len());
    }
});
