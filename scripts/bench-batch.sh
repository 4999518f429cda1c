#!/usr/bin/env bash
# Batch speed-up of `sojx extract` over 1,000 files: one core (taskset -c 0) against two
# (taskset -c 0,1). Two workloads made from tests/fixtures/claude-code/*.ndjson in a temp dir:
#   small: the fixtures as they are (about 4 KB each);
#   large: each fixture's event lines repeated 20 times before its result line (about 26 KB).
# Usage: scripts/bench-batch.sh [RUNS]   (needs a release build: cargo build --release; or
# SOJX=path/to/sojx)
# Prints the minimum and median wall time of RUNS interleaved runs for each core count.
# On a machine shared with other work, the scheduler's per-session fairness caps sojx at its
# share of the CPU whatever its thread count; measure on an otherwise idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SOJX:-$root/target/release/sojx}
runs=${1:-11}
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixtures=("$root"/tests/fixtures/claude-code/*.ndjson)
mkdir "$tmp/small" "$tmp/large"
for i in $(seq 0 999); do
  f=${fixtures[$((i % ${#fixtures[@]}))]}
  name=$(printf 'run-%04d.ndjson' "$i")
  cp "$f" "$tmp/small/$name"
  body=$(sed '$d' "$f")
  { for _ in $(seq 20); do printf '%s\n' "$body"; done; tail -n 1 "$f"; } > "$tmp/large/$name"
done
for w in small large; do
  cd "$tmp/$w"
  for _ in $(seq "$runs"); do
    for cpus in 0 0,1; do
      s=$(date +%s%N)
      taskset -c "$cpus" "$bin" extract --schema "$root/examples/verdict.schema.json" run-*.ndjson >/dev/null 2>&1 || true
      e=$(date +%s%N)
      echo "$cpus $(((e - s) / 1000))"
    done
  done | sort -k1,1 -k2n | awk -v w="$w" '
    { t[$1] = t[$1] " " $2; n[$1]++ }
    END { for (c in t) { split(substr(t[c], 2), a, " ");
      printf "%s cpus=%s runs=%d min=%.1fms median=%.1fms\n", w, c, n[c], a[1] / 1000, a[int((n[c] + 1) / 2)] / 1000 } }'
done
