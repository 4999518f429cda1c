#!/bin/sh
# Seed the fuzz corpora (fuzz/corpus/<target>/, gitignored) from the project's own fixtures:
# tests/fixtures/**, examples/*, and, when present, the shared capture corpus (../shared/corpus).
# Targets whose first byte is a selector (`producers`: which --from; `extract`: which schema,
# --strict, --repair) get each file once per selector. Safe to re-run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
corpus="$here/corpus"

files() {
    find "$root/tests/fixtures" "$root/examples" -type f
    if [ -d "$root/../shared/corpus" ]; then
        find "$root/../shared/corpus" -type f -size -256k ! -name 'EXPECTED.json'
    fi
}

# put TARGET NAME [SELECTOR-BYTE-IN-OCTAL] < content
put() {
    mkdir -p "$corpus/$1"
    if [ $# -ge 3 ]; then
        { printf "\\$3"; cat; } > "$corpus/$1/$2-$3"
    else
        cat > "$corpus/$1/$2"
    fi
}

n=0
for f in $(files); do
    n=$((n + 1))
    name="seed$n-$(basename "$f")"
    for t in framing text_mine repair; do put "$t" "$name" < "$f"; done
    # producers: selector % 22 is the --from producer (claude-code .. text; see Producer::ALL).
    for s in 000 001 002 006 007 010 011 012 013 014 015; do put producers "$name" "$s" < "$f"; done
    # extract: selector % 4 picks no schema or one of three; 0100 adds --repair, 0200 --strict.
    for s in 000 001 002 003 100 200; do put extract "$name" "$s" < "$f"; done
    # fastpath: 0100 adds --repair, 0200 --strict.
    for s in 000 100; do put fastpath "$name" "$s" < "$f"; done
done

# A few hand-written texts for the JSON-from-text and repair targets.
printf 'Here you go:\n```json\n{"verdict": "pass", "n": 1}\n```\nthanks' | put text_mine fence
printf 'Result: {"a": [1, 2, {"b": "}"}]} and [3, 4]' | put text_mine embedded
printf '{"verdict": "pass", "items": [1, 2,' | put repair cut-off
printf 'Sure! {"a": 1, "b": [true, false,],}' | put repair trailing-comma
printf '{"s": "unterminated \\u12' | put repair cut-escape
printf 'data: {"a":\ndata: 1}\n\nevent: ping\n: comment\ndata: [DONE]\n' | put framing sse

# producer_file: each producer file (0 TOML, 1 JSON), then NUL and an input of its producer.
for f in "$root"/producers/*.toml "$root"/examples/producer-file/*.toml; do
    id=$(basename "$f" .toml)
    input=$(find "$root/tests/fixtures/producers/$id" "$root/examples/producer-file" -type f ! -name '*.toml' 2>/dev/null | head -1)
    { cat "$f"; printf '\000'; [ -n "$input" ] && cat "$input"; } | put producer_file "file-$id" 000
done
echo "seeded $n files into $corpus"
