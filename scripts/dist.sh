#!/usr/bin/env bash
# Build sojx as it is shipped: target/dist/sojx.
#
# The `dist` profile is the release profile (fat LTO, one codegen unit: what `cargo install`
# builds too). On Linux with glibc the binary is also linked statically, as a static PIE
# (randomized like any PIE, its relocations packed as DT_RELR by build.rs): no shared library is
# loaded when it starts, which is most of what a short run costs (docs/performance.md has the
# numbers). Static glibc is safe here because sojx never resolves users or hosts (no NSS) and
# loads no plugins. Elsewhere (macOS, musl, Windows) the binary is the platform's usual one.
#
# Only the final binary gets the static flags (`cargo rustc`), because proc-macro crates cannot
# be built with `crt-static` (rust-lang/rust#78210). The dependencies are compiled once under
# target/dist; later runs only relink.
#
# build.rs places the functions a run executes first and together (scripts/sojx.order, written
# by scripts/order.sh) when the linker is lld, in this build as in any release build.
#
# Environment: SOJX_STATIC=0 keeps a dynamically linked binary on Linux too; SOJX_ORDER=0
# leaves the functions in the compiler's order; SOJX_DIST_PROFILE=release links the release
# profile's binary the same way into target/release/sojx (CI does, with LTO turned off through
# CARGO_PROFILE_RELEASE_LTO, to check the static link in seconds).
# Prints the binary's path on stdout; what it is doing, and Cargo's progress, on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${SOJX_DIST_PROFILE:-dist}
target_dir=${CARGO_TARGET_DIR:-target}
host=$(rustc -vV | sed -n 's/^host: //p')

args=()
if [[ "$host" == *-linux-gnu* ]]; then
    if [[ "${SOJX_STATIC:-1}" != 0 ]]; then
        # A static PIE (rustc's default with crt-static on glibc): randomized like any PIE, its
        # relocations packed by build.rs's -z pack-relative-relocs.
        args+=(-C target-feature=+crt-static)
    fi
fi
# (CARGO_TARGET_DIR is honoured; a target-dir set in a Cargo config file is not.)
bin="$target_dir/$profile/sojx"
how="the $profile profile"
((${#args[@]})) && how+=", linked statically (a static PIE)"
echo "dist.sh: building $bin ($how): the first build compiles every dependency" \
    "(minutes, Cargo's progress below), a later one only sojx" >&2
if ((${#args[@]})); then
    cargo rustc --locked --profile "$profile" --bin sojx -- "${args[@]}" >&2
else
    cargo build --locked --profile "$profile" --bin sojx >&2
fi
echo "dist.sh: built $bin" >&2
echo "$bin"
