//! jq expressions (`--assert`, `sojx compare --items/--key/--field`), compiled once with the
//! `jaq` crates and run on `serde_json` values.
//!
//! Values cross the boundary as JSON text, so numbers keep their digits both ways.
//!
//! An expression cannot end sojx, whatever it does (docs/limits.md, "jq expressions"): every run
//! is on a worker thread with `WORKER_STACK` of stack, under a budget of `MAX_STEPS`
//! evaluation steps, `ASSERT_BUDGET` of time and `RECURSION_STACK` of stack for recursion,
//! checked at every step; past any of them the run stops with an error naming the bound.
//! `halt` and `halt_error` stop the run with an error instead of exiting, and `fromjson` refuses
//! text nested deeper than `MAX_FROMJSON_DEPTH` levels.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Exn, Vars};
use jaq_json::Val;
use serde_json::Value;

use crate::details::{Details, FailedAssertion};
use crate::error::{ErrorKind, Failure, Operation};

mod guard;

pub use guard::on_worker;
use guard::{Budget, Env, Guarded, ON_WORKER, Stop, funs, nesting_exceeds};

/// How long one expression may run on one value, in the CPU time of the thread that runs it
/// (guard.rs `thread_time`: a loaded machine does not use it up). jq can loop forever
/// (`last(range(1e12))`, `[repeat(1)]`); past this budget the run fails instead of hanging.
pub(crate) const ASSERT_BUDGET: Duration = Duration::from_secs(2);

/// How long, on the wall clock, sojx waits for one run before leaving it behind: the budget is
/// checked at each step, so only one long step (a huge sort, say) outlives it. Generous, so that
/// a run that waits for a core on a busy machine is not taken for one that is stuck.
const ASSERT_BACKSTOP: Duration = Duration::from_secs(10);

/// Most evaluation steps (calls, pipes, loop iterations, `range` values) of one run.
pub(crate) const MAX_STEPS: u64 = 1_000_000;

/// Stack a run may use for recursion (`def f: [f]; f`) before it stops.
pub(crate) const RECURSION_STACK: usize = 64 << 20;

/// Stack of a worker thread: the recursion bound, and room below it for what a step does on
/// deep values (dropping, printing, comparing them) and for unwinding.
pub(crate) const WORKER_STACK: usize = 1 << 30;

/// Deepest nesting `fromjson` parses (jaq's parser recurses without a bound).
pub(crate) const MAX_FROMJSON_DEPTH: usize = 10_000;

/// Deepest bracket nesting (`(`, `[`, `{`) in an expression's text: it bounds how much deeper
/// one step can make a value, and keeps jaq's parser (which recurses per level) off the end of
/// the stack.
pub(crate) const MAX_EXPR_NESTING: usize = 32;

/// Most output values kept from one assertion (`repeat(1)` would stream forever).
const MAX_OUTPUTS: usize = 1_000;

/// One compiled jq expression and its source text.
pub(crate) struct Expr {
    pub text: String,
    filter: jaq_core::Filter<Guarded>,
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expr")
            .field("text", &self.text)
            .finish_non_exhaustive()
    }
}

impl Expr {
    /// Compile `text`; a syntax error or an undefined name is a `usage` failure naming `flag`.
    pub(crate) fn compile(flag: &str, text: &str) -> Result<Self, Failure> {
        // `halt_error/1` is a native here (see [`halt_error`]): jaq's definition prints to stderr.
        let defs = jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs())
            .filter(|d| !(d.name == "halt_error" && d.args.len() == 1));
        let arena = Arena::default();
        let loader = Loader::new(defs);
        let usage = |why: String| {
            Failure::new(
                ErrorKind::Usage,
                Operation::CompileExpression,
                format!("{flag} `{text}` is not a valid jq expression: {why}"),
            )
            .target(text.to_owned())
            .retryable(false)
            .hint("write the expression in jq syntax, e.g. '.findings | length > 0'")
        };
        if nesting_exceeds(text.as_bytes(), MAX_EXPR_NESTING) {
            return Err(usage(format!(
                "it nests brackets deeper than {MAX_EXPR_NESTING} levels (sojx's bound for an expression)"
            )));
        }
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
            .with_funs(funs())
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

