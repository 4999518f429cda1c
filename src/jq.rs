//! jq expressions (`--assert`, `sojx compare --items/--key/--field`), compiled once with the
//! `jaq` crates and run on `serde_json` values.
//!
//! Values cross the boundary as JSON text, so numbers keep their digits both ways.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::Val;
use serde_json::{Value, json};

use crate::error::{ErrorKind, Failure};

type Data = data::JustLut<Val>;

/// One compiled jq expression and its source text.
pub struct Expr {
    pub text: String,
    filter: jaq_core::Filter<Data>,
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expr").field("text", &self.text).finish()
    }
}

impl Expr {
    /// Compile `text`; a syntax error or an undefined name is a `usage` failure naming `flag`.
    pub fn compile(flag: &str, text: &str) -> Result<Self, Failure> {
        let defs = jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs());
        let funs = jaq_core::funs()
            .chain(jaq_std::funs())
            .chain(jaq_json::funs());
        let arena = Arena::default();
        let loader = Loader::new(defs);
        let usage = |why: String| {
            Failure::new(
                ErrorKind::Usage,
                "compile_expression",
                format!("{flag} `{text}` is not a valid jq expression: {why}"),
            )
            .target(text.to_owned())
            .retryable(false)
            .hint("write the expression in jq syntax, e.g. '.findings | length > 0'")
        };
        let modules = loader
            .load(
                &arena,
                File {
                    code: text,
                    path: (),
                },
            )
            .map_err(|errs| usage(load_errors(&errs)))?;
        let filter = Compiler::default()
            .with_funs(funs)
            .compile(modules)
            .map_err(|errs| {
                let why: Vec<String> = errs
                    .iter()
                    .flat_map(|(_, es)| es.iter())
                    .map(|(name, u)| format!("undefined {} `{name}`", u.as_str()))
                    .collect();
                usage(why.join("; "))
            })?;
        Ok(Self {
            text: text.to_owned(),
            filter,
        })
    }

    /// Run on `input`: every output value, or the first error (as its message).
    pub fn run(&self, input: &Value) -> Outputs {
        self.run_max(input, usize::MAX)
    }

    /// As [`Expr::run`], stopping with an error after `max` values.
    fn run_max(&self, input: &Value, max: usize) -> Outputs {
        let mut outputs = Outputs::default();
        let Some(input) = to_val(input) else {
            outputs.error = Some("the input is not representable as a jq value".into());
            return outputs;
        };
        let ctx = Ctx::<Data>::new(&self.filter.lut, Vars::new([]));
        for r in self.filter.id.run((ctx, input)).map(unwrap_valr) {
            if outputs.values.len() == max {
                outputs.error = Some(format!("yielded more than {max} values"));
                break;
            }
            match r {
                Ok(v) => outputs.values.push(from_val(&v)),
                Err(e) => {
                    outputs.error = Some(e.to_string());
                    break;
                }
            }
        }
        outputs
    }
}

/// Run an assertion on a worker thread under [`ASSERT_BUDGET`]. A runaway evaluation is left
/// behind (it cannot be interrupted) and ends with the process; the assertion fails.
fn bounded(expr: &std::sync::Arc<Expr>, data: &Value) -> Outputs {
    let (tx, rx) = std::sync::mpsc::channel();
    let (e, d) = (std::sync::Arc::clone(expr), data.clone());
    let spawned = std::thread::Builder::new()
        .name("sojx-assert".into())
        .stack_size(16 << 20)
        .spawn(move || {
            let _ = tx.send(e.run_max(&d, MAX_OUTPUTS));
        });
    if spawned.is_err() {
        return expr.run_max(data, MAX_OUTPUTS);
    }
    rx.recv_timeout(ASSERT_BUDGET).unwrap_or_else(|_| Outputs {
        values: Vec::new(),
        error: Some(format!(
            "did not finish within {} s (sojx's budget for one assertion)",
            ASSERT_BUDGET.as_secs()
        )),
    })
}

/// What one expression produced on one input.
#[derive(Debug, Default)]
pub struct Outputs {
    pub values: Vec<Value>,
    pub error: Option<String>,
}

impl Outputs {
    /// The assertion reading: at least one value, all neither false nor null, and no error.
    pub fn holds(&self) -> bool {
        self.error.is_none()
            && !self.values.is_empty()
            && self
                .values
                .iter()
                .all(|v| !matches!(v, Value::Null | Value::Bool(false)))
    }
}

