//! What keeps a jq run inside its bounds: the budget checked at every step (steps, time,
//! recursion stack), the worker thread with the stack it assumes, and the native functions
//! replaced by guarded ones (`range`, `fromjson`, `halt_error`).

use std::cell::{Cell, RefCell};
use std::panic::resume_unwind;
use std::time::Duration;

use jaq_core::box_iter::box_once;
use jaq_core::data::{DataT, HasLut};
use jaq_core::native::{Fun, v};
use jaq_core::{Error, Exn, Lut, ValX};
use jaq_json::Val;
use jaq_std::ValT as _;

use super::{ASSERT_BUDGET, MAX_FROMJSON_DEPTH, MAX_STEPS, RECURSION_STACK, WORKER_STACK};
use crate::error::thousands;

/// The data of one run: the compiled filter's table and the budget it runs under.
pub(super) struct Guarded;

impl DataT for Guarded {
    type V<'a> = Val;
    type Data<'a> = Env<'a>;
}

pub(super) struct Env<'a> {
    pub(super) lut: &'a Lut<Guarded>,
    pub(super) budget: &'a Budget,
}

/// jaq clones the data at every step (each call, pipe and loop iteration), so a clone is where
/// the budget is charged.
impl Clone for Env<'_> {
    fn clone(&self) -> Self {
        self.budget.tick();
        Self {
            lut: self.lut,
            budget: self.budget,
        }
    }
}

impl<'a> HasLut<'a, Guarded> for Env<'a> {
    fn lut(&self) -> &'a Lut<Guarded> {
        self.lut
    }
}

/// Why a run was stopped.
#[derive(Debug, Clone, Copy)]
pub(super) enum Stop {
    Steps,
    Time,
    Stack,
}

impl Stop {
    pub(super) fn message(self) -> String {
        match self {
            Stop::Steps => format!(
                "took more than {} evaluation steps (sojx's step budget for one expression)",
                thousands(MAX_STEPS)
            ),
            Stop::Time => format!(
                "did not finish within {} s (sojx's budget for one assertion)",
                ASSERT_BUDGET.as_secs()
            ),
            Stop::Stack => format!(
                "recursed deeper than {} MiB of stack (sojx's recursion bound for one expression)",
                RECURSION_STACK >> 20
            ),
        }
    }
}

/// The address of a local: where the stack is now.
#[inline(never)]
fn stack_here() -> usize {
    let probe = 0u8;
    std::hint::black_box(std::ptr::addr_of!(probe)) as usize
}

/// The time this thread has run: its CPU time where rustix reads one (`CLOCK_THREAD_CPUTIME_ID`:
/// Linux, macOS, FreeBSD, OpenBSD, …), so that a machine busy with other work does not use a
/// run's budget up while the run waits for a core; elsewhere (Windows, NetBSD, illumos, for
/// which rustix 1.1 defines no such clock) the wall clock since the process's first run.
#[cfg(all(
    unix,
    not(any(target_os = "netbsd", target_os = "solaris", target_os = "illumos"))
))]
fn thread_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

#[cfg(not(all(
    unix,
    not(any(target_os = "netbsd", target_os = "solaris", target_os = "illumos"))
)))]
fn thread_time() -> Duration {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(std::time::Instant::now).elapsed()
}

pub(super) struct Budget {
    steps: Cell<u64>,
    /// [`thread_time`] at the first time check (the 1,024th step), from which the run is
    /// timed. The thread's CPU clock is a system call, and most runs (one `--key` on one item)
    /// end long before a thousand steps: reading it at the start of each cost `compare` 12% of
    /// its time. The steps before it take microseconds of CPU; waiting for a core between them
    /// is not charged, as no waiting is.
    timed_from: Cell<Option<Duration>>,
    stack_base: usize,
    /// `halt_error`'s input, as JSON text.
    pub(super) halt_message: RefCell<Option<String>>,
}

impl Budget {
    pub(super) fn new() -> Self {
        Self {
            steps: Cell::new(0),
            timed_from: Cell::new(None),
            stack_base: stack_here(),
            halt_message: RefCell::new(None),
        }
    }

    /// Whether the run has used its time budget up: the thread's CPU time since the first
    /// check.
    fn out_of_time(&self) -> bool {
        let now = thread_time();
        let from = self.timed_from.get().unwrap_or(now);
        self.timed_from.set(Some(from));
        now.saturating_sub(from) >= ASSERT_BUDGET
    }

    pub(super) fn tick(&self) {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        if n > MAX_STEPS {
            stop(Stop::Steps);
        }
        if n % 1024 == 0 && self.out_of_time() {
            stop(Stop::Time);
        }
        if self.stack_base.abs_diff(stack_here()) > RECURSION_STACK {
            stop(Stop::Stack);
        }
    }
}

/// Stop the run: unwind to [`Expr::run_max`](super::Expr::run_max) (without the panic hook:
/// nothing is printed).
#[cfg(panic = "unwind")]
fn stop(why: Stop) -> ! {
    resume_unwind(Box::new(why))
}

/// Without unwinding (a `panic = "abort"` build), the run cannot be stopped: its thread is
/// parked for good, and the caller's timeout reports it.
#[cfg(not(panic = "unwind"))]
fn stop(_why: Stop) -> ! {
    loop {
        std::thread::park();
    }
}

