//! The signals that would end sojx, for the whole of a `run`: caught once, before the first
//! attempt starts, so that none can end sojx and leave an agent running. Each is recorded (the
//! first one decides the exit status, 128 + N, and no further attempt starts) and the attempt
//! running then is asked to stop: its process group gets the signal (SIGINT, SIGTERM, SIGHUP and
//! SIGQUIT, a terminal's and a CI runner's) or SIGTERM (the others, which mean nothing to an
//! agent: SIGUSR1 opens Node's inspector), then SIGCONT, and its reading stops.
//!
//! The attempt is attached while its agent runs and detached before its leader is reaped; the
//! forwarding happens under the same lock, so a signal is never sent to a group id that may
//! have been reused.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rustix::process::{Pid, Signal, kill_process_group};

use super::pipes::Stopper;

/// Forwarded to the agent's group as they are: `Ctrl-C`, `Ctrl-\`, a CI runner's cancel, a
/// hang-up.
const FORWARDED: [i32; 4] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
];

/// Ending sojx by default too: caught so that they end the run as the others do, the agent's
/// group getting SIGTERM. Not caught: SIGPIPE (Rust ignores it: a closed stdout is a failed
/// write, which sojx handles), the signals a fault sends (SIGSEGV, SIGBUS, …), SIGXFSZ (sojx's
/// own write past the file size limit) and the real-time signals. Those end sojx as by
/// default; on Linux its agent's group is then killed all the same (docs/run.md).
const STOPPING: [i32; 6] = [
    signal_hook::consts::SIGUSR1,
    signal_hook::consts::SIGUSR2,
    signal_hook::consts::SIGALRM,
    signal_hook::consts::SIGVTALRM,
    signal_hook::consts::SIGPROF,
    signal_hook::consts::SIGXCPU,
];

/// Every signal caught.
pub(crate) const CAUGHT: [i32; 10] = [
    FORWARDED[0],
    FORWARDED[1],
    FORWARDED[2],
    FORWARDED[3],
    STOPPING[0],
    STOPPING[1],
    STOPPING[2],
    STOPPING[3],
    STOPPING[4],
    STOPPING[5],
];

/// What the agent's group gets when sojx got `sig`.
pub(crate) fn forwarded(sig: i32) -> Signal {
    if FORWARDED.contains(&sig) {
        Signal::from_named_raw(sig).unwrap_or(Signal::TERM)
    } else {
        Signal::TERM
    }
}

/// Send `sig` to the agent's process group, and to the agent itself when it left that group
/// (`setsid`; `agent` is its pid when it does not lead the group: on Linux, where its guard
/// does). The agent is not reaped while an attempt runs, so its pid is still its own; it gets
/// the signal once, from the group, while it is in it.
pub(crate) fn signal_agent(group: Pid, agent: Option<Pid>, sig: Signal) {
    let _ = kill_process_group(group, sig);
    if let Some(a) = agent
        && rustix::process::getpgid(Some(a)).is_ok_and(|g| g != group)
    {
        let _ = rustix::process::kill_process(a, sig);
    }
}

/// The attempt whose agent is running.
pub(crate) struct Current {
    pub(crate) group: Pid,
    /// The agent, when it does not lead its group ([`signal_agent`]).
    pub(crate) agent: Option<Pid>,
    pub(crate) stopper: Option<Stopper>,
    /// Tells the attempt's loop (it must not block: the loop may be waiting for the lock).
    pub(crate) wake: Box<dyn Fn(i32) + Send>,
}

#[derive(Default)]
struct Shared {
    /// The first signal sojx got; 0 for none.
    got: AtomicI32,
    current: Mutex<Option<Current>>,
}

/// The run's signals.
pub(crate) struct Interrupts {
    shared: Arc<Shared>,
    handle: Option<signal_hook::iterator::Handle>,
}

impl Interrupts {
    /// Catch the signals of the module, and start the thread that forwards them. When they
    /// cannot be caught they act on sojx as by default (ending sojx then leaves the agent's
    /// group running, but on Linux); when no thread can start to forward them, they are caught
    /// and dropped.
    pub(crate) fn catch() -> Self {
        // An ignored SIGCHLD, inherited from whoever started sojx, has the kernel reap the agent
        // as soon as it exits: its exit status lost, and its pid free while sojx may still
        // signal it. A handler (of a flag no one reads) keeps it a zombie until sojx reaps it,
        // as by default.
        let _ = signal_hook::flag::register(
            signal_hook::consts::SIGCHLD,
            Arc::new(std::sync::atomic::AtomicBool::new(false)),
        );
        let shared = Arc::new(Shared::default());
        let Ok(mut signals) = signal_hook::iterator::Signals::new(CAUGHT) else {
            return Self {
                shared,
                handle: None,
            };
        };
        let handle = signals.handle();
        let s = Arc::clone(&shared);
        let started = std::thread::Builder::new()
            .name("sojx-signals".to_owned())
            .spawn(move || {
                for sig in signals.forever() {
                    let _ = s
                        .got
                        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
                    let current = s.current.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(c) = current.as_ref() {
                        signal_agent(c.group, c.agent, forwarded(sig));
                        // A stopped process (SIGTSTP) acts on the signal once continued.
                        signal_agent(c.group, c.agent, Signal::CONT);
                        if let Some(stop) = &c.stopper {
                            stop.stop();
                        }
                        (c.wake)(sig);
                    }
                }
            });
        if started.is_err() {
            handle.close();
            return Self {
                shared,
                handle: None,
            };
        }
        Self {
            shared,
            handle: Some(handle),
        }
    }

    /// The first signal sojx got, if any.
    pub(crate) fn got(&self) -> Option<i32> {
        match self.shared.got.load(Ordering::SeqCst) {
            0 => None,
            sig => Some(sig),
        }
    }

    /// Forward signals to this attempt from now on.
    pub(crate) fn attach(&self, current: Current) {
        *self.lock() = Some(current);
    }

    /// Stop forwarding to the attempt (before its leader is reaped).
    pub(crate) fn detach(&self) {
        *self.lock() = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Current>> {
        self.shared
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        if let Some(h) = &self.handle {
            h.close();
        }
    }
}
