//! The loop that owns a started agent until it is gone: it passes the agent's stderr on as it
//! arrives, hands `--activity` events to the caller, forwards the signals sojx got to the
//! agent's process group (`signals`), and ends the group when `--timeout` passes, when sojx is
//! signalled, or when the agent exited and left processes behind: SIGTERM (or the forwarded
//! signal), then SIGKILL after `--kill-after`. No process of the group outlives the loop.
//!
//! ```text
//!   agent stdout ──► pipes::ChildOut ──► work (the caller's, on a scoped thread) ──► Done(T)
//!   agent stderr ──► pass_stderr ──────────────────────────────────────► Stderr(bytes)
//!   waitid(NOWAIT) ─────────────────────────────────────────────────────► Exited
//!   SIGINT/TERM/HUP/QUIT… ─► forwarded to the group ────────────────────► Signal(n)
//!                                                   all ──► this loop (stderr, timers)
//! ```

use std::io::{Read, Write};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, waitid};

use super::pipes::{Stopper, Tail, child_out, pass_stderr};
use super::signals::{Current, Interrupts, signal_agent};
use super::{Agent, Event, Report};

/// Events in flight to the loop: a chatty agent's stderr waits for sojx's stderr instead of
/// filling memory.
const EVENTS_IN_FLIGHT: usize = 64;

/// How long the loop waits for the rest of the agent's stderr once the group is gone.
const STDERR_GRACE: Duration = Duration::from_millis(200);

/// How long after SIGKILL the agent's stdout is still read (what the group wrote before it
/// died), before reading stops even if a process that left the group holds the pipe.
const READ_GRACE: Duration = Duration::from_secs(1);

/// How long past `--timeout` the loop waits for the read to end at its own deadline (which
/// makes the `timeout` envelope, with what was read) before it stops the agent itself: the
/// read may be stuck writing `--tee` or `--activity`.
const DEADLINE_BACKSTOP: Duration = Duration::from_millis(500);

/// The bounds of one attempt.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    /// `--timeout`: from the start to the end of the attempt.
    pub(crate) timeout: Option<Duration>,
    /// `--kill-after`: from SIGTERM (or a forwarded signal) to SIGKILL.
    pub(crate) kill_after: Duration,
    /// How long past `timeout` the loop waits for the work to end at its own deadline before
    /// it stops the agent itself ([`DEADLINE_BACKSTOP`] for a read; `run --acp` gives the agent
    /// `--kill-after` to answer `session/cancel` first).
    pub(crate) backstop: Duration,
    /// `run --acp`: once the work is over (the session closed), how long the agent has to exit
    /// before it is asked to (SIGTERM, then SIGKILL after `kill_after`); `None`: it is waited
    /// for (its output ended; `--timeout` bounds it).
    pub(crate) linger: Option<Duration>,
}

impl Bounds {
    /// The bounds of a run that reads the agent's stdout until it ends.
    pub(crate) fn read(timeout: Option<Duration>, kill_after: Duration) -> Self {
        Self {
            timeout,
            kill_after,
            backstop: DEADLINE_BACKSTOP,
            linger: None,
        }
    }
}

/// Why the loop ended the agent's group early, if it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AgentEnd {
    /// The agent ended on its own (or its leftovers were killed after it exited).
    ByItself,
    /// `--timeout` passed.
    TimedOut,
    /// sojx got this signal.
    Interrupted(i32),
    /// `run --acp`: sojx closed the session, and the agent, still running `linger` later, was
    /// stopped.
    Released,
}

/// What a supervised run gives back.
pub(crate) struct Finished<T> {
    /// The work's result; `None` when no thread could be started to do it (the agent was
    /// killed then).
    pub(crate) result: Option<T>,
    pub(crate) report: Report,
    pub(crate) ended: AgentEnd,
    /// COMMAND did not start after all: the trampoline could not execute it (Linux).
    pub(crate) not_started: Option<crate::error::Failure>,
}

