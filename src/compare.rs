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

use std::collections::HashMap;
use std::io::Read;

use serde_json::{Map, Value, json};

use crate::cli::CompareArgs;
use crate::envelope::{self, Envelope, Parts};
use crate::error::{ErrorKind, Failure};
use crate::extract;
use crate::input::Source;
use crate::jq::{Expr, short};
use crate::producer::Warning;

/// The longest `input` name before it is summarized as `<N inputs>`.
const MAX_INPUT_NAME: usize = 200;

/// The three expressions, compiled before any input is read.
pub(crate) struct Exprs {
    items: Expr,
    key: Expr,
    field: Expr,
}

impl Exprs {
    pub(crate) fn compile(a: &CompareArgs) -> Result<Self, Failure> {
        Ok(Self {
            items: Expr::compile("--items", &a.items)?,
            key: Expr::compile("--key", &a.key)?,
            field: Expr::compile("--field", &a.field)?,
        })
    }
}

/// One input's outcome: its data, or its failure (an envelope's `error` object).
pub(crate) struct Loaded {
    name: String,
    result: Result<Value, Map<String, Value>>,
}

pub(crate) fn input_name(names: &[String]) -> String {
    let joined = names.join(", ");
    if joined.len() <= MAX_INPUT_NAME {
        joined
    } else {
        format!("<{} inputs>", names.len())
    }
}

/// Read one FILE: printed envelopes give their `data`; anything else is extracted.
pub(crate) fn load(source: &Source, opts: &extract::Options<'_>) -> Vec<Loaded> {
    let name = source.name();
    let failed = |f: Failure| {
        let env = envelope::failure("extract", &name, f.target(name.clone()), Parts::default());
        vec![from_envelope(name.clone(), &env.into_value())]
    };
    let mut bytes = Vec::new();
    match source.open() {
        Ok(mut r) => {
            if let Err(e) = r.read_to_end(&mut bytes) {
                return failed(Failure::new(
                    ErrorKind::Io,
                    "read",
                    format!("reading the input failed: {}", crate::input::io_reason(&e)),
                ));
            }
        }
        Err(f) => return failed(f),
    }
    if let Some(envs) = envelopes(&bytes) {
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
    let env = match extract::read(&bytes[..], opts) {
        Ok((outcome, warnings)) => extract::decide(&name, outcome, warnings, opts),
        Err(f) => return failed(f),
    };
    vec![from_envelope(name, &env.into_value())]
}

fn from_envelope(name: String, env: &Value) -> Loaded {
    let result = match (env.get("data"), env.get("error")) {
        (Some(d), None) => Ok(d.clone()),
        (_, Some(Value::Object(e))) => Err(e.clone()),
        _ => Err(Map::from_iter([
            ("kind".to_owned(), json!("parse")),
            (
                "message".to_owned(),
                json!("the envelope has neither data nor error"),
            ),
        ])),
    };
    Loaded { name, result }
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

/// The envelopes of a file that holds only sojx envelopes (one document, or one per line),
/// with their 1-based line numbers.
fn envelopes(bytes: &[u8]) -> Option<Vec<(usize, Value)>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return is_envelope(&v).then(|| vec![(1, v)]);
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).ok()?;
        if !is_envelope(&v) {
            return None;
        }
        out.push((i + 1, v));
    }
    (!out.is_empty()).then_some(out)
}

/// One expression's outputs as one value: the value, an array of several, or `None` for none.
fn one(values: Vec<Value>) -> Option<Value> {
    match values.len() {
        0 => None,
        1 => values.into_iter().next(),
        _ => Some(Value::Array(values)),
    }
}

/// Items that share one key.
struct Group {
    key: Value,
    sources: Vec<Value>,
    values: Vec<Value>,
    texts: Vec<String>,
}

