//! A producer file's text (TOML or JSON, the first byte chooses) through its checks: never a
//! panic, and a file that passes reads the bytes after it (the input, from the second NUL on)
//! as its producer without one either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sojx_core::extract::{Options, decide, read};
use sojx_core::producer::Producer;
use sojx_core::producer::file::{Origin, parse};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let (file, input) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(file) else {
        return;
    };
    let Ok(spec) = parse(text, "<fuzz>", sel & 1 == 1, Origin::BuiltIn) else {
        return;
    };
    let spec: &'static _ = Box::leak(Box::new(spec));
    let opts = Options {
        from: Some(Producer::File(spec)),
        max_line_bytes: 1 << 16,
        max_candidates: 64,
        ..Options::default()
    };
    let reads = sojx_core::input::Pieces::new([input]);
    let (outcome, warnings) = read(reads, &opts).expect("reading from memory succeeds");
    let env = decide("<fuzz>", outcome, warnings, &opts);
    assert_eq!(env.exit_status().is_success(), env.data().is_some());
});
