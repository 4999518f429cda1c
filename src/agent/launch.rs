//! How COMMAND is started, decided before it is: its file found on PATH as `execvp` finds it,
//! then read as the kernel reads it, so that what cannot start is named (a `#!` interpreter or
//! an ELF loader that is missing, a directory, a file without the x bit) instead of the
//! kernel's bare "no such file", and a text file with no `#!` line runs with `/bin/sh`, as
//! shells and `execvp` run it (docs/run.md, "How COMMAND is started").

use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::shell::quote;
use crate::error::{ErrorKind, Failure, Operation};
use crate::input::io_reason;

/// The shell that runs a text file with no `#!` line (`execvp`'s `_PATH_BSHELL`).
pub(crate) const SH: &str = "/bin/sh";

/// PATH when it is not set: glibc's `execvp` default.
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// How much of the file is read to tell its kind: an ELF's program headers and the name of its
/// loader are within its first page; the kernel reads 256 bytes of a `#!` line.
const HEAD: u64 = 4096;
const SHEBANG_LINE: usize = 256;

/// How bash tells a text file from a binary one that it would not run as a script: a NUL byte
/// before the first newline, within this many bytes.
const SAMPLE: usize = 80;

/// How COMMAND's file is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A program or a `#!` script of this system: executed as it is.
    Native,
    /// A text file with no `#!` interpreter: `/bin/sh FILE ARGS…`.
    Shell,
    /// A binary of a format sojx does not know (another machine's program, or one a
    /// binfmt_misc handler runs): started directly, so that the kernel's own answer stands
    /// (`execvp`, which Linux's start through sojx itself uses, would hand it to /bin/sh).
    Foreign,
}

/// COMMAND's file, found and read.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    /// The program as given after `--`.
    given: String,
    /// Its file: as given when it holds a `/`, else as found on PATH.
    pub(crate) file: PathBuf,
    pub(crate) kind: Kind,
}

impl Program {
    /// The file to execute, its argv[0] and the arguments after it, for `args` after COMMAND's
    /// program `arg0`: argv[0] as given, as `execvp` passes it; `/bin/sh FILE ARGS…` for a
    /// file with no `#!` line, as `execvp` runs one.
    pub(crate) fn argv(
        &self,
        arg0: &OsStr,
        args: &[OsString],
    ) -> (PathBuf, OsString, Vec<OsString>) {
        match self.kind {
            Kind::Shell => {
                let mut all = vec![self.file.clone().into_os_string()];
                all.extend(args.iter().cloned());
                (PathBuf::from(SH), OsString::from(SH), all)
            }
            Kind::Native | Kind::Foreign => (self.file.clone(), arg0.to_owned(), args.to_vec()),
        }
    }

    /// The `spawn` failure for `e`, which executing the file met after it was found and read
    /// (a race with a change to it, or what sojx does not check: a busy file, too many
    /// arguments, a nested `#!` interpreter).
    pub(crate) fn exec_failure(&self, e: &io::Error) -> Failure {
        if let Err(why) = check(&self.file) {
            return self.refuse(&why.said(), why.hint());
        }
        let (why, hint) = match rustix::io::Errno::from_io_error(e) {
            Some(rustix::io::Errno::NOEXEC) => (
                "it is not a program this system can run (exec format error)".to_owned(),
                "it may be built for another machine or system: use a build of it for this one",
            ),
            Some(rustix::io::Errno::TXTBSY) => (
                "it is open for writing (text file busy)".to_owned(),
                "wait until whatever writes it has closed it, then run again",
            ),
            Some(rustix::io::Errno::TOOBIG) => (
                "its arguments and environment are too long for one command (argument list too long)".to_owned(),
                "pass long text in a file or on stdin",
            ),
            _ if e.kind() == io::ErrorKind::NotFound => (
                "it exists, but the interpreter or loader it needs is not found".to_owned(),
                "check its #! line (and its interpreter's), or that it was built for this system",
            ),
            _ if e.kind() == io::ErrorKind::PermissionDenied => (
                "permission denied".to_owned(),
                "check the file's mode (chmod +x) and that its file system is not mounted noexec",
            ),
            _ => (io_reason(e), "check the command after `--`"),
        };
        self.refuse(&why, hint)
    }

    fn refuse(&self, why: &str, hint: &str) -> Failure {
        let why = if self.given.contains('/') {
            why.to_owned()
        } else {
            format!(
                "`{}` (found on PATH): {why}",
                quote(&self.file.to_string_lossy())
            )
        };
        refuse(&self.given, &why, hint)
    }
}

