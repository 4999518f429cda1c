//! Extract an agent's final answer from its output and validate it, with only `sojx-core`'s
//! public API: what `sojx extract FILE --schema SCHEMA` does, in-process.
//!
//! ```text
//! cargo run -p sojx-core --example extract -- examples/claude-review.ndjson examples/verdict.schema.json
//! ```
//!
//! Prints the envelope (one line of JSON) and exits with its exit code; on a failure another
//! attempt can fix, the feedback an agent would be given goes to stderr.

// An example program prints; the engine never does.
#![allow(clippy::print_stderr)]

use std::error::Error;
use std::fs::File;
use std::io::Write;
use std::process::ExitCode;

use sojx_core::{Extractor, Schema, Settings, feedback};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match extract(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("extract: {e}");
            ExitCode::from(3)
        }
    }
}

fn extract(args: &[String]) -> Result<ExitCode, Box<dyn Error>> {
    let (input, schema) = match args {
        [input] => (input, None),
        [input, schema] => (input, Some(schema)),
        _ => return Err("usage: extract FILE [SCHEMA]".into()),
    };
    let schema = match schema {
        Some(path) => Some(Schema::from_reader(File::open(path)?)?),
        None => None,
    };
    let mut settings = Settings::new();
    if let Some(schema) = &schema {
        settings = settings.schema(schema);
    }
    // The file is read in pieces, as an agent's output comes from a pipe.
    let envelope = Extractor::new(&settings)
        .input(input.as_str())
        .read(File::open(input)?);
    writeln!(std::io::stdout().lock(), "{}", envelope.to_json())?;
    if envelope.earns_retry() {
        eprintln!("{}", feedback(&envelope));
    }
    Ok(ExitCode::from(envelope.exit_code()))
}
