//! The agent's start on Linux when its guard could not start ([`super::guard`]): sojx starts
//! itself, `/proc/self/exe __sojx-exec PARENT NONCE FILE ARGV0 ARGS…`, as the leader of the
//! agent's new process group; that process sets its
//! parent-death signal to SIGKILL, checks that sojx is still its parent, and executes COMMAND,
//! which keeps the signal (prctl(2): it survives execve, but for set-user-ID and set-group-ID
//! programs and programs with file capabilities). So a sojx killed with SIGKILL takes its agent
//! with it. rustix's safe wrapper sets the signal on the process itself; doing it in the child
//! of sojx's own spawn would take `pre_exec`, which is unsafe, and the crate forbids unsafe code.
//!
//! The signal is sent when the *thread* that started the process ends: sojx starts every agent
//! on its main thread ([`super::spawn`]), which lives as long as sojx. It reaches the agent
//! alone: without a guard, what the agent started outlives a sojx killed with SIGKILL.
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
pub(super) const SELF: &str = "/proc/self/exe";

/// Whether [`SELF`] is this program: not when sojx was started through the dynamic loader
/// (`ld-linux-x86-64.so.2 sojx run …`), where `/proc/self/exe` is the loader, which would take
/// the trampoline's and the guard's arguments for a program to load (and the agent would seem to
/// exit with 127). Told by `stat` of the file this function's code is mapped from (its path in
/// `/proc/self/maps`) against `stat` of `/proc/self/exe` (the device numbers that the maps show
/// are the filesystem's, which btrfs and older overlayfs do not report to `stat`, so only two
/// `stat`s are compared). Only a positive difference counts: when it cannot be told (no `/proc`,
/// the file deleted or replaced since), the trampoline is used, as before. Asked once; when
/// not usable, the agent starts directly and without a guard (docs/run.md).
pub(super) fn usable() -> bool {
    static USABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *USABLE.get_or_init(|| !started_through_another_program().unwrap_or(false))
}

/// Whether `/proc/self/exe` is positively another file than the one this code runs from.
fn started_through_another_program() -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let path = mapped_path(&maps, usable as fn() -> bool as usize)?;
    let mapped = std::fs::metadata(path).ok()?;
    let exe = std::fs::metadata(SELF).ok()?;
    Some((mapped.dev(), mapped.ino()) != (exe.dev(), exe.ino()))
}

/// The file `maps` (`/proc/self/maps`) says the address `at` is mapped from: `None` for an
/// anonymous mapping or a deleted file.
fn mapped_path(maps: &str, at: usize) -> Option<&str> {
    let line = maps.lines().find(|l| {
        l.split_once(' ')
            .and_then(|(range, _)| range.split_once('-'))
            .and_then(|(a, b)| {
                Some((
                    usize::from_str_radix(a, 16).ok()?,
                    usize::from_str_radix(b, 16).ok()?,
                ))
            })
            .is_some_and(|(a, b)| (a..b).contains(&at))
    })?;
    // address perms offset dev inode path: the path is what follows the fifth field.
    let mut rest = line;
    for _ in 0..5 {
        rest = rest.trim_start();
        rest = &rest[rest.find(char::is_whitespace)?..];
    }
    let path = rest.trim_start();
    (path.starts_with('/') && !path.ends_with(" (deleted)")).then_some(path)
}

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

#[cfg(test)]
mod tests {
    #[test]
    fn the_mapped_file_is_read_from_its_maps_line() {
        let maps = "00400000-00500000 r-xp 00001000 00:27 257                        /opt/my tools/sojx\n\
                    00600000-00700000 r-xp 00000000 00:00 0 \n\
                    00800000-00900000 r-xp 00000000 fd:01 12 /usr/bin/sojx (deleted)\n";
        assert_eq!(
            super::mapped_path(maps, 0x0040_1000),
            Some("/opt/my tools/sojx")
        );
        assert_eq!(super::mapped_path(maps, 0x0060_1000), None);
        assert_eq!(super::mapped_path(maps, 0x0080_1000), None);
        assert_eq!(super::mapped_path(maps, 0x0100_0000), None);
        // This process's own code is mapped from a file that `stat` finds.
        assert!(!super::started_through_another_program().unwrap_or(true));
    }

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
