//! The public API of `sojx-core` gives the command line's envelopes: every case of the shared
//! corpus that uses only the flags the API has (`--schema`, `--from`, `--strict`, `--repair`)
//! is run through both, and the envelopes compared field by field (the timestamp aside, and
//! the schema's name, which the API does not know); a schema the API refuses, the command line
//! refuses with the same kind.

use std::path::Path;

use serde_json::Value;
use sojx_core::{Error, Extractor, Schema, Settings};

use crate::common::{corpus_cases, run, shared, sojx};

/// What the API gives for `file` (in `corpus`) with the command line's `args`: the envelope,
/// or the schema's error (the command line's envelope then names its kind); `None` when `args`
/// use a flag the API does not have.
fn through_the_api(corpus: &Path, file: &str, args: &[&str]) -> Option<Result<Value, Error>> {
    let mut schema = None;
    let (mut from, mut strict, mut repair) = (None, false, false);
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match *a {
            "--schema" => schema = Some(*it.next()?),
            "--from" => from = Some(*it.next()?),
            "--strict" => strict = true,
            "--repair" => repair = true,
            _ => return None,
        }
    }
    // `--schema` is inline JSON, `@path`, or a path, as the engine tells them apart.
    let schema = schema.map(|s| match sojx_core::schema::file_of(s) {
        Some(path) => Schema::from_reader(
            std::fs::File::open(corpus.join(path)).expect("the corpus's schema"),
        ),
        None => s.parse(),
    });
    let schema = match schema.transpose() {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    let mut settings = Settings::new().strict(strict).repair(repair);
    if let Some(s) = &schema {
        settings = settings.schema(s);
    }
    if let Some(f) = from {
        settings = settings
            .producer(f)
            .expect("a corpus case names a known producer");
    }
    let input = std::fs::File::open(corpus.join(file)).expect("the corpus file");
    let envelope = Extractor::new(&settings).input(file).read(input);
    Some(Ok(envelope.to_value()))
}

/// `v` without the fields that differ by construction: the timestamp, and the schema's name.
fn comparable(mut v: Value, schema: Option<&str>) -> Value {
    let o = v.as_object_mut().expect("an envelope is an object");
    o.remove("timestamp");
    if let Some(Value::Object(val)) = o.get_mut("validation") {
        val.remove("schema");
    }
    if let (Some(Value::Object(err)), Some(schema)) = (o.get_mut("error"), schema)
        && err.get("target").and_then(Value::as_str) == Some("<inline>")
    {
        err.insert("target".into(), Value::from(schema));
    }
    v
}

#[test]
fn the_public_api_gives_the_command_lines_envelopes_on_the_corpus() {
    let Some(shared) = shared() else { return };
    let corpus = shared.join("corpus");
    let mut compared = 0;
    let mut failed = 0;
    for (c, args) in corpus_cases(&corpus) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let file = c["file"].as_str().unwrap();
        let Some(api) = through_the_api(&corpus, file, &args) else {
            continue;
        };
        let cli = run(sojx().current_dir(&corpus).args(&args).arg(file));
        let schema = args
            .iter()
            .position(|a| *a == "--schema")
            .map(|i| args[i + 1]);
        let cli = comparable(cli.one().clone(), schema);
        match api {
            Ok(api) => assert_eq!(comparable(api, schema), cli, "{}", c["name"]),
            Err(e) => assert_eq!(cli["error"]["kind"], e.kind().as_str(), "{}", c["name"]),
        }
        compared += 1;
        failed += usize::from(cli["exit_code"] != 0);
    }
    // Most of the corpus, successes and failures both.
    assert!(compared >= 130, "only {compared} cases compared");
    assert!(failed >= 20, "only {failed} failures compared");
}