/// The `spawn` failure of COMMAND `given`.
fn refuse(given: &str, why: &str, hint: &str) -> Failure {
    Failure::new(
        ErrorKind::Spawn,
        Operation::Spawn,
        format!("cannot start `{}`: {why}", quote(given)),
    )
    .target(given.to_owned())
    .retryable(false)
    .hint(hint)
}

/// COMMAND's program `given`, found (on `path_var`, PATH, when it holds no `/`) and read: how
/// it will start, or the `spawn` failure that says why it cannot.
pub(crate) fn find(given: &OsStr, path_var: Option<&OsStr>) -> Result<Program, Failure> {
    let name = given.to_string_lossy().into_owned();
    if given.is_empty() {
        return Err(refuse(
            &name,
            "the program's name is empty",
            "give the program after `--`",
        ));
    }
    let file = if given.as_bytes().contains(&b'/') {
        let file = PathBuf::from(given);
        check(&file).map_err(|why| refuse(&name, &why.said(), why.hint()))?;
        file
    } else {
        on_path(given, path_var).map_err(|missed| match missed {
            None => refuse(&name, "not found on PATH", "install it, or give its path"),
            Some((file, why)) => refuse(
                &name,
                &format!(
                    "found as `{}` on PATH, but {}",
                    quote(&file.to_string_lossy()),
                    why.said()
                ),
                why.hint(),
            ),
        })?
    };
    let program = Program {
        given: name,
        file,
        kind: Kind::Native,
    };
    match read_kind(&program.file, path_var) {
        Ok(kind) => Ok(Program { kind, ..program }),
        Err((why, hint)) => Err(program.refuse(&why, &hint)),
    }
}

/// Why a file cannot be executed.
enum Unrunnable {
    Missing,
    /// A symbolic link to this, which does not exist.
    Dangling(PathBuf),
    Directory,
    NotRegular,
    /// No x bit in its mode.
    NoExecBit,
    /// Its mode has an x bit, but not for this user, or its file system is mounted noexec.
    Denied,
    Other(io::Error),
}

impl Unrunnable {
    fn said(&self) -> String {
        match self {
            Self::Missing => "no such file".to_owned(),
            Self::Dangling(to) => format!(
                "no such file: it is a symbolic link to `{}`, which does not exist",
                to.display()
            ),
            Self::Directory => "it is a directory".to_owned(),
            Self::NotRegular => "it is not a regular file (a device, a FIFO or a socket)".to_owned(),
            Self::NoExecBit => "permission denied: it is not executable (no x in its mode)".to_owned(),
            Self::Denied => "permission denied: it is not executable by this user, or its file system is mounted noexec".to_owned(),
            Self::Other(e) => io_reason(e),
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            Self::Missing | Self::Dangling(_) | Self::Other(_) => "check the path",
            Self::Directory | Self::NotRegular => "give the path of a program",
            Self::NoExecBit => {
                "make it executable (chmod +x), or run it with its interpreter (`-- sh FILE`)"
            }
            Self::Denied => "check its owner and mode, and its file system's mount options",
        }
    }
}

/// Whether `file` can be executed, as far as its metadata says.
fn check(file: &Path) -> Result<(), Unrunnable> {
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(match std::fs::read_link(file) {
                Ok(to) => Unrunnable::Dangling(to),
                Err(_) => Unrunnable::Missing,
            });
        }
        Err(e) => return Err(Unrunnable::Other(e)),
    };
    if meta.is_dir() {
        Err(Unrunnable::Directory)
    } else if !meta.is_file() {
        Err(Unrunnable::NotRegular)
    } else if meta.permissions().mode() & 0o111 == 0 {
        Err(Unrunnable::NoExecBit)
    } else if rustix::fs::access(file, rustix::fs::Access::EXEC_OK).is_err() {
        Err(Unrunnable::Denied)
    } else {
        Ok(())
    }
}

/// `name` found in the directories of `path_var` as `execvp` looks: the first executable
/// file; else the first file that is there but cannot run, with why, if any.
fn on_path(
    name: &OsStr,
    path_var: Option<&OsStr>,
) -> Result<PathBuf, Option<(PathBuf, Unrunnable)>> {
    let mut unrunnable = None;
    for dir in std::env::split_paths(path_var.unwrap_or(OsStr::new(DEFAULT_PATH))) {
        // An empty entry is the current directory.
        let file = if dir.as_os_str().is_empty() {
            Path::new(".").join(name)
        } else {
            dir.join(name)
        };
        match check(&file) {
            Ok(()) => return Ok(file),
            Err(Unrunnable::Missing | Unrunnable::Dangling(_) | Unrunnable::Other(_)) => {}
            Err(why) => {
                unrunnable.get_or_insert((file, why));
            }
        }
    }
    Err(unrunnable)
}

