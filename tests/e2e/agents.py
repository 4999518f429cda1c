#!/usr/bin/env python3
"""The real agent CLIs, end to end, against a scripted model on 127.0.0.1 (issue 40).

Each CLI (Claude Code, Codex, Gemini CLI, Qwen Code, opencode), unmodified and at the versions
pinned in tests/e2e/package-lock.json, runs whole structured-output jobs against
tests/e2e/model_server.py, through `sojx extract` and `sojx run`:

  happy      the CLI alone (with its schema flag where it has one), its stdout through
             `sojx extract --schema`: exit 0, the answer
  run        `sojx run --schema S -- CLI …`: exit 0, the answer
  retry      `sojx run --max-attempts 2`, an invalid answer then a valid one: exit 0, two
             attempts, the same session resumed, and the second request to the model carries
             the first prompt, the invalid answer and sojx's feedback (read from the server's log)
  exhausted  the same with two invalid answers: exit 1, validation_failed, two attempts
  limit      (Claude Code) its own structured-output retry limit reached
             (MAX_STRUCTURED_OUTPUT_RETRIES=1), then sojx resuming the session: exit 0
  prose      (Claude Code) its own check rejects the answer and the run ends `success` with
             prose: `extract` says not_found, naming the rejected call and its violation
  readme     (Claude Code) the README's first-screen commands, as written: exit 0
  given      (Claude Code, Codex, Qwen Code) `sojx run --schema S -- CLI` without the CLI's
             schema flag, S with optional properties and a map in 2020-12: sojx gives the agent
             S lowered for it (Claude Code and Qwen Code offer their structured-output tool;
             Codex sends strict mode's schema), and lifts the answer back: exit 0, the answer
  pipeline   (Codex) `codex exec --output-schema <(sojx compile -r --provider openai S) … |
             sojx extract --schema S --provider openai`: exit 0, the answer

and through the Agent Client Protocol (issue 45), `sojx run --acp --schema S -- AGENT` with the
agent in its ACP mode (Gemini CLI, Qwen Code and opencode natively; Claude Code and Codex through
their adapters), one process and one session for the whole run:

  acp-happy       exit 0, the answer
  acp-retry       an invalid answer, then sojx's feedback as the next turn of the same session:
                  exit 0, two attempts, one session; the second request to the model carries the
                  first prompt, the invalid answer and the feedback
  acp-extraction  prose first, then the extraction turn ("reply with only a JSON value …"):
                  exit 0, two attempts
  acp-permission  the model calls the agent's shell tool (`rm -rf build`), the agent set to ask
                  first; sojx denies its permission request (the default policy); the model then
                  answers (or, when the agent ended the turn, the extraction turn asks): exit 0,
                  and the session counts the requests, all denied. Codex aborts its turn on a
                  denial: exit 1, agent_error, permission_denied, not retryable
  acp-cancel      the model answers 30 s late; at --timeout 10s sojx sends session/cancel, then
                  stops the agent: exit 2, timeout, the cancel in the recording

Every case runs in a fresh HOME and working folder with a clean environment (PATH, HOME and the
CLI's own variables). It prints a table (CLI, version, case, result, attempts, seconds) and exits
1 when a case failed, naming the CLI, its version and what differed.

  python3 tests/e2e/agents.py --install DIR            # install the pinned CLIs into DIR, then run
  python3 tests/e2e/agents.py --prefix DIR             # DIR already holds them (node_modules/.bin)
  python3 tests/e2e/agents.py --prefix DIR --record tests/fixtures/real
                                                       # also record what each CLI printed
  python3 tests/e2e/agents.py --install DIR --latest   # the newest versions (the weekly check)

--sojx names the binary (default target/release/sojx); --only claude,codex picks CLIs.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SERVER = HERE / "model_server.py"
SCHEMA = HERE / "verdict.schema.json"

PROMPT = "Review the change in PR 7 and give your verdict as JSON."
VALID = {"verdict": "PASS", "confidence": 0.9, "issues": []}
INVALID = {"verdict": "MAYBE", "confidence": 0.9, "issues": []}
FEEDBACK = "The previous output was invalid"
CASE_TIMEOUT = 120  # seconds; every case ends in a few unless something hangs

PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
    "qwen": "@qwen-code/qwen-code",
    "opencode": "opencode-ai",
}

# Each CLI in its ACP mode: the command, and the package whose version it runs (an adapter's,
# for Claude Code and Codex).
ACP = {
    "claude": (["claude-agent-acp"], "@agentclientprotocol/claude-agent-acp"),
    "codex": (["codex-acp"], "@zed-industries/codex-acp"),
    "gemini": (["gemini", "--acp", "--skip-trust"], "@google/gemini-cli"),
    "qwen": (["qwen", "--acp", "--auth-type", "openai", "--approval-mode", "default"], "@qwen-code/qwen-code"),
    "opencode": (["opencode", "acp"], "opencode-ai"),
}

# Each agent's own shell tool, called with a command that needs the user's approval.
SHELL_CALL = {
    "claude": {"name": "Bash", "input": {"command": "rm -rf build", "description": "Remove the build folder"}},
    "codex": {"name": "exec_command", "input": {"cmd": "rm -rf build"}},
    "gemini": {"name": "run_shell_command", "input": {"command": "rm -rf build", "description": "Remove the build folder"}},
    "qwen": {"name": "run_shell_command", "input": {"command": "rm -rf build", "is_background": False,
                                                  "description": "Remove the build folder"}},
    "opencode": {"name": "bash", "input": {"command": "rm -rf build", "description": "Remove the build folder"}},
}


class Failed(Exception):
    pass


# ---- the CLIs: how each is pointed at the server, and its command ---------------------------


def setup_claude(port, home, work):
    return {
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-ant-scripted",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def argv_claude(structured):
    argv = ["claude", "-p", PROMPT, "--output-format", "stream-json", "--verbose"]
    return argv + (["--json-schema", SCHEMA.read_text()] if structured else [])


def setup_codex(port, home, work):
    codex_home = home / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "gpt-5"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "scripted"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\nwire_api = "responses"\nenv_key = "SCRIPTED_API_KEY"\n'
    )
    return {"CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "scripted"}


def argv_codex(structured):
    argv = ["codex", "exec", "--json", "--skip-git-repo-check"]
    return argv + (["--output-schema", str(SCHEMA)] if structured else []) + [PROMPT]


def setup_gemini(port, home, work):
    (home / ".gemini").mkdir()
    # The base URL alone selects an auth type the CLI refuses (exit 41).
    (home / ".gemini" / "settings.json").write_text('{"security":{"auth":{"selectedType":"gemini-api-key"}}}')
    return {"GEMINI_API_KEY": "scripted", "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}"}


def argv_gemini(structured):
    return ["gemini", "-p", PROMPT, "-o", "stream-json", "--skip-trust"]


def setup_qwen(port, home, work):
    # Its managed-memory subagent asks the model after each turn, with tools: it would take a reply.
    (home / ".qwen").mkdir()
    (home / ".qwen" / "settings.json").write_text('{"memory":{"enableManagedAutoMemory":false}}')
    return {"OPENAI_API_KEY": "scripted", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_MODEL": "scripted-model"}


def argv_qwen(structured):
    argv = ["qwen", "-p", PROMPT, "-o", "stream-json", "--auth-type", "openai"]
    return argv + (["--json-schema", SCHEMA.read_text()] if structured else [])


def setup_opencode(port, home, work):
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
                                  "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "scripted"},
                                  "models": {"scripted-model": {"name": "Scripted"}}}},
        "model": "scripted/scripted-model",
    }
    (work / "opencode.json").write_text(json.dumps(config))
    return {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}


def argv_opencode(structured):
    return ["opencode", "run", "--format", "json", PROMPT]


# name -> (setup, argv, has a structured-output flag)
CLIS = {
    "claude": (setup_claude, argv_claude, True),
    "codex": (setup_codex, argv_codex, True),
    "gemini": (setup_gemini, argv_gemini, False),
    "qwen": (setup_qwen, argv_qwen, True),
    "opencode": (setup_opencode, argv_opencode, False),
}


# ---- one case -----------------------------------------------------------------------------


class Case:
    """A fresh HOME and work folder, the server with a script, and the CLI pointed at it."""

    def __init__(self, cli, bin_dir, replies, scratch):
        self.cli, self.bin_dir = cli, bin_dir
        self.dir = Path(tempfile.mkdtemp(prefix=f"{cli}-", dir=scratch))
        self.home, self.work = self.dir / "home", self.dir / "work"
        self.home.mkdir()
        self.work.mkdir()
        (self.dir / "script.json").write_text(json.dumps({"replies": replies}))
        self.log = self.dir / "requests.jsonl"
        self.server = subprocess.Popen(
            [sys.executable, str(SERVER), "--script", str(self.dir / "script.json"), "--log", str(self.log),
             "--lifetime", str(CASE_TIMEOUT + 30)],
            stdout=subprocess.PIPE, text=True)
        line = self.server.stdout.readline()
        if not line.strip().isdigit():
            raise Failed(f"the model server did not start: {line!r}")
        self.port = int(line)
        self.env = {"PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", "HOME": str(self.home),
                    "TMPDIR": str(self.dir), "LANG": "C.UTF-8"}
        self.env.update(CLIS[cli][0](self.port, self.home, self.work))

    def run(self, argv, extra_env=None):
        env = dict(self.env, **(extra_env or {}))
        p = subprocess.run(argv, cwd=self.work, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=CASE_TIMEOUT)
        return p.returncode, p.stdout, p.stderr

    def requests(self):
        if not self.log.exists():
            return []
        return [json.loads(l) for l in self.log.read_text().splitlines() if l.strip()]

    def close(self):
        self.server.kill()
        self.server.wait()

    def masked(self, data):
        """Recorded bytes with this case's folders spelled as one fixed path (also as the CLIs
        spell a folder in a file name: every other character a dash)."""
        dashed = re.sub(r"[^A-Za-z0-9]", "-", str(self.dir)).encode()
        prefix = str(Path(self.bin_dir).parent.parent).encode()
        data = data.replace(str(self.dir).encode(), b"/tmp/sojx-e2e").replace(dashed, b"-tmp-sojx-e2e")
        return data.replace(prefix, b"/opt/agents")


def envelope(stdout, what):
    try:
        return json.loads(stdout)
    except ValueError:
        raise Failed(f"{what}: stdout is not one JSON envelope: {stdout[:300]!r}")


def expect(cond, what):
    if not cond:
        raise Failed(what)


def main_requests(case):
    return [r for r in case.requests() if r.get("role") == "main"]


# ---- the scenarios ------------------------------------------------------------------------


def happy(cli, case, sojx, record):
    structured = CLIS[cli][2]
    status, out, err = case.run(CLIS[cli][1](structured))
    record("happy", out, err, status, case)
    expect(status == 0, f"the CLI exited {status}: {err[-400:]!r}")
    p = subprocess.run([sojx, "extract", "--schema", str(SCHEMA)], input=out, capture_output=True, timeout=30)
    env = envelope(p.stdout, "sojx extract")
    expect(p.returncode == 0, f"sojx extract exited {p.returncode}: {env.get('error')}")
    expect(env.get("data") == VALID, f"sojx extract gave {env.get('data')!r}")
    return 1


def run_once(cli, case, sojx, record):
    structured = CLIS[cli][2]
    tee = case.dir / "tee.ndjson"
    status, out, err = case.run([sojx, "run", "--schema", str(SCHEMA), "--tee", str(tee), "--",
                                 *CLIS[cli][1](structured)])
    env = envelope(out, "sojx run")
    expect(status == 0, f"sojx run exited {status}: {env.get('error')}; stderr {err[-400:]!r}")
    expect(env.get("data") == VALID, f"sojx run gave {env.get('data')!r}")
    return len(env.get("attempts") or [1])


def retried(cli, case, sojx, record, name, replies_ok, extra_env=None, structured=False):
    tee = case.dir / "tee.ndjson"
    # Without its schema flag the agent does not check the answer itself (Claude Code and Qwen
    # Code would ask the model again): sojx's own retry is what is tested.
    own = [] if structured else ["--no-agent-schema"]
    status, out, err = case.run([sojx, "run", "--schema", str(SCHEMA), "--max-attempts", "2", "--tee", str(tee),
                                 *own, "--", *CLIS[cli][1](structured)], extra_env)
    record(name, tee.read_bytes() if tee.exists() else b"", err, status, case)
    env = envelope(out, "sojx run")
    attempts = env.get("attempts") or []
    expect(len(attempts) == 2, f"{len(attempts)} attempts, not 2: {attempts}; stderr {err[-600:]!r}")
    first, second = attempts
    expect(first.get("session_id") and first.get("session_id") == second.get("session_id"),
           f"not the same session: {first.get('session_id')!r} then {second.get('session_id')!r}")
    expect(str(second.get("via", "")).startswith("resume:"), f"attempt 2 was made {second.get('via')!r}, not resumed")
    if replies_ok:
        expect(status == 0, f"sojx run exited {status}: {env.get('error')}")
        expect(env.get("data") == VALID, f"sojx run gave {env.get('data')!r}")
    else:
        expect(status == 1, f"sojx run exited {status}, not 1")
        expect((env.get("error") or {}).get("kind") == "validation_failed", f"error {env.get('error')}")
    # The resumed session's request to the model carries the first prompt, the invalid answer and
    # the feedback: the agent resumed the same conversation with what sojx said.
    mains = main_requests(case)
    last = json.dumps(mains[-1]["body"]) if mains else ""
    for needle, what in ((PROMPT, "the first prompt"), ("MAYBE", "the invalid answer"), (FEEDBACK, "the feedback")):
        expect(needle in last or json.dumps(needle)[1:-1] in last,
               f"the last request to the model lacks {what} ({len(mains)} main requests)")
    return len(attempts)


def retry(cli, case, sojx, record):
    return retried(cli, case, sojx, record, "retry", True)


def exhausted(cli, case, sojx, record):
    return retried(cli, case, sojx, record, "exhausted", False)


def limit(cli, case, sojx, record):
    # Claude Code's own check rejects the first call and ends the run
    # error_max_structured_output_retries; sojx resumes with the schema again and gets a valid one.
    attempts = retried(cli, case, sojx, record, "limit", True, {"MAX_STRUCTURED_OUTPUT_RETRIES": "1"},
                       structured=True)
    tee = (case.dir / "tee.ndjson").read_text()
    expect('"error_max_structured_output_retries"' in tee,
           "the first attempt did not end error_max_structured_output_retries")
    # sojx's feedback names the violation Claude Code's check found.
    feedback = [t for t in strings(main_requests(case)[-1]["body"]) if FEEDBACK in t]
    expect(any("/verdict" in t for t in feedback), f"the feedback does not name the violation: {feedback}")
    return attempts


def strings(v):
    """Every string in a JSON value."""
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


def prose(cli, case, sojx, record):
    # Claude Code rejects the first StructuredOutput call (its own schema check), asks once more,
    # and ends `success` with the model's prose: sojx names what happened, and `run` would feed
    # the rejection back.
    status, out, err = case.run(CLIS[cli][1](True))
    record("prose", out, err, status, case)
    expect(status == 0, f"the CLI exited {status}: {err[-400:]!r}")
    p = subprocess.run([sojx, "extract", "--schema", str(SCHEMA)], input=out, capture_output=True, timeout=30)
    error = envelope(p.stdout, "sojx extract").get("error") or {}
    expect(p.returncode == 1 and error.get("kind") == "not_found", f"sojx extract exited {p.returncode}: {error}")
    expect("StructuredOutput" in error.get("message", "") and "/verdict" in error.get("message", ""),
           f"the message does not name the rejected StructuredOutput call and its violation: {error}")
    expect("run claude with --json-schema" not in error.get("hint", ""), f"the hint asks for a flag given: {error}")
    return 1


# The schema of issue 56: optional properties and a map, which OpenAI's strict mode (Codex)
# cannot take as written, in a draft (2020-12) that Claude Code refuses.
GIVEN_SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["verdict"],
                "properties": {"verdict": {"enum": ["PASS", "FAIL"]}, "service": {"type": "string"},
                               "tags": {"type": "object", "additionalProperties": {"type": "number"}}}}
GIVEN_DATA = {"verdict": "PASS", "tags": {"p95_ms": 180}}


def given_answer(cli):
    """What the model answers under the schema its CLI was given: Codex's in strict mode's
    shape (a null for the missing property, the map as entries)."""
    if cli == "codex":
        return {"verdict": "PASS", "service": None, "tags": [{"key": "p95_ms", "value": 180}]}
    return GIVEN_DATA


def given(cli, case, sojx, record):
    # `sojx run --schema S -- CLI` with no schema flag of the CLI's own: sojx gives the agent S
    # lowered for it, and lifts the answer back.
    schema = case.work / "s.json"
    schema.write_text(json.dumps(GIVEN_SCHEMA))
    tee = case.dir / "tee.ndjson"
    status, out, err = case.run([sojx, "run", "--schema", str(schema), "--tee", str(tee), "--",
                                 *CLIS[cli][1](False)])
    record("given", tee.read_bytes() if tee.exists() else b"", err, status, case)
    env = envelope(out, "sojx run")
    expect(status == 0, f"sojx run exited {status}: {env.get('error')}; stderr {err[-400:]!r}")
    expect(env.get("data") == GIVEN_DATA, f"sojx run gave {env.get('data')!r}")
    mains = main_requests(case)
    expect(mains, "no request reached the model")
    if cli == "codex":
        expect((env.get("validation") or {}).get("provider") == "openai", f"validation {env.get('validation')}")
        fmt = json.dumps(mains[0]["body"].get("text", {}).get("format", {}))
        expect('"key"' in fmt and '"additionalProperties": false' in fmt,
               f"Codex did not send the lowered schema: {fmt[:400]}")
    else:
        # The CLI kept the schema: its structured-output tool was offered to the model.
        tools = mains[0].get("tools") or []
        expect(any(t in ("StructuredOutput", "structured_output") for t in tools),
               f"no structured-output tool among {tools}")
    return 1


def pipeline(cli, case, sojx, record):
    # The round trip without `run` (docs/schema-tools.md): Codex given the lowering by `sojx
    # compile`, its stdout lifted by `sojx extract --provider openai`.
    (case.work / "s.json").write_text(json.dumps(GIVEN_SCHEMA))
    line = (f"codex exec --json --skip-git-repo-check --output-schema <(sojx compile -r --provider openai s.json) "
            f"'{PROMPT}' | sojx extract --schema s.json --provider openai")
    path = f"{Path(sojx).parent}:{case.env['PATH']}"
    status, out, err = case.run(["bash", "-o", "pipefail", "-c", line], {"PATH": path})
    env = envelope(out, line)
    expect(status == 0, f"`{line}` exited {status}: {env.get('error')}; stderr {err[-400:]!r}")
    expect(env.get("data") == GIVEN_DATA, f"`{line}` gave {env.get('data')!r}")
    return 1


def readme_lines(cli):
    """The README's first-screen pipeline commands that start CLI (continuation lines joined)."""
    text = (ROOT / "README.md").read_text()
    block = text[text.index("In a pipeline:"):]
    block = block[block.index("```sh") + 5:block.index("```", block.index("```sh") + 5)]
    lines, cmd = [], ""
    for line in block.splitlines():
        cmd += line.rstrip("\\").strip() + " " if line.endswith("\\") else line.strip()
        if not line.endswith("\\"):
            if re.match(rf"^(sojx run .* -- )?{cli} ", cmd):
                lines.append(cmd)
            cmd = ""
    return lines


