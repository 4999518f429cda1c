_sojx() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="sojx"
                ;;
            sojx,compare)
                cmd="sojx__subcmd__compare"
                ;;
            sojx,compile)
                cmd="sojx__subcmd__compile"
                ;;
            sojx,extract)
                cmd="sojx__subcmd__extract"
                ;;
            sojx,help)
                cmd="sojx__subcmd__help"
                ;;
            sojx,lint)
                cmd="sojx__subcmd__lint"
                ;;
            sojx,producers)
                cmd="sojx__subcmd__producers"
                ;;
            sojx,run)
                cmd="sojx__subcmd__run"
                ;;
            sojx,validate)
                cmd="sojx__subcmd__validate"
                ;;
            sojx__subcmd__help,compare)
                cmd="sojx__subcmd__help__subcmd__compare"
                ;;
            sojx__subcmd__help,compile)
                cmd="sojx__subcmd__help__subcmd__compile"
                ;;
            sojx__subcmd__help,extract)
                cmd="sojx__subcmd__help__subcmd__extract"
                ;;
            sojx__subcmd__help,help)
                cmd="sojx__subcmd__help__subcmd__help"
                ;;
            sojx__subcmd__help,lint)
                cmd="sojx__subcmd__help__subcmd__lint"
                ;;
            sojx__subcmd__help,producers)
                cmd="sojx__subcmd__help__subcmd__producers"
                ;;
            sojx__subcmd__help,run)
                cmd="sojx__subcmd__help__subcmd__run"
                ;;
            sojx__subcmd__help,validate)
                cmd="sojx__subcmd__help__subcmd__validate"
                ;;
            sojx__subcmd__help__subcmd__producers,check)
                cmd="sojx__subcmd__help__subcmd__producers__subcmd__check"
                ;;
            sojx__subcmd__help__subcmd__producers,help)
                cmd="sojx__subcmd__help__subcmd__producers__subcmd__help"
                ;;
            sojx__subcmd__help__subcmd__producers__subcmd__help,check)
                cmd="sojx__subcmd__help__subcmd__producers__subcmd__help__subcmd__check"
                ;;
            sojx__subcmd__help__subcmd__producers__subcmd__help,help)
                cmd="sojx__subcmd__help__subcmd__producers__subcmd__help__subcmd__help"
                ;;
            sojx__subcmd__producers,check)
                cmd="sojx__subcmd__producers__subcmd__check"
                ;;
            sojx__subcmd__producers,help)
                cmd="sojx__subcmd__producers__subcmd__help"
                ;;
            sojx__subcmd__producers__subcmd__help,check)
                cmd="sojx__subcmd__producers__subcmd__help__subcmd__check"
                ;;
            sojx__subcmd__producers__subcmd__help,help)
                cmd="sojx__subcmd__producers__subcmd__help__subcmd__help"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        sojx)
            opts="-h -V --help --version extract run validate compare lint compile producers help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__compare)
            opts="-s -r -q -h --items --key --field --from --producer-file --strict --repair --coerce --schema --draft --ignore-formats --resource --provider --compat --output-format --pretty --raw --quiet --color --max-line-bytes --max-candidates --max-answer-bytes --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --items)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --field)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -W "auto claude-code codex gemini-cli qwen-code amp cursor opencode openai-chat openai-responses anthropic ollama meerkat acp copilot-cli pi grok-cli goose kimi-code antigravity bob-shell cline continue droid kilo codebuddy auggie openhands json text" -- "${cur}"))
                    return 0
                    ;;
                --producer-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --schema)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --draft)
                    COMPREPLY=($(compgen -W "4 6 7 2019-09 2020-12" -- "${cur}"))
                    return 0
                    ;;
                --resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --provider)
                    COMPREPLY=($(compgen -W "anthropic openai gemini claude-code" -- "${cur}"))
                    return 0
                    ;;
                --compat)
                    COMPREPLY=($(compgen -W "lossy strict" -- "${cur}"))
                    return 0
                    ;;
                --output-format)
                    COMPREPLY=($(compgen -W "json text github" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --max-line-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-candidates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-answer-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__compile)
            opts="-r -q -h --provider --compat --draft --resource --output-format --pretty --raw --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --provider)
                    COMPREPLY=($(compgen -W "anthropic openai gemini claude-code" -- "${cur}"))
                    return 0
                    ;;
                --compat)
                    COMPREPLY=($(compgen -W "lossy strict" -- "${cur}"))
                    return 0
                    ;;
                --draft)
                    COMPREPLY=($(compgen -W "4 6 7 2019-09 2020-12" -- "${cur}"))
                    return 0
                    ;;
                --resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-format)
                    COMPREPLY=($(compgen -W "json text github" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__extract)
            opts="-s -r -q -h --schema --draft --ignore-formats --resource --provider --compat --from --producer-file --strict --repair --coerce --activity --markers --handoff --assert --output-format --pretty --raw --quiet --color --timeout --tee --envelope-file --max-line-bytes --max-candidates --max-answer-bytes --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --schema)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --draft)
                    COMPREPLY=($(compgen -W "4 6 7 2019-09 2020-12" -- "${cur}"))
                    return 0
                    ;;
                --resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --provider)
                    COMPREPLY=($(compgen -W "anthropic openai gemini claude-code" -- "${cur}"))
                    return 0
                    ;;
                --compat)
                    COMPREPLY=($(compgen -W "lossy strict" -- "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -W "auto claude-code codex gemini-cli qwen-code amp cursor opencode openai-chat openai-responses anthropic ollama meerkat acp copilot-cli pi grok-cli goose kimi-code antigravity bob-shell cline continue droid kilo codebuddy auggie openhands json text" -- "${cur}"))
                    return 0
                    ;;
                --producer-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --handoff)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --assert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-format)
                    COMPREPLY=($(compgen -W "json text github" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tee)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --envelope-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-line-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-candidates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-answer-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help)
            opts="extract run validate compare lint compile producers help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__compare)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__compile)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__extract)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__lint)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__producers)
            opts="check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__producers__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__producers__subcmd__help)
            opts="check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__producers__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__producers__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__help__subcmd__validate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__lint)
            opts="-r -q -h --provider --draft --resource --output-format --pretty --raw --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --provider)
                    COMPREPLY=($(compgen -W "anthropic openai gemini claude-code all" -- "${cur}"))
                    return 0
                    ;;
                --draft)
                    COMPREPLY=($(compgen -W "4 6 7 2019-09 2020-12" -- "${cur}"))
                    return 0
                    ;;
                --resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-format)
                    COMPREPLY=($(compgen -W "json text github" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__producers)
            opts="-r -q -h --producer-file --output-format --pretty --raw --quiet --color --help check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --producer-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-format)
                    COMPREPLY=($(compgen -W "json text github" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__producers__subcmd__check)
            opts="-r -q -h --output-format --pretty --raw --quiet --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output-format)
                    COMPREPLY=($(compgen -W "json text github" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__producers__subcmd__help)
            opts="check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__producers__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__producers__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__run)
            opts="-s -r -q -h --schema --draft --ignore-formats --resource --provider --compat --from --producer-file --strict --repair --coerce --activity --markers --handoff --assert --output-format --pretty --raw --quiet --color --timeout --tee --envelope-file --kill-after --max-line-bytes --max-candidates --max-answer-bytes --max-attempts --retry-on --resume-profile --retry-command --feedback-template --no-agent-schema --acp --prompt --prompt-file --acp-permissions --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --schema)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --draft)
                    COMPREPLY=($(compgen -W "4 6 7 2019-09 2020-12" -- "${cur}"))
                    return 0
                    ;;
                --resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --provider)
                    COMPREPLY=($(compgen -W "anthropic openai gemini claude-code" -- "${cur}"))
                    return 0
                    ;;
                --compat)
                    COMPREPLY=($(compgen -W "lossy strict" -- "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -W "auto claude-code codex gemini-cli qwen-code amp cursor opencode openai-chat openai-responses anthropic ollama meerkat acp copilot-cli pi grok-cli goose kimi-code antigravity bob-shell cline continue droid kilo codebuddy auggie openhands json text" -- "${cur}"))
                    return 0
                    ;;
                --producer-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --handoff)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --assert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-format)
                    COMPREPLY=($(compgen -W "json text github" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tee)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --envelope-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kill-after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-line-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-candidates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-answer-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-attempts)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retry-on)
                    COMPREPLY=($(compgen -W "timeout truncated agent_error" -- "${cur}"))
                    return 0
                    ;;
                --resume-profile)
                    COMPREPLY=($(compgen -W "claude codex gemini qwen opencode amp cursor-agent copilot-cli pi droid kilo auggie none" -- "${cur}"))
                    return 0
                    ;;
                --retry-command)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --feedback-template)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --acp-permissions)
                    COMPREPLY=($(compgen -W "deny allow-once allow" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        sojx__subcmd__validate)
            opts="-s -r -q -j -h --schema --draft --ignore-formats --resource --provider --compat --output-format --pretty --raw --quiet --color --timeout --tee --max-line-bytes --jobs --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --schema)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --draft)
                    COMPREPLY=($(compgen -W "4 6 7 2019-09 2020-12" -- "${cur}"))
                    return 0
                    ;;
                --resource)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --provider)
                    COMPREPLY=($(compgen -W "anthropic openai gemini claude-code" -- "${cur}"))
                    return 0
                    ;;
                --compat)
                    COMPREPLY=($(compgen -W "lossy strict" -- "${cur}"))
                    return 0
                    ;;
                --output-format)
                    COMPREPLY=($(compgen -W "json text github" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tee)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-line-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _sojx -o nosort -o bashdefault -o default sojx
else
    complete -F _sojx -o bashdefault -o default sojx
fi
