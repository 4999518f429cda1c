//! `sojx compare`: every FILE extracted (or read as printed envelopes), then one envelope for
//! the contradictions between them.

use std::io;

use super::extract::{Producers, extract_options};
use super::output::{emit, sources, stdin_guard, style};
use super::{Io, settings};
use crate::envelope::{self, Parts};
use crate::error::{ErrorKind, Failure, Operation};
use crate::exit::ExitStatus;
use crate::input::Source;
use crate::names::Command;
use crate::{batch, cli, compare, jq};

pub(super) fn run(a: &cli::CompareArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&a.output, io);
    let sources = sources(&a.files);
    let names: Vec<String> = sources.iter().map(Source::name).collect();
    let input = compare::input_name(&names);
    let fail = |io: &mut Io<'_>, f: Failure| -> io::Result<ExitStatus> {
        let env = envelope::failure(Command::Compare, &input, f, Parts::default());
        emit(io, &env, style)?;
        Ok(env.exit_status())
    };
    let exprs = match compare::Exprs::compile(&a.items, &a.key, &a.field) {
        Ok(e) => e,
        Err(f) => return fail(io, f),
    };
    let producers = match Producers::load(&a.producer_files, &a.from, &io.env) {
        Ok(p) => p,
        Err(f) => return fail(io, f),
    };
    let schema = match settings::load(
        &settings::schema(&a.schema),
        settings::given_under(&a.schema),
    ) {
        Ok(s) => s,
        Err(f) => return fail(io, f),
    };
    if let Err(f) = settings::coerce_needs_schema(a.coerce, schema.as_ref()) {
        return fail(io, f);
    }
    if let Some(code) = stdin_guard(Command::Compare, &a.files, io) {
        return Ok(code);
    }
    let opts = extract_options(
        &producers,
        a.strict,
        a.repair,
        a.coerce,
        &a.limits,
        schema.as_ref(),
        &io.env,
    );
    let mut loaded = Vec::new();
    batch::for_each(
        &sources,
        batch::parallel_ok(&sources),
        |s| compare::load(s, &opts),
        |l| {
            loaded.extend(l);
            Ok(())
        },
    )?;
    // On one worker thread, with the stack the expressions' budget assumes
    // (crates/sojx-core/src/jq/guard.rs).
    let Some(env) = jq::on_worker(|| compare::report(&input, &loaded, &exprs)) else {
        return fail(
            io,
            Failure::new(
                ErrorKind::Internal,
                Operation::Compare,
                "no thread could be started to run the expressions".to_owned(),
            ),
        );
    };
    // The schema's own warnings (a keyword typo), which the inputs' extractions carried.
    let env = schema
        .iter()
        .flat_map(|s| s.warnings.iter().cloned())
        .fold(env, crate::envelope::Envelope::with_warning);
    emit(io, &env, style)?;
    Ok(env.exit_status())
}