def readme(cli, case, sojx, record):
    # The README's commands as written (x.json is the example schema), with sojx on PATH.
    shutil.copy(ROOT / "examples" / "verdict.schema.json", case.work / "x.json")
    lines = readme_lines(cli)
    expect(len(lines) >= 2, f"the README's pipeline block has {len(lines)} {cli} commands, not 2")
    path = f"{Path(sojx).parent}:{case.env['PATH']}"
    for line in lines:
        status, out, err = case.run(["bash", "-o", "pipefail", "-c", line], {"PATH": path})
        env = envelope(out, line)
        expect(status == 0, f"`{line}` exited {status}: {env.get('error')}; stderr {err[-400:]!r}")
        expect(env.get("data") == VALID, f"`{line}` gave {env.get('data')!r}")
    return len(lines)


def acp_run(cli, case, sojx, record, name, max_attempts=1, timeout=None):
    """`sojx run --acp --schema S` with the agent in its ACP mode: its envelope, status, stderr."""
    tee = case.dir / "tee.acp.jsonl"
    argv = [sojx, "run", "--acp", "--schema", str(SCHEMA), "--prompt", PROMPT, "--tee", str(tee),
            "--max-attempts", str(max_attempts)]
    # --kill-after 2s: Codex's adapter does not exit when its stdin closes (sojx stops it then).
    argv += ["--kill-after", "2s"]
    if timeout:
        argv += ["--timeout", timeout]
    status, out, err = case.run([*argv, "--", *ACP[cli][0]])
    record(name, tee.read_bytes() if tee.exists() else b"", err, status, case)
    env = envelope(out, "sojx run --acp")
    expect(env.get("producer") == "acp", f"producer {env.get('producer')!r}: {env.get('error')}")
    return env, status, err, tee


