//! Each producer's extractor: the first byte forces a producer (`--from`), the rest is the
//! input; the whole read + decide path must give one well-formed envelope.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sojx_core::extract::{Options, decide, read};
use sojx_core::producer::Producer;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, input)) = data.split_first() else {
        return;
    };
    let opts = Options {
        from: Some(Producer::ALL[usize::from(sel) % Producer::ALL.len()]),
        strict: sel & 0x80 != 0,
        repair: sel & 0x40 != 0,
        max_line_bytes: 1 << 16,
        max_candidates: 64,
        schema: None,
        ..Options::default()
    };
    let (outcome, warnings) =
        read(std::io::Cursor::new(input.to_vec()), &opts).expect("reading from memory succeeds");
    let env = decide("<fuzz>", outcome, warnings, &opts);
    sojx_fuzz_check(&env);
});

fn sojx_fuzz_check(env: &sojx_core::envelope::Envelope) {
    let ok = env.data().is_some();
    let err = env.error_kind().is_some();
    assert!(ok != err, "exactly one of data / error");
    assert_eq!(env.exit_status().is_success(), ok, "exit code 0 exactly on success");
    serde_json::to_string(env).expect("the envelope serializes");
}
