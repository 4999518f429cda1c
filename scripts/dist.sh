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
# Prints the binary's path on stdout.
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
if ((${#args[@]})); then
    cargo rustc --locked --quiet --profile "$profile" --bin sojx -- "${args[@]}"
else
    cargo build --locked --quiet --profile "$profile" --bin sojx
fi
# (CARGO_TARGET_DIR is honoured; a target-dir set in a Cargo config file is not.)
echo "$target_dir/$profile/sojx"