def vias(env):
    return [a.get("via") for a in env.get("attempts") or []]


def acp_happy(cli, case, sojx, record):
    env, status, err, _ = acp_run(cli, case, sojx, record, "acp-happy")
    expect(status == 0, f"sojx run --acp exited {status}: {env.get('error')}; stderr {err[-400:]!r}")
    expect(env.get("data") == VALID, f"sojx run --acp gave {env.get('data')!r}")
    expect((env.get("session") or {}).get("agent_info"), f"no agent_info: {env.get('session')}")
    return 1


def acp_retry(cli, case, sojx, record):
    env, status, err, _ = acp_run(cli, case, sojx, record, "acp-retry", max_attempts=2)
    expect(status == 0, f"sojx run --acp exited {status}: {env.get('error')}; stderr {err[-400:]!r}")
    expect(vias(env) == ["acp:prompt", "acp:feedback"], f"attempts {env.get('attempts')}")
    ids = {a.get("session_id") for a in env["attempts"]}
    expect(len(ids) == 1 and None not in ids, f"not one session: {ids}")
    mains = main_requests(case)
    last = json.dumps(mains[-1]["body"]) if mains else ""
    for needle, what in ((PROMPT, "the first prompt"), ("MAYBE", "the invalid answer"), (FEEDBACK, "the feedback")):
        expect(needle in last or json.dumps(needle)[1:-1] in last,
               f"the last request to the model lacks {what} ({len(mains)} main requests)")
    return len(env["attempts"])


