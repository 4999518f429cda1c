//! The agent's start on Linux: sojx starts itself, `/proc/self/exe __sojx-exec PARENT NONCE
//! FILE ARGV0 ARGS…`, in the agent's new process group (its [`guard`] leads it); that process sets its
//! parent-death signal to SIGKILL, checks that sojx is still its parent, and executes COMMAND,
//! which keeps the signal (prctl(2): it survives execve, but for set-user-ID and set-group-ID
//! programs and programs with file capabilities). So a sojx killed with SIGKILL takes its agent
//! with it. rustix's safe wrapper sets the signal on the process itself; doing it in the child
//! of sojx's own spawn would take `pre_exec`, which is unsafe, and the crate forbids unsafe code.
//!
//! The signal is sent when the *thread* that started the process ends: sojx starts every agent
//! on its main thread ([`super::spawn`]), which lives as long as sojx. It reaches the agent
//! alone; the [`guard`] in the agent's group kills the rest of the group.
//!
//! When executing COMMAND fails there (what sojx checked before has changed, or what it does
//! not check: a file open for writing), that process writes one record to its stderr, which is
//! the agent's stderr pipe, and exits 127 or 126 as a shell does: `NUL sojx-exec NONCE ERRNO
//! LF`, the first bytes on the pipe. NONCE is random per start and only in that process's
//! argv, which COMMAND's replaces, so no agent can write the record: sojx reads it
//! ([`read_record`]) as "COMMAND did not start" (`spawn`), never as the agent's exit.

use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use rustix::process::{Signal, getpid, getppid, set_parent_process_death_signal};

/// The first argument that makes sojx start an agent instead of parsing a command line.
pub(crate) const ARG: &str = "__sojx-exec";

/// sojx's own program.
const SELF: &str = "/proc/self/exe";

/// A number no one can guess, for the record of one start.
pub(super) fn nonce() -> u64 {
    let mut h = std::hash::RandomState::new().build_hasher();
    h.write_u32(getpid().as_raw_nonzero().get().unsigned_abs());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.finish()
}

/// The command that starts sojx's trampoline to execute `file` with `arg0` and `args`.
pub(super) fn command(file: &Path, arg0: &OsStr, args: &[OsString], nonce: u64) -> Command {
    let mut cmd = Command::new(SELF);
    cmd.arg0("sojx")
        .arg(ARG)
        .arg(getpid().as_raw_nonzero().to_string())
        .arg(format!("{nonce:016x}"))
        .arg(file)
        .arg(arg0)
        .args(args);
    cmd
}

fn prefix(nonce: u64) -> String {
    format!("\0sojx-exec {nonce:016x} ")
}

/// The errno the trampoline of `nonce` recorded at the start of `bytes`, the first bytes of
/// the agent's stderr, with the record's length.
pub(super) fn read_record(bytes: &[u8], nonce: u64) -> Option<(i32, usize)> {
    let prefix = prefix(nonce);
    let rest = bytes.strip_prefix(prefix.as_bytes())?;
    let end = rest.iter().position(|&b| b == b'\n')?;
    let errno = std::str::from_utf8(&rest[..end]).ok()?.parse().ok()?;
    Some((errno, prefix.len() + end + 1))
}

/// The trampoline: `args` are what follow [`ARG`]. Executes COMMAND, or returns the exit
/// status: 127 or 126 after writing the record to `stderr` when it could not, 2 when `args` are
/// not the trampoline's.
pub(crate) fn exec(args: &[OsString], stderr: &mut dyn Write) -> u8 {
    let [parent, nonce, file, arg0, args @ ..] = args else {
        return 2;
    };
    let (Some(parent), Some(nonce)) = (
        parent.to_str().and_then(|p| p.parse::<i32>().ok()),
        nonce.to_str().and_then(|n| u64::from_str_radix(n, 16).ok()),
    ) else {
        return 2;
    };
    // SIGKILL: once sojx is gone nobody would follow a SIGTERM the agent ignores with a
    // SIGKILL. When the signal cannot be set (a seccomp filter), the agent starts without it,
    // as elsewhere than Linux.
    let _ = set_parent_process_death_signal(Some(Signal::KILL));
    if getppid().map(|p| p.as_raw_nonzero().get()) != Some(parent) {
        // sojx died before the signal was set: nothing is waiting for this agent.
        return 1;
    }
    let e = Command::new(file).arg0(arg0).args(args).exec();
    let errno = e.raw_os_error().unwrap_or(0);
    let _ = stderr
        .write_all(format!("{}{errno}\n", prefix(nonce)).as_bytes())
        .and_then(|()| stderr.flush());
    if e.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}

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
pub(super) fn guard() -> std::io::Result<std::process::Child> {
    use std::process::Stdio;
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
pub(crate) fn guarding(args: &[OsString], stdin: &mut dyn std::io::Read) -> u8 {
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
    for sig in super::signals::CAUGHT {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_record_of_this_start_is_read() {
        let n = nonce();
        let mut rec = format!("{}2\n", prefix(n)).into_bytes();
        let len = rec.len();
        rec.extend_from_slice(b"after");
        assert_eq!(read_record(&rec, n), Some((2, len)));
        assert_eq!(read_record(&rec, n ^ 1), None);
        assert_eq!(read_record(b"\0sojx-exec ", n), None);
        assert_eq!(read_record(b"error: no such file\n", n), None);
        assert_ne!(nonce(), n);
    }

    #[test]
    fn arguments_that_are_not_the_trampolines_start_nothing() {
        let mut err = Vec::new();
        assert_eq!(exec(&["x".into()], &mut err), 2);
        assert_eq!(
            exec(&["x".into(), "y".into(), "f".into(), "a".into()], &mut err),
            2
        );
        assert!(err.is_empty());
    }
}
