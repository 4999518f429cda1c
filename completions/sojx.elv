
use builtin;
use str;

set edit:completion:arg-completer[sojx] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'sojx'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'sojx'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand extract 'Extract, validate and print an envelope per input (the main job)'
            cand run 'Run an agent, extract and validate its answer from its output, and say how it ended'
            cand validate 'Validate plain JSON documents, or JSON Lines (one document per line), against a schema'
            cand compare 'Report contradictions between sibling outputs (same key, different field value)'
            cand lint 'Check that a schema is valid and that a provider''s structured output accepts it'
            cand compile 'Print a schema lowered for a provider''s structured-output feature'
            cand producers 'List the producers sojx reads, or check a producer file against inputs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'sojx;extract'= {
            cand -s 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped'
            cand --schema 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped'
            cand --draft 'Force the schema''s draft instead of reading `$schema` (default 2020-12)'
            cand --resource 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory'
            cand --provider 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema''s (a wrapped root unwrapped, a null that means "not given" removed, a map''s entries made an object), then validated'
            cand --compat 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)'
            cand --from 'Which producer wrote the input; `auto` detects it from the content. A producer file''s id (--producer-file, the config folder) is one too'
            cand --producer-file 'Also read the producer FILE describes (a producer file, TOML or JSON: docs/producer-files.md), beside sojx''s own and those of `$XDG_CONFIG_HOME/sojx/producers/` (repeatable). Its producer is detected first'
            cand --handoff 'With --markers: add this legacy escalation file''s content (JSON if it parses, else its text) to the marker data as `escalation`. A regular file of at most 64 MiB'
            cand --assert 'A semantic check in jq syntax, evaluated on `data` after schema validation (repeatable). It passes when it yields at least one value and none is false or null; otherwise the input fails with `assertion_failed`'
            cand --output-format '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations'
            cand --color 'When to use colors on stderr and in `--output-format text`'
            cand --timeout 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2'
            cand --tee 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes'
            cand --envelope-file 'Also write each envelope to FILE as one line of JSON (created or truncated), whatever stdout shows: `--output-format github` for the annotations and the JSON for the next step, from one run. `-` is refused'
            cand --max-line-bytes 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in'
            cand --max-candidates 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure'
            cand --max-answer-bytes 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory'
            cand --ignore-formats 'Do not check the `format` keyword (it is checked by default)'
            cand --strict 'Accept only a value that is exactly one JSON document: no code fences, no JSON dug out of prose, no repair'
            cand --repair 'Read answers as models write them: comments, raw newlines in strings, single quotes, bare keys, Python''s True/False/None, trailing commas, a stray prefix or suffix; a cut-off answer keeps only its complete members (the cut one is dropped, never completed). Only where the reading is unambiguous; every change is listed in `source.repairs`'
            cand --coerce 'Convert a string where the schema asks for a boolean or a number, and that is exactly one (`"true"`, `"3"`), before validation; each conversion is listed in `source.coercions`'
            cand --activity 'Print one line per event on stderr as it arrives: tool calls, text, retries, errors, the final cost and turns'
            cand --markers 'Legacy fallback: when the run holds no structured output, read `[EVENT:level[:service]] message` and `[MEMORY:category[:service]] observation` lines of the final answer text into `{events, memories}` (`source.kind: markers`)'
            cand --pretty 'Pretty-print the envelope (the default when stdout is a terminal)'
            cand -r 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand --raw 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand -q 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --quiet 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sojx;run'= {
            cand -s 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped'
            cand --schema 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped'
            cand --draft 'Force the schema''s draft instead of reading `$schema` (default 2020-12)'
            cand --resource 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory'
            cand --provider 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema''s (a wrapped root unwrapped, a null that means "not given" removed, a map''s entries made an object), then validated'
            cand --compat 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)'
            cand --from 'Which producer wrote the input; `auto` detects it from the content. A producer file''s id (--producer-file, the config folder) is one too'
            cand --producer-file 'Also read the producer FILE describes (a producer file, TOML or JSON: docs/producer-files.md), beside sojx''s own and those of `$XDG_CONFIG_HOME/sojx/producers/` (repeatable). Its producer is detected first'
            cand --handoff 'With --markers: add this legacy escalation file''s content (JSON if it parses, else its text) to the marker data as `escalation`. A regular file of at most 64 MiB'
            cand --assert 'A semantic check in jq syntax, evaluated on `data` after schema validation (repeatable). It passes when it yields at least one value and none is false or null; otherwise the input fails with `assertion_failed`'
            cand --output-format '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations'
            cand --color 'When to use colors on stderr and in `--output-format text`'
            cand --timeout 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2'
            cand --tee 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes'
            cand --envelope-file 'Also write each envelope to FILE as one line of JSON (created or truncated), whatever stdout shows: `--output-format github` for the annotations and the JSON for the next step, from one run. `-` is refused'
            cand --kill-after 'How long the agent''s process group has after SIGTERM (sent when --timeout passes, or the signal sojx forwards) before SIGKILL: seconds or with a unit, as --timeout'
            cand --max-line-bytes 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in'
            cand --max-candidates 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure'
            cand --max-answer-bytes 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory'
            cand --max-attempts 'Attempts in all (1: no retry). An attempt whose answer is missing or invalid (not_found, json_invalid, validation_failed, assertion_failed) is tried again with what was wrong fed back to the agent'
            cand --retry-on 'Also retry these failures (comma-separated). A failure the producer marks as not retryable (authentication, billing, permission) never is'
            cand --resume-profile 'Resume the agent''s session this way with the feedback as the prompt, or `none` to run COMMAND again; a producer file''s id uses its `[resume]`. Default: chosen by COMMAND''s file name and confirmed by the producer'
            cand --retry-command 'The argv of every retry, split like a shell line once; {session_id}, {feedback}, {feedback_file}, {attempt}, {schema_file} and {previous_output_file} are replaced in each argument (never through a shell). Wins over a resume profile'
            cand --feedback-template 'The feedback text, with {errors}, {candidate} and {schema} replaced; `@FILE` reads it'
            cand --prompt 'The prompt of an ACP run (else --prompt-file, else sojx''s stdin)'
            cand --prompt-file 'Read the prompt of an ACP run from FILE'
            cand --acp-permissions 'How sojx answers the ACP agent''s permission requests [default: deny]: deny, allow-once (this tool call, never "always"), allow'
            cand --ignore-formats 'Do not check the `format` keyword (it is checked by default)'
            cand --strict 'Accept only a value that is exactly one JSON document: no code fences, no JSON dug out of prose, no repair'
            cand --repair 'Read answers as models write them: comments, raw newlines in strings, single quotes, bare keys, Python''s True/False/None, trailing commas, a stray prefix or suffix; a cut-off answer keeps only its complete members (the cut one is dropped, never completed). Only where the reading is unambiguous; every change is listed in `source.repairs`'
            cand --coerce 'Convert a string where the schema asks for a boolean or a number, and that is exactly one (`"true"`, `"3"`), before validation; each conversion is listed in `source.coercions`'
            cand --activity 'Print one line per event on stderr as it arrives: tool calls, text, retries, errors, the final cost and turns'
            cand --markers 'Legacy fallback: when the run holds no structured output, read `[EVENT:level[:service]] message` and `[MEMORY:category[:service]] observation` lines of the final answer text into `{events, memories}` (`source.kind: markers`)'
            cand --pretty 'Pretty-print the envelope (the default when stdout is a terminal)'
            cand -r 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand --raw 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand -q 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --quiet 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --no-agent-schema 'Do not give COMMAND''s agent the schema (with --schema, sojx adds Claude Code''s and Qwen Code''s --json-schema and Codex''s --output-schema, lowered for it): the answer is checked by sojx alone, and lifted only as --provider says'
            cand --acp 'Drive COMMAND as an ACP agent (Agent Client Protocol: JSON-RPC on its stdin and stdout; `gemini --acp`, `qwen --acp`, `opencode acp`): sojx sends the prompt, reads the answer of the turn, and retries in the same session'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sojx;validate'= {
            cand -s 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped'
            cand --schema 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped'
            cand --draft 'Force the schema''s draft instead of reading `$schema` (default 2020-12)'
            cand --resource 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory'
            cand --provider 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema''s (a wrapped root unwrapped, a null that means "not given" removed, a map''s entries made an object), then validated'
            cand --compat 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)'
            cand --output-format '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations'
            cand --color 'When to use colors on stderr and in `--output-format text`'
            cand --timeout 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2'
            cand --tee 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes'
            cand --max-line-bytes 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in'
            cand -j 'Validate on N threads (default: one per core). Used for a regular file of 1 MiB or more; the envelopes keep the input''s order either way'
            cand --jobs 'Validate on N threads (default: one per core). Used for a regular file of 1 MiB or more; the envelopes keep the input''s order either way'
            cand --ignore-formats 'Do not check the `format` keyword (it is checked by default)'
            cand --pretty 'Pretty-print the envelope (the default when stdout is a terminal)'
            cand -r 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand --raw 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand -q 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --quiet 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sojx;compare'= {
            cand --items 'jq expression yielding the items to compare from each input''s `data`, e.g. `.findings[]`'
            cand --key 'jq expression yielding an item''s identity, e.g. `[.file, .line]`'
            cand --field 'jq expression yielding the value that must agree between items with the same key, e.g. `.severity`'
            cand --from 'Which producer wrote the runs; `auto` detects it from the content. A producer file''s id (--producer-file, the config folder) is one too'
            cand --producer-file 'As for `sojx extract`: also read the producer FILE describes (repeatable)'
            cand -s 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped'
            cand --schema 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped'
            cand --draft 'Force the schema''s draft instead of reading `$schema` (default 2020-12)'
            cand --resource 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory'
            cand --provider 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema''s (a wrapped root unwrapped, a null that means "not given" removed, a map''s entries made an object), then validated'
            cand --compat 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)'
            cand --output-format '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations'
            cand --color 'When to use colors on stderr and in `--output-format text`'
            cand --max-line-bytes 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in'
            cand --max-candidates 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure'
            cand --max-answer-bytes 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory'
            cand --strict 'As for `sojx extract`: only a value that is exactly one JSON document'
            cand --repair 'As for `sojx extract`: repair almost-JSON answers'
            cand --coerce 'As for `sojx extract`: convert a string to the boolean or number the schema asks for'
            cand --ignore-formats 'Do not check the `format` keyword (it is checked by default)'
            cand --pretty 'Pretty-print the envelope (the default when stdout is a terminal)'
            cand -r 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand --raw 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand -q 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --quiet 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sojx;lint'= {
            cand --provider 'Check what PROVIDER refuses, as errors. Without it, the schema itself is checked, and what each provider would say is reported as warnings'
            cand --draft 'Force the schema''s draft instead of reading `$schema` (default 2020-12)'
            cand --resource 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory'
            cand --output-format '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations'
            cand --color 'When to use colors on stderr and in `--output-format text`'
            cand --pretty 'Pretty-print the envelope (the default when stdout is a terminal)'
            cand -r 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand --raw 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand -q 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --quiet 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sojx;compile'= {
            cand --provider 'The provider to lower the schema for'
            cand --compat '`lossy` drops what the provider does not support, with a warning per drop; `strict` refuses instead'
            cand --draft 'Force the schema''s draft instead of reading `$schema` (default 2020-12)'
            cand --resource 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory'
            cand --output-format '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations'
            cand --color 'When to use colors on stderr and in `--output-format text`'
            cand --pretty 'Pretty-print the envelope (the default when stdout is a terminal)'
            cand -r 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand --raw 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand -q 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --quiet 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sojx;producers'= {
            cand --producer-file 'Also list the producer FILE describes (a producer file, as `extract --producer-file` takes it; repeatable)'
            cand --output-format '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations'
            cand --color 'When to use colors on stderr and in `--output-format text`'
            cand --pretty 'Pretty-print the envelope (the default when stdout is a terminal)'
            cand -r 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand --raw 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand -q 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --quiet 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand check 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'sojx;producers;check'= {
            cand --output-format '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations'
            cand --color 'When to use colors on stderr and in `--output-format text`'
            cand --pretty 'Pretty-print the envelope (the default when stdout is a terminal)'
            cand -r 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand --raw 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
            cand -q 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand --quiet 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'sojx;producers;help'= {
            cand check 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'sojx;producers;help;check'= {
        }
        &'sojx;producers;help;help'= {
        }
        &'sojx;help'= {
            cand extract 'Extract, validate and print an envelope per input (the main job)'
            cand run 'Run an agent, extract and validate its answer from its output, and say how it ended'
            cand validate 'Validate plain JSON documents, or JSON Lines (one document per line), against a schema'
            cand compare 'Report contradictions between sibling outputs (same key, different field value)'
            cand lint 'Check that a schema is valid and that a provider''s structured output accepts it'
            cand compile 'Print a schema lowered for a provider''s structured-output feature'
            cand producers 'List the producers sojx reads, or check a producer file against inputs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'sojx;help;extract'= {
        }
        &'sojx;help;run'= {
        }
        &'sojx;help;validate'= {
        }
        &'sojx;help;compare'= {
        }
        &'sojx;help;lint'= {
        }
        &'sojx;help;compile'= {
        }
        &'sojx;help;producers'= {
            cand check 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'sojx;help;producers;check'= {
        }
        &'sojx;help;producers;help'= {
            cand check 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'sojx;help;producers;help;check'= {
        }
        &'sojx;help;producers;help;help'= {
        }
        &'sojx;help;help'= {
        }
    ]
    $completions[$command]
}
