//! `sojx compare`: contradictions between sibling outputs.
//!
//! Each FILE is either a run of any producer (extracted exactly as `sojx extract` would, with the
//! same `--from`, `--schema`, `--strict`, `--repair`) or printed sojx envelopes (one pretty
//! envelope, or JSON Lines of envelopes, whose `data` is used). `--items` yields the items of each
//! input's data, `--key` an item's identity and `--field` the value that must agree. Items with
//! equal keys (equal as JSON text) and different field values are contradictions.
//!
//! One envelope for the whole comparison (`command: compare`); `input` is the file names joined
//! with `, `, or `<N inputs>` when that would be longer than 200 characters. With no
//! contradiction and no failed input: success, `data` is the report. With a contradiction:
//! `assertion_failed`, the report in `error.details` (a failure envelope never carries `data`).
//! With failed inputs only: the first failed input's error kind. Failed inputs are also listed
//! in `warnings` (`input_failed`).

use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};

use crate::details::Details;
use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure, Operation};
use crate::extract;
use crate::input::{LineSink, Piece, ReadAhead, ReadEnd, ReadPlan, Source, read_lines};
use crate::jq::{Expr, Outputs, short};
use crate::names::Command;
use crate::warning::{Warning, WarningKind};

/// The first contradiction's values named in the message, each with the first item that has it
/// (the details list every item).
const MAX_NAMED_SOURCES: usize = 10;

/// The longest `input` name before it is summarized as `<N inputs>`.
const MAX_INPUT_NAME: usize = 200;

/// The three expressions, compiled before any input is read.
pub struct Exprs {
    items: Expr,
    key: Expr,
    field: Expr,
}

impl Exprs {
    /// `--items`, `--key` and `--field`, in that order (the first that does not compile is
    /// the failure).
    pub fn compile(items: &str, key: &str, field: &str) -> Result<Self, Failure> {
        Ok(Self {
            items: Expr::compile("--items", items)?,
            key: Expr::compile("--key", key)?,
            field: Expr::compile("--field", field)?,
        })
    }
}

/// One input's outcome: its data, or its failure.
pub struct Input {
    name: String,
    result: Result<Value, InputFailure>,
}

/// A failed input: its error kind as named and as sojx reads it, its message and details, and
/// its `error` object as written (listed in `failed_inputs`).
#[derive(Clone)]
struct InputFailure {
    /// The kind as the envelope names it (`error` when it names none).
    named: String,
    /// The kind it names, read; `internal` when sojx does not know it.
    kind: ErrorKind,
    message: String,
    details: Option<Value>,
    wire: Value,
}

impl InputFailure {
    /// Read once from a printed envelope's `error` object.
    fn read(error: Map<String, Value>) -> Self {
        let text = |k: &str| error.get(k).and_then(Value::as_str);
        let named = text("kind").unwrap_or("error").to_owned();
        Self {
            kind: ErrorKind::parse(&named).unwrap_or(ErrorKind::Internal),
            message: text("message").unwrap_or("").to_owned(),
            details: error.get("details").cloned(),
            named,
            wire: Value::Object(error),
        }
    }

    /// One of sojx's own failures.
    fn of(f: &Failure) -> Self {
        Self {
            named: f.kind.as_str().to_owned(),
            kind: f.kind,
            message: f.message.clone(),
            details: f
                .details
                .as_ref()
                .and_then(|d| serde_json::to_value(d).ok()),
            wire: serde_json::to_value(f).unwrap_or(Value::Null),
        }
    }
}

pub fn input_name(names: &[String]) -> String {
    let joined = names.join(", ");
    if joined.len() <= MAX_INPUT_NAME {
        joined
    } else {
        format!("<{} inputs>", names.len())
    }
}

