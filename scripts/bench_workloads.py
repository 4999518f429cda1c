"""The two workloads of issue 20, measured beside the Claude Code streams of bench.py:

- `validate` on JSON Lines: code-review verdicts from ../shared/bench/make-verdicts.py (200,000
  documents, 64 MB; also 256 MB and 1 GB for how the cost grows), validated against
  examples/verdict.schema.json, against sourcemeta's `jsonschema validate --fast`, `jaq -c .`
  and `jq -c .` (which only parse and print), on all cores and with `--jobs 1`;
- a long Claude Code session: ../shared/bench/make-big-stream.sh repeating the body of a real
  capture (mostly assistant events with text and tool calls) to 64 MB, 256 MB and 1 GB, read by
  `sojx extract` against jaq and jq selecting the answer.

Inputs are generated under BENCH_DIR at bench time and never committed. A tool that is not
installed is named in the report instead. Sourcemeta's CLI is found as $SOURCEMETA_JSONSCHEMA,
or as a `jsonschema` on PATH whose help names "JSON Schema CLI" (Python's `jsonschema` command
has the same name); install it with `npm install -g @sourcemeta/jsonschema`.
"""

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SCHEMA = ROOT / "examples/verdict.schema.json"
CAPTURE = SHARED / "corpus/claude-code/jonasthim__styr__internal__harness__claude__testdata__06_json_schema.jsonl"
JQ_FILTER = 'select(.type == "result") | .structured_output'
# Documents per verdicts file (make-verdicts.py writes about 318 bytes per document).
VERDICT_SIZES = {"64MB": 200_000, "256MB": 800_000, "1GB": 3_200_000}
SESSION_SIZES = {"64MB": 64, "256MB": 256, "1GB": 1024}
# Timed runs per size; the peers run only on the sizes in PEER_SIZES (the larger ones show how
# sojx's own cost grows).
RUNS = {"64MB": 10, "256MB": 5, "1GB": 3}
PEER_SIZES = ("64MB", "256MB")


