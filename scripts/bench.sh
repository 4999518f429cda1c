#!/usr/bin/env bash
# Side-by-side benchmark of sojx against jq, jaq, jq|jsonschema-cli and jq|check-jsonschema
# (each when installed) on Claude Code streams of 80 KB, 10 MB and 256 MB; regenerates
# BENCHMARKS.md. Needs python3 and cargo; uses hyperfine when installed.
#
# `scripts/bench.sh --base REV` measures instead what the working tree costs against commit REV:
# both built alike, run in alternating pairs on the 80 KB and 256 MB streams, `run -- cat`, the
# long session and `validate`, and a table of head/base ratios with their 95% intervals printed
# (scripts/bench_base.py; BENCHMARKS.md is not touched).
#
# sojx is measured as it is shipped: target/dist/sojx, built by scripts/dist.sh (LTO; on Linux
# with glibc, a static PIE). The plain `cargo build --release` binary gets its own row.
#
# Environment:
#   SOJX               binary to measure (default: target/dist/sojx, built here)
#   SOJX_RELEASE       the binary of the `cargo build --release` row (default:
#                      target/release/sojx, built here; empty to leave the row out)
#   BENCH_TIMER        `python` to time with the Python loop even when hyperfine is installed
#   SOJX_EXTRA_FLAGS   extra flags for every sojx run (e.g. '--activity' or '--tee out.log')
#   BENCH_SIZES        subset of "80KB 10MB 256MB"
#   BENCH_RUNS_SMALL / BENCH_RUNS_MEDIUM / BENCH_RUNS_LARGE   timed runs per size (200/50/20)
#   BENCH_BUDGET       seconds of timed runs per command and size, past which a slow command
#                      gets fewer runs (at least 5; default 15)
#   BENCH_DIR          where the inputs are written (default: target/bench)
#   BENCH_OUT          the report (default: BENCHMARKS.md)
#   BENCH_WORKLOADS    0 to leave out issue 20's workloads (scripts/bench_workloads.py: validate on
#                      JSON Lines, a long Claude Code session; inputs from ../shared/bench)
#   BENCH_WORKLOAD_SIZES   subset of "64MB 256MB 1GB" for them
#   SOURCEMETA_JSONSCHEMA  sourcemeta's `jsonschema` (npm @sourcemeta/jsonschema), when it is not
#                      the `jsonschema` on PATH
set -euo pipefail
cd "$(dirname "$0")/.."

command -v python3 >/dev/null || { echo "bench.sh: python3 is required" >&2; exit 1; }
if [[ "${1:-}" == --base ]]; then
    [[ -n "${2:-}" && $# -eq 2 ]] || { echo "usage: scripts/bench.sh [--base REV]" >&2; exit 2; }
    exec python3 scripts/bench_base.py "$2"
elif [[ $# -ne 0 ]]; then
    echo "usage: scripts/bench.sh [--base REV]" >&2
    exit 2
fi
if [[ -z "${SOJX:-}" ]]; then
    scripts/dist.sh >/dev/null
fi
if [[ -z "${SOJX_RELEASE+set}" ]]; then
    cargo build --release --locked --quiet
fi
for tool in jq jaq jsonschema-cli check-jsonschema hyperfine; do
    command -v "$tool" >/dev/null || echo "bench.sh: $tool is not installed; skipping it" >&2
done
exec python3 scripts/bench.py
