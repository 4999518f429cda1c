#!/usr/bin/env bash
# Build sojx as it is shipped: target/dist/sojx.
#
# The `dist` profile is the release profile optimized across crates (fat LTO, one codegen unit).
# On Linux with glibc the binary is also linked statically and without PIE: nothing is loaded or
# relocated when it starts, which is most of what a short run costs (docs/performance.md: an
# 80 KB run takes about a third less time than with `cargo build --release`). Static glibc is
# safe here because sojx never resolves users or hosts (no NSS) and loads no plugins.
# Elsewhere (macOS, musl, Windows) the binary is the platform's usual one, with the same LTO.
#
# Only the final binary gets the static flags (`cargo rustc`), because proc-macro crates cannot
# be built with `crt-static` (rust-lang/rust#78210). The dependencies are compiled once under
# target/dist; later runs only relink.
#
# Environment: SOJX_STATIC=0 keeps a dynamically linked binary on Linux too;
# SOJX_DIST_PROFILE=release links the release profile's binary the same way, without LTO (CI
# does, to check the static link in seconds), into target/release/sojx.
# Prints the binary's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${SOJX_DIST_PROFILE:-dist}
host=$(rustc -vV | sed -n 's/^host: //p')
if [[ "$host" == *-linux-gnu* && "${SOJX_STATIC:-1}" != 0 ]]; then
    # relocation-model=static: a static executable, not a static PIE (build.rs links the
    # binary without PIE on glibc, and the two must agree).
    cargo rustc --locked --quiet --profile "$profile" --bin sojx -- \
        -C target-feature=+crt-static -C relocation-model=static
else
    cargo build --locked --quiet --profile "$profile" --bin sojx
fi
# (CARGO_TARGET_DIR is honoured; a target-dir set in a Cargo config file is not.)
echo "${CARGO_TARGET_DIR:-target}/$profile/sojx"
