
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'sojx' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'sojx'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'sojx' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Extract, validate and print an envelope per input (the main job)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run an agent, extract and validate its answer from its output, and say how it ended')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Validate plain JSON documents, or JSON Lines (one document per line), against a schema')
            [CompletionResult]::new('compare', 'compare', [CompletionResultType]::ParameterValue, 'Report contradictions between sibling outputs (same key, different field value)')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check that a schema is valid and that a provider''s structured output accepts it')
            [CompletionResult]::new('compile', 'compile', [CompletionResultType]::ParameterValue, 'Print a schema lowered for a provider''s structured-output feature')
            [CompletionResult]::new('producers', 'producers', [CompletionResultType]::ParameterValue, 'List the producers sojx reads, or check a producer file against inputs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'sojx;extract' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped')
            [CompletionResult]::new('--draft', '--draft', [CompletionResultType]::ParameterName, 'Force the schema''s draft instead of reading `$schema` (default 2020-12)')
            [CompletionResult]::new('--resource', '--resource', [CompletionResultType]::ParameterName, 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema''s (a wrapped root unwrapped, a null that means "not given" removed, a map''s entries made an object), then validated')
            [CompletionResult]::new('--compat', '--compat', [CompletionResultType]::ParameterName, 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Which producer wrote the input; `auto` detects it from the content. A producer file''s id (--producer-file, the config folder) is one too')
            [CompletionResult]::new('--producer-file', '--producer-file', [CompletionResultType]::ParameterName, 'Also read the producer FILE describes (a producer file, TOML or JSON: docs/producer-files.md), beside sojx''s own and those of `$XDG_CONFIG_HOME/sojx/producers/` (repeatable). Its producer is detected first')
            [CompletionResult]::new('--handoff', '--handoff', [CompletionResultType]::ParameterName, 'With --markers: add this legacy escalation file''s content (JSON if it parses, else its text) to the marker data as `escalation`. A regular file of at most 64 MiB')
            [CompletionResult]::new('--assert', '--assert', [CompletionResultType]::ParameterName, 'A semantic check in jq syntax, evaluated on `data` after schema validation (repeatable). It passes when it yields at least one value and none is false or null; otherwise the input fails with `assertion_failed`')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors on stderr and in `--output-format text`')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes')
            [CompletionResult]::new('--envelope-file', '--envelope-file', [CompletionResultType]::ParameterName, 'Also write each envelope to FILE as one line of JSON (created or truncated), whatever stdout shows: `--output-format github` for the annotations and the JSON for the next step, from one run. `-` is refused')
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in')
            [CompletionResult]::new('--max-candidates', '--max-candidates', [CompletionResultType]::ParameterName, 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure')
            [CompletionResult]::new('--max-answer-bytes', '--max-answer-bytes', [CompletionResultType]::ParameterName, 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory')
            [CompletionResult]::new('--ignore-formats', '--ignore-formats', [CompletionResultType]::ParameterName, 'Do not check the `format` keyword (it is checked by default)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Accept only a value that is exactly one JSON document: no code fences, no JSON dug out of prose, no repair')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'Read answers as models write them: comments, raw newlines in strings, single quotes, bare keys, Python''s True/False/None, trailing commas, a stray prefix or suffix; a cut-off answer keeps only its complete members (the cut one is dropped, never completed). Only where the reading is unambiguous; every change is listed in `source.repairs`')
            [CompletionResult]::new('--coerce', '--coerce', [CompletionResultType]::ParameterName, 'Convert a string where the schema asks for a boolean or a number, and that is exactly one (`"true"`, `"3"`), before validation; each conversion is listed in `source.coercions`')
            [CompletionResult]::new('--activity', '--activity', [CompletionResultType]::ParameterName, 'Print one line per event on stderr as it arrives: tool calls, text, retries, errors, the final cost and turns')
            [CompletionResult]::new('--markers', '--markers', [CompletionResultType]::ParameterName, 'Legacy fallback: when the run holds no structured output, read `[EVENT:level[:service]] message` and `[MEMORY:category[:service]] observation` lines of the final answer text into `{events, memories}` (`source.kind: markers`)')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Pretty-print the envelope (the default when stdout is a terminal)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sojx;run' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped')
            [CompletionResult]::new('--draft', '--draft', [CompletionResultType]::ParameterName, 'Force the schema''s draft instead of reading `$schema` (default 2020-12)')
            [CompletionResult]::new('--resource', '--resource', [CompletionResultType]::ParameterName, 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema''s (a wrapped root unwrapped, a null that means "not given" removed, a map''s entries made an object), then validated')
            [CompletionResult]::new('--compat', '--compat', [CompletionResultType]::ParameterName, 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Which producer wrote the input; `auto` detects it from the content. A producer file''s id (--producer-file, the config folder) is one too')
            [CompletionResult]::new('--producer-file', '--producer-file', [CompletionResultType]::ParameterName, 'Also read the producer FILE describes (a producer file, TOML or JSON: docs/producer-files.md), beside sojx''s own and those of `$XDG_CONFIG_HOME/sojx/producers/` (repeatable). Its producer is detected first')
            [CompletionResult]::new('--handoff', '--handoff', [CompletionResultType]::ParameterName, 'With --markers: add this legacy escalation file''s content (JSON if it parses, else its text) to the marker data as `escalation`. A regular file of at most 64 MiB')
            [CompletionResult]::new('--assert', '--assert', [CompletionResultType]::ParameterName, 'A semantic check in jq syntax, evaluated on `data` after schema validation (repeatable). It passes when it yields at least one value and none is false or null; otherwise the input fails with `assertion_failed`')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors on stderr and in `--output-format text`')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes')
            [CompletionResult]::new('--envelope-file', '--envelope-file', [CompletionResultType]::ParameterName, 'Also write each envelope to FILE as one line of JSON (created or truncated), whatever stdout shows: `--output-format github` for the annotations and the JSON for the next step, from one run. `-` is refused')
            [CompletionResult]::new('--kill-after', '--kill-after', [CompletionResultType]::ParameterName, 'How long the agent''s process group has after SIGTERM (sent when --timeout passes, or the signal sojx forwards) before SIGKILL: seconds or with a unit, as --timeout')
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in')
            [CompletionResult]::new('--max-candidates', '--max-candidates', [CompletionResultType]::ParameterName, 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure')
            [CompletionResult]::new('--max-answer-bytes', '--max-answer-bytes', [CompletionResultType]::ParameterName, 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory')
            [CompletionResult]::new('--max-attempts', '--max-attempts', [CompletionResultType]::ParameterName, 'Attempts in all (1: no retry). An attempt whose answer is missing or invalid (not_found, json_invalid, validation_failed, assertion_failed) is tried again with what was wrong fed back to the agent')
            [CompletionResult]::new('--retry-on', '--retry-on', [CompletionResultType]::ParameterName, 'Also retry these failures (comma-separated). A failure the producer marks as not retryable (authentication, billing, permission) never is')
            [CompletionResult]::new('--resume-profile', '--resume-profile', [CompletionResultType]::ParameterName, 'Resume the agent''s session this way with the feedback as the prompt, or `none` to run COMMAND again; a producer file''s id uses its `[resume]`. Default: chosen by COMMAND''s file name and confirmed by the producer')
            [CompletionResult]::new('--retry-command', '--retry-command', [CompletionResultType]::ParameterName, 'The argv of every retry, split like a shell line once; {session_id}, {feedback}, {feedback_file}, {attempt}, {schema_file} and {previous_output_file} are replaced in each argument (never through a shell). Wins over a resume profile')
            [CompletionResult]::new('--feedback-template', '--feedback-template', [CompletionResultType]::ParameterName, 'The feedback text, with {errors}, {candidate} and {schema} replaced; `@FILE` reads it')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'The prompt of an ACP run (else --prompt-file, else sojx''s stdin)')
            [CompletionResult]::new('--prompt-file', '--prompt-file', [CompletionResultType]::ParameterName, 'Read the prompt of an ACP run from FILE')
            [CompletionResult]::new('--acp-permissions', '--acp-permissions', [CompletionResultType]::ParameterName, 'How sojx answers the ACP agent''s permission requests [default: deny]: deny, allow-once (this tool call, never "always"), allow')
            [CompletionResult]::new('--ignore-formats', '--ignore-formats', [CompletionResultType]::ParameterName, 'Do not check the `format` keyword (it is checked by default)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Accept only a value that is exactly one JSON document: no code fences, no JSON dug out of prose, no repair')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'Read answers as models write them: comments, raw newlines in strings, single quotes, bare keys, Python''s True/False/None, trailing commas, a stray prefix or suffix; a cut-off answer keeps only its complete members (the cut one is dropped, never completed). Only where the reading is unambiguous; every change is listed in `source.repairs`')
            [CompletionResult]::new('--coerce', '--coerce', [CompletionResultType]::ParameterName, 'Convert a string where the schema asks for a boolean or a number, and that is exactly one (`"true"`, `"3"`), before validation; each conversion is listed in `source.coercions`')
            [CompletionResult]::new('--activity', '--activity', [CompletionResultType]::ParameterName, 'Print one line per event on stderr as it arrives: tool calls, text, retries, errors, the final cost and turns')
            [CompletionResult]::new('--markers', '--markers', [CompletionResultType]::ParameterName, 'Legacy fallback: when the run holds no structured output, read `[EVENT:level[:service]] message` and `[MEMORY:category[:service]] observation` lines of the final answer text into `{events, memories}` (`source.kind: markers`)')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Pretty-print the envelope (the default when stdout is a terminal)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--no-agent-schema', '--no-agent-schema', [CompletionResultType]::ParameterName, 'Do not give COMMAND''s agent the schema (with --schema, sojx adds Claude Code''s and Qwen Code''s --json-schema and Codex''s --output-schema, lowered for it): the answer is checked by sojx alone, and lifted only as --provider says')
            [CompletionResult]::new('--acp', '--acp', [CompletionResultType]::ParameterName, 'Drive COMMAND as an ACP agent (Agent Client Protocol: JSON-RPC on its stdin and stdout; `gemini --acp`, `qwen --acp`, `opencode acp`): sojx sends the prompt, reads the answer of the turn, and retries in the same session')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sojx;validate' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped')
            [CompletionResult]::new('--draft', '--draft', [CompletionResultType]::ParameterName, 'Force the schema''s draft instead of reading `$schema` (default 2020-12)')
            [CompletionResult]::new('--resource', '--resource', [CompletionResultType]::ParameterName, 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema''s (a wrapped root unwrapped, a null that means "not given" removed, a map''s entries made an object), then validated')
            [CompletionResult]::new('--compat', '--compat', [CompletionResultType]::ParameterName, 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors on stderr and in `--output-format text`')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2')
            [CompletionResult]::new('--tee', '--tee', [CompletionResultType]::ParameterName, 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes')
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Validate on N threads (default: one per core). Used for a regular file of 1 MiB or more; the envelopes keep the input''s order either way')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Validate on N threads (default: one per core). Used for a regular file of 1 MiB or more; the envelopes keep the input''s order either way')
            [CompletionResult]::new('--ignore-formats', '--ignore-formats', [CompletionResultType]::ParameterName, 'Do not check the `format` keyword (it is checked by default)')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Pretty-print the envelope (the default when stdout is a terminal)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sojx;compare' {
            [CompletionResult]::new('--items', '--items', [CompletionResultType]::ParameterName, 'jq expression yielding the items to compare from each input''s `data`, e.g. `.findings[]`')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'jq expression yielding an item''s identity, e.g. `[.file, .line]`')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'jq expression yielding the value that must agree between items with the same key, e.g. `.severity`')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Which producer wrote the runs; `auto` detects it from the content. A producer file''s id (--producer-file, the config folder) is one too')
            [CompletionResult]::new('--producer-file', '--producer-file', [CompletionResultType]::ParameterName, 'As for `sojx extract`: also read the producer FILE describes (repeatable)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped')
            [CompletionResult]::new('--draft', '--draft', [CompletionResultType]::ParameterName, 'Force the schema''s draft instead of reading `$schema` (default 2020-12)')
            [CompletionResult]::new('--resource', '--resource', [CompletionResultType]::ParameterName, 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema''s (a wrapped root unwrapped, a null that means "not given" removed, a map''s entries made an object), then validated')
            [CompletionResult]::new('--compat', '--compat', [CompletionResultType]::ParameterName, 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors on stderr and in `--output-format text`')
            [CompletionResult]::new('--max-line-bytes', '--max-line-bytes', [CompletionResultType]::ParameterName, 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in')
            [CompletionResult]::new('--max-candidates', '--max-candidates', [CompletionResultType]::ParameterName, 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure')
            [CompletionResult]::new('--max-answer-bytes', '--max-answer-bytes', [CompletionResultType]::ParameterName, 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'As for `sojx extract`: only a value that is exactly one JSON document')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'As for `sojx extract`: repair almost-JSON answers')
            [CompletionResult]::new('--coerce', '--coerce', [CompletionResultType]::ParameterName, 'As for `sojx extract`: convert a string to the boolean or number the schema asks for')
            [CompletionResult]::new('--ignore-formats', '--ignore-formats', [CompletionResultType]::ParameterName, 'Do not check the `format` keyword (it is checked by default)')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Pretty-print the envelope (the default when stdout is a terminal)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sojx;lint' {
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Check what PROVIDER refuses, as errors. Without it, the schema itself is checked, and what each provider would say is reported as warnings')
            [CompletionResult]::new('--draft', '--draft', [CompletionResultType]::ParameterName, 'Force the schema''s draft instead of reading `$schema` (default 2020-12)')
            [CompletionResult]::new('--resource', '--resource', [CompletionResultType]::ParameterName, 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors on stderr and in `--output-format text`')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Pretty-print the envelope (the default when stdout is a terminal)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sojx;compile' {
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'The provider to lower the schema for')
            [CompletionResult]::new('--compat', '--compat', [CompletionResultType]::ParameterName, '`lossy` drops what the provider does not support, with a warning per drop; `strict` refuses instead')
            [CompletionResult]::new('--draft', '--draft', [CompletionResultType]::ParameterName, 'Force the schema''s draft instead of reading `$schema` (default 2020-12)')
            [CompletionResult]::new('--resource', '--resource', [CompletionResultType]::ParameterName, 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file''s own directory')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors on stderr and in `--output-format text`')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Pretty-print the envelope (the default when stdout is a terminal)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sojx;producers' {
            [CompletionResult]::new('--producer-file', '--producer-file', [CompletionResultType]::ParameterName, 'Also list the producer FILE describes (a producer file, as `extract --producer-file` takes it; repeatable)')
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors on stderr and in `--output-format text`')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Pretty-print the envelope (the default when stdout is a terminal)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'sojx;producers;check' {
            [CompletionResult]::new('--output-format', '--output-format', [CompletionResultType]::ParameterName, '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors on stderr and in `--output-format text`')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Pretty-print the envelope (the default when stdout is a terminal)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'sojx;producers;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'sojx;producers;help;check' {
            break
        }
        'sojx;producers;help;help' {
            break
        }
        'sojx;help' {
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Extract, validate and print an envelope per input (the main job)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run an agent, extract and validate its answer from its output, and say how it ended')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Validate plain JSON documents, or JSON Lines (one document per line), against a schema')
            [CompletionResult]::new('compare', 'compare', [CompletionResultType]::ParameterValue, 'Report contradictions between sibling outputs (same key, different field value)')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check that a schema is valid and that a provider''s structured output accepts it')
            [CompletionResult]::new('compile', 'compile', [CompletionResultType]::ParameterValue, 'Print a schema lowered for a provider''s structured-output feature')
            [CompletionResult]::new('producers', 'producers', [CompletionResultType]::ParameterValue, 'List the producers sojx reads, or check a producer file against inputs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'sojx;help;extract' {
            break
        }
        'sojx;help;run' {
            break
        }
        'sojx;help;validate' {
            break
        }
        'sojx;help;compare' {
            break
        }
        'sojx;help;lint' {
            break
        }
        'sojx;help;compile' {
            break
        }
        'sojx;help;producers' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'sojx;help;producers;check' {
            break
        }
        'sojx;help;producers;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'sojx;help;producers;help;check' {
            break
        }
        'sojx;help;producers;help;help' {
            break
        }
        'sojx;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
