//! The fast path against the full parse (issue 39, item 2): a Claude Code `init` line (so the
//! producer is known and the fast path engages), then any bytes, extracted with the fast path on
//! and off, without a schema and with one. The two envelopes must be the same, timestamp aside:
//! on invalid and hostile lines too, the fast path skips nothing the full parse would read
//! differently.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sojx_core::extract::{Options, decide, read};

const INIT: &[u8] = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"model\":\"m\"}\n";

fn envelope(opts: &Options<'_>, input: &[u8]) -> serde_json::Value {
    let reads = sojx_core::input::Pieces::new([INIT, input].into_iter());
    let (outcome, warnings) = read(reads, opts).expect("reading from memory succeeds");
    let mut v = decide("<fuzz>", outcome, warnings, opts).into_value();
    v.as_object_mut().expect("object").remove("timestamp");
    v
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, input)) = data.split_first() else {
        return;
    };
    let opts = |fast_path| Options {
        from: None,
        strict: sel & 0x80 != 0,
        repair: sel & 0x40 != 0,
        max_line_bytes: 1 << 16,
        max_candidates: 64,
        fast_path,
        ..Options::default()
    };
    let fast = envelope(&opts(true), input);
    let full = envelope(&opts(false), input);
    assert_eq!(fast, full, "the fast path changed the envelope");
});
