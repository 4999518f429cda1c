#!/usr/bin/env bash
# Build sojx as it is shipped: target/dist/sojx.
#
# The `dist` profile is the release profile optimized across crates (fat LTO, one codegen unit).
# On Linux with glibc the binary is also linked statically, as a static PIE (randomized like any
# PIE, its relocations packed as DT_RELR by build.rs): no shared library is loaded when it
# starts, which is most of what a short run costs (docs/performance.md has the numbers). Static
# glibc is safe here because sojx never resolves users or hosts (no NSS) and loads no plugins.
# Elsewhere (macOS, musl, Windows) the binary is the platform's usual one, with the same LTO.
#
# Only the final binary gets the static flags (`cargo rustc`), because proc-macro crates cannot
# be built with `crt-static` (rust-lang/rust#78210). The dependencies are compiled once under
# target/dist; later runs only relink.
#
# On Linux/glibc the functions a run executes are also placed first and together
# (scripts/sojx.order, written by scripts/order.sh; lld's --symbol-ordering-file), so that a
# short run touches a few dozen pages of code rather than faulting in pages all over 7 MB of it.
# Skipped when the linker is not lld.
#
# Environment: SOJX_STATIC=0 keeps a dynamically linked binary on Linux too; SOJX_ORDER=0
# leaves the functions in the compiler's order; SOJX_DIST_PROFILE=release links the release
# profile's binary the same way, without LTO (CI does, to check the static link in seconds),
# into target/release/sojx.
# Prints the binary's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${SOJX_DIST_PROFILE:-dist}
target_dir=${CARGO_TARGET_DIR:-target}
host=$(rustc -vV | sed -n 's/^host: //p')

# Whether rustc's linker takes lld's --symbol-ordering-file (GNU ld does not).
links_in_order() {
    local dir ok=1
    dir=$(mktemp -d)
    echo 'fn main() {}' >"$dir/probe.rs"
    if rustc -o "$dir/probe" "$dir/probe.rs" \
        -C link-arg=-Wl,--symbol-ordering-file=/dev/null >/dev/null 2>&1; then
        ok=0
    fi
    rm -rf "$dir"
    return $ok
}

args=()
if [[ "$host" == *-linux-gnu* ]]; then
    if [[ "${SOJX_STATIC:-1}" != 0 ]]; then
        # A static PIE (rustc's default with crt-static on glibc): randomized like any PIE, its
        # relocations packed by build.rs's -z pack-relative-relocs.
        args+=(-C target-feature=+crt-static)
    fi
    if [[ "${SOJX_ORDER:-1}" != 0 && -s scripts/sojx.order ]] && links_in_order; then
        # Named after its checksum, so that a new list relinks (cargo does not watch the file).
        mkdir -p "$target_dir"
        order="$(cd "$target_dir" && pwd)/sojx-$(cksum <scripts/sojx.order | cut -d' ' -f1).order"
        cp scripts/sojx.order "$order"
        args+=(-C "link-arg=-Wl,--symbol-ordering-file=$order"
            -C link-arg=-Wl,--no-warn-symbol-ordering)
    fi
fi
if ((${#args[@]})); then
    cargo rustc --locked --quiet --profile "$profile" --bin sojx -- "${args[@]}"
else
    cargo build --locked --quiet --profile "$profile" --bin sojx
fi
# (CARGO_TARGET_DIR is honoured; a target-dir set in a Cargo config file is not.)
echo "$target_dir/$profile/sojx"
