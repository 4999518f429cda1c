#!/usr/bin/env python3
"""What a change costs: sojx at a given commit against the working tree, in paired runs.

Run it via `scripts/bench.sh --base REV`. Both binaries are built the same way, with the release
profile's settings forced to what the release archives use (fat LTO, one codegen unit; change
them with BENCH_LTO and BENCH_CGU), so that the comparison does not depend on what either
commit's Cargo.toml says. The base is REV's tree (`git archive`, under target/bench-pair/src);
the head is the working tree, uncommitted changes included. Each has a target directory of
its own (target/bench-pair/base and head): cargo names a path package's units without its path,
so two trees of sojx in one target directory would share a build script's output, and the head
would be linked with the base's order file.

Each workload runs the two binaries in pairs, alternating which goes first (`A B`, `B A`, ...),
after one warm-up run of each. A pair's ratio is head over base; the report gives the median
of the ratios with its 95% confidence interval (distribution-free: the order statistics a sign
test puts around the median), for wall time and for CPU time (user + system, of the process
and its children, from wait4), and each side's median and peak RSS (GNU time, one run). Before timing, both are run
once and their outputs compared (envelopes with the timestamp removed): a change in output is
reported, not refused, since a change may mean to make one.

Environment: BENCH_PAIRS_SCALE scales every workload's pairs (default 1; 0.2 for a quick look),
BENCH_WORKLOADS_ONLY a space-separated subset of the workload ids, BENCH_DIR where the inputs
are written (default target/bench); BENCH_BASE_BIN and BENCH_HEAD_BIN compare two binaries
already built instead (REV then only names the base in the report), e.g. two profiles' builds.
"""

import json
import math
import os
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (its inputs: the Claude Code streams)
import bench_workloads  # noqa: E402  (its inputs: the verdicts and the long session)

ROOT = bench.ROOT
SCHEMA = str(bench.SCHEMA)
PAIR = ROOT / "target/bench-pair"


def sh(*args, **kw):
    return subprocess.run(args, check=True, **kw)


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def build(src, name, side):
    """Builds the sojx binary of the tree at `src` in target/bench-pair/SIDE and copies it to
    target/bench-pair/bin/NAME."""
    env = dict(os.environ,
               CARGO_TARGET_DIR=str(PAIR / side),
               CARGO_PROFILE_RELEASE_LTO=os.environ.get("BENCH_LTO", "fat"),
               CARGO_PROFILE_RELEASE_CODEGEN_UNITS=os.environ.get("BENCH_CGU", "1"))
    print(f"bench_base: building {name} from {src}", file=sys.stderr)
    sh("cargo", "build", "--release", "--locked", "--bin", "sojx", cwd=src, env=env)
    out = PAIR / "bin" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_bytes((PAIR / side / "release/sojx").read_bytes())
    tmp.chmod(0o755)
    tmp.replace(out)
    return str(out)


def base_tree(rev):
    """REV's tree, unpacked once under target/bench-pair/src/SHA."""
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    dest = PAIR / "src" / sha
    if not (dest / "Cargo.toml").is_file():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", sha], check=True,
                                 capture_output=True).stdout
        tmp = dest.with_suffix(".tar")
        tmp.write_bytes(archive)
        with tarfile.open(tmp) as t:
            t.extractall(dest, filter="data")
        tmp.unlink()
        # A commit from before the workspace would take this project's Cargo.toml, above it,
        # for its workspace: make it a root of its own.
        manifest = dest / "Cargo.toml"
        text = manifest.read_text()
        if "\n[workspace]" not in "\n" + text:
            manifest.write_text(text + "\n[workspace]\n")
    return sha, dest


def run(argv):
    """Wall and CPU seconds of one run (of the process and the children it waited for, from
    wait4), its output discarded."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = 0  # reaped by wait4, not by Popen
    return wall, ru.ru_utime + ru.ru_stime


def output(argv):
    """The run's output, each envelope without what differs between any two runs: its timestamp,
    and under `run` the agent's pid and duration."""
    p = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL)
    lines = []
    for line in p.stdout.splitlines():
        try:
            v = json.loads(line)
            if isinstance(v, dict):
                v.pop("timestamp", None)
                if isinstance(v.get("agent"), dict):
                    v["agent"].pop("pid", None)
                    v["agent"].pop("duration_ms", None)
            lines.append(json.dumps(v, sort_keys=True))
        except ValueError:
            lines.append(line.decode("utf-8", "replace"))
    return p.returncode, lines


def workloads(work):
    """(id, title, argv with {sojx} for the binary, pairs)."""
    work.mkdir(parents=True, exist_ok=True)
    fill, _ = bench.filler()
    small = work / "claude-80KB.ndjson"
    bench.build(small, bench.SIZES["80KB"], fill)
    large = work / "claude-256MB.ndjson"
    if not large.exists():
        bench.build(large, bench.SIZES["256MB"], fill)
    ws = [("80KB", "80 KB stream, `extract --schema`", ["{sojx}", "extract", "--schema", SCHEMA, str(small)], 301),
          ("run-80KB", "80 KB stream, `run --schema … -- cat`",
           ["{sojx}", "run", "--schema", SCHEMA, "--", "cat", str(small)], 151),
          ("256MB", "256 MB stream, `extract --schema`", ["{sojx}", "extract", "--schema", SCHEMA, str(large)], 15)]
    if (bench_workloads.SHARED / "bench").is_dir():
        session = bench_workloads.session(work, "256MB")
        verdicts = bench_workloads.verdicts(work, "64MB")
        ws += [("session", "272 MB long Claude Code session, `extract --schema`",
                ["{sojx}", "extract", "--schema", SCHEMA, str(session)], 15),
               ("validate", "`validate`, 200,000 JSON Lines (64 MB)",
                ["{sojx}", "validate", "--schema", SCHEMA, str(verdicts)], 11)]
    else:
        print("bench_base: ../shared/bench is not beside the project; the long session and validate are left out",
              file=sys.stderr)
    only = os.environ.get("BENCH_WORKLOADS_ONLY", "").split()
    return [w for w in ws if not only or w[0] in only]


