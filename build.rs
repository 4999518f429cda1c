//! Link the `sojx` binary with packed relative relocations (DT_RELR) on Linux with glibc, and
//! its hot functions together.
//!
//! sojx runs once per agent run, so its start is part of every measurement that matters (an
//! 80 KB run takes about 2 ms, half of it starting the process). The binary is a
//! position-independent executable (the platform's default: its image is placed at a random
//! address like the rest of the process). Relocating it costs the dynamic loader about 20,000
//! relative relocations at every start; as `Elf64_Rela` entries they are 24 bytes each, about
//! 480 KB of `.rela.dyn` read at start. `-z pack-relative-relocs` stores them as DT_RELR
//! bitmaps instead (a few KB), which the loader applies in a tight loop: the start-up cost of
//! PIE mostly goes away and ASLR stays (docs/performance.md has the numbers).
//!
//! DT_RELR needs glibc 2.36 or later where the binary runs, and a linker that knows the flag
//! (GNU ld 2.38, lld 15; older ones only warn and ignore it). Whether both hold here is probed
//! by linking a tiny program with it, with the linker and flags the real link uses, checking
//! that it holds DT_RELR and that it runs (a few hundred milliseconds, once per build of this
//! script); when the probe fails, or when cross-compiling, the binary is linked as usual. A binary built here
//! runs where it was built: `cargo install` users get it for their own glibc. Release archives
//! for older systems are built where that glibc is (scripts/dist.sh). `SOJX_RELR=0` turns the
//! flag off.
//!
//! For the optimized builds (the release profile, which `cargo install` uses, and the dist
//! profile that inherits it), the functions a run executes are also placed first and together
//! when the linker is lld (scripts/sojx.order; `SOJX_ORDER=0` turns it off): a short run then
//! touches a few dozen pages of code instead of faulting them in all over the binary.
//!
//! Only the binary is affected (`rustc-link-arg-bins`), not tests, benches or the library.
//!

use std::path::PathBuf;
use std::process::Command;

include!("tests/cli/elf.rs");

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

/// The list of functions to place first (written by scripts/order.sh).
const ORDER: &str = "scripts/sojx.order";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={ORDER}");
    println!("cargo:rerun-if-env-changed=SOJX_RELR");
    println!("cargo:rerun-if-env-changed=SOJX_ORDER");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("CARGO_CFG_TARGET_POINTER_WIDTH") != "64"
        || var("CARGO_CFG_TARGET_ENDIAN") != "little"
        || var("HOST") != var("TARGET")
    {
        return;
    }
    if var("SOJX_RELR") != "0" && links_and_runs() {
        println!("cargo:rustc-link-arg-bins={FLAG}");
        // For tests/cli/startup.rs, which checks that the binary holds DT_RELR.
        println!("cargo:rustc-env=SOJX_RELR_LINKED=1");
    }
    // The functions a run executes, placed first and together (docs/performance.md): for the
    // optimized builds (`cargo install`, `--release`, scripts/dist.sh), when the linker is lld.
    // The list names functions as this compiler mangles them; a name that no longer exists is
    // skipped, so a stale list costs speed, never correctness (scripts/order.sh rewrites it).
    let order = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join(ORDER);
    if var("SOJX_ORDER") != "0"
        && var("PROFILE") == "release"
        && order.is_file()
        // `-Wl,` splits its argument at commas.
        && !order.to_string_lossy().contains(',')
        && links(&["-C", "link-arg=-Wl,--symbol-ordering-file=/dev/null"]).is_some()
    {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether a program linked with [`FLAG`] by this rustc for this target, with the linker and
/// the flags of the real link, holds DT_RELR and runs here.
fn links_and_runs() -> bool {
    let flag = format!("link-arg={FLAG}");
    links(&["-C", &flag]).is_some_and(|exe| {
        std::fs::read(&exe)
            .ok()
            .and_then(|b| dynamic_tags(&b))
            .is_some_and(|tags| tags.contains(&DT_RELR))
            && Command::new(&exe)
                .output()
                .is_ok_and(|o| o.status.success() && o.stdout == b"ok\n")
    })
}

/// A tiny program linked by this rustc for this target with `args`, the linker and the flags of
/// the real link; `None` when it does not link.
fn links(args: &[&str]) -> Option<PathBuf> {
    let out = std::env::var_os("OUT_DIR").map(PathBuf::from)?;
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let src = out.join("link_probe.rs");
    let exe = out.join("link_probe");
    std::fs::write(&src, "fn main() { println!(\"ok\"); }\n").ok()?;
    let mut probe = Command::new(rustc);
    probe
        .arg("--target")
        .arg(std::env::var("TARGET").unwrap_or_default());
    // The flags cargo passes to every rustc of this build (RUSTFLAGS, `-C linker=…`), and the
    // linker a cargo config names for this target.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    probe.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    if let Some(linker) = std::env::var_os("RUSTC_LINKER") {
        probe.arg("-C").arg({
            let mut a = std::ffi::OsString::from("linker=");
            a.push(linker);
            a
        });
    }
    probe
        .args(["-C", "opt-level=0", "-C", "debuginfo=0"])
        .args(args)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(exe)
}