/// Read one FILE: printed envelopes give their `data`; anything else is extracted.
pub fn load(source: &dyn Source, opts: &extract::Options<'_>) -> Vec<Input> {
    let name = source.name();
    let failed = |f: Failure| {
        let env = envelope::failure(
            Command::Extract,
            &name,
            f.target(name.clone()),
            Parts::default(),
        );
        vec![from_own(name.clone(), env)]
    };
    let reader = match source.open_within(None) {
        Ok(r) => r,
        Err(f) => return failed(f),
    };
    let mut sink = Watch {
        reading: extract::Reading::new(opts),
        text: Some(Vec::new()),
        envelopes: Some(Vec::new()),
        max: opts.max_line_bytes,
    };
    let plan = ReadPlan {
        max_line: opts.max_line_bytes,
        size: source.size(),
        timeout: None,
        ahead: ReadAhead::Never,
    };
    match read_lines(reader, plan, None, &mut sink) {
        ReadEnd::End => {}
        ReadEnd::Failed(f) => return failed(*f),
        other => return failed(other.unexpected()),
    }
    if let Some(envs) = sink.envelopes() {
        let several = envs.len() > 1;
        return envs
            .into_iter()
            .map(|(line, env)| {
                let n = if several {
                    format!("{name}:{line}")
                } else {
                    name.clone()
                };
                from_envelope(n, &env)
            })
            .collect();
    }
    let (outcome, warnings) = sink.reading.finish();
    let env = extract::decide(&name, outcome, warnings, opts);
    vec![from_own(name, env)]
}

/// One FILE read once: extracted as `sojx extract` would, and watched for printed sojx
/// envelopes (one document, or one per line), which it is when it holds nothing else.
struct Watch<'o> {
    reading: extract::Reading<'o>,
    /// The lines so far, while the file may be one (pretty-printed) envelope: at most
    /// `--max-line-bytes`, which bounds any one document.
    text: Option<Vec<u8>>,
    /// The envelopes so far with their line numbers, while every non-blank line is one.
    envelopes: Option<Vec<(u64, Value)>>,
    max: usize,
}

/// Read in place, without a pre-scan: the extraction is handed lines without facts.
impl LineSink for Watch<'_> {
    type Facts = ();

    fn line(&mut self, piece: Piece<'_>, _facts: Option<()>) {
        match &piece {
            Piece::Line { no, bytes } => {
                let blank = std::str::from_utf8(bytes).is_ok_and(|t| t.trim().is_empty());
                let first = !blank
                    && self
                        .text
                        .as_ref()
                        .is_some_and(|t| t.trim_ascii().is_empty());
                if let Some(envs) = &mut self.envelopes
                    && !blank
                {
                    match crate::json::from_slice(bytes) {
                        Ok(v) => {
                            // A first line that is a whole JSON value: the file is one value
                            // per line (or that value alone), which the lines decide; its text
                            // need not be kept (an agent's run would be kept whole, up to the
                            // limit, for nothing).
                            if first {
                                self.text = None;
                            }
                            if is_envelope(&v) {
                                envs.push((*no, v));
                            } else {
                                self.envelopes = None;
                            }
                        }
                        Err(_) => self.envelopes = None,
                    }
                }
                if let Some(text) = &mut self.text {
                    if text.len() + bytes.len() < self.max {
                        text.extend_from_slice(bytes);
                        text.push(b'\n');
                    } else {
                        self.text = None;
                    }
                }
            }
            Piece::TooLong { .. } => {
                self.text = None;
                self.envelopes = None;
            }
        }
        self.reading.line(piece, None);
    }
}

impl Watch<'_> {
    /// The file's envelopes, when it holds only sojx envelopes: one document (pretty or not),
    /// or one per line.
    fn envelopes(&mut self) -> Option<Vec<(u64, Value)>> {
        if let Some(text) = &self.text
            && let Ok(v) = crate::json::from_slice(text)
        {
            return is_envelope(&v).then(|| vec![(1, v)]);
        }
        self.envelopes.take().filter(|e| !e.is_empty())
    }
}

/// One of sojx's own envelopes, as [`from_envelope`] reads a printed one.
fn from_own(name: String, env: Envelope) -> Input {
    let result = match env.error() {
        Some(f) => Err(InputFailure::of(f)),
        None => Ok(env.into_data().unwrap_or(Value::Null)),
    };
    Input { name, result }
}

fn from_envelope(name: String, env: &Value) -> Input {
    let result = match (env.get("data"), env.get("error")) {
        (Some(d), None) => Ok(d.clone()),
        (_, Some(Value::Object(e))) => Err(InputFailure::read(e.clone())),
        _ => Err(InputFailure::read(Map::from_iter([
            ("kind".to_owned(), json!("parse")),
            (
                "message".to_owned(),
                json!("the envelope has neither data nor error"),
            ),
        ]))),
    };
    Input { name, result }
}