thread_local! {
    /// Set on a worker thread: runs may use [`RECURSION_STACK`] of its stack.
    pub(super) static ON_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Run `f` on a worker thread with `WORKER_STACK` of stack, and wait for it; `None` if no
/// thread could be started.
pub fn on_worker<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    if ON_WORKER.with(Cell::get) {
        return Some(f());
    }
    std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .name("sojx-jq".into())
            .stack_size(WORKER_STACK)
            .spawn_scoped(s, || {
                ON_WORKER.with(|w| w.set(true));
                f()
            })
            .ok()?;
        match h.join() {
            Ok(t) => Some(t),
            Err(p) => resume_unwind(p),
        }
    })
}

/// `range/3`, as jaq's, charging one step per value (jaq's own runs without a step).
fn range(mut cv: jaq_core::Cv<'_, Guarded>) -> jaq_core::ValXs<'_, Val> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let by = cv.0.pop_var();
    let to = cv.0.pop_var();
    let from = cv.0.pop_var();
    let budget = cv.0.data().budget;
    let cmp = by.partial_cmp(&Val::from(0isize)).unwrap_or(Equal);
    let mut from: ValX<Val> = Ok(from);
    Box::new(std::iter::from_fn(move || match from.clone() {
        Ok(x) => {
            let more = match cmp {
                Greater => x < to,
                Less => x > to,
                Equal => x != to,
            };
            if !more {
                return None;
            }
            budget.tick();
            let next = (x + by.clone()).map_err(Exn::from);
            Some(std::mem::replace(&mut from, next))
        }
        e @ Err(_) => {
            from = Ok(to.clone());
            Some(e)
        }
    }))
}

/// `fromjson`, as jaq's, refusing text nested deeper than [`MAX_FROMJSON_DEPTH`] levels (jaq's
/// parser recurses once per level).
#[allow(
    clippy::needless_pass_by_value,
    reason = "the signature of a jaq native function"
)]
fn fromjson(cv: jaq_core::Cv<'_, Guarded>) -> jaq_core::ValXs<'_, Val> {
    let fail = |why: String| {
        Exn::from(Error::str(format_args!(
            "cannot parse {} as JSON: {why}",
            cv.1
        )))
    };
    let bytes = match cv.1.try_as_utf8_bytes() {
        Ok(b) => b,
        Err(e) => return box_once(Err(Exn::from(e))),
    };
    if nesting_exceeds(bytes, MAX_FROMJSON_DEPTH) {
        return box_once(Err(fail(format!(
            "it nests deeper than {} levels (sojx's bound for fromjson)",
            thousands(MAX_FROMJSON_DEPTH as u64)
        ))));
    }
    let out: Vec<ValX<Val>> = jaq_json::read::parse_many(bytes)
        .map(|r| r.map_err(|e| fail(e.to_string())))
        .collect();
    Box::new(out.into_iter())
}

/// Whether JSON or jq text opens more than `max` brackets at once (brackets in strings do not
/// count; in jq text, `(` counts too).
pub(super) fn nesting_exceeds(text: &[u8], max: usize) -> bool {
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for &c in text {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'[' | b'{' | b'(' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// `halt_error/1`: keeps its input for the error message, then halts (never printed, never
/// exits: [`Expr::run_max`](super::Expr::run_max) turns a halt into an error).
fn halt_error(mut cv: jaq_core::Cv<'_, Guarded>) -> jaq_core::ValXs<'_, Val> {
    let code = cv.0.pop_var();
    let text = match &cv.1 {
        Val::TStr(_) | Val::BStr(_) => {
            String::from_utf8_lossy(cv.1.try_as_utf8_bytes().unwrap_or_default()).into_owned()
        }
        other => other.to_string(),
    };
    *cv.0.data().budget.halt_message.borrow_mut() = Some(text);
    let code = code
        .as_isize()
        .and_then(|c| i32::try_from(c).ok())
        .unwrap_or(5);
    box_once(Err(Exn::halt(code)))
}

/// jaq's functions, with `range`, `fromjson` and `halt_error` replaced by the ones above.
pub(super) fn funs() -> impl Iterator<Item = Fun<Guarded>> {
    let ours: [Fun<Guarded>; 3] = [
        jaq_core::native::run(("range", v(3), |cv| range(cv))),
        jaq_core::native::run(("fromjson", v(0), |cv| fromjson(cv))),
        jaq_core::native::run(("halt_error", v(1), |cv| halt_error(cv))),
    ];
    let replaced = |(name, args, _): &Fun<Guarded>| {
        ours.iter()
            .any(|(n, a, _)| n == name && a.len() == args.len())
    };
    let theirs: Vec<Fun<Guarded>> = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs())
        .filter(|f| !replaced(f))
        .collect();
    theirs.into_iter().chain(ours)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A run that waits for a core (here: sleeps) past the budget has not used it: on a machine
    /// busy with other work, an expression is not stopped for the time it did not run.
    #[test]
    fn time_spent_waiting_is_not_charged() {
        let b = Budget::new();
        std::thread::sleep(ASSERT_BUDGET + Duration::from_millis(300));
        assert!(!b.out_of_time());
    }

    /// Time spent running is: the clock moves with work.
    #[test]
    fn time_spent_running_is_charged() {
        let (t0, wall) = (thread_time(), std::time::Instant::now());
        let mut x = 0u64;
        while thread_time().saturating_sub(t0) < Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_add(1));
            assert!(
                wall.elapsed() < Duration::from_secs(60),
                "the thread's clock stood still"
            );
        }
        assert!(x > 0);
    }
}
