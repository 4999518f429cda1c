//! The whole extract path on arbitrary bytes, detected (`--from auto`), without a schema and
//! with one of a few schemas (the first byte chooses). Also checks that splitting the same
//! bytes across two reads gives the same envelope (minus the timestamp).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sojx_core::extract::{Options, decide, read};
use sojx_core::schema::{Schema, Settings};

const SCHEMAS: [&str; 3] = [
    r#"{"type":"object","properties":{"verdict":{"enum":["pass","fail"]},"n":{"type":"integer"}},"required":["verdict"]}"#,
    r#"{"type":"array","items":{"type":"string","pattern":"^(a+)+$"}}"#,
    r##"{"$defs":{"t":{"type":["object","array","string","number","boolean","null"],"additionalProperties":{"$ref":"#/$defs/t"},"items":{"$ref":"#/$defs/t"}}},"$ref":"#/$defs/t"}"##,
];

fn schemas() -> &'static Vec<Schema> {
    static S: OnceLock<Vec<Schema>> = OnceLock::new();
    S.get_or_init(|| {
        SCHEMAS
            .iter()
            .map(|s| {
                // As `--schema S` gives it.
                let settings = Settings {
                    schema: Some((*s).to_owned()),
                    ..Settings::default()
                };
                sojx_core::schema::load(&settings)
                    .expect("fuzz schemas compile")
                    .expect("some")
            })
            .collect()
    })
}

fn envelope(opts: &Options<'_>, chunks: &[&[u8]]) -> serde_json::Value {
    let reads = sojx_core::input::Pieces::new(chunks.iter().copied());
    let (outcome, warnings) = read(reads, opts).expect("reading from memory succeeds");
    let env = decide("<fuzz>", outcome, warnings, opts);
    let ok = env.data().is_some();
    assert!(
        ok != env.error_kind().is_some(),
        "exactly one of data / error"
    );
    assert_eq!(env.exit_status().is_success(), ok);
    let mut v = env.into_value();
    v.as_object_mut().expect("object").remove("timestamp");
    v
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, input)) = data.split_first() else {
        return;
    };
    let schema = match sel % 4 {
        0 => None,
        i => Some(&schemas()[usize::from(i) - 1]),
    };
    let opts = Options {
        from: None,
        strict: sel & 0x80 != 0,
        repair: sel & 0x40 != 0,
        max_line_bytes: 1 << 16,
        max_candidates: 64,
        schema,
        ..Options::default()
    };
    let whole = envelope(&opts, &[input]);
    let at = if input.is_empty() {
        0
    } else {
        usize::from(sel) * 7 % (input.len() + 1)
    };
    let (a, b) = input.split_at(at);
    let split = envelope(&opts, &[a, b]);
    assert_eq!(
        whole, split,
        "splitting the input at {at} changed the envelope"
    );
});
