//! Link the `sojx` binary as a position-dependent executable on Linux (glibc).
//!
//! sojx runs once per agent run, so its start is part of every measurement that matters (an
//! 80 KB run takes about 2 ms, half of it starting the process). A position-independent
//! executable makes the dynamic loader apply about 20,000 relative relocations at every start,
//! and writing them faults in about 90 pages of `.data.rel.ro`: on the 2-core VM of
//! BENCHMARKS.md that was 0.25-0.55 ms per run, the largest single cost sojx controls. Without
//! PIE the addresses are fixed at link time. The price is that the executable's own image is
//! not randomized (shared libraries, heap and stack still are), as for Go binaries; sojx itself
//! forbids `unsafe` code. Set `SOJX_PIE=1` when building to keep the platform's default (PIE).
//!
//! Only the binary is affected (`rustc-link-arg-bins`), not tests, benches or the library.
//!
//! A static build (`-C target-feature=+crt-static`) decides for itself: given in `RUSTFLAGS`, it
//! links a static PIE and `-no-pie` is left out here (the two together make a binary that
//! crashes at start). `scripts/dist.sh` passes the flag to the binary alone, where this script
//! cannot see it, so it also passes `-C relocation-model=static`, which agrees with `-no-pie`.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOJX_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let pie = std::env::var("SOJX_PIE").is_ok_and(|v| v == "1");
    let crt_static = std::env::var("CARGO_CFG_TARGET_FEATURE")
        .is_ok_and(|f| f.split(',').any(|f| f == "crt-static"));
    // glibc only: musl targets link a static PIE, which `-no-pie` would contradict.
    if os == "linux" && env == "gnu" && !pie && !crt_static {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