    /// Run on `input`, then each of `then` on every value it yields, each run under its own
    /// budget, all on one worker thread: per value, the outputs of `then` in order (after one
    /// that fails or yields nothing, the rest are not run and yield nothing), or the first run's
    /// error (as its message). The values stay jq values in between, as in one jq pipeline
    /// (`items | key`): a string `@base64d` made of invalid UTF-8 reaches `then` as its bytes.
    pub(crate) fn run_then<const N: usize>(
        &self,
        input: &Value,
        then: [&Expr; N],
    ) -> Result<Vec<[Outputs; N]>, String> {
        let run = || {
            let first = self.guarded(to_val(input)?, usize::MAX);
            if let Some(error) = first.error {
                return Err(error);
            }
            Ok(first
                .values
                .into_iter()
                .map(|v| {
                    let mut go_on = true;
                    then.map(|e| {
                        if !go_on {
                            return Outputs::default();
                        }
                        let out = e.guarded(v.clone(), usize::MAX).outputs();
                        go_on = out.error.is_none() && !out.values.is_empty();
                        out
                    })
                })
                .collect())
        };
        on_worker(run).unwrap_or_else(|| Err(NO_THREAD.into()))
    }

    /// As [`Expr::run`], stopping with an error after `max` values.
    fn run_max(&self, input: &Value, max: usize) -> Outputs {
        let run = || match to_val(input) {
            Ok(input) => self.guarded(input, max).outputs(),
            Err(error) => Outputs {
                values: Vec::new(),
                error: Some(error),
            },
        };
        on_worker(run).unwrap_or_else(|| Outputs {
            values: Vec::new(),
            error: Some(NO_THREAD.into()),
        })
    }

    /// Run on `input` in this thread under a fresh budget: a run the budget stops, or one that
    /// panics inside jaq, ends with its error.
    fn guarded(&self, input: Val, max: usize) -> Vals {
        let budget = Budget::new();
        match catch_unwind(AssertUnwindSafe(|| self.eval(input, max, &budget))) {
            Ok(outputs) => outputs,
            Err(payload) => Vals {
                values: Vec::new(),
                error: Some(match payload.downcast::<Stop>() {
                    Ok(why) => why.message(),
                    // A panic inside jaq (`"ab" * 4611686018427387904`: capacity overflow) is the
                    // expression's failure, not sojx's: an `assertion_failed`, or a skipped item.
                    Err(other) => format!(
                        "the expression failed inside jq: {}",
                        other
                            .downcast_ref::<&str>()
                            .map(|s| (*s).to_owned())
                            .or_else(|| other.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "it panicked".to_owned())
                    ),
                }),
            },
        }
    }

    fn eval(&self, input: Val, max: usize, budget: &Budget) -> Vals {
        let mut outputs = Vals::default();
        let env = Env {
            lut: &self.filter.lut,
            budget,
        };
        let ctx = Ctx::<Guarded>::new(env, Vars::new([]));
        for r in self.filter.id.run((ctx, input)) {
            if outputs.values.len() == max {
                outputs.error = Some(format!("yielded more than {max} values"));
                break;
            }
            match r {
                Ok(v) => outputs.values.push(v),
                Err(e) => {
                    outputs.error = Some(exception(e, budget));
                    break;
                }
            }
        }
        outputs
    }
}

/// Why a run did not start.
const NO_THREAD: &str = "no thread could be started to run it";

/// A run's outputs as jq values.
#[derive(Default)]
struct Vals {
    values: Vec<Val>,
    error: Option<String>,
}

impl Vals {
    fn outputs(self) -> Outputs {
        Outputs {
            values: self.values.iter().map(from_val).collect(),
            error: self.error,
        }
    }
}

/// The message of an exception that ended a run: an error, or a call of `halt`/`halt_error`
/// (which must not end sojx: jaq's `unwrap_valr` would exit the process).
fn exception(e: Exn<'_, Val>, budget: &Budget) -> String {
    let e = match e.get_err() {
        Ok(err) => return err.to_string(),
        Err(e) => e,
    };
    match e.get_halt() {
        Ok(code) => match budget.halt_message.borrow_mut().take() {
            Some(msg) => format!(
                "called halt_error (exit status {code}) with {}: a jq expression cannot end sojx",
                short(&Value::String(msg))
            ),
            None => format!("called halt (exit status {code}): a jq expression cannot end sojx"),
        },
        Err(_) => "stopped by an internal jq control exception".into(),
    }
}

