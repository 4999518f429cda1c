//! `--repair` on any text: never panics, a repaired value always round-trips as JSON, every
//! change is recorded, and JSON is never repaired.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(r) = sojx_core::repair::repair(&text) {
        let s = serde_json::to_string(&r.value).expect("a repaired value serializes");
        let back: serde_json::Value = serde_json::from_str(&s).expect("and parses back");
        assert_eq!(back, r.value);
        // Every change is recorded, in text order, inside the text.
        assert!(!r.changes.is_empty() && !r.warnings.is_empty());
        assert!(r.changes.windows(2).all(|w| w[0].offset <= w[1].offset));
        assert!(r.changes.iter().all(|c| c.offset <= text.len()));
        // JSON needs no repair.
        assert!(serde_json::from_str::<serde_json::Value>(text.trim()).is_err());
    }
});