fn load_errors(errs: &jaq_core::load::Errors<&str, ()>) -> String {
    use jaq_core::load::Error;
    let mut out = Vec::new();
    for (_, e) in errs {
        match e {
            Error::Io(v) => out.extend(v.iter().map(|(p, m)| format!("{p}: {m}"))),
            Error::Lex(v) => out.extend(
                v.iter()
                    .map(|(expect, at)| format!("expected {} {}", expect.as_str(), near(at))),
            ),
            Error::Parse(v) => out.extend(
                v.iter()
                    .map(|(expect, at)| format!("expected {} {}", expect.as_str(), near(at))),
            ),
        }
    }
    if out.is_empty() {
        "it does not parse".into()
    } else {
        out.join("; ")
    }
}

fn near(at: &str) -> String {
    let at: String = at.chars().take(20).collect();
    if at.trim().is_empty() {
        "at the end".into()
    } else {
        format!("at `{at}`")
    }
}

fn to_val(v: &Value) -> Option<Val> {
    let text = serde_json::to_string(v).ok()?;
    jaq_json::read::parse_single(text.as_bytes()).ok()
}

fn from_val(v: &Val) -> Value {
    let text = v.to_string();
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

/// How long one assertion may run on one value. jq can loop forever (`last(range(1e12))`,
/// `[repeat(1)]`); past this budget the assertion fails instead of hanging the run.
pub const ASSERT_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// Most output values kept from one assertion (`repeat(1)` would stream forever).
const MAX_OUTPUTS: usize = 1_000;

/// `--assert` expressions, compiled before any input is read.
#[derive(Debug, Default)]
pub struct Assertions {
    exprs: Vec<std::sync::Arc<Expr>>,
}

impl Assertions {
    pub fn compile(texts: &[String]) -> Result<Self, Failure> {
        let exprs = texts
            .iter()
            .map(|t| Expr::compile("--assert", t).map(std::sync::Arc::new))
            .collect::<Result<_, _>>()?;
        Ok(Self { exprs })
    }

    pub fn is_empty(&self) -> bool {
        self.exprs.is_empty()
    }

    /// Evaluate every assertion on `data`; a failure lists each one that did not hold, with the
    /// values it produced (`error.details.assertions`), and carries `data` as the candidate.
    pub fn check(&self, data: &Value) -> Result<(), Failure> {
        let failed: Vec<(&Expr, Outputs)> = self
            .exprs
            .iter()
            .map(|e| (&**e, bounded(e, data)))
            .filter(|(_, o)| !o.holds())
            .collect();
        let Some((first, first_out)) = failed.first() else {
            return Ok(());
        };
        let why = describe(first_out);
        let message = if failed.len() == 1 {
            format!("the assertion `{}` {why}", first.text)
        } else {
            format!(
                "{} of {} assertions failed (first: `{}` {why})",
                failed.len(),
                self.exprs.len(),
                first.text
            )
        };
        let details: Vec<Value> = failed
            .iter()
            .map(|(e, o)| {
                let mut m = json!({"expression": e.text, "values": o.values});
                if let Some(err) = &o.error {
                    m["error"] = Value::from(err.as_str());
                }
                m
            })
            .collect();
        Err(Failure::new(ErrorKind::AssertionFailed, "assert", message)
            .target(first.text.clone())
            .hint("feed error.details and candidate back to the model, or fix the assertion")
            .details(json!({ "assertions": details }))
            .candidate(data.clone()))
    }
}

fn describe(o: &Outputs) -> String {
    if let Some(e) = &o.error {
        return format!("failed: {e}");
    }
    match o.values.as_slice() {
        [] => "produced no value".into(),
        [one] => format!("produced {}", short(one)),
        many => format!(
            "produced {} values {}",
            many.len(),
            short(&Value::Array(many.to_vec()))
        ),
    }
}

/// A value for a one-line message, cut at 80 characters.
pub fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(79).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_expressions_are_shared_across_threads() {
        fn sync<T: Send + Sync>() {}
        sync::<Expr>();
        sync::<Assertions>();
    }

    #[test]
    fn big_numbers_keep_their_digits() {
        let e = Expr::compile("--assert", ".").unwrap();
        let v: Value = serde_json::from_str("12345678901234567890123").unwrap();
        assert_eq!(e.run(&v).values, vec![v]);
    }
}