/// A sojx envelope: an object with the common fields.
fn is_envelope(v: &Value) -> bool {
    [
        "timestamp",
        "command",
        "exit_code",
        "output_format",
        "schema_version",
    ]
    .iter()
    .all(|k| v.get(k).is_some())
}

/// One expression's outputs as one value: the value, an array of several, or `None` for none.
fn one(values: Vec<Value>) -> Option<Value> {
    match values.len() {
        0 => None,
        1 => values.into_iter().next(),
        _ => Some(Value::Array(values)),
    }
}

/// Items that share one key: a contradiction when they have more than one value.
#[derive(Serialize)]
struct Group {
    key: Value,
    /// Its distinct values, in the order met.
    values: Vec<Value>,
    /// Where each item came from, and its value.
    sources: Vec<ItemSource>,
    /// The values' texts, to tell them apart (a set: one key may have as many values as items).
    #[serde(skip)]
    texts: HashSet<String>,
}

/// One item of a group: its input, its index there, and its value.
#[derive(Serialize)]
struct ItemSource {
    input: String,
    index: usize,
    value: Value,
}

pub fn report(input: &str, loaded: &[Input], exprs: &Exprs) -> Envelope {
    let mut seen = Seen::default();
    for l in loaded {
        seen.input(l, exprs);
    }
    let Seen {
        mut warnings,
        inputs,
        failed,
        groups,
        total,
        ..
    } = seen;
    for (name, e) in &failed {
        warnings.push(Warning::new(
            WarningKind::InputFailed,
            format!(
                "{name}: {}: {}; it was left out of the comparison",
                e.named, e.message
            ),
        ));
    }
    let keys = groups.len();
    let contradictions: Vec<Group> = groups.into_iter().filter(|g| g.values.len() > 1).collect();
    let failed_inputs: Vec<Value> = failed
        .iter()
        .map(|(name, e)| json!({"input": name, "error": e.wire}))
        .collect();
    let body = json!({
        "contradictions": contradictions,
        "inputs": inputs,
        "failed_inputs": failed_inputs,
        "items": total,
        "keys": keys,
    });
    let parts = Parts {
        warnings,
        ..Parts::default()
    };
    if let Some(first) = contradictions.first() {
        let f = contradicted(first, contradictions.len(), exprs).details(Details::Report(body));
        return envelope::failure(Command::Compare, input, f, parts);
    }
    if let Some(f) = worst_input(&failed, loaded.len()) {
        return envelope::failure(Command::Compare, input, f, parts);
    }
    envelope::success(Command::Compare, input, body, parts)
}

/// What the inputs held, as they are read one after the other.
#[derive(Default)]
struct Seen<'l> {
    warnings: Vec<Warning>,
    /// `{input, items}` per input that gave items.
    inputs: Vec<Value>,
    failed: Vec<(&'l str, InputFailure)>,
    /// The items by key, in the order the keys were met.
    groups: Vec<Group>,
    by_key: HashMap<String, usize>,
    /// Items in all.
    total: usize,
}

impl<'l> Seen<'l> {
    /// One input: its items (`--items`), each filed under its key.
    fn input(&mut self, l: &'l Input, exprs: &Exprs) {
        let data = match &l.result {
            Ok(d) => d,
            Err(e) => {
                self.failed.push((&l.name, e.clone()));
                return;
            }
        };
        // The items stay jq values for --key and --field: converting each one back and forth
        // would cost more than running them.
        let items = match exprs.items.run_then(data, [&exprs.key, &exprs.field]) {
            Ok(items) => items,
            Err(err) => {
                self.failed.push((&l.name, items_failed(exprs, &err)));
                return;
            }
        };
        self.inputs
            .push(json!({"input": l.name, "items": items.len()}));
        self.total += items.len();
        for (index, [key, field]) in items.into_iter().enumerate() {
            self.item(&l.name, index, key, field, exprs);
        }
    }

