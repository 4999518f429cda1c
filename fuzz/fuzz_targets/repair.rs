//! `--repair` on any text: never panics, and a repaired value always round-trips as JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(r) = sojx_core::repair::repair(&text) {
        let s = serde_json::to_string(&r.value).expect("a repaired value serializes");
        let back: serde_json::Value = serde_json::from_str(&s).expect("and parses back");
        assert_eq!(back, r.value);
    }
});