/// Run `work` over the agent's stdout while the loop owns the agent, as the module says.
/// `timed_out(&result)` tells whether the work stopped at its own read deadline (`--timeout`),
/// which ends the group. The agent's stderr is written to `err` as it arrives (as is: it is the
/// agent's own, as a shell would show it) and the work's events go to `on_activity`, both on
/// this thread, in the order they arrived.
pub(crate) fn supervise<T: Send + 'static, E: Send + 'static>(
    mut agent: Agent,
    interrupts: &Interrupts,
    bounds: Bounds,
    err: &mut dyn Write,
    on_activity: &mut dyn FnMut(&mut dyn Write, &E),
    work: impl FnOnce(Box<dyn Read + Send>, &mut (dyn FnMut(E) + Send)) -> T + Send,
    timed_out: impl Fn(&T) -> bool,
) -> Finished<T> {
    let (tx, rx) = mpsc::sync_channel::<Event<T, E>>(EVENTS_IN_FLIGHT);
    let pid = agent.child.id();
    let group = i32::try_from(agent.group)
        .ok()
        .and_then(Pid::from_raw)
        .unwrap_or_else(|| Pid::from_child(&agent.child));
    let tail = Tail::default();
    let stderr_open = agent
        .stderr
        .take()
        .is_some_and(|e| pass_stderr(e, tx.clone(), tail.clone(), agent.nonce));
    let (stdout, stopper) = stdout_of(&mut agent);
    // The agent (the process sojx started; its group's leader is the guard, on Linux).
    if !watch_exit(Pid::from_child(&agent.child), tx.clone()) {
        // Nothing will say when the leader exits: count it as gone once the work is done.
        let _ = tx.send(Event::Exited);
    }
    let wake = tx.clone();
    // The agent itself, when it does not lead its group (its guard does, on Linux): signalled
    // too once it left the group.
    let leader = Pid::from_child(&agent.child);
    let agent_pid = (leader != group).then_some(leader);
    interrupts.attach(Current {
        group,
        agent: agent_pid,
        stopper: stopper.clone(),
        // Never blocks: the signal is also in `interrupts.got()`, which the loop reads.
        wake: Box::new(move |sig| {
            let _ = wake.try_send(Event::Signal(sig));
        }),
    });
    let mut state = State::new(group, bounds, agent.started, stopper, stderr_open);
    state.agent = agent_pid;
    let result = std::thread::scope(|s| {
        let work_tx = tx.clone();
        let worker = std::thread::Builder::new()
            .name("sojx-run".to_owned())
            .spawn_scoped(s, move || {
                let events = work_tx.clone();
                let mut send = move |a: E| {
                    let _ = events.send(Event::Activity(a));
                };
                // A panic is a bug; the loop must still end (and end the agent).
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    work(stdout, &mut send)
                }));
                let _ = work_tx.send(match result {
                    Ok(r) => Event::Done(r),
                    Err(_) => Event::Lost,
                });
            });
        drop(tx);
        if worker.is_err() {
            // No thread for the work: nothing would read the agent's stdout. End the agent.
            state.kill();
            return None;
        }
        if let Some(sig) = interrupts.got() {
            // Got before this attempt was attached: forward it now.
            state.interrupted(sig, Some(super::signals::forwarded(sig)));
        }
        state.run(&rx, err, on_activity, &timed_out, interrupts);
        state.done.take()
    });
    // No signal is forwarded to the group once its leader may be reaped.
    interrupts.detach();
    let guard = agent.guard.take();
    let not_started = tail.exec_error().map(|errno| {
        agent
            .program
            .exec_failure(&std::io::Error::from_raw_os_error(errno))
    });
    let report = reaped(agent, pid, state.ended, &tail);
    if let Some(g) = guard {
        // Killed with the group already.
        g.end();
    }
    Finished {
        result,
        report,
        ended: state.ended,
        not_started,
    }
}

/// The agent's stdout, to read, and what stops that read when the agent is gone but a process
/// that left its group still holds the pipe.
fn stdout_of(agent: &mut Agent) -> (Box<dyn Read + Send>, Option<Stopper>) {
    match agent.stdout.take() {
        Some(out) => match child_out(out) {
            Ok((out, stop)) => (Box::new(out), Some(stop)),
            // No pipe to stop with (out of file descriptors): read the agent's stdout as is;
            // only a process that left its group could then hold sojx past the end.
            Err(out) => (Box::new(out), None),
        },
        None => (Box::new(std::io::empty()), None),
    }
}

