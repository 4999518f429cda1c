//! The guard of an agent's process group (Linux): sojx itself, `/proc/self/exe __sojx-guard
//! PARENT`, started before the agent as the leader of the group the agent then joins, its stdin
//! a pipe only sojx holds, on which sojx writes the agent's pid once it started it. The guard
//! holds the agent by a pidfd. When sojx dies, however it dies, the guard kills the agent
//! (wherever it went: a `setsid` does not take it out of reach) and the group: the processes the
//! agent started. It catches the signals sojx catches ([`CAUGHT`]), so that what sojx forwards
//! to the group does not end it first. It is the one start of sojx an attempt costs: with it
//! the agent starts directly, without the trampoline ([`super::trampoline`]), which only an
//! agent without a guard still takes.

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

/// The guard: read the agent's pid from `stdin` (its first line) and hold the agent by a pidfd,
/// wait for the end of `stdin` (sojx's end of the pipe closed), then kill the agent and this
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
    // The agent's pid, as sojx wrote it (at most 20 bytes and a newline), until it is read.
    let mut line: Option<Vec<u8>> = Some(Vec::new());
    let mut agent = None;
    loop {
        match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if let Some(l) = line.as_mut() {
                    l.extend_from_slice(&buf[..n]);
                    if let Some(end) = l.iter().position(|&b| b == b'\n') {
                        agent = held(&l[..end], parent);
                        line = None;
                    } else if l.len() > 20 {
                        line = None;
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if let Some(pidfd) = &agent {
        let _ = rustix::process::pidfd_send_signal(pidfd, Signal::KILL);
    }
    let _ = rustix::process::kill_current_process_group(Signal::KILL);
    0
}

/// A pidfd of the process `pid` names (decimal), when it is `parent`'s child: the agent sojx
/// started. The pidfd is opened first and the parent checked after, so that it holds the process
/// checked: had the agent ended and been reaped before, and its pid been taken by another
/// process, that one is not sojx's child (sojx starts nothing else while the guard lives).
fn held(pid: &[u8], parent: i32) -> Option<rustix::fd::OwnedFd> {
    use rustix::process::{Pid, PidfdFlags, pidfd_open};
    // Digits only: `Pid::from_raw` panics on a negative number.
    if pid.is_empty() || !pid.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let raw = std::str::from_utf8(pid).ok()?.parse::<i32>().ok()?;
    let pidfd = pidfd_open(Pid::from_raw(raw)?, PidfdFlags::empty()).ok()?;
    (parent_of(raw)? == parent).then_some(pidfd)
}

/// The parent of process `pid`, from `/proc/PID/stat` (its fourth field, after the name in
/// parentheses, which may hold any byte).
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.iter().rposition(|&b| b == b')')? + 1..];
    let mut fields = after.split(|&b| b == b' ').filter(|f| !f.is_empty());
    let _state = fields.next()?;
    std::str::from_utf8(fields.next()?).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::{held, parent_of};

    #[test]
    fn the_parent_is_read_from_proc() {
        let me = i32::try_from(std::process::id()).unwrap();
        let ppid = rustix::process::getppid().map(|p| p.as_raw_nonzero().get());
        assert_eq!(parent_of(me), ppid);
        // No such process.
        assert_eq!(parent_of(i32::MAX), None);
    }

    #[test]
    fn only_a_child_of_the_parent_named_is_held() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id().to_string();
        let me = i32::try_from(std::process::id()).unwrap();
        assert!(held(pid.as_bytes(), me).is_some());
        assert!(held(pid.as_bytes(), me + 1).is_none());
        assert!(held(b"x", me).is_none() && held(b"-1", me).is_none() && held(b"", me).is_none());
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
