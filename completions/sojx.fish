# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_sojx_global_optspecs
    string join \n h/help V/version
end

function __fish_sojx_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_sojx_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_sojx_using_subcommand
    set -l cmd (__fish_sojx_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c sojx -n "__fish_sojx_needs_command" -s h -l help -d 'Print help'
complete -c sojx -n "__fish_sojx_needs_command" -s V -l version -d 'Print version'
complete -c sojx -n "__fish_sojx_needs_command" -f -a "extract" -d 'Extract, validate and print an envelope per input (the main job)'
complete -c sojx -n "__fish_sojx_needs_command" -f -a "run" -d 'Run an agent, extract and validate its answer from its output, and say how it ended'
complete -c sojx -n "__fish_sojx_needs_command" -f -a "validate" -d 'Validate plain JSON documents, or JSON Lines (one document per line), against a schema'
complete -c sojx -n "__fish_sojx_needs_command" -f -a "compare" -d 'Report contradictions between sibling outputs (same key, different field value)'
complete -c sojx -n "__fish_sojx_needs_command" -f -a "lint" -d 'Check that a schema is valid and that a provider\'s structured output accepts it'
complete -c sojx -n "__fish_sojx_needs_command" -f -a "compile" -d 'Print a schema lowered for a provider\'s structured-output feature'
complete -c sojx -n "__fish_sojx_needs_command" -f -a "producers" -d 'List the producers sojx reads, or check a producer file against inputs'
complete -c sojx -n "__fish_sojx_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -s s -l schema -d 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped' -r
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l draft -d 'Force the schema\'s draft instead of reading `$schema` (default 2020-12)' -r -f -a "4\t''
6\t''
7\t''
2019-09\t''
2020-12\t''"
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l resource -d 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file\'s own directory' -r
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l provider -d 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema\'s (a wrapped root unwrapped, a null that means "not given" removed, a map\'s entries made an object), then validated' -r -f -a "anthropic\t'Claude: tool input schemas, structured outputs (the API)'
openai\t'OpenAI Structured Outputs, strict mode'
gemini\t'Gemini `responseJsonSchema`'
claude-code\t'Claude Code `--json-schema`: draft-07, keywords Ajv knows (its validator), object root'"
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l compat -d 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)' -r -f -a "lossy\t'Drop what the provider does not support, with a warning per drop'
strict\t'Refuse a schema that cannot be lowered without loss'"
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l from -d 'Which producer wrote the input; `auto` detects it from the content. A producer file\'s id (--producer-file, the config folder) is one too' -r -f -a "auto\t'Detect the producer from the content'
claude-code\t'`claude -p --output-format stream-json|json`, Claude Agent SDK messages'
codex\t'`codex exec --json` events'
gemini-cli\t'`gemini -p --output-format json|stream-json`'
qwen-code\t'`qwen -p --output-format json|stream-json`'
amp\t'`amp -x --stream-json`'
cursor\t'`cursor-agent -p --output-format json|stream-json`'
opencode\t'`opencode run --format json`'
openai-chat\t'OpenAI Chat Completions body or SSE stream'
openai-responses\t'OpenAI Responses body or SSE stream'
anthropic\t'Anthropic Messages body or SSE stream (or bare event lines)'
ollama\t'Ollama `/api/chat` or `/api/generate`, streaming or not'
meerkat\t'`rkat run --output json` (a RunResult)'
acp\t'The Agent Client Protocol, as `sojx run --acp --tee FILE` records it'
copilot-cli\t'GitHub Copilot CLI `copilot -p P --output-format json`'
pi\t'pi `pi -p --mode json`'
grok-cli\t'xAI Grok CLI `--output-format json|streaming-json`'
goose\t'goose `goose run --output-format json|stream-json`'
kimi-code\t'Kimi Code `kimi -p --output-format stream-json`'
antigravity\t'Google Antigravity `agy -p --output-format json|stream-json`'
bob-shell\t'IBM Bob Shell `bob run --format json`'
cline\t'Cline `cline --json` (2.x) and `cline task --json` (1.x)'
continue\t'Continue `cn -p --format json`'
droid\t'Factory Droid `droid exec -o json|stream-json`'
kilo\t'Kilo `kilo run --format json` (opencode\'s events)'
codebuddy\t'CodeBuddy Code `codebuddy -p --output-format stream-json` (Claude Code\'s shapes)'
auggie\t'Auggie `auggie --print --output-format json` (Cursor\'s result)'
openhands\t'OpenHands CLI `openhands --headless --json -t TASK` (SDK events by `kind`)'
json\t'The whole input is one bare JSON value'
text\t'Plain model text with JSON somewhere in it'"
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l producer-file -d 'Also read the producer FILE describes (a producer file, TOML or JSON: docs/producer-files.md), beside sojx\'s own and those of `$XDG_CONFIG_HOME/sojx/producers/` (repeatable). Its producer is detected first' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l handoff -d 'With --markers: add this legacy escalation file\'s content (JSON if it parses, else its text) to the marker data as `escalation`. A regular file of at most 64 MiB' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l assert -d 'A semantic check in jq syntax, evaluated on `data` after schema validation (repeatable). It passes when it yields at least one value and none is false or null; otherwise the input fails with `assertion_failed`' -r
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l output-format -d '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations' -r -f -a "json\t'One JSON envelope per input (JSON Lines)'
text\t'A short human summary'
github\t'GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary'"
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l color -d 'When to use colors on stderr and in `--output-format text`' -r -f -a "auto\t'Color when the stream is a terminal and `NO_COLOR` is not set'
always\t'Always color (text output and stderr; JSON is never colored)'
never\t'Never color'"
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l timeout -d 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2' -r
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l tee -d 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l envelope-file -d 'Also write each envelope to FILE as one line of JSON (created or truncated), whatever stdout shows: `--output-format github` for the annotations and the JSON for the next step, from one run. `-` is refused' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l max-line-bytes -d 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in' -r
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l max-candidates -d 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure' -r
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l max-answer-bytes -d 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory' -r
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l ignore-formats -d 'Do not check the `format` keyword (it is checked by default)'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l strict -d 'Accept only a value that is exactly one JSON document: no code fences, no JSON dug out of prose, no repair'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l repair -d 'Read answers as models write them: comments, raw newlines in strings, single quotes, bare keys, Python\'s True/False/None, trailing commas, a stray prefix or suffix; a cut-off answer keeps only its complete members (the cut one is dropped, never completed). Only where the reading is unambiguous; every change is listed in `source.repairs`'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l coerce -d 'Convert a string where the schema asks for a boolean or a number, and that is exactly one (`"true"`, `"3"`), before validation; each conversion is listed in `source.coercions`'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l activity -d 'Print one line per event on stderr as it arrives: tool calls, text, retries, errors, the final cost and turns'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l markers -d 'Legacy fallback: when the run holds no structured output, read `[EVENT:level[:service]] message` and `[MEMORY:category[:service]] observation` lines of the final answer text into `{events, memories}` (`source.kind: markers`)'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -l pretty -d 'Pretty-print the envelope (the default when stdout is a terminal)'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -s r -l raw -d 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -s q -l quiet -d 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
complete -c sojx -n "__fish_sojx_using_subcommand extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sojx -n "__fish_sojx_using_subcommand run" -s s -l schema -d 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l draft -d 'Force the schema\'s draft instead of reading `$schema` (default 2020-12)' -r -f -a "4\t''
6\t''
7\t''
2019-09\t''
2020-12\t''"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l resource -d 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file\'s own directory' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l provider -d 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema\'s (a wrapped root unwrapped, a null that means "not given" removed, a map\'s entries made an object), then validated' -r -f -a "anthropic\t'Claude: tool input schemas, structured outputs (the API)'
openai\t'OpenAI Structured Outputs, strict mode'
gemini\t'Gemini `responseJsonSchema`'
claude-code\t'Claude Code `--json-schema`: draft-07, keywords Ajv knows (its validator), object root'"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l compat -d 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)' -r -f -a "lossy\t'Drop what the provider does not support, with a warning per drop'
strict\t'Refuse a schema that cannot be lowered without loss'"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l from -d 'Which producer wrote the input; `auto` detects it from the content. A producer file\'s id (--producer-file, the config folder) is one too' -r -f -a "auto\t'Detect the producer from the content'
claude-code\t'`claude -p --output-format stream-json|json`, Claude Agent SDK messages'
codex\t'`codex exec --json` events'
gemini-cli\t'`gemini -p --output-format json|stream-json`'
qwen-code\t'`qwen -p --output-format json|stream-json`'
amp\t'`amp -x --stream-json`'
cursor\t'`cursor-agent -p --output-format json|stream-json`'
opencode\t'`opencode run --format json`'
openai-chat\t'OpenAI Chat Completions body or SSE stream'
openai-responses\t'OpenAI Responses body or SSE stream'
anthropic\t'Anthropic Messages body or SSE stream (or bare event lines)'
ollama\t'Ollama `/api/chat` or `/api/generate`, streaming or not'
meerkat\t'`rkat run --output json` (a RunResult)'
acp\t'The Agent Client Protocol, as `sojx run --acp --tee FILE` records it'
copilot-cli\t'GitHub Copilot CLI `copilot -p P --output-format json`'
pi\t'pi `pi -p --mode json`'
grok-cli\t'xAI Grok CLI `--output-format json|streaming-json`'
goose\t'goose `goose run --output-format json|stream-json`'
kimi-code\t'Kimi Code `kimi -p --output-format stream-json`'
antigravity\t'Google Antigravity `agy -p --output-format json|stream-json`'
bob-shell\t'IBM Bob Shell `bob run --format json`'
cline\t'Cline `cline --json` (2.x) and `cline task --json` (1.x)'
continue\t'Continue `cn -p --format json`'
droid\t'Factory Droid `droid exec -o json|stream-json`'
kilo\t'Kilo `kilo run --format json` (opencode\'s events)'
codebuddy\t'CodeBuddy Code `codebuddy -p --output-format stream-json` (Claude Code\'s shapes)'
auggie\t'Auggie `auggie --print --output-format json` (Cursor\'s result)'
openhands\t'OpenHands CLI `openhands --headless --json -t TASK` (SDK events by `kind`)'
json\t'The whole input is one bare JSON value'
text\t'Plain model text with JSON somewhere in it'"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l producer-file -d 'Also read the producer FILE describes (a producer file, TOML or JSON: docs/producer-files.md), beside sojx\'s own and those of `$XDG_CONFIG_HOME/sojx/producers/` (repeatable). Its producer is detected first' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand run" -l handoff -d 'With --markers: add this legacy escalation file\'s content (JSON if it parses, else its text) to the marker data as `escalation`. A regular file of at most 64 MiB' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand run" -l assert -d 'A semantic check in jq syntax, evaluated on `data` after schema validation (repeatable). It passes when it yields at least one value and none is false or null; otherwise the input fails with `assertion_failed`' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l output-format -d '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations' -r -f -a "json\t'One JSON envelope per input (JSON Lines)'
text\t'A short human summary'
github\t'GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary'"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l color -d 'When to use colors on stderr and in `--output-format text`' -r -f -a "auto\t'Color when the stream is a terminal and `NO_COLOR` is not set'
always\t'Always color (text output and stderr; JSON is never colored)'
never\t'Never color'"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l timeout -d 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l tee -d 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand run" -l envelope-file -d 'Also write each envelope to FILE as one line of JSON (created or truncated), whatever stdout shows: `--output-format github` for the annotations and the JSON for the next step, from one run. `-` is refused' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand run" -l kill-after -d 'How long the agent\'s process group has after SIGTERM (sent when --timeout passes, or the signal sojx forwards) before SIGKILL: seconds or with a unit, as --timeout' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l max-line-bytes -d 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l max-candidates -d 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l max-answer-bytes -d 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l max-attempts -d 'Attempts in all (1: no retry). An attempt whose answer is missing or invalid (not_found, json_invalid, validation_failed, assertion_failed) is tried again with what was wrong fed back to the agent' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l retry-on -d 'Also retry these failures (comma-separated). A failure the producer marks as not retryable (authentication, billing, permission) never is' -r -f -a "timeout\t'`--timeout` passed'
truncated\t'The stream ended without its terminal marker'
agent_error\t'The agent reported an error, or exited non-zero without an answer'"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l resume-profile -d 'Resume the agent\'s session this way with the feedback as the prompt, or `none` to run COMMAND again; a producer file\'s id uses its `[resume]`. Default: chosen by COMMAND\'s file name and confirmed by the producer' -r -f -a "claude\t'Claude Code: `claude -p --resume ID`'
codex\t'Codex: `codex exec resume ID`'
gemini\t'Gemini CLI: `gemini --resume ID`'
qwen\t'Qwen Code: `qwen --resume ID`'
opencode\t'opencode: `opencode run --session ID`'
amp\t'Amp: `amp threads continue ID`'
cursor-agent\t'Cursor: `cursor-agent -p --resume ID`'
copilot-cli\t'GitHub Copilot CLI: `copilot --resume=ID` (producer file)'
pi\t'pi coding agent: `pi --session ID` (producer file)'
droid\t'Factory Droid: `droid exec --session-id ID` (producer file)'
kilo\t'Kilo CLI: `kilo run --session ID` (producer file)'
auggie\t'Auggie: `auggie --resume ID` (producer file)'
none\t'Never resume: run COMMAND again, the feedback in its environment'"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l retry-command -d 'The argv of every retry, split like a shell line once; {session_id}, {feedback}, {feedback_file}, {attempt}, {schema_file} and {previous_output_file} are replaced in each argument (never through a shell). Wins over a resume profile' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l feedback-template -d 'The feedback text, with {errors}, {candidate} and {schema} replaced; `@FILE` reads it' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l prompt -d 'The prompt of an ACP run (else --prompt-file, else sojx\'s stdin)' -r
complete -c sojx -n "__fish_sojx_using_subcommand run" -l prompt-file -d 'Read the prompt of an ACP run from FILE' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand run" -l acp-permissions -d 'How sojx answers the ACP agent\'s permission requests [default: deny]: deny, allow-once (this tool call, never "always"), allow' -r -f -a "deny\t'Reject every request (a reject option, else cancelled)'
allow-once\t'Allow this call once; never "always"'
allow\t'Allow (always where offered)'"
complete -c sojx -n "__fish_sojx_using_subcommand run" -l ignore-formats -d 'Do not check the `format` keyword (it is checked by default)'
complete -c sojx -n "__fish_sojx_using_subcommand run" -l strict -d 'Accept only a value that is exactly one JSON document: no code fences, no JSON dug out of prose, no repair'
complete -c sojx -n "__fish_sojx_using_subcommand run" -l repair -d 'Read answers as models write them: comments, raw newlines in strings, single quotes, bare keys, Python\'s True/False/None, trailing commas, a stray prefix or suffix; a cut-off answer keeps only its complete members (the cut one is dropped, never completed). Only where the reading is unambiguous; every change is listed in `source.repairs`'
complete -c sojx -n "__fish_sojx_using_subcommand run" -l coerce -d 'Convert a string where the schema asks for a boolean or a number, and that is exactly one (`"true"`, `"3"`), before validation; each conversion is listed in `source.coercions`'
complete -c sojx -n "__fish_sojx_using_subcommand run" -l activity -d 'Print one line per event on stderr as it arrives: tool calls, text, retries, errors, the final cost and turns'
complete -c sojx -n "__fish_sojx_using_subcommand run" -l markers -d 'Legacy fallback: when the run holds no structured output, read `[EVENT:level[:service]] message` and `[MEMORY:category[:service]] observation` lines of the final answer text into `{events, memories}` (`source.kind: markers`)'
complete -c sojx -n "__fish_sojx_using_subcommand run" -l pretty -d 'Pretty-print the envelope (the default when stdout is a terminal)'
complete -c sojx -n "__fish_sojx_using_subcommand run" -s r -l raw -d 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
complete -c sojx -n "__fish_sojx_using_subcommand run" -s q -l quiet -d 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
complete -c sojx -n "__fish_sojx_using_subcommand run" -l no-agent-schema -d 'Do not give COMMAND\'s agent the schema (with --schema, sojx adds Claude Code\'s and Qwen Code\'s --json-schema and Codex\'s --output-schema, lowered for it): the answer is checked by sojx alone, and lifted only as --provider says'
complete -c sojx -n "__fish_sojx_using_subcommand run" -l acp -d 'Drive COMMAND as an ACP agent (Agent Client Protocol: JSON-RPC on its stdin and stdout; `gemini --acp`, `qwen --acp`, `opencode acp`): sojx sends the prompt, reads the answer of the turn, and retries in the same session'
complete -c sojx -n "__fish_sojx_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sojx -n "__fish_sojx_using_subcommand validate" -s s -l schema -d 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped' -r
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l draft -d 'Force the schema\'s draft instead of reading `$schema` (default 2020-12)' -r -f -a "4\t''
6\t''
7\t''
2019-09\t''
2020-12\t''"
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l resource -d 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file\'s own directory' -r
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l provider -d 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema\'s (a wrapped root unwrapped, a null that means "not given" removed, a map\'s entries made an object), then validated' -r -f -a "anthropic\t'Claude: tool input schemas, structured outputs (the API)'
openai\t'OpenAI Structured Outputs, strict mode'
gemini\t'Gemini `responseJsonSchema`'
claude-code\t'Claude Code `--json-schema`: draft-07, keywords Ajv knows (its validator), object root'"
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l compat -d 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)' -r -f -a "lossy\t'Drop what the provider does not support, with a warning per drop'
strict\t'Refuse a schema that cannot be lowered without loss'"
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l output-format -d '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations' -r -f -a "json\t'One JSON envelope per input (JSON Lines)'
text\t'A short human summary'
github\t'GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary'"
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l color -d 'When to use colors on stderr and in `--output-format text`' -r -f -a "auto\t'Color when the stream is a terminal and `NO_COLOR` is not set'
always\t'Always color (text output and stderr; JSON is never colored)'
never\t'Never color'"
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l timeout -d 'Give up on an input that has not ended after DURATION: seconds (`90`, `1.5`) or with a unit (`90s`, `15m`, `1h 30m`). A `timeout` envelope with what was seen so far, exit status 2' -r
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l tee -d 'Copy every input byte to FILE as it is read (created or truncated; several inputs are copied one after the other). `-` is refused: stdout carries the envelopes' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l max-line-bytes -d 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in' -r
complete -c sojx -n "__fish_sojx_using_subcommand validate" -s j -l jobs -d 'Validate on N threads (default: one per core). Used for a regular file of 1 MiB or more; the envelopes keep the input\'s order either way' -r
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l ignore-formats -d 'Do not check the `format` keyword (it is checked by default)'
complete -c sojx -n "__fish_sojx_using_subcommand validate" -l pretty -d 'Pretty-print the envelope (the default when stdout is a terminal)'
complete -c sojx -n "__fish_sojx_using_subcommand validate" -s r -l raw -d 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
complete -c sojx -n "__fish_sojx_using_subcommand validate" -s q -l quiet -d 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
complete -c sojx -n "__fish_sojx_using_subcommand validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l items -d 'jq expression yielding the items to compare from each input\'s `data`, e.g. `.findings[]`' -r
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l key -d 'jq expression yielding an item\'s identity, e.g. `[.file, .line]`' -r
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l field -d 'jq expression yielding the value that must agree between items with the same key, e.g. `.severity`' -r
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l from -d 'Which producer wrote the runs; `auto` detects it from the content. A producer file\'s id (--producer-file, the config folder) is one too' -r -f -a "auto\t'Detect the producer from the content'
claude-code\t'`claude -p --output-format stream-json|json`, Claude Agent SDK messages'
codex\t'`codex exec --json` events'
gemini-cli\t'`gemini -p --output-format json|stream-json`'
qwen-code\t'`qwen -p --output-format json|stream-json`'
amp\t'`amp -x --stream-json`'
cursor\t'`cursor-agent -p --output-format json|stream-json`'
opencode\t'`opencode run --format json`'
openai-chat\t'OpenAI Chat Completions body or SSE stream'
openai-responses\t'OpenAI Responses body or SSE stream'
anthropic\t'Anthropic Messages body or SSE stream (or bare event lines)'
ollama\t'Ollama `/api/chat` or `/api/generate`, streaming or not'
meerkat\t'`rkat run --output json` (a RunResult)'
acp\t'The Agent Client Protocol, as `sojx run --acp --tee FILE` records it'
copilot-cli\t'GitHub Copilot CLI `copilot -p P --output-format json`'
pi\t'pi `pi -p --mode json`'
grok-cli\t'xAI Grok CLI `--output-format json|streaming-json`'
goose\t'goose `goose run --output-format json|stream-json`'
kimi-code\t'Kimi Code `kimi -p --output-format stream-json`'
antigravity\t'Google Antigravity `agy -p --output-format json|stream-json`'
bob-shell\t'IBM Bob Shell `bob run --format json`'
cline\t'Cline `cline --json` (2.x) and `cline task --json` (1.x)'
continue\t'Continue `cn -p --format json`'
droid\t'Factory Droid `droid exec -o json|stream-json`'
kilo\t'Kilo `kilo run --format json` (opencode\'s events)'
codebuddy\t'CodeBuddy Code `codebuddy -p --output-format stream-json` (Claude Code\'s shapes)'
auggie\t'Auggie `auggie --print --output-format json` (Cursor\'s result)'
openhands\t'OpenHands CLI `openhands --headless --json -t TASK` (SDK events by `kind`)'
json\t'The whole input is one bare JSON value'
text\t'Plain model text with JSON somewhere in it'"
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l producer-file -d 'As for `sojx extract`: also read the producer FILE describes (repeatable)' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand compare" -s s -l schema -d 'JSON Schema: a path, `@path`, or inline JSON. A wrapper object `{schema, name, strict, compat, format}` (OpenAI `json_schema`, Meerkat `meerkat_v1`) is unwrapped' -r
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l draft -d 'Force the schema\'s draft instead of reading `$schema` (default 2020-12)' -r -f -a "4\t''
6\t''
7\t''
2019-09\t''
2020-12\t''"
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l resource -d 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file\'s own directory' -r
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l provider -d 'The answer was given under the schema lowered for PROVIDER (`sojx compile --provider`): it is checked in that shape, lifted back to the schema\'s (a wrapped root unwrapped, a null that means "not given" removed, a map\'s entries made an object), then validated' -r -f -a "anthropic\t'Claude: tool input schemas, structured outputs (the API)'
openai\t'OpenAI Structured Outputs, strict mode'
gemini\t'Gemini `responseJsonSchema`'
claude-code\t'Claude Code `--json-schema`: draft-07, keywords Ajv knows (its validator), object root'"
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l compat -d 'With --provider, as for `sojx compile`: `strict` refuses a schema whose lowering loses meaning (`schema_invalid`, each place named)' -r -f -a "lossy\t'Drop what the provider does not support, with a warning per drop'
strict\t'Refuse a schema that cannot be lowered without loss'"
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l output-format -d '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations' -r -f -a "json\t'One JSON envelope per input (JSON Lines)'
text\t'A short human summary'
github\t'GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary'"
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l color -d 'When to use colors on stderr and in `--output-format text`' -r -f -a "auto\t'Color when the stream is a terminal and `NO_COLOR` is not set'
always\t'Always color (text output and stderr; JSON is never colored)'
never\t'Never color'"
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l max-line-bytes -d 'Longest input line accepted: bytes, or with a unit (`8MiB`, `512KiB`; `MB` and `KB` are powers of ten). A longer line is skipped with a `line_too_long` warning (a `parse` error when nothing else is left), never read into memory. Also bounds one multi-line JSON document and the text kept to look for an answer in' -r
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l max-candidates -d 'Most JSON candidates tried in one answer text: fenced blocks and `{…}`/`[…]` regions; past it the answer (the last) is not reached, a `parse` failure' -r
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l max-answer-bytes -d 'Most kept from a stream to find the answer, as for `--max-line-bytes`: the answer accumulated from deltas (OpenAI chat and Responses, Ollama, Anthropic, Gemini CLI, opencode) and the tool calls, ids and error messages kept across lines. Past it the input is a `parse` error; the rest is not read into memory' -r
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l strict -d 'As for `sojx extract`: only a value that is exactly one JSON document'
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l repair -d 'As for `sojx extract`: repair almost-JSON answers'
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l coerce -d 'As for `sojx extract`: convert a string to the boolean or number the schema asks for'
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l ignore-formats -d 'Do not check the `format` keyword (it is checked by default)'
complete -c sojx -n "__fish_sojx_using_subcommand compare" -l pretty -d 'Pretty-print the envelope (the default when stdout is a terminal)'
complete -c sojx -n "__fish_sojx_using_subcommand compare" -s r -l raw -d 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
complete -c sojx -n "__fish_sojx_using_subcommand compare" -s q -l quiet -d 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
complete -c sojx -n "__fish_sojx_using_subcommand compare" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sojx -n "__fish_sojx_using_subcommand lint" -l provider -d 'Check what PROVIDER refuses, as errors. Without it, the schema itself is checked, and what each provider would say is reported as warnings' -r -f -a "anthropic\t''
openai\t''
gemini\t''
claude-code\t'Claude Code `--json-schema`'
all\t'Every provider'"
complete -c sojx -n "__fish_sojx_using_subcommand lint" -l draft -d 'Force the schema\'s draft instead of reading `$schema` (default 2020-12)' -r -f -a "4\t''
6\t''
7\t''
2019-09\t''
2020-12\t''"
complete -c sojx -n "__fish_sojx_using_subcommand lint" -l resource -d 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file\'s own directory' -r
complete -c sojx -n "__fish_sojx_using_subcommand lint" -l output-format -d '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations' -r -f -a "json\t'One JSON envelope per input (JSON Lines)'
text\t'A short human summary'
github\t'GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary'"
complete -c sojx -n "__fish_sojx_using_subcommand lint" -l color -d 'When to use colors on stderr and in `--output-format text`' -r -f -a "auto\t'Color when the stream is a terminal and `NO_COLOR` is not set'
always\t'Always color (text output and stderr; JSON is never colored)'
never\t'Never color'"
complete -c sojx -n "__fish_sojx_using_subcommand lint" -l pretty -d 'Pretty-print the envelope (the default when stdout is a terminal)'
complete -c sojx -n "__fish_sojx_using_subcommand lint" -s r -l raw -d 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
complete -c sojx -n "__fish_sojx_using_subcommand lint" -s q -l quiet -d 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
complete -c sojx -n "__fish_sojx_using_subcommand lint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sojx -n "__fish_sojx_using_subcommand compile" -l provider -d 'The provider to lower the schema for' -r -f -a "anthropic\t'Claude: tool input schemas, structured outputs (the API)'
openai\t'OpenAI Structured Outputs, strict mode'
gemini\t'Gemini `responseJsonSchema`'
claude-code\t'Claude Code `--json-schema`: draft-07, keywords Ajv knows (its validator), object root'"
complete -c sojx -n "__fish_sojx_using_subcommand compile" -l compat -d '`lossy` drops what the provider does not support, with a warning per drop; `strict` refuses instead' -r -f -a "lossy\t'Drop what the provider does not support, with a warning per drop'
strict\t'Refuse a schema that cannot be lowered without loss'"
complete -c sojx -n "__fish_sojx_using_subcommand compile" -l draft -d 'Force the schema\'s draft instead of reading `$schema` (default 2020-12)' -r -f -a "4\t''
6\t''
7\t''
2019-09\t''
2020-12\t''"
complete -c sojx -n "__fish_sojx_using_subcommand compile" -l resource -d 'Map a `$ref` URI to a local file (repeatable). A URI ending in `/` with a directory maps every file under it by a plain relative path. Remote references are never fetched, and an unmapped `$ref` reads a local file only inside the schema file\'s own directory' -r
complete -c sojx -n "__fish_sojx_using_subcommand compile" -l output-format -d '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations' -r -f -a "json\t'One JSON envelope per input (JSON Lines)'
text\t'A short human summary'
github\t'GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary'"
complete -c sojx -n "__fish_sojx_using_subcommand compile" -l color -d 'When to use colors on stderr and in `--output-format text`' -r -f -a "auto\t'Color when the stream is a terminal and `NO_COLOR` is not set'
always\t'Always color (text output and stderr; JSON is never colored)'
never\t'Never color'"
complete -c sojx -n "__fish_sojx_using_subcommand compile" -l pretty -d 'Pretty-print the envelope (the default when stdout is a terminal)'
complete -c sojx -n "__fish_sojx_using_subcommand compile" -s r -l raw -d 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
complete -c sojx -n "__fish_sojx_using_subcommand compile" -s q -l quiet -d 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
complete -c sojx -n "__fish_sojx_using_subcommand compile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -l producer-file -d 'Also list the producer FILE describes (a producer file, as `extract --producer-file` takes it; repeatable)' -r -F
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -l output-format -d '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations' -r -f -a "json\t'One JSON envelope per input (JSON Lines)'
text\t'A short human summary'
github\t'GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary'"
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -l color -d 'When to use colors on stderr and in `--output-format text`' -r -f -a "auto\t'Color when the stream is a terminal and `NO_COLOR` is not set'
always\t'Always color (text output and stderr; JSON is never colored)'
never\t'Never color'"
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -l pretty -d 'Pretty-print the envelope (the default when stdout is a terminal)'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -s r -l raw -d 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -s q -l quiet -d 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -f -a "check" -d 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and not __fish_seen_subcommand_from check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and __fish_seen_subcommand_from check" -l output-format -d '`json` (the default) prints the envelope; `text` prints a short summary for people (the default of `lint` on a terminal); `github`, GitHub Actions annotations' -r -f -a "json\t'One JSON envelope per input (JSON Lines)'
text\t'A short human summary'
github\t'GitHub Actions workflow commands: an annotation per violation, warning or failure; and, when `GITHUB_STEP_SUMMARY` is set, a table of the inputs appended to the job summary'"
complete -c sojx -n "__fish_sojx_using_subcommand producers; and __fish_seen_subcommand_from check" -l color -d 'When to use colors on stderr and in `--output-format text`' -r -f -a "auto\t'Color when the stream is a terminal and `NO_COLOR` is not set'
always\t'Always color (text output and stderr; JSON is never colored)'
never\t'Never color'"
complete -c sojx -n "__fish_sojx_using_subcommand producers; and __fish_seen_subcommand_from check" -l pretty -d 'Pretty-print the envelope (the default when stdout is a terminal)'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and __fish_seen_subcommand_from check" -s r -l raw -d 'Print only `data` (compact JSON; a string is printed raw, as `jq -r` does). Nothing is printed on failure; the exit status says what happened'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Print nothing on stdout, as `grep -q` does: the exit status says what happened, and failures are still told on stderr'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and __fish_seen_subcommand_from help" -f -a "check" -d 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)'
complete -c sojx -n "__fish_sojx_using_subcommand producers; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c sojx -n "__fish_sojx_using_subcommand help; and not __fish_seen_subcommand_from extract run validate compare lint compile producers help" -f -a "extract" -d 'Extract, validate and print an envelope per input (the main job)'
complete -c sojx -n "__fish_sojx_using_subcommand help; and not __fish_seen_subcommand_from extract run validate compare lint compile producers help" -f -a "run" -d 'Run an agent, extract and validate its answer from its output, and say how it ended'
complete -c sojx -n "__fish_sojx_using_subcommand help; and not __fish_seen_subcommand_from extract run validate compare lint compile producers help" -f -a "validate" -d 'Validate plain JSON documents, or JSON Lines (one document per line), against a schema'
complete -c sojx -n "__fish_sojx_using_subcommand help; and not __fish_seen_subcommand_from extract run validate compare lint compile producers help" -f -a "compare" -d 'Report contradictions between sibling outputs (same key, different field value)'
complete -c sojx -n "__fish_sojx_using_subcommand help; and not __fish_seen_subcommand_from extract run validate compare lint compile producers help" -f -a "lint" -d 'Check that a schema is valid and that a provider\'s structured output accepts it'
complete -c sojx -n "__fish_sojx_using_subcommand help; and not __fish_seen_subcommand_from extract run validate compare lint compile producers help" -f -a "compile" -d 'Print a schema lowered for a provider\'s structured-output feature'
complete -c sojx -n "__fish_sojx_using_subcommand help; and not __fish_seen_subcommand_from extract run validate compare lint compile producers help" -f -a "producers" -d 'List the producers sojx reads, or check a producer file against inputs'
complete -c sojx -n "__fish_sojx_using_subcommand help; and not __fish_seen_subcommand_from extract run validate compare lint compile producers help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c sojx -n "__fish_sojx_using_subcommand help; and __fish_seen_subcommand_from producers" -f -a "check" -d 'Check a producer file; with INPUTs, extract each as its producer (one envelope each)'
complete -c sojx -n "__fish_sojx_using_subcommand help; and __fish_seen_subcommand_from producers" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
