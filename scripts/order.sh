#!/usr/bin/env bash
# Regenerates scripts/sojx.order: the functions that sojx's main job runs, which
# build.rs has the linker (lld's --symbol-ordering-file) place first and together in
# the executable. A short run then touches a few dozen pages of code instead of spreading its
# page faults over 7 MB of it (on the 80 KB benchmark stream: 118 page faults
# -> 80, perf stat -r 200).
#
# The list is of mangled names, which change with the code and the compiler: after a large
# change, or a new Rust, run this again and commit the result. A name that no longer exists is
# skipped at link time, so a stale list only costs speed, never correctness.
#
# Needs valgrind (callgrind lists every function a run executes) and a Linux/glibc host.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { echo "order.sh: valgrind is required" >&2; exit 1; }
command -v callgrind_annotate >/dev/null ||
    { echo "order.sh: callgrind_annotate (valgrind's) is required" >&2; exit 1; }
# The names do not depend on the order the binary was linked in, but they do on the profile
# (its name is part of the symbols' hashes): the list holds the names of both optimized builds,
# the shipped one (scripts/dist.sh) and the one `cargo install` builds (the release profile).
bins=("$(scripts/dist.sh)")
cargo build --release --locked --quiet
bins+=("${CARGO_TARGET_DIR:-target}/release/sojx")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A stream of about 2 MB (read ahead on a second thread) whose middle is what Claude Code
# prints most: text deltas and hook output, which the fast path skips.
{
    head -n 1 examples/claude-review.ndjson
    delta='{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a word \"quoted\" – "}},"session_id":"5b7f5f5e-0000-4000-8000-00000000c0de","parent_tool_use_id":null,"uuid":"0d9c1f9e-0000-4000-8000-000000000001"}'
    hook='{"type":"system","subtype":"hook_response","hook_id":"h1","output":"line one\nline two\n","exit_code":0,"session_id":"5b7f5f5e-0000-4000-8000-00000000c0de"}'
    for _ in $(seq 8000); do
        printf '%s\n' "$delta"
    done
    printf '%s\n' "$hook"
    tail -n +2 examples/claude-review.ndjson
} >"$tmp/big.ndjson"

schema=examples/verdict.schema.json
run() {
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/cg.$1" "${@:2}" \
        >/dev/null 2>&1 || true
}
for i in "${!bins[@]}"; do
    bin=${bins[$i]}
    run "$i.1" "$bin" extract --schema "$schema" examples/claude-review.ndjson
    run "$i.2" "$bin" extract --schema "$schema" "$tmp/big.ndjson"
    run "$i.3" "$bin" extract examples/claude-review.ndjson
    # Reading standard input (redirected here, not through a shell: callgrind would follow the
    # shell, not the sojx it starts).
    run "$i.4" "$bin" extract --schema "$schema" <examples/claude-review.ndjson
    # `run`'s own path. (Under valgrind `/proc/self/exe` is valgrind's tool, so sojx starts the
    # agent directly, without its guard: the guard's start is any start of sojx, traced above.)
    valgrind --tool=callgrind --demangle=no --trace-children=yes --trace-children-skip='*/cat' \
        --callgrind-out-file="$tmp/cg.$i.5.%p" \
        "$bin" run --schema "$schema" -- cat examples/claude-review.ndjson >/dev/null 2>&1 || true
done

# First, together, the 40 functions of each build's own binary (not of a shared library) that
# run the most instructions on the 2 MB stream (the scan's loop): where a long input spends its time does not then depend on where a
# run first calls them (issue 60: 2.2% on the 256 MB stream, from the first-seen order alone).
# Then every function named (as caller or callee), first seen first. Left out: addresses
# without a name, callgrind's "(below main)", and its marks of recursion levels (name'2), which
# are the same function again.
# Written beside the list and moved over it only once whole.
for i in 0 1; do
    [[ -s "$tmp/cg.$i.2" ]] || { echo "order.sh: the trace of ${bins[$i]} on the 2 MB stream is missing" >&2; exit 1; }
done
{
    for f in "$tmp"/cg.0.2 "$tmp"/cg.1.2; do
        callgrind_annotate "$f" \
            | sed -n 's/^ *[0-9,]* ([ 0-9.]*%)  [^ :]*:\([^ ]*\) \[[^]]*\/sojx\]$/\1/p' \
            | awk 'NR <= 40'
    done
    cat "$tmp"/cg.0.* "$tmp"/cg.1.* | sed -n 's/^c\{0,1\}fn=([0-9]*) //p'
} | sed "s/'[0-9]*\$//" \
    | grep -v -e '^0x' -e '^(below main)$' \
    | awk '!seen[$0]++' >"$tmp/order"
mv "$tmp/order" scripts/sojx.order
echo "scripts/sojx.order: $(wc -l <scripts/sojx.order) functions" >&2
