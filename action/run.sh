#!/usr/bin/env bash
# The run step of action.yml: `sojx extract` (or `sojx run`) with the action's inputs, once; the
# envelope's answer, exit code and error kind go to $GITHUB_OUTPUT. With `summary`, that same
# run prints the annotations and writes the job summary (--output-format github) while
# --envelope-file keeps its JSON envelope: what the summary says is what the outputs say.
set -o pipefail

args=()
[ -n "${INPUT_SCHEMA:-}" ] && args+=(--schema "$INPUT_SCHEMA")
# The extra arguments, split with shell quoting by xargs: no variable, command or glob
# expansion, so a value from the event (a PR title) cannot run anything. (A quoted argument
# cannot hold a newline.)
tmp=${RUNNER_TEMP:-/tmp}
extra=()
if [ -n "${INPUT_ARGS//[[:space:]]/}" ]; then
  if ! printf '%s' "$INPUT_ARGS" | xargs printf '%s\0' > "$tmp/sojx-args"; then
    echo "::error::sojx: the input 'args' cannot be split (an unmatched quote?)"
    exit 3
  fi
  # `read -d ''` rather than mapfile: macOS runs bash 3.2 too.
  while IFS= read -r -d '' a; do extra+=("$a"); done < "$tmp/sojx-args"
fi

envelope="$tmp/sojx-envelope.json"
rm -f "$envelope"
args+=(--envelope-file "$envelope")
# An output format given in 'args' (before `--`) is the user's: not given twice.
own_format=false
own_dashes=false
for a in "${extra[@]}"; do
  [ "$a" = -- ] && { own_dashes=true; break; }
  case "$a" in --output-format | --output-format=* | -q | --quiet) own_format=true ;; esac
done
if [ "${INPUT_SUMMARY:-true}" = true ]; then
  # Its stdout is workflow commands (the annotations), for the runner to read.
  [ "$own_format" = true ] || args+=(--output-format github)
  out=/dev/stdout
else
  # The envelope is printed from its file below.
  out=/dev/null
fi
case "${INPUT_COMMAND:-extract}" in
  extract)
    [ -n "${INPUT_INPUT:-}" ] || { echo "::error::sojx: the input 'input' names no file"; exit 3; }
    # The file after `--`: a name that starts with `-` (`--tee=~/.bashrc`) is a file to read,
    # never an option. (`args` that end their options with `--` already have one.)
    dashes=(--)
    [ "$own_dashes" = true ] && dashes=()
    sojx extract "${args[@]}" "${extra[@]}" "${dashes[@]}" "$INPUT_INPUT" > "$out"
    status=$?
    ;;
  run)
    sojx run "${args[@]}" "${extra[@]}" > "$out"
    status=$?
    ;;
  *)
    echo "::error::sojx: command must be extract or run, not '$INPUT_COMMAND'"
    exit 3
    ;;
esac

field() { jq -c "$1" "$envelope" 2>/dev/null || true; }
if [ -s "$envelope" ]; then
  kind=$(jq -r '.error.kind // empty' "$envelope" 2>/dev/null || true)
  cat "$envelope"
else
  # Arguments sojx refused (a misspelt flag in 'args') are told, on stderr and as an
  # annotation, before any envelope file is opened.
  kind=$([ "$status" = 3 ] && echo usage || true)
fi
{
  echo "exit-code=$status"
  echo "error-kind=$kind"
  # An answer of `false` or `null` is an answer: only a missing `data` is empty.
  echo "data=$(field 'if has("data") then .data else empty end')"
  echo "envelope=$(field .)"
} >> "${GITHUB_OUTPUT:?}"

if [ "${INPUT_FAIL:-true}" = true ]; then
  exit "$status"
fi
exit 0
