//! The guard of an agent's process group (Linux): sojx itself, `/proc/self/exe __sojx-guard
//! PARENT`, started before the agent as the leader of the group the agent then joins, its stdin
//! a pipe only sojx holds. When sojx dies, however it dies, the guard kills the group: the
//! processes the agent started, which the agent's parent-death signal ([`super::trampoline`])
//! does not reach. It catches the signals sojx catches ([`CAUGHT`]), so that what sojx forwards
//! to the group does not end it first.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use rustix::process::{Signal, getpid, getppid};

use super::signals::CAUGHT;
use super::trampoline::SELF;

/// The first argument that makes sojx the guard of an agent's process group.
pub(crate) const GUARD: &str = "__sojx-guard";

/// Start the guard of the agent's process group, before the agent: sojx itself,
/// `__sojx-guard`, as the leader of a new group that the agent then joins (so that no agent
/// runs a moment without its guard), its stdin a pipe that sojx holds (and no other process:
/// std's pipes close on exec). When sojx dies, however it dies, the kernel closes that pipe and
/// the guard kills its own process group, the agent's: the processes the agent started, which
/// the parent-death signal (the agent's alone) does not reach. Killing its own group is safe
/// from a reused id: the guard leads it, so the id is taken while it lives. sojx kills the
/// group, the guard with it, when the attempt ends.
pub(super) fn start() -> std::io::Result<std::process::Child> {
    Command::new(SELF)
        .arg0("sojx")
        .arg(GUARD)
        .arg(getpid().as_raw_nonzero().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
}

/// The guard: wait for the end of `stdin` (sojx's end of the pipe closed), then kill this
/// process's group. The signals sent to the group (forwarded by sojx, or an agent's own
/// `kill 0`) do not end it first: the guard keeps the group until sojx is gone.
///
/// `args` name sojx's pid: the guard keeps nothing unless sojx is its parent and it is in a
/// group other than sojx's (the agent's), so that `sojx __sojx-guard` typed in a shell never
/// kills the shell's job (exit status 2).
pub(crate) fn guarding(args: &[OsString], stdin: &mut dyn Read) -> u8 {
    let parent = match args {
        [p] => p.to_str().and_then(|p| p.parse::<i32>().ok()),
        _ => None,
    };
    let ppid = getppid().map(|p| p.as_raw_nonzero().get());
    let Some(parent) = parent.filter(|&p| ppid == Some(p)) else {
        return 2;
    };
    let parents_group =
        rustix::process::Pid::from_raw(parent).and_then(|p| rustix::process::getpgid(Some(p)).ok());
    if parents_group.is_none_or(|g| g == rustix::process::getpgrp()) {
        return 2;
    }
    let got = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in CAUGHT {
        let _ = signal_hook::flag::register(sig, std::sync::Arc::clone(&got));
    }
    let mut buf = [0u8; 64];
    loop {
        match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = rustix::process::kill_current_process_group(Signal::KILL);
    0
}
