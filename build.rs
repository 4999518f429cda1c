//! Link the `sojx` binary with packed relative relocations (DT_RELR) on Linux with glibc.
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
//! (GNU ld 2.38, lld 15). Whether both hold here is probed by linking and running a tiny
//! program with it (a few hundred milliseconds, once per build of this script); when the
//! probe fails, or when cross-compiling, the binary is linked as usual. A binary built here
//! runs where it was built: `cargo install` users get it for their own glibc. Release archives
//! for older systems are built where that glibc is (scripts/dist.sh). `SOJX_RELR=0` turns the
//! flag off.
//!
//! Only the binary is affected (`rustc-link-arg-bins`), not tests, benches or the library.

use std::path::PathBuf;
use std::process::Command;

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOJX_RELR");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("SOJX_RELR") == "0"
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("HOST") != var("TARGET")
    {
        return;
    }
    if links_and_runs() {
        println!("cargo:rustc-link-arg-bins={FLAG}");
        // For tests/cli/startup.rs, which checks that the binary holds DT_RELR.
        println!("cargo:rustc-env=SOJX_RELR_LINKED=1");
    }
}

/// Whether a program linked with [`FLAG`] by this rustc for this target runs here.
fn links_and_runs() -> bool {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let src = out.join("relr_probe.rs");
    let exe = out.join("relr_probe");
    if std::fs::write(&src, "fn main() { println!(\"ok\"); }\n").is_err() {
        return false;
    }
    let linked = Command::new(rustc)
        .arg("--target")
        .arg(std::env::var("TARGET").unwrap_or_default())
        .args(["-C", "opt-level=0", "-C", "debuginfo=0", "-C"])
        .arg(format!("link-arg={FLAG}"))
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .is_ok_and(|o| o.status.success());
    linked
        && Command::new(&exe)
            .output()
            .is_ok_and(|o| o.status.success() && o.stdout == b"ok\n")
}