/// How `file` starts, from its first bytes; why it cannot, with a hint, when what it needs
/// (its `#!` interpreter, its ELF loader, /bin/sh) is missing. An unreadable file (mode 0111)
/// is the kernel's to run.
fn read_kind(file: &Path, path_var: Option<&OsStr>) -> Result<Kind, (String, String)> {
    read_kind_within(file, path_var, INTERPRETERS)
}

/// Interpreters of interpreters (`#!` scripts as `#!` interpreters) that Linux follows.
const INTERPRETERS: u8 = 4;

/// [`read_kind`], `nested` interpreters deep at most. Only what the kernel itself runs is
/// `Native`: the start through sojx executes it with `execvp`, which hands a file the kernel
/// refuses (`ENOEXEC`) to /bin/sh; anything else starts directly, where the kernel's refusal is
/// a `spawn` failure.
fn read_kind_within(
    file: &Path,
    path_var: Option<&OsStr>,
    nested: u8,
) -> Result<Kind, (String, String)> {
    let mut head = Vec::new();
    let read = std::fs::File::open(file).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    if read.is_err() {
        // Executable but not readable: the kernel decides.
        return Ok(Kind::Foreign);
    }
    if head.starts_with(b"\xef\xbb\xbf#!") {
        return Err((
            "it starts with a UTF-8 byte order mark before its #! line, so the system does not see the #! line".to_owned(),
            "remove the byte order mark (sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)".to_owned(),
        ));
    }
    if let Some(line) = head.strip_prefix(b"#!") {
        let line = &line[..line.len().min(SHEBANG_LINE - 2)];
        let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
        if let Some(interpreter) = shebang(line) {
            script(interpreter, path_var)?;
            // The interpreter itself must be what the kernel runs (not a text file without
            // `#!`, which `execvp` would give to /bin/sh with this script).
            let path = Path::new(OsStr::from_bytes(interpreter.path));
            return Ok(match nested.checked_sub(1) {
                Some(n) if read_kind_within(path, path_var, n)? == Kind::Native => Kind::Native,
                _ => Kind::Foreign,
            });
        }
        // `#!` and nothing: the kernel cannot run it; shells run it as a script.
    } else if head.starts_with(b"\x7fELF") {
        return elf(&head);
    } else if head[..head.len().min(SAMPLE)]
        .split(|&b| b == b'\n')
        .next()
        .is_some_and(|first| first.contains(&0))
    {
        return Ok(Kind::Foreign);
    }
    match check(Path::new(SH)) {
        Ok(()) => Ok(Kind::Shell),
        Err(why) => Err((
            format!(
                "it has no #! line, and {SH}, which runs such a file, cannot run: {}",
                why.said()
            ),
            "start it with a #! line naming its interpreter".to_owned(),
        )),
    }
}

/// A `#!` line's interpreter and its one argument (the rest of the line, as Linux passes it).
#[derive(Clone, Copy)]
struct Interpreter<'a> {
    path: &'a [u8],
    arg: &'a [u8],
}

fn shebang(line: &[u8]) -> Option<Interpreter<'_>> {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let line = &line[line.iter().position(|b| !blank(b))?..];
    let end = line
        .iter()
        .position(|b| blank(b) || *b == 0)
        .unwrap_or(line.len());
    let rest = &line[end..];
    let rest = match rest.iter().position(|b| !blank(b)) {
        Some(i) => &rest[i..],
        None => &[],
    };
    let rest = rest.split(|&b| b == 0).next().unwrap_or_default();
    let arg_end = rest.iter().rposition(|b| !blank(b)).map_or(0, |i| i + 1);
    Some(Interpreter {
        path: &line[..end],
        arg: &rest[..arg_end],
    })
}

