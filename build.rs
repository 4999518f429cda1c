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
//! It also writes the built-in producer files as JSON, with their table ([`producers_as_json`]).

use std::path::PathBuf;
use std::process::Command;

include!("tests/cli/elf.rs");

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

/// The list of functions to place first (written by scripts/order.sh).
const ORDER: &str = "scripts/sojx.order";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    producers_as_json();
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

/// The built-in producer files (`producers/*.toml`) as JSON in `OUT_DIR/producers/`, and their
/// table `OUT_DIR/producers.rs`, which src/producer/file/builtin.rs includes: serde_json reads a
/// file in a few microseconds, where the TOML parser took about 50 µs a file, on every Claude
/// Code run (Droid's file is asked about its init line). What they say is the same; their tests
/// check both.
fn producers_as_json() {
    println!("cargo:rerun-if-changed=producers");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let out = out_dir.join("producers");
    std::fs::create_dir_all(&out).expect("OUT_DIR is writable");
    let mut paths: Vec<PathBuf> = std::fs::read_dir("producers")
        .expect("producers/ is in the source")
        .map(|e| e.expect("producers/ can be listed").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let mut table = String::from(
        "/// Each built-in file (generated by build.rs from `producers/`): its id (the producers'\n\
         /// table in `id.rs` has a row of family `Described` for each), the producer whose shapes\n\
         /// it shares when it has events of its own (its `reads_like`: detection asks it where\n\
         /// sojx's code names that producer), and its text as JSON.\n\
         pub(crate) const FILES: &[(&str, Option<&str>, &str)] = &[\n",
    );
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("a producer file is UTF-8");
        let value: serde_json::Value =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not TOML: {e}", path.display()));
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 file name");
        let json = out.join(format!("{id}.json"));
        std::fs::write(&json, value.to_string()).expect("OUT_DIR is writable");
        let has_events = value["event"].as_array().is_some_and(|e| !e.is_empty());
        let shares = value["reads_like"].as_str().filter(|_| has_events);
        table.push_str(&format!(
            "    ({id:?}, {shares:?}, include_str!({:?})),\n",
            json.display().to_string()
        ));
    }
    table.push_str("];\n");
    std::fs::write(out_dir.join("producers.rs"), table).expect("OUT_DIR is writable");
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