def acp_extraction(cli, case, sojx, record):
    env, status, err, _ = acp_run(cli, case, sojx, record, "acp-extraction", max_attempts=2)
    expect(status == 0, f"sojx run --acp exited {status}: {env.get('error')}; stderr {err[-400:]!r}")
    expect(vias(env) == ["acp:prompt", "acp:extraction_turn"], f"attempts {env.get('attempts')}")
    expect(env["attempts"][0].get("error_kind") == "not_found", f"attempt 1: {env['attempts'][0]}")
    last = json.dumps(main_requests(case)[-1]["body"])
    expect("Reply with only a JSON value" in last, "the last request to the model lacks the extraction turn")
    return 2


def ask_for_approval(cli, case):
    """Make the agent ask before it runs a shell command, as a user who wants sojx's policy to
    decide would: Claude Code's adapter starts in its `auto` mode (its classifier decides),
    opencode allows every tool by default, Codex runs what its sandbox allows, and Qwen Code's
    ACP mode starts in `auto` too; Gemini CLI asks by default."""
    if cli == "claude":
        (case.home / ".claude").mkdir(exist_ok=True)
        (case.home / ".claude" / "settings.json").write_text('{"permissions":{"defaultMode":"default"}}')
    elif cli == "opencode":
        config = json.loads((case.work / "opencode.json").read_text())
        config["permission"] = {"bash": "ask", "edit": "ask"}
        (case.work / "opencode.json").write_text(json.dumps(config))
    elif cli == "codex":
        config = case.home / ".codex" / "config.toml"
        config.write_text('approval_policy = "untrusted"\n' + config.read_text())