/// Whether a script's interpreter can run (and, for `/usr/bin/env NAME`, whether NAME is on
/// PATH, where env will look for it).
fn script(i: Interpreter<'_>, path_var: Option<&OsStr>) -> Result<(), (String, String)> {
    let path = Path::new(OsStr::from_bytes(i.path));
    let shown = String::from_utf8_lossy(i.path).replace('\r', "\\r");
    if let Err(why) = check(path) {
        if i.path.ends_with(b"\r") && matches!(why, Unrunnable::Missing) {
            return Err((
                format!(
                    "its #! line ends with a carriage return (Windows line endings), so its interpreter is `{shown}`, which does not exist"
                ),
                "convert the file to unix line endings (dos2unix FILE, or sed -i 's/\\r$//' FILE)"
                    .to_owned(),
            ));
        }
        let said = match why {
            Unrunnable::Missing => "is not found".to_owned(),
            other => format!("cannot run: {}", other.said()),
        };
        return Err((
            format!("its interpreter `{shown}` (from its #! line) {said}"),
            "install it, or change the #! line to an interpreter this system has".to_owned(),
        ));
    }
    // `#!/usr/bin/env node`: env looks for `node` on PATH, and Linux passes the rest of the
    // line as one argument, so `#!/usr/bin/env node --flag` looks for `node --flag`.
    let name = OsStr::from_bytes(i.arg);
    let env = path.file_name().is_some_and(|n| n == "env");
    if !env || i.arg.is_empty() || i.arg.starts_with(b"-") || i.arg.contains(&b'=') {
        return Ok(());
    }
    let found = if i.arg.contains(&b'/') {
        check(Path::new(name)).map_err(|_| ())
    } else {
        on_path(name, path_var).map(|_| ()).map_err(|_| ())
    };
    let shown_name = String::from_utf8_lossy(i.arg).replace('\r', "\\r");
    match found {
        Ok(()) => Ok(()),
        Err(()) if i.arg.contains(&b' ') => Err((
            format!(
                "its #! line runs `{shown} {shown_name}`, and Linux passes `{shown_name}` to env as one name, which is not found"
            ),
            "use `#!/usr/bin/env -S` to split the words".to_owned(),
        )),
        Err(()) if i.arg.ends_with(b"\r") => Err((
            format!(
                "its #! line ends with a carriage return (Windows line endings), so env looks for `{shown_name}`, which is not found"
            ),
            "convert the file to unix line endings (dos2unix FILE, or sed -i 's/\\r$//' FILE)"
                .to_owned(),
        )),
        Err(()) => Err((
            format!(
                "its interpreter `{shown_name}` (from its #! line, run by {shown}) is not found on PATH"
            ),
            "install it, or put its directory on PATH".to_owned(),
        )),
    }
}

/// An ELF file: the kernel's unless it is this system's and names a loader that is missing.
fn elf(head: &[u8]) -> Result<Kind, (String, String)> {
    static HOST: std::sync::OnceLock<Option<Vec<u8>>> = std::sync::OnceLock::new();
    let ours = HOST.get_or_init(host_elf);
    // EI_CLASS, EI_DATA and e_machine: whether this machine runs it natively.
    let id = |h: &[u8]| h.get(4..6).zip(h.get(18..20)).map(|(a, b)| [a, b].concat());
    if ours.as_deref().is_some_and(|o| id(o) != id(head)) {
        return Ok(Kind::Foreign);
    }
    // e_type: an executable or a shared object (a PIE); a relocatable object, a core file or
    // a truncated header is the kernel's to refuse.
    let big = head.get(5) == Some(&2);
    let kind = head
        .get(16..18)
        .map(|t| if big { [t[1], t[0]] } else { [t[0], t[1]] });
    if !matches!(kind, Some([2 | 3, 0])) {
        return Ok(Kind::Foreign);
    }
    match elf_interpreter(head) {
        Some(loader) if !Path::new(OsStr::from_bytes(loader)).exists() => Err((
            format!(
                "its loader `{}` (the ELF interpreter it names) is not found",
                String::from_utf8_lossy(loader)
            ),
            "it was built for another system or C library: install that loader, or use a build of it for this system".to_owned(),
        )),
        _ => Ok(Kind::Native),
    }
}

/// The first bytes of sojx's own program (Linux), to tell another machine's ELF file.
#[cfg(target_os = "linux")]
fn host_elf() -> Option<Vec<u8>> {
    let mut head = Vec::new();
    std::fs::File::open("/proc/self/exe")
        .and_then(|f| f.take(20).read_to_end(&mut head))
        .ok()
        .filter(|_| head.len() == 20)
        .map(|_| head)
}

#[cfg(not(target_os = "linux"))]
fn host_elf() -> Option<Vec<u8>> {
    None
}

