//! The guard of an agent's process group (Linux): sojx itself, `/proc/self/exe __sojx-guard
//! PARENT`, started before the agent as the leader of the group the agent then joins, its stdin
//! a socket only sojx holds the other end of. Once sojx started the agent, it sends the guard a
//! pidfd of it (`SCM_RIGHTS`), opened while the agent is sojx's child and not reaped, so it
//! names that process and no other. When sojx dies, however it dies, the socket closes and the
//! guard kills the agent (wherever it went: a `setsid` does not take it out of reach) and the
//! group: the processes the agent started. It catches the signals sojx catches ([`CAUGHT`]),
//! so that what sojx forwards to the group does not end it first. It is the one start of sojx
//! an attempt costs: with it the agent starts directly, without the trampoline
//! ([`super::trampoline`]), which only an agent without a guard still takes.

use std::ffi::OsString;
use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

use rustix::io::Errno;
use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType, recvmsg, sendmsg, socketpair,
};
use rustix::process::{Pid, PidfdFlags, Signal, getpid, getppid, pidfd_open};

use super::signals::CAUGHT;
use super::trampoline::SELF;

/// The first argument that makes sojx the guard of an agent's process group.
pub(crate) const GUARD: &str = "__sojx-guard";

/// The guard of an attempt's agent, as sojx holds it: the process, and sojx's end of its stdin.
pub(super) struct Guard {
    child: Child,
    link: OwnedFd,
}

impl Guard {
    /// Start the guard of the agent's process group, before the agent: sojx itself,
    /// `__sojx-guard`, as the leader of a new group that the agent then joins (so that no
    /// agent runs a moment without its guard), its stdin a socket whose other end sojx holds
    /// (and no other process: it closes on exec). When sojx dies, however it dies, the kernel
    /// closes that end and the guard kills the agent ([`Guard::hold`]) and its own process
    /// group, the agent's: the processes the agent started. Killing its own group is safe from
    /// a reused id: the guard leads it, so the id is taken while it lives. sojx kills the
    /// group, the guard with it, when the attempt ends.
    pub(super) fn start() -> std::io::Result<Self> {
        let (link, theirs) = socketpair(
            AddressFamily::UNIX,
            SocketType::STREAM,
            SocketFlags::CLOEXEC,
            None,
        )?;
        let child = Command::new(SELF)
            .arg0("sojx")
            .arg(GUARD)
            .arg(getpid().as_raw_nonzero().to_string())
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let guard = Self { child, link };
        // A pidfd must be possible here (Linux 5.3, no seccomp filter refusing it), else the
        // agent would start with neither its pidfd nor a parent-death signal: the guard's own
        // pid, sojx's child and not reaped, tells. Without one, the trampoline is used.
        if let Err(e) = pidfd_open(Pid::from_child(&guard.child), PidfdFlags::empty()) {
            guard.end();
            return Err(e.into());
        }
        Ok(guard)
    }

    /// The guard's pid: the id of the group it leads.
    pub(super) fn id(&self) -> u32 {
        self.child.id()
    }

    /// Give the guard the agent, `agent`, sojx's child, not reaped: a pidfd of it, sent in
    /// one message. Where the kernel has no pidfds (before Linux 5.3), or the guard is gone,
    /// the guard has the group alone.
    pub(super) fn hold(&self, agent: &Child) {
        let Ok(pidfd) = pidfd_open(Pid::from_child(agent), PidfdFlags::empty()) else {
            return;
        };
        let fds = [pidfd.as_fd()];
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if control.push(SendAncillaryMessage::ScmRights(&fds)) {
            let _ = sendmsg(
                &self.link,
                &[IoSlice::new(b"a")],
                &mut control,
                SendFlags::NOSIGNAL,
            );
        }
    }

    /// End the guard once its group was killed (else, its stdin closed, it would kill the group
    /// itself) and reap it.
    pub(super) fn end(self) {
        let Self { mut child, link } = self;
        drop(link);
        let _ = child.wait();
    }
}

/// The guard: wait for the end of its stdin (sojx's end closed), holding the pidfd of the agent
/// that sojx sends on it, then kill the agent and this process's group. The signals sent to the
/// group (forwarded by sojx, or an agent's own `kill 0`) do not end it first: the guard keeps
/// the group until sojx is gone.
///
/// `args` name sojx's pid: the guard keeps nothing unless sojx is its parent and it is in a
/// group other than sojx's (the agent's), so that `sojx __sojx-guard` typed in a shell never
/// kills the shell's job (exit status 2).
pub(crate) fn guarding(args: &[OsString]) -> u8 {
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
    let stdin = std::io::stdin();
    let agent = held_until_end(stdin.as_fd());
    if let Some(pidfd) = &agent {
        let _ = rustix::process::pidfd_send_signal(pidfd, Signal::KILL);
    }
    let _ = rustix::process::kill_current_process_group(Signal::KILL);
    0
}

/// Read `stdin` to its end, and the first file descriptor sent on it (the agent's pidfd): on a
/// socket by `recvmsg`; anything else (a pipe: the guard started by hand, or by a test) is read
/// to its end and holds nothing.
fn held_until_end(stdin: BorrowedFd<'_>) -> Option<OwnedFd> {
    let mut held = None;
    let mut buf = [0u8; 64];
    loop {
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let got = recvmsg(
            stdin,
            &mut [IoSliceMut::new(&mut buf)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        );
        for message in control.drain() {
            if let RecvAncillaryMessage::ScmRights(fds) = message {
                // The first one; any other is closed as it is dropped.
                for fd in fds {
                    held.get_or_insert(fd);
                }
            }
        }
        match got {
            Ok(m) if m.bytes == 0 => return held,
            Ok(_) | Err(Errno::INTR) => {}
            Err(Errno::NOTSOCK) => loop {
                match rustix::io::read(stdin, &mut buf) {
                    Ok(0) => return held,
                    Ok(_) | Err(Errno::INTR) => {}
                    Err(_) => return held,
                }
            },
            Err(_) => return held,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsFd;

    use super::held_until_end;

    fn pair() -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
        rustix::net::socketpair(
            rustix::net::AddressFamily::UNIX,
            rustix::net::SocketType::STREAM,
            rustix::net::SocketFlags::CLOEXEC,
            None,
        )
        .unwrap()
    }

    /// What `Guard::hold` sends is what the guard holds: a pidfd that kills the agent.
    #[test]
    fn the_pidfd_sent_is_the_one_held_and_kills_the_agent() {
        let mut agent = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let (ours, theirs) = pair();
        let guard = super::Guard {
            child: std::process::Command::new("true").spawn().unwrap(),
            link: ours,
        };
        guard.hold(&agent);
        let reader = std::thread::spawn(move || held_until_end(theirs.as_fd()));
        guard.end();
        let pidfd = reader.join().unwrap().expect("the pidfd is held");
        rustix::process::pidfd_send_signal(&pidfd, rustix::process::Signal::KILL).unwrap();
        let status = agent.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9)
        );
    }

    /// Bytes alone hold nothing, on a socket or a pipe.
    #[test]
    fn text_holds_nothing() {
        let (ours, theirs) = pair();
        rustix::io::write(&ours, b"12345\n").unwrap();
        drop(ours);
        assert!(held_until_end(theirs.as_fd()).is_none());
        let (r, w) = rustix::pipe::pipe().unwrap();
        rustix::io::write(&w, b"12345\n").unwrap();
        drop(w);
        assert!(held_until_end(r.as_fd()).is_none());
    }
}