/// Reap the leader (its group was killed, while its id was still reserved) and report how it
/// ended.
fn reaped(mut agent: Agent, pid: u32, ended: AgentEnd, tail: &Tail) -> Report {
    let status = agent.child.wait().ok();
    Report {
        command: std::mem::take(&mut agent.command),
        pid: Some(pid),
        exit_status: status.and_then(|s| s.code()),
        signal: status.and_then(|s| {
            use std::os::unix::process::ExitStatusExt;
            s.signal()
        }),
        stopped: match ended {
            AgentEnd::ByItself => None,
            AgentEnd::TimedOut => Some("timeout"),
            AgentEnd::Interrupted(_) => Some("interrupted"),
            AgentEnd::Released => Some("released"),
        },
        duration_ms: u64::try_from(agent.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        stderr_tail: tail.text(),
        stderr_first_error: tail.first_error(),
        exit_class: None,
    }
}

/// The loop's state: what has happened, and when.
struct State<T> {
    group: Pid,
    /// The agent, when it does not lead its group (`signals::signal_agent`).
    agent: Option<Pid>,
    bounds: Bounds,
    started: Instant,
    stopper: Option<Stopper>,
    done: Option<T>,
    /// The work ended: with its result in `done`, or lost (it panicked).
    work_over: bool,
    /// Reading the agent's stdout was stopped.
    read_stopped: bool,
    stderr_open: bool,
    /// When the group was asked to stop (SIGTERM, or a forwarded signal).
    asked_at: Option<Instant>,
    /// When the group was sent SIGKILL.
    killed_at: Option<Instant>,
    /// When the leader was seen to exit.
    exited_at: Option<Instant>,
    /// When the work was done and the leader had exited: the group is killed then.
    gone_at: Option<Instant>,
    /// When the work ended.
    over_at: Option<Instant>,
    ended: AgentEnd,
}

impl<T> State<T> {
    /// Nothing has happened yet to the agent's `group`, started at `started`.
    fn new(
        group: Pid,
        bounds: Bounds,
        started: Instant,
        stopper: Option<Stopper>,
        stderr_open: bool,
    ) -> Self {
        Self {
            group,
            agent: None,
            bounds,
            started,
            stopper,
            done: None,
            work_over: false,
            read_stopped: false,
            stderr_open,
            asked_at: None,
            killed_at: None,
            exited_at: None,
            gone_at: None,
            over_at: None,
            ended: AgentEnd::ByItself,
        }
    }

    fn run<E>(
        &mut self,
        rx: &mpsc::Receiver<Event<T, E>>,
        err: &mut dyn Write,
        on_activity: &mut dyn FnMut(&mut dyn Write, &E),
        timed_out: &dyn Fn(&T) -> bool,
        interrupts: &Interrupts,
    ) {
        loop {
            if let (Some(sig), false) = (
                interrupts.got(),
                matches!(self.ended, AgentEnd::Interrupted(_)),
            ) {
                // Forwarded by the signal thread; its wake-up may have found the queue full.
                self.interrupted(sig, None);
            }
            let now = Instant::now();
            self.timers(now);
            if let Some(gone) = self.gone_at
                && (!self.stderr_open || now >= gone + STDERR_GRACE)
            {
                return;
            }
            let event = match self.next_wake() {
                Some(at) => rx.recv_timeout(at.saturating_duration_since(now)),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match event {
                Ok(Event::Stderr(bytes)) => {
                    // sojx's stderr closed or failing must not stop the agent's supervision.
                    let _ = err.write_all(&bytes).and_then(|()| err.flush());
                }
                Ok(Event::StderrEnd) => self.stderr_open = false,
                Ok(Event::Activity(a)) => on_activity(err, &a),
                Ok(Event::Done(result)) => {
                    if timed_out(&result) && self.asked_at.is_none() {
                        self.ended = AgentEnd::TimedOut;
                        self.ask_to_stop(Signal::TERM);
                    }
                    self.done = Some(result);
                    self.work_over = true;
                    self.over_at = Some(Instant::now());
                }
                Ok(Event::Lost) => {
                    self.work_over = true;
                    self.over_at = Some(Instant::now());
                    self.kill();
                }
                Ok(Event::Exited) => {
                    self.exited_at = Some(Instant::now());
                }
                Ok(Event::Signal(sig)) => self.interrupted(sig, None),
                Err(RecvTimeoutError::Timeout) => {}
                // Every sender is gone: the work ended without a result (it could not start).
                Err(RecvTimeoutError::Disconnected) => {
                    self.kill();
                    return;
                }
            }
        }
    }

    /// sojx got `sig`: the run ends as interrupted. The signal thread forwarded it to the
    /// group already; `forward` sends it again (when the attempt was attached after it came).
    fn interrupted(&mut self, sig: i32, forward: Option<Signal>) {
        if !matches!(self.ended, AgentEnd::Interrupted(_)) {
            self.ended = AgentEnd::Interrupted(sig);
        }
        if let Some(s) = forward {
            signal_agent(self.group, self.agent, s);
            signal_agent(self.group, self.agent, Signal::CONT);
        }
        // The signal itself is the request to stop.
        self.asked_at.get_or_insert_with(Instant::now);
        self.stop_reading();
    }

    /// Act on the timers that have passed.
    fn timers(&mut self, now: Instant) {
        if self.gone_at.is_none() && self.work_over && self.exited_at.is_some() {
            // The work is done and the leader exited: whatever is left of its group goes now
            // (the leader is not reaped yet, so the group's id is still its own).
            self.kill();
            self.gone_at = Some(now);
            return;
        }
        // --timeout: the agent lingers after its output ended, or the read is stuck past its
        // own deadline.
        if self.exited_at.is_none()
            && self.asked_at.is_none()
            && self.stop_time().is_some_and(|d| now >= d)
        {
            self.ended = AgentEnd::TimedOut;
            self.ask_to_stop(Signal::TERM);
        }
        // run --acp: the session is closed and the agent still runs.
        if self.exited_at.is_none()
            && self.asked_at.is_none()
            && self.release_time().is_some_and(|at| now >= at)
        {
            self.ended = AgentEnd::Released;
            self.ask_to_stop(Signal::TERM);
        }
        if self.killed_at.is_none()
            && let Some(at) = self.kill_time()
            && now >= at
        {
            self.kill();
        }
        if !self.work_over
            && !self.read_stopped
            && self
                .killed_at
                .and_then(|k| k.checked_add(READ_GRACE))
                .is_some_and(|at| now >= at)
        {
            self.stop_reading();
        }
    }

    /// The next moment a timer acts, if any.
    fn next_wake(&self) -> Option<Instant> {
        let mut at: Vec<Instant> = Vec::new();
        if let Some(g) = self.gone_at {
            at.extend(g.checked_add(STDERR_GRACE));
        }
        if self.exited_at.is_none() && self.asked_at.is_none() {
            at.extend(self.stop_time());
            at.extend(self.release_time());
        }
        if self.killed_at.is_none() {
            at.extend(self.kill_time());
        }
        if !self.work_over && !self.read_stopped {
            at.extend(self.killed_at.and_then(|k| k.checked_add(READ_GRACE)));
        }
        at.into_iter().min()
    }

    /// When `--timeout` makes the loop stop the agent: at the deadline once the output ended;
    /// while it is still read, [`DEADLINE_BACKSTOP`] later, so that the read ends at its own
    /// deadline first (with what it read) unless it is stuck.
    fn stop_time(&self) -> Option<Instant> {
        let deadline = self
            .bounds
            .timeout
            .and_then(|t| self.started.checked_add(t))?;
        if self.work_over {
            Some(deadline)
        } else {
            deadline.checked_add(self.bounds.backstop)
        }
    }

    /// When the agent of a closed ACP session is asked to stop: `linger` after the work ended.
    fn release_time(&self) -> Option<Instant> {
        self.over_at?.checked_add(self.bounds.linger?)
    }

    /// When SIGKILL is due: `--kill-after` after the group was asked to stop, or after the
    /// leader exited while its group still holds the output open.
    fn kill_time(&self) -> Option<Instant> {
        let kill_after = self.bounds.kill_after;
        // A --kill-after too far to count is never.
        let asked = self.asked_at.and_then(|a| a.checked_add(kill_after));
        let left = match (self.exited_at, self.work_over) {
            (Some(e), false) => e.checked_add(kill_after),
            _ => None,
        };
        asked.into_iter().chain(left).min()
    }

    fn ask_to_stop(&mut self, sig: Signal) {
        signal_agent(self.group, self.agent, sig);
        // A stopped process (SIGTSTP, SIGTTIN) acts on SIGTERM only once continued.
        signal_agent(self.group, self.agent, Signal::CONT);
        self.asked_at.get_or_insert_with(Instant::now);
    }

    fn kill(&mut self) {
        signal_agent(self.group, self.agent, Signal::KILL);
        self.killed_at.get_or_insert_with(Instant::now);
    }

    fn stop_reading(&mut self) {
        self.read_stopped = true;
        if let Some(s) = &self.stopper {
            s.stop();
        }
    }
}

/// A thread that waits for the leader to exit without reaping it, then says so; `false` when
/// it cannot start.
fn watch_exit<T: Send + 'static, E: Send + 'static>(
    leader: Pid,
    tx: SyncSender<Event<T, E>>,
) -> bool {
    std::thread::Builder::new()
        .name("sojx-agent-wait".to_owned())
        .spawn(move || {
            // Interrupted by a signal: wait again.
            while let Err(rustix::io::Errno::INTR) = waitid(
                WaitId::Pid(leader),
                WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
            ) {}
            let _ = tx.send(Event::Exited);
        })
        .is_ok()
}