def acp_permission(cli, case, sojx, record):
    ask_for_approval(cli, case)
    # The agent may end the turn after the denial without an answer (Qwen Code): the extraction
    # turn then asks for it.
    env, status, err, tee = acp_run(cli, case, sojx, record, "acp-permission", max_attempts=2)
    p = (env.get("session") or {}).get("permissions") or {}
    if cli == "codex":
        # Codex's only reject option ("abort") ends its turn `cancelled`: sojx says why.
        error = env.get("error") or {}
        expect(status == 1 and (error.get("details") or {}).get("terminal_reason") == "permission_denied"
               and error.get("retryable") is False, f"sojx run --acp exited {status}: {error}")
    else:
        expect(status == 0, f"sojx run --acp exited {status}: {env.get('error')}; stderr {err[-400:]!r}")
        expect(env.get("data") == VALID, f"sojx run --acp gave {env.get('data')!r}")
    expect(p.get("asked", 0) >= 1 and p.get("denied") == p.get("asked") and p.get("allowed") == 0,
           f"permissions {p}: the agent asked none, or sojx allowed one")
    return len(env.get("attempts") or [1])


def acp_cancel(cli, case, sojx, record):
    t0 = time.monotonic()
    # 10 s: a cold agent on a busy runner takes seconds to start, and the handshake counts.
    env, status, err, tee = acp_run(cli, case, sojx, record, "acp-cancel", timeout="10s")
    secs = time.monotonic() - t0
    expect(status == 2 and (env.get("error") or {}).get("kind") == "timeout",
           f"sojx run --acp exited {status}: {env.get('error')}")
    expect('"session/cancel"' in tee.read_text(), "no session/cancel in the recording")
    expect(secs < 10 + 2 + 2 + 10, f"{secs:.1f} s: not stopped in time")
    return 1