    /// Item `index` of input `name`: its key and field (`--key`, `--field`), or a warning that
    /// it was left out.
    fn item(&mut self, name: &str, index: usize, key: Outputs, field: Outputs, exprs: &Exprs) {
        let where_ = || format!("{name} item {index}");
        let key = match (key.error, one(key.values)) {
            (Some(err), _) => {
                self.warnings
                    .push(skipped(&where_(), "--key", &exprs.key.text, &err));
                return;
            }
            (None, None) => {
                self.warnings
                    .push(skipped(&where_(), "--key", &exprs.key.text, "no value"));
                return;
            }
            (None, Some(k)) => k,
        };
        if let Some(err) = field.error {
            self.warnings
                .push(skipped(&where_(), "--field", &exprs.field.text, &err));
            return;
        }
        let value = one(field.values).unwrap_or(Value::Null);
        let text = value.to_string();
        let groups = &mut self.groups;
        let g = *self.by_key.entry(key.to_string()).or_insert_with(|| {
            groups.push(Group {
                key: key.clone(),
                sources: Vec::new(),
                values: Vec::new(),
                texts: HashSet::new(),
            });
            groups.len() - 1
        });
        let g = &mut groups[g];
        if g.texts.insert(text) {
            g.values.push(value.clone());
        }
        g.sources.push(ItemSource {
            input: name.to_owned(),
            index,
            value,
        });
    }
}

/// An input whose `--items` expression failed.
fn items_failed(exprs: &Exprs, err: &str) -> InputFailure {
    let message = format!("--items `{}` failed: {err}", exprs.items.text);
    let details =
        json!({"assertions": [{"expression": exprs.items.text, "values": [], "error": err}]});
    let wire = json!({"kind": "assertion_failed", "message": message, "details": details});
    InputFailure {
        named: ErrorKind::AssertionFailed.as_str().to_owned(),
        kind: ErrorKind::AssertionFailed,
        message,
        details: Some(details),
        wire,
    }
}

/// The `assertion_failed` of `n` contradictions, the first of which is `first`.
fn contradicted(first: &Group, n: usize, exprs: &Exprs) -> Failure {
    // Each value once, where it was first met: the first ten name the contradiction whatever
    // the number of items that repeat a value.
    let mut named = HashSet::new();
    let mut values: Vec<String> = first
        .sources
        .iter()
        .filter(|s| named.insert(s.value.to_string()))
        .take(MAX_NAMED_SOURCES)
        .map(|s| format!("{} in {}", short(&s.value), s.input))
        .collect();
    if let Some(more) = first
        .sources
        .len()
        .checked_sub(values.len())
        .filter(|m| *m > 0)
    {
        values.push(format!("and {more} more"));
    }
    Failure::new(
        ErrorKind::AssertionFailed,
        Operation::Compare,
        format!(
            "{n} contradiction(s): items with the same {} have different {} (first: key {}: {})",
            exprs.key.text,
            exprs.field.text,
            short(&first.key),
            values.join(", ")
        ),
    )
    .target(exprs.field.text.clone())
    .hint("error.details.contradictions lists every key, its values and where each came from")
}

/// The failure of a comparison some of whose `of` inputs failed: the input whose failure is
/// worst decides the kind (and so the exit status), whatever the order of the arguments; the
/// first such input among equals.
fn worst_input(failed: &[(&str, InputFailure)], of: usize) -> Option<Failure> {
    let (name, e) = failed
        .iter()
        .rev()
        .max_by_key(|(_, e)| crate::exit::ExitStatus::of(Command::Compare, e.kind))?;
    let f = Failure::new(
        e.kind,
        Operation::Extract,
        format!(
            "{} of {of} input(s) could not be compared (first: {name}: {})",
            failed.len(),
            e.message
        ),
    )
    .target((*name).to_owned())
    .hint("warnings list every failed input; fix or re-run them and compare again");
    Some(match &e.details {
        Some(d) => f.details(Details::Passed(d.clone())),
        None => f,
    })
}

fn skipped(where_: &str, flag: &str, expr: &str, why: &str) -> Warning {
    Warning::new(
        WarningKind::ItemSkipped,
        format!("{where_}: {flag} `{expr}` gave {why}; the item was left out"),
    )
}