pub(crate) fn report(input: &str, loaded: &[Loaded], exprs: &Exprs) -> Envelope {
    let mut warnings = Vec::new();
    let mut inputs = Vec::new();
    let mut failed: Vec<(&str, Map<String, Value>)> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let mut total = 0usize;
    for l in loaded {
        let data = match &l.result {
            Ok(d) => d,
            Err(e) => {
                failed.push((&l.name, e.clone()));
                continue;
            }
        };
        let items = exprs.items.run(data);
        if let Some(err) = items.error {
            let e = Map::from_iter([
                ("kind".to_owned(), json!("assertion_failed")),
                (
                    "message".to_owned(),
                    json!(format!("--items `{}` failed: {err}", exprs.items.text)),
                ),
                (
                    "details".to_owned(),
                    json!({"assertions": [{"expression": exprs.items.text, "values": [], "error": err}]}),
                ),
            ]);
            failed.push((&l.name, e));
            continue;
        }
        inputs.push(json!({"input": l.name, "items": items.values.len()}));
        total += items.values.len();
        for (index, item) in items.values.iter().enumerate() {
            let where_ = format!("{} item {index}", l.name);
            let key = exprs.key.run(item);
            let key = match (key.error, one(key.values)) {
                (Some(err), _) => {
                    warnings.push(skipped(&where_, "--key", &exprs.key.text, &err));
                    continue;
                }
                (None, None) => {
                    warnings.push(skipped(&where_, "--key", &exprs.key.text, "no value"));
                    continue;
                }
                (None, Some(k)) => k,
            };
            let field = exprs.field.run(item);
            if let Some(err) = field.error {
                warnings.push(skipped(&where_, "--field", &exprs.field.text, &err));
                continue;
            }
            let value = one(field.values).unwrap_or(Value::Null);
            let text = value.to_string();
            let g = *by_key.entry(key.to_string()).or_insert_with(|| {
                groups.push(Group {
                    key: key.clone(),
                    sources: Vec::new(),
                    values: Vec::new(),
                    texts: Vec::new(),
                });
                groups.len() - 1
            });
            let g = &mut groups[g];
            if !g.texts.contains(&text) {
                g.texts.push(text);
                g.values.push(value.clone());
            }
            g.sources
                .push(json!({"input": l.name, "index": index, "value": value}));
        }
    }
    for (name, e) in &failed {
        let kind = e.get("kind").and_then(Value::as_str).unwrap_or("error");
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        warnings.push(Warning::new(
            "input_failed",
            format!("{name}: {kind}: {msg}; it was left out of the comparison"),
        ));
    }
    let keys = groups.len();
    let contradictions: Vec<Value> = groups
        .into_iter()
        .filter(|g| g.values.len() > 1)
        .map(|g| json!({"key": g.key, "values": g.values, "sources": g.sources}))
        .collect();
    let failed_inputs: Vec<Value> = failed
        .iter()
        .map(|(name, e)| json!({"input": name, "error": e}))
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
        let values: Vec<String> = first["sources"]
            .as_array()
            .map(|s| {
                s.iter()
                    .map(|s| {
                        format!(
                            "{} in {}",
                            short(&s["value"]),
                            s["input"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let f = Failure::new(
            ErrorKind::AssertionFailed,
            "compare",
            format!(
                "{} contradiction(s): items with the same {} have different {} (first: key {}: {})",
                contradictions.len(),
                exprs.key.text,
                exprs.field.text,
                short(&first["key"]),
                values.join(", ")
            ),
        )
        .target(exprs.field.text.clone())
        .hint("error.details.contradictions lists every key, its values and where each came from")
        .details(body);
        return envelope::failure("compare", input, f, parts);
    }
    if let Some((name, e)) = failed.first() {
        let kind = e
            .get("kind")
            .and_then(Value::as_str)
            .and_then(ErrorKind::parse)
            .unwrap_or(ErrorKind::Internal);
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        let mut f = Failure::new(
            kind,
            "extract",
            format!(
                "{} of {} input(s) could not be compared (first: {name}: {msg})",
                failed.len(),
                loaded.len()
            ),
        )
        .target((*name).to_owned())
        .hint("warnings list every failed input; fix or re-run them and compare again");
        if let Some(d) = e.get("details") {
            f = f.details(d.clone());
        }
        return envelope::failure("compare", input, f, parts);
    }
    envelope::success("compare", input, body, parts)
}

fn skipped(where_: &str, flag: &str, expr: &str, why: &str) -> Warning {
    Warning::new(
        "item_skipped",
        format!("{where_}: {flag} `{expr}` gave {why}; the item was left out"),
    )
}