/// Run an assertion on a worker thread, waiting at most [`ASSERT_BACKSTOP`]: a run past it is
/// left behind (it cannot be interrupted) and ends with the process.
fn bounded(expr: &Arc<Expr>, data: &Value) -> Outputs {
    let (tx, rx) = std::sync::mpsc::channel();
    let (e, d) = (Arc::clone(expr), data.clone());
    let spawned = std::thread::Builder::new()
        .name("sojx-assert".into())
        .stack_size(WORKER_STACK)
        .spawn(move || {
            ON_WORKER.with(|w| w.set(true));
            let _ = tx.send(e.run_max(&d, MAX_OUTPUTS));
        });
    if spawned.is_err() {
        return Outputs {
            values: Vec::new(),
            error: Some(NO_THREAD.into()),
        };
    }
    rx.recv_timeout(ASSERT_BACKSTOP)
        .unwrap_or_else(|_| Outputs {
            values: Vec::new(),
            error: Some(Stop::Time.message()),
        })
}

/// What one expression produced on one input.
#[derive(Debug, Default)]
pub(crate) struct Outputs {
    pub values: Vec<Value>,
    pub error: Option<String>,
}

impl Outputs {
    /// The assertion reading: at least one value, all neither false nor null, and no error.
    pub(crate) fn holds(&self) -> bool {
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

fn to_val(v: &Value) -> Result<Val, String> {
    serde_json::to_string(v)
        .ok()
        .and_then(|text| jaq_json::read::parse_single(text.as_bytes()).ok())
        .ok_or_else(|| "the input is not representable as a jq value".to_owned())
}

fn from_val(v: &Val) -> Value {
    // The common small values directly; the rest (numbers keep their spelling) through text.
    match v {
        Val::Null => return Value::Null,
        Val::Bool(b) => return Value::Bool(*b),
        Val::TStr(b) => {
            if let Ok(s) = std::str::from_utf8(b) {
                return Value::String(s.to_owned());
            }
        }
        _ => {}
    }
    let text = v.to_string();
    crate::json::from_str(&text).unwrap_or(Value::String(text))
}

/// `--assert` expressions, compiled before any input is read.
#[derive(Debug, Default)]
pub struct Assertions {
    exprs: Vec<Arc<Expr>>,
}

impl Assertions {
    pub fn compile(texts: &[String]) -> Result<Self, Failure> {
        let exprs = texts
            .iter()
            .map(|t| Expr::compile("--assert", t).map(Arc::new))
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
        let assertions: Vec<FailedAssertion> = failed
            .iter()
            .map(|(e, o)| FailedAssertion {
                expression: e.text.clone(),
                values: o.values.clone(),
                error: o.error.clone(),
            })
            .collect();
        Err(
            Failure::new(ErrorKind::AssertionFailed, Operation::Assert, message)
                .target(first.text.clone())
                .hint("feed error.details and candidate back to the model, or fix the assertion")
                .details(Details::Assertions { assertions })
                .candidate(data.clone()),
        )
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
pub(crate) fn short(v: &Value) -> String {
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
        assert_eq!(e.run_max(&v, usize::MAX).values, vec![v.clone()]);
        let [outputs] = e.run_then(&v, [&e]).unwrap().pop().unwrap();
        assert_eq!(outputs.values, vec![v]);
    }

    #[test]
    fn run_then_runs_on_each_value_and_keeps_them_exact() {
        let items = Expr::compile("--items", ".[]").unwrap();
        let key = Expr::compile("--key", ".k").unwrap();
        let field = Expr::compile("--field", ".v").unwrap();
        let v: Value = serde_json::from_str(
            r#"[{"k":"a","v":null},{"k":true,"v":1.50},{"k":"\u00e9","v":[1]},3]"#,
        )
        .unwrap();
        let got = items.run_then(&v, [&key, &field]).unwrap();
        let values: Vec<[Vec<Value>; 2]> = got
            .iter()
            .map(|[k, f]| [k.values.clone(), f.values.clone()])
            .collect();
        let j = |t: &str| -> Vec<Value> { serde_json::from_str(t).unwrap() };
        assert_eq!(
            values[..3],
            [
                [j(r#"["a"]"#), j("[null]")],
                [j("[true]"), j("[1.50]")],
                [j(r#"["é"]"#), j("[[1]]")],
            ]
        );
        // `.k` on a number is an error of that item's run, not of the others.
        assert!(
            got[3][0]
                .error
                .as_deref()
                .is_some_and(|e| e.contains("index"))
        );
        assert_eq!(
            items.run_then(&Value::from(1), [&key]).unwrap_err(),
            "cannot use 1 as iterable (array or object)"
        );
    }
}