def median_ci(ratios):
    """The median of the ratios and its 95% interval from the order statistics (sign test)."""
    r = sorted(ratios)
    n = len(r)
    # The largest k with P(Binomial(n, 1/2) < k) <= 2.5%.
    k, cum = 0, 0.0
    while True:
        p = math.comb(n, k) / 2 ** n
        if cum + p > 0.025:
            break
        cum += p
        k += 1
    lo, hi = (r[k - 1], r[n - k]) if k >= 1 else (r[0], r[-1])
    return statistics.median(r), lo, hi


def order_names(binary, tree):
    """How many of the names in TREE's scripts/sojx.order the binary defines (`nm`), as "N of M",
    or "?" without nm or the list: a list that no longer matches the code costs a short run its
    layout."""
    try:
        names = set((tree / "scripts/sojx.order").read_text().split())
    except OSError:
        return "?"
    try:
        out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return f"{len(names & {line.split()[-1] for line in out.splitlines() if line.strip()})} of {len(names)}"


def mib(m):
    return f"{m:.1f} MiB"


def fmt_s(s):
    return f"{s * 1000:.2f} ms" if s < 1 else f"{s:.3f} s"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/bench.sh --base REV")
    rev = sys.argv[1]
    base_bin, head_bin = os.environ.get("BENCH_BASE_BIN"), os.environ.get("BENCH_HEAD_BIN")
    src = None
    if base_bin:
        sha = rev
    else:
        sha, src = base_tree(rev)
        base_bin = build(src, f"sojx-{sha[:12]}", "base")
    if head_bin:
        head_name = head_bin
    else:
        head_sha = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no") != ""
        head_name = f"{head_sha}{' + uncommitted changes' if dirty else ''}"
        head_bin = build(ROOT, "sojx-head", "head")
    scale = float(os.environ.get("BENCH_PAIRS_SCALE", "1"))
    work = Path(os.environ.get("BENCH_DIR", ROOT / "target/bench"))
    rows = []
    for wid, title, argv, pairs in workloads(work):
        pairs = max(5, round(pairs * scale)) | 1
        a = [x.replace("{sojx}", base_bin) for x in argv]
        b = [x.replace("{sojx}", head_bin) for x in argv]
        same = output(a) == output(b)
        print(f"bench_base: {title}: {pairs} pairs{'' if same else ' (the outputs differ)'}", file=sys.stderr)
        run(a), run(b)
        side = {0: [], 1: []}
        for i in range(pairs):
            for k in ((0, 1) if i % 2 == 0 else (1, 0)):
                side[k].append(run((a, b)[k]))
        wall = median_ci([side[1][i][0] / side[0][i][0] for i in range(pairs)])
        cpu = median_ci([side[1][i][1] / side[0][i][1] for i in range(pairs)])
        med = {k: (statistics.median(x[0] for x in side[k]), statistics.median(x[1] for x in side[k]),
                   bench.peak_rss_kib((a, b)[k], None) / 1024) for k in side}
        rows.append((title, pairs, med, wall, cpu, same))
    lto, cgu = os.environ.get("BENCH_LTO", "fat"), os.environ.get("BENCH_CGU", "1")
    how = ("the binaries given" if os.environ.get("BENCH_BASE_BIN") or os.environ.get("BENCH_HEAD_BIN")
           else f"both `cargo build --release` with lto={lto}, codegen-units={cgu}")
    print(f"\nhead `{head_name}` against base `{sha[:12]}` ({rev}); {how}; "
          f"load average {os.getloadavg()[0]:.2f} at the end. Names of scripts/sojx.order in the "
          f"binary: base {order_names(base_bin, src) if src else '?'}, head {order_names(head_bin, ROOT)}.\n")
    print("| workload | pairs | base wall / CPU | head wall / CPU | head/base wall (95% CI) | head/base CPU (95% CI) "
          "| peak RSS base → head | output |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for title, pairs, med, wall, cpu, same in rows:
        print(f"| {title} | {pairs} | {fmt_s(med[0][0])} / {fmt_s(med[0][1])} | {fmt_s(med[1][0])} / {fmt_s(med[1][1])} "
              f"| {wall[0]:.3f} ({wall[1]:.3f}–{wall[2]:.3f}) | {cpu[0]:.3f} ({cpu[1]:.3f}–{cpu[2]:.3f}) "
              f"| {mib(med[0][2])} → {mib(med[1][2])} | {'same' if same else '**differs**'} |")


if __name__ == "__main__":
    main()