@functools.cache
def sourcemeta():
    """The path of sourcemeta's `jsonschema`, or None."""
    env = os.environ.get("SOURCEMETA_JSONSCHEMA")
    if env:
        return env
    found = shutil.which("jsonschema")
    if not found:
        return None
    try:
        out = subprocess.run([found, "help"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found if "JSON Schema CLI" in out.stdout + out.stderr else None


def verdicts(work, size):
    path = work / f"verdicts-{size}.jsonl"
    if not path.exists():
        subprocess.run([sys.executable, str(SHARED / "bench/make-verdicts.py"), str(VERDICT_SIZES[size]), str(path)],
                       check=True)
    return path


def session(work, size):
    path = work / f"session-{size}.ndjson"
    if not path.exists():
        subprocess.run(["bash", str(SHARED / "bench/make-big-stream.sh"), str(CAPTURE), str(SESSION_SIZES[size]),
                        str(path)], check=True)
    return path


def validate_commands(sojx, release, inp, size):
    sch = str(SCHEMA)
    cmds = [("sojx validate", [sojx, "validate", "--schema", sch, str(inp)],
             "an envelope per document, on all cores"),
            ("sojx validate --jobs 1", [sojx, "validate", "--jobs", "1", "--schema", sch, str(inp)],
             "the same on one thread")]
    if release:
        cmds.append(("sojx validate (cargo build --release)", [release, "validate", "--schema", sch, str(inp)],
                     "the plain release build"))
    cmds.append(("sojx validate -q", [sojx, "validate", "-q", "--schema", sch, str(inp)],
                 "exit status and failures on stderr only"))
    skipped = []
    if size in PEER_SIZES:
        sm = sourcemeta()
        if sm:
            cmds.append(("sourcemeta jsonschema --fast", [sm, "validate", "--fast", "--continue", sch, str(inp)],
                         "validate every document, print the failures"))
        else:
            skipped.append("sourcemeta jsonschema")
        for tool in ["jaq", "jq"]:
            if shutil.which(tool):
                cmds.append((f"{tool} -c .", [tool, "-c", ".", str(inp)], "parse and print every document, no validation"))
            else:
                skipped.append(tool)
    return cmds, skipped


def session_commands(sojx, release, inp, size):
    cmds = [("sojx extract", [sojx, "extract", "--schema", str(SCHEMA), str(inp)], "extract + validate + envelope")]
    if release:
        cmds.append(("sojx extract (cargo build --release)", [release, "extract", "--schema", str(SCHEMA), str(inp)],
                     "the plain release build"))
    skipped = []
    if size in PEER_SIZES:
        for tool in ["jaq", "jq"]:
            if shutil.which(tool):
                cmds.append((tool, [tool, "-c", JQ_FILTER, str(inp)], "select the answer, no validation"))
            else:
                skipped.append(tool)
    # The floor (issue 60): reading the file and finding its lines, nothing parsed.
    if shutil.which("wc"):
        cmds.append(("wc -l", ["wc", "-l", str(inp)], "count the lines: the floor"))
    else:
        skipped.append("wc")
    return cmds, skipped


def table(title, note, cmds, timed, rss, mb, first):
    lines = [f"#### {title}", "", note, "",
             "| command | what it does | runs | wall median | CPU median | throughput (wall / CPU) | peer's time over sojx's (wall / CPU) | peak RSS |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    w0, c0 = timed[first]["median"], timed[first]["cpu"]
    for name, cmd, what in cmds:
        t = timed[name]
        ratio = "" if name == first else f"{t['median'] / w0:.1f}× / {t['cpu'] / c0:.1f}×"
        mem = f"{rss[name] / 1024:.1f} MiB" if name in rss else ""
        # The binary as the report's reader would run it (sojx's by its path in the project, so
        # that the release and the dist rows differ), the files by their names.
        def word(i, c):
            c = str(c)
            if i == 0:
                return os.path.relpath(c, ROOT) if os.path.abspath(c).startswith(str(ROOT)) else Path(c).name
            return Path(c).name if "/" in c else c
        shown = " ".join(word(i, c) for i, c in enumerate(cmd)).replace("|", "\\|")
        lines.append(f"| `{shown}` | {what} | "
                     f"{t['runs']} | {fmt(t['median'])} | {fmt(t['cpu'])} | {mb / t['median']:,.0f} / {mb / max(t['cpu'], 1e-9):,.0f} MB/s | {ratio} | {mem} |")
    return lines


def fmt(s):
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def run(sojx, release, work, time_all, peak_rss_kib):
    """The report's section for both workloads (Markdown lines)."""
    if not (SHARED / "bench").is_dir():
        return ["## Issue 20's workloads", "", "Not measured: ../shared/bench is not beside the project.", ""]
    sizes = [s for s in os.environ.get("BENCH_WORKLOAD_SIZES", "64MB 256MB 1GB").split() if s in RUNS]
    head = ["## Issue 20's workloads", "",
            "Generated at bench time under `target/bench/` (never committed). Every command's output goes "
            "to /dev/null; the runs of each size are interleaved as above. Peers run on "
            f"{' and '.join(PEER_SIZES)}; the larger sizes show how sojx's own cost grows."]
    sm = sourcemeta()
    if sm:
        v = subprocess.run([sm, "version"], capture_output=True, text=True).stdout.strip()
        head[-1] += f" sourcemeta's `jsonschema`: {v or '?'} (npm `@sourcemeta/jsonschema`)."
    head.append("")
    out = []
    summary = []
    skipped_all = set()
    for kind, make, commands in [("verdicts", verdicts, validate_commands), ("session", session, session_commands)]:
        for size in sizes:
            inp = make(work, size)
            mb = inp.stat().st_size / 1e6
            cmds, skipped = commands(sojx, release, inp, size)
            skipped_all.update(skipped)
            print(f"[{kind} {size}] timing {len(cmds)} commands", file=sys.stderr)
            timed = time_all([(n, c, None, RUNS[size]) for n, c, _ in cmds])
            rss = {n: peak_rss_kib(c, None) for n, c, _ in cmds}
            summary.append((kind, size, mb, timed, rss))
            title = (f"`validate` on {size} of JSON Lines ({mb:,.0f} MB, {VERDICT_SIZES[size]:,} verdicts, 1 in 1,000 invalid)"
                     if kind == "verdicts" else f"A long Claude Code session, {size} ({mb:,.0f} MB)")
            out += table(title, f"{RUNS[size]} runs of each command.", cmds, timed, rss, mb, cmds[0][0]) + [""]
    out = head + goals(summary) + [""] + out
    if skipped_all:
        out += [f"Not installed here, so not measured: {', '.join(sorted(skipped_all))}.", ""]
    out += ["check-jsonschema and jsonschema-cli take one instance per file, not JSON Lines, so they are "
            "not in the `validate` tables.", ""]
    return out


def goals(summary):
    """Issue 20's goals against this run."""
    by = {(k, s): (mb, t, r) for k, s, mb, t, r in summary}

    def met(ok):
        return "**met**" if ok else "**not met**"

    out = ["### Goals (issue 20)", ""]
    if ("verdicts", "64MB") in by:
        mb, t, rss = by[("verdicts", "64MB")]
        w = t["sojx validate"]["median"]
        for peer, goal in [("sourcemeta jsonschema --fast", 10), ("jaq -c .", 3)]:
            if peer in t:
                r = t[peer]["median"] / w
                out.append(f"- `sojx validate` ≥ {goal}× {peer} on 64 MB of verdicts: {r:.1f}× — {met(r >= goal)}.")
        flat = [f"{rss[n] / 1024:.1f} MiB at {s}" for (k, s), (_, _, rss) in by.items() if k == "verdicts"
                for n in ["sojx validate"] if n in rss]
        out.append(f"- `sojx validate`'s peak RSS flat with the input's size: {', '.join(flat)}.")
    if ("session", "256MB") in by:
        mb, t, rss = by[("session", "256MB")]
        name = "sojx extract (cargo build --release)" if "sojx extract (cargo build --release)" in t else "sojx extract"
        w = t[name]["median"]
        out.append(f"- Long session, `{name}`: ≥ 1.5 GB/s on 256 MB: {mb / w / 1000:.2f} GB/s — {met(mb / w >= 1500)}.")
        if "jaq" in t:
            r = t["jaq"]["median"] / w
            out.append(f"- Long session, ≥ 10× jaq: {r:.1f}× — {met(r >= 10)}.")
        if "wc -l" in t:
            r = w / t["wc -l"]["median"]
            out.append(f"- Long session, `{name}` ≤ 2× `wc -l` on 256 MB (issue 60): {r:.1f}× — {met(r <= 2)}.")
        heads = [f"{rss[n] / 1024:.1f} MiB at {s}" for (k, s), (_, _, rss) in by.items() if k == "session"
                 for n in [name] if n in rss]
        out.append(f"- Long session, peak RSS ≤ 16 MiB + the longest line: {', '.join(heads)}.")
    return out
