//! `sojx producers`: every producer sojx reads, where each comes from (sojx's code, a built-in
//! producer file, the config folder, `--producer-file`); `sojx producers check FILE [INPUT…]`:
//! a producer file checked, and what it extracts from each input.

use std::io;

use serde_json::{Map, Value, json};

use super::output::{emit, fail_before_input, sources, stdin_guard, style};
use super::{Io, settings};
use crate::agent::Profile;
use crate::envelope::{self, Parts};
use crate::exit::ExitStatus;
use crate::names::Command;
use crate::producer::file::{Spec, spec_of};
use crate::producer::{Producer, Registry};
use crate::{cli, extract};

pub(super) fn run(a: &cli::ProducersArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    if let Some(cli::ProducersCommand::Check(c)) = &a.check {
        return check(c, io);
    }
    let mut style = style(&a.output, io);
    // A person at a terminal gets the table, not the envelope (as `lint` does).
    if a.output.output_format.is_none() && io.stdout_is_tty && !style.raw && !a.output.pretty {
        style.format = crate::render::OutputFormat::Text;
        style.pretty = false;
    }
    let registry = match settings::producers(&a.producer_files, &io.env) {
        Ok(r) => r,
        Err(f) => return fail_before_input(Command::Producers, &[], &f, io, style),
    };
    let list: Vec<Value> = registry.all().into_iter().map(row).collect();
    let env = envelope::success(Command::Producers, "", Value::Array(list), Parts::default());
    emit(io, &env, style)?;
    Ok(env.exit_status())
}

/// One producer of the list.
fn row(p: Producer) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), p.id().into());
    match spec_of(p) {
        None => {
            o.insert("reads".into(), "code".into());
            o.insert("origin".into(), "built-in".into());
            o.insert("about".into(), p.doc().trim().into());
        }
        Some(s) => {
            o.insert("reads".into(), "file".into());
            o.insert("origin".into(), s.origin.kind().into());
            if let Some(f) = s.origin.path() {
                o.insert("file".into(), f.into());
            }
            o.insert("name".into(), s.name.clone().into());
            if let Some(v) = &s.version {
                o.insert("version".into(), v.clone().into());
            }
            o.insert(
                "about".into(),
                s.about
                    .clone()
                    .unwrap_or_else(|| p.doc().trim().to_owned())
                    .into(),
            );
        }
    }
    if let Some(r) = Profile::for_producer(p) {
        o.insert("resume".into(), r.form().into());
    }
    Value::Object(o)
}

/// What a checked file describes, for the one who wrote it.
fn summary(s: &'static Spec) -> Value {
    let names = |f: &dyn Fn(&crate::producer::file::Event) -> bool| -> Vec<&str> {
        s.events
            .iter()
            .filter(|e| f(e))
            .map(|e| e.name.as_str())
            .collect()
    };
    let mut v = json!({
        "id": s.id,
        "name": s.name,
        "version": s.version,
        "file": s.origin.path(),
        "events": names(&|_| true),
        "claims": names(&|e| e.claims),
        "ends": names(&|e| e.end),
        "terminal": s.terminal,
        "resume": s.resume.as_ref().map(|_| Profile::File(s).form()),
    });
    if let Value::Object(o) = &mut v {
        o.retain(|_, x| !x.is_null());
    }
    v
}

/// `sojx producers check FILE [INPUT…]`.
fn check(c: &cli::CheckArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    let style = style(&c.output, io);
    let file = c.file.display().to_string();
    // The file alone (not the config folder's), checked as `--producer-file` checks it.
    let registry = match Registry::load(std::slice::from_ref(&c.file), None, &crate::disk::Disk) {
        Ok(r) => r,
        Err(e) => {
            let f = settings::producer_failure(&e);
            return fail_before_input(Command::Producers, &c.inputs, &f, io, style);
        }
    };
    let spec = registry.loaded()[0];
    if c.inputs.is_empty() {
        let env = envelope::success(Command::Producers, &file, summary(spec), Parts::default());
        emit(io, &env, style)?;
        return Ok(env.exit_status());
    }
    if let Some(code) = stdin_guard(Command::Producers, &c.inputs, io) {
        return Ok(code);
    }
    let opts = extract::Options {
        from: Some(Producer::File(spec)),
        producers: &registry,
        fast_path: !io.env.no_fast_path,
        ..extract::Options::default()
    };
    let mut status = ExitStatus::Success;
    for s in &sources(&c.inputs) {
        let env = extract::run(s, &opts).as_command(Command::Producers);
        status = status.worst(env.exit_status());
        emit(io, &env, style)?;
    }
    Ok(status)
}
