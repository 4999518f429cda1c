//! JSON from text: fences, the balanced scan (JSON's and `--repair`'s), `whole` and
//! `looks_like_json` on any text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = sojx_core::text::whole(&text);
    let _ = sojx_core::text::looks_like_json(&text);
    // As JSON's brackets open values, and as `--repair`'s readings do.
    for lenient in [false, true] {
        let mined = sojx_core::text::mine(&text, 64, lenient);
        assert!(mined.candidates.len() <= 64 + mined.broken.len() + 64);
        for (i, c) in mined.candidates.iter().enumerate() {
            assert_eq!(c.index, i + 1);
            assert!(c.offset <= text.len());
        }
        for b in &mined.broken {
            assert!(b.offset + b.text.len() <= text.len());
            assert!(lenient || !b.lenient);
        }
    }
});
