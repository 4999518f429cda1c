#!/usr/bin/env bash
# The real agent CLIs as they fail in the field (issue 27): no credentials, no network, an
# untrusted folder, an unknown session. Installs Claude Code, Codex and Gemini CLI from npm into
# a temporary prefix (about 740 MB; never in CI), runs every case through `sojx run`, and prints
# a table: the case, sojx's exit status, the error kind, retryable, the seconds it took, and the
# agent processes left behind (none is the goal).
#
#   scripts/real-agents.sh                  # install, run the cases, print the table
#   scripts/real-agents.sh --record DIR     # also record what each CLI prints on its own
#                                           # (stdout, stderr, status) under DIR
#
# Environment:
#   SOJX                 the binary (default: target/release/sojx, built here)
#   SOJX_AGENTS_PREFIX   an npm prefix that already holds the three CLIs (skips the install)
#   CASE_TIMEOUT         --timeout for the cases that never end by themselves (default 15s)
#
# Each case runs with an empty environment (PATH only), a fresh HOME and a fresh working
# directory (not a git repository, not trusted by Gemini CLI), so no login or setting of this
# machine leaks in.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

record=""
if [[ "${1:-}" == "--record" ]]; then
    record=$(realpath -m "${2:?--record needs a directory}")
    mkdir -p "$record"
fi

if [[ -z "${SOJX:-}" ]]; then
    cargo build --release --locked --quiet
    SOJX=$root/target/release/sojx
fi
timeout_arg=${CASE_TIMEOUT:-15s}
kill_after=2s

prefix=${SOJX_AGENTS_PREFIX:-}
if [[ -z "$prefix" ]]; then
    prefix=$(mktemp -d)
    trap 'rm -rf "$prefix"' EXIT
    echo "installing the agent CLIs into $prefix ..." >&2
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
        @anthropic-ai/claude-code @openai/codex @google/gemini-cli >&2
fi
bin=$prefix/node_modules/.bin
version() { "$bin/$1" --version 2>/dev/null | head -1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1; }
declare -A versions=([claude]=$(version claude) [codex]=$(version codex) [gemini]=$(version gemini))
for cli in claude codex gemini; do
    [[ -n "${versions[$cli]}" ]] || { echo "real-agents.sh: $bin/$cli --version names no version" >&2; exit 1; }
done

# name | environment (space-separated K=V) | stdin (null or open) | argv
cases=(
    "not-logged-in||null|claude -p Say_hi --output-format stream-json --verbose"
    "api-retry-offline|ANTHROPIC_API_KEY=sk-ant-offline|null|claude -p Say_hi --output-format stream-json --verbose"
    "untrusted-dir||null|codex exec --json Say_hi"
    "offline|OPENAI_API_KEY=sk-offline|null|codex exec --json --skip-git-repo-check Say_hi"
    "stdin-never-closes|OPENAI_API_KEY=sk-offline|open|codex exec --json --skip-git-repo-check Say_hi"
    "no-auth||null|gemini -p Say_hi -o stream-json"
    "untrusted-dir|GEMINI_API_KEY=offline|null|gemini -p Say_hi -o stream-json"
    "offline|GEMINI_API_KEY=offline|null|gemini -p Say_hi -o stream-json --skip-trust"
    "resume-unknown|GEMINI_API_KEY=offline|null|gemini --resume 0f5e3c1a-1111-4222-8333-944445555666 -p Say_hi -o stream-json --skip-trust"
)

# Run "$@" in a fresh HOME and directory with only PATH and the case's variables; stdin from
# /dev/null, or a pipe that never closes.
in_sandbox() {
    local envs=$1 stdin=$2
    shift 2
    local home work
    home=$(mktemp -d) work=$(mktemp -d)
    local -a vars=("PATH=$bin:/usr/local/bin:/usr/bin:/bin" "HOME=$home")
    if [[ -n "$envs" ]]; then
        local -a extra
        read -r -a extra <<<"$envs"
        vars+=("${extra[@]}")
    fi
    local status=0
    if [[ "$stdin" == open ]]; then
        # A writer that never closes: a FIFO held open by this shell, not by a process.
        local fifo=$work/.stdin
        mkfifo "$fifo"
        exec {held}<>"$fifo"
        (cd "$work" && env -i "${vars[@]}" "$@" <"$fifo") || status=$?
        exec {held}>&-
    else
        (cd "$work" && env -i "${vars[@]}" "$@" </dev/null) || status=$?
    fi
    rm -rf "$home" "$work"
    return "$status"
}

printf '| case | sojx exit | error kind | retryable | seconds | processes left |\n'
printf '| --- | ---: | --- | --- | ---: | ---: |\n'
for c in "${cases[@]}"; do
    IFS='|' read -r name envs stdin argv <<<"$c"
    read -r -a argv_fixed <<<"$argv"
    for i in "${!argv_fixed[@]}"; do
        if [[ ${argv_fixed[$i]} == Say_hi ]]; then argv_fixed[i]="Say hi"; fi
    done
    cli=${argv_fixed[0]}
    label="$cli ${versions[$cli]}: $name"
    if [[ -n "$record" ]]; then
        base="$record/$cli-${versions[$cli]}-$name"
        status=0
        in_sandbox "$envs" "$stdin" timeout -s TERM -k 2 "${timeout_arg%s}" "$bin/$cli" "${argv_fixed[@]:1}" \
            >"$base.stdout" 2>"$base.stderr" || status=$?
        # 124 (TERM) or 137 (KILL): still going when the recording stopped it.
        case $status in
        124 | 137) echo running >"$base.status" ;;
        *) echo "$status" >"$base.status" ;;
        esac
    fi
    out=$(mktemp)
    start=$(date +%s.%N)
    code=0
    in_sandbox "$envs" "$stdin" "$SOJX" run --timeout "$timeout_arg" --kill-after "$kill_after" \
        -- "$bin/$cli" "${argv_fixed[@]:1}" >"$out" 2>/dev/null || code=$?
    took=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
    sleep 1
    left=$(pgrep -f "$prefix/node_modules" | wc -l || true)
    read -r kind retryable < <(python3 -c '
import json, sys
try:
    e = json.load(open(sys.argv[1])).get("error") or {}
except ValueError:
    e = {"kind": "(no envelope)"}
print(e.get("kind", "-"), str(e.get("retryable", "-")).lower())' "$out") || { kind=-; retryable=-; }
    printf '| %s | %s | %s | %s | %s | %s |\n' "$label" "$code" "$kind" "$retryable" "$took" "$left"
    pkill -f "$prefix/node_modules" 2>/dev/null || true
    rm -f "$out"
done