SCENARIOS = [
    ("happy", happy, lambda cli: [{"answer": VALID}]),
    ("run", run_once, lambda cli: [{"answer": VALID}]),
    ("retry", retry, lambda cli: [{"answer": INVALID}, {"answer": VALID}]),
    ("exhausted", exhausted, lambda cli: [{"answer": INVALID}, {"answer": INVALID}]),
    ("limit", limit, lambda cli: [{"answer": INVALID}, {"answer": VALID}]),
    ("prose", prose, lambda cli: [{"answer": INVALID}, {"text": "I could not decide."}, {"text": "Still unclear."}]),
    ("readme", readme, lambda cli: [{"answer": VALID}, {"answer": VALID}]),
    ("given", given, lambda cli: [{"answer": given_answer(cli)}]),
    ("pipeline", pipeline, lambda cli: [{"answer": given_answer(cli)}]),
    ("acp-happy", acp_happy, lambda cli: [{"answer": VALID}]),
    ("acp-retry", acp_retry, lambda cli: [{"answer": INVALID}, {"answer": VALID}]),
    ("acp-extraction", acp_extraction, lambda cli: [{"text": "I could not decide yet."}, {"answer": VALID}]),
    ("acp-permission", acp_permission, lambda cli: [{"call": SHELL_CALL[cli]}, {"answer": VALID}, {"answer": VALID}]),
    ("acp-cancel", acp_cancel, lambda cli: [{"answer": VALID, "delay": 30}]),
]
ONLY = {"limit": {"claude"}, "prose": {"claude"}, "readme": {"claude"}, "given": {"claude", "codex", "qwen"},
        "pipeline": {"codex"}}