/// The loader an ELF file names (its PT_INTERP), when it is within `head`.
fn elf_interpreter(head: &[u8]) -> Option<&[u8]> {
    let wide = *head.get(4)? == 2;
    let big = *head.get(5)? == 2;
    let n = |at: usize, len: usize| -> Option<usize> {
        let b = head.get(at..at.checked_add(len)?)?;
        let v = if big {
            b.iter().fold(0u64, |v, &x| (v << 8) | u64::from(x))
        } else {
            b.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x))
        };
        usize::try_from(v).ok()
    };
    let (phoff, phentsize, phnum) = if wide {
        (n(32, 8)?, n(54, 2)?, n(56, 2)?)
    } else {
        (n(28, 4)?, n(42, 2)?, n(44, 2)?)
    };
    for i in 0..phnum {
        let at = phoff.checked_add(i.checked_mul(phentsize)?)?;
        let field = |off: usize, len: usize| n(at.checked_add(off)?, len);
        // PT_INTERP
        if field(0, 4)? != 3 {
            continue;
        }
        let (offset, size) = if wide {
            (field(8, 8)?, field(32, 8)?)
        } else {
            (field(4, 4)?, field(16, 4)?)
        };
        let name = head.get(offset..offset.checked_add(size)?)?;
        return name.split(|&b| b == 0).next().filter(|s| !s.is_empty());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shebang_line_is_read_as_linux_reads_it() {
        let i = shebang(b" /usr/bin/env  node --flag \t").unwrap();
        assert_eq!((i.path, i.arg), (&b"/usr/bin/env"[..], &b"node --flag"[..]));
        let i = shebang(b"/bin/sh\r").unwrap();
        assert_eq!((i.path, i.arg), (&b"/bin/sh\r"[..], &b""[..]));
        assert!(shebang(b"  \t").is_none());
    }

    /// A 64-bit ELF header of this machine (sojx's own first 20 bytes) whose one program header
    /// is PT_INTERP naming `loader`.
    #[cfg(all(
        target_os = "linux",
        target_pointer_width = "64",
        target_endian = "little"
    ))]
    fn elf_naming(loader: &[u8]) -> Vec<u8> {
        let mut f = host_elf().expect("/proc/self/exe");
        f.resize(64, 0);
        f[32..40].copy_from_slice(&64u64.to_le_bytes()); // e_phoff
        f[54..56].copy_from_slice(&56u16.to_le_bytes()); // e_phentsize
        f[56..58].copy_from_slice(&1u16.to_le_bytes()); // e_phnum
        let mut ph = vec![0u8; 56];
        ph[0..4].copy_from_slice(&3u32.to_le_bytes());
        ph[8..16].copy_from_slice(&120u64.to_le_bytes());
        ph[32..40].copy_from_slice(&(loader.len() as u64 + 1).to_le_bytes());
        f.extend(ph);
        f.extend_from_slice(loader);
        f.push(0);
        f
    }

    #[cfg(all(
        target_os = "linux",
        target_pointer_width = "64",
        target_endian = "little"
    ))]
    #[test]
    fn an_elf_files_missing_loader_is_named() {
        let elf_file = elf_naming(b"/sojx-test/ld-musl.so.1");
        assert_eq!(
            elf_interpreter(&elf_file),
            Some(&b"/sojx-test/ld-musl.so.1"[..])
        );
        let (why, _) = elf(&elf_file).unwrap_err();
        assert_eq!(
            why,
            "its loader `/sojx-test/ld-musl.so.1` (the ELF interpreter it names) is not found"
        );
        assert_eq!(elf(&elf_naming(b"/bin/sh")).unwrap(), Kind::Native);
        // Cut short, or pointing past its end: no loader read, and no panic.
        for n in [0, 5, 20, 63, 100, 119, 125] {
            let _ = elf_interpreter(&elf_file[..n]);
        }
        let mut far = elf_file.clone();
        far[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(elf_interpreter(&far), None);
        let mut other = elf_file;
        other[18] ^= 0xff;
        assert_eq!(elf(&other).unwrap(), Kind::Foreign);
    }

    #[test]
    fn a_text_file_without_a_shebang_runs_with_sh_and_a_binary_does_not() {
        let dir = std::env::temp_dir().join(format!("sojx-launch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let kind = |name: &str, bytes: &[u8]| {
            let f = dir.join(name);
            std::fs::write(&f, bytes).unwrap();
            read_kind(&f, None)
        };
        assert_eq!(kind("text", b"echo hi\n").unwrap(), Kind::Shell);
        assert_eq!(kind("empty", b"").unwrap(), Kind::Shell);
        assert_eq!(kind("bang", b"#!\necho hi\n").unwrap(), Kind::Shell);
        assert_eq!(kind("bin", b"MZ\x90\0\x03").unwrap(), Kind::Foreign);
        assert_eq!(kind("sh", b"#!/bin/sh\n").unwrap(), Kind::Native);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