# ---- driving it ---------------------------------------------------------------------------


def install(prefix, latest):
    prefix.mkdir(parents=True, exist_ok=True)
    if latest:
        pkgs = [f"{p}@latest" for p in [*PACKAGES.values(), *(a[1] for a in ACP.values())]]
        cmd = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error", *pkgs]
    else:
        # `npm install` with the lockfile: `npm ci` refuses a lockfile that lacks other
        # platforms' optional packages, which a registry mirror may not list.
        for f in ("package.json", "package-lock.json"):
            shutil.copy(HERE / f, prefix / f)
        cmd = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error"]
    print("installing:", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def version(bin_dir, cli):
    p = subprocess.run([str(bin_dir / cli), "--version"], capture_output=True, text=True, timeout=60,
                       env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": tempfile.gettempdir()})
    m = re.search(r"\d+\.\d+\.\d+", p.stdout + p.stderr)
    return m.group(0) if m else "unknown"


def package_version(prefix, package):
    """The version of `package` installed under the npm prefix."""
    try:
        return json.loads((prefix / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--install", type=Path, help="install the pinned CLIs (package-lock.json) into this prefix first")
    where.add_argument("--prefix", type=Path, help="an npm prefix that holds the CLIs")
    ap.add_argument("--latest", action="store_true", help="with --install: the newest versions, not the pinned ones")
    ap.add_argument("--sojx", type=Path, default=ROOT / "target" / "release" / "sojx")
    ap.add_argument("--only", help="comma-separated CLIs (default: all)")
    ap.add_argument("--cases", help="comma-separated cases, `acp-*` for a prefix (default: all)")
    ap.add_argument("--jobs", type=int, default=2, help="CLIs run side by side (default 2)")
    ap.add_argument("--record", type=Path, help="record what each CLI printed here, as CLI-VERSION-e2e-CASE.*")
    args = ap.parse_args()

    prefix = args.install or args.prefix
    if args.record:
        args.record.mkdir(parents=True, exist_ok=True)
    if args.install:
        install(args.install, args.latest)
    bin_dir = prefix.resolve() / "node_modules" / ".bin"
    sojx = str(args.sojx.resolve())
    clis = args.only.split(",") if args.only else list(CLIS)
    versions = {cli: version(bin_dir, cli) for cli in clis}
    # The ACP cases run the agent's own package, or its adapter's.
    acp_versions = {cli: package_version(prefix.resolve(), ACP[cli][1]) for cli in clis}
    if not args.latest:
        # The versions CI runs are the pinned ones, whatever the prefix holds.
        pinned = json.loads((HERE / "package.json").read_text())["dependencies"]
        wrong = [f"{cli} is {versions[cli]}, pinned {pinned[PACKAGES[cli]]}"
                 for cli in clis if versions[cli] != pinned[PACKAGES[cli]]]
        wrong += [f"{ACP[cli][1]} is {acp_versions[cli]}, pinned {pinned[ACP[cli][1]]}"
                  for cli in clis if acp_versions[cli] != pinned[ACP[cli][1]]]
        if wrong:
            print("not the pinned versions (tests/e2e/package.json):", "; ".join(wrong), file=sys.stderr)
            return 1
    scratch = Path(tempfile.mkdtemp(prefix="sojx-e2e-"))
    rows, failures = [], []
    started = time.monotonic()

    def one_cli(cli):
        """Every scenario of one CLI, in order: its rows and failures."""
        out_rows, out_failures = [], []

        def named(name):
            """The program and version a case runs: the ACP agent's (an adapter) for acp-*."""
            if name.startswith("acp-"):
                return ACP[cli][0][0], acp_versions[cli]
            return cli, versions[cli]

        def record(name, out, err, status, case):
            if args.record:
                program, ver = named(name)
                stem = f"{program}-{ver}-e2e-{name}"
                (args.record / f"{stem}.stdout").write_bytes(case.masked(out))
                (args.record / f"{stem}.stderr").write_bytes(case.masked(err))
                (args.record / f"{stem}.status").write_text(f"{status}\n")

        for name, fn, replies in SCENARIOS:
            if name in ONLY and cli not in ONLY[name]:
                continue
            if args.cases and not any(name == c or (c.endswith("*") and name.startswith(c[:-1]))
                                      for c in args.cases.split(",")):
                continue
            ver = named(name)[1]
            t0 = time.monotonic()
            case = None
            try:
                case = Case(cli, bin_dir, replies(cli), scratch)
                attempts, result = fn(cli, case, sojx, record), "ok"
            except Exception as e:  # a case that breaks in any way is a failed row, not a crash
                attempts, result = "-", "FAILED"
                log = case.log if case else "-"
                what = str(e) if isinstance(e, Failed) else f"{type(e).__name__}: {e}"
                out_failures.append(f"{cli} {ver} {name}: {what} (requests: {log})")
            finally:
                if case:
                    case.close()
            out_rows.append((cli, ver, name, result, attempts, time.monotonic() - t0))
        return out_rows, out_failures

    try:
        # The CLIs run side by side (each case is mostly a Node.js or Rust process starting);
        # a CLI's own cases run one after the other.
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for cli_rows, cli_failures in pool.map(one_cli, clis):
                for cli, ver, name, result, attempts, secs in cli_rows:
                    print(f"{cli:9} {ver:9} {name:10} {result:7} {attempts!s:>3} {secs:6.1f}s", flush=True)
                rows += cli_rows
                failures += cli_failures
    finally:
        if not failures:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(rows)} cases, {len(failures)} failed, {time.monotonic() - started:.0f} s", flush=True)
    for f in failures:
        print("FAILED:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
