#!/usr/bin/env python3
"""Red-team inputs for the bounds on what extraction keeps (issue 44, items 4 and 5).

Writes about SIZE megabytes (10**6 bytes) of one input to stdout:

    python3 tests/bounds/redteam.py KIND SIZE > input
    /usr/bin/time -v sojx extract input

KIND is one of:

- claude-calls: Claude Code StructuredOutput tool calls, each with its own id, none refused;
- claude-refusals: StructuredOutput calls, each refused by its tool result (distinct ids);
- claude-tool-errors: tool results refusing calls of other tools (distinct ids), then one
  StructuredOutput call;
- anthropic-indices: Anthropic SSE `content_block_delta` events, each with its own index;
- anthropic-blocks: Anthropic `content_block_start` events, each with its own index;
- openai-calls: OpenAI Chat Completions chunks, each a tool call with its own index and id;
- responses-items: OpenAI Responses `response.output_item.done` events of tiny items;
- ollama-calls: Ollama lines, each with a tool call of an empty `arguments`;
- gemini-errors: Gemini CLI stream-json `error` events of `severity: "error"`;
- fences: plain text of ```json fenced blocks (`--from text`), item 5.

The CLI tests (tests/cli/bounds.rs) build the same shapes, a few megabytes each; this script
makes them as large as a measurement needs, without committing big files.
"""

import json
import sys


def lines(kind):
    """The input's head, its repeated line (a function of the line number) and its tail."""
    dumps = lambda v: json.dumps(v, separators=(",", ":"))
    if kind == "claude-calls":
        head = [dumps({"type": "system", "subtype": "init", "session_id": "s", "model": "m",
                       "tools": ["StructuredOutput"]})]
        body = lambda n: dumps({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "StructuredOutput",
             "input": {"verdict": "PASS", "n": n}}]}})
        tail = [dumps({"type": "result", "subtype": "success", "is_error": False, "result": ""})]
    elif kind == "claude-refusals":
        head = [dumps({"type": "system", "subtype": "init", "session_id": "s", "model": "m",
                       "tools": ["StructuredOutput"]})]
        body = lambda n: (dumps({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "StructuredOutput",
             "input": {"verdict": "MAYBE"}}]}}) + "\n" + dumps({"type": "user", "message": {
                 "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                              "is_error": True, "content": "no"}]}}))
        tail = [dumps({"type": "result", "subtype": "success", "is_error": False, "result": ""})]
    elif kind == "claude-tool-errors":
        head = [dumps({"type": "system", "subtype": "init", "session_id": "s", "model": "m"})]
        body = lambda n: dumps({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "is_error": True,
             "content": "exit 1"}]}})
        tail = [dumps({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "toolu_last", "name": "StructuredOutput",
             "input": {"verdict": "PASS"}}]}}),
                dumps({"type": "result", "subtype": "success", "is_error": False, "result": ""})]
    elif kind == "anthropic-indices":
        head = ["event: message_start", "data: " + dumps({"type": "message_start", "message": {
            "id": "msg", "model": "m", "content": []}}), ""]
        body = lambda n: "data: " + dumps({"type": "content_block_delta", "index": n,
                                           "delta": {"type": "text_delta", "text": ""}}) + "\n"
        tail = ["data: " + dumps({"type": "message_stop"}), ""]
    elif kind == "anthropic-blocks":
        head = [dumps({"type": "message_start", "message": {"id": "msg", "model": "m",
                                                           "content": []}})]
        body = lambda n: dumps({"type": "content_block_start", "index": n, "content_block": {
            "type": "tool_use", "id": f"toolu_{n}", "name": "t", "input": {}}})
        tail = [dumps({"type": "message_stop"})]
    elif kind == "openai-calls":
        head = []
        body = lambda n: "data: " + dumps({"object": "chat.completion.chunk", "choices": [{
            "index": 0, "delta": {"tool_calls": [{"index": n, "id": f"call_{n:012d}",
                                                  "function": {"arguments": ""}}]}}]}) + "\n"
        tail = ["data: [DONE]", ""]
    elif kind == "responses-items":
        head = []
        body = lambda n: dumps({"type": "response.output_item.done", "item": {}})
        tail = [dumps({"type": "response.completed", "response": {
            "object": "response", "status": "completed", "output": []}})]
    elif kind == "ollama-calls":
        head = []
        body = lambda n: dumps({"model": "m", "done": False, "message": {
            "role": "assistant", "tool_calls": [{"function": {"name": "", "arguments": {}}}]}})
        tail = [dumps({"model": "m", "done": True, "done_reason": "stop",
                       "message": {"role": "assistant", "content": ""}})]
    elif kind == "gemini-errors":
        t = "2026-11-27T08:39:10.465Z"
        head = [dumps({"type": "init", "timestamp": t, "session_id": "s", "model": "m"})]
        body = lambda n: dumps({"type": "error", "timestamp": t, "severity": "error",
                                "message": f"quota exceeded, attempt {n}"})
        tail = [dumps({"type": "result", "timestamp": t, "status": "success"})]
    elif kind == "fences":
        head = ["Here are the values:"]
        body = lambda n: f'```json\n{{"n":{n}}}\n```'
        tail = []
    else:
        sys.exit(f"unknown kind {kind!r}; see the docstring")
    return head, body, tail


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    kind, size = sys.argv[1], float(sys.argv[2]) * 1e6
    head, body, tail = lines(kind)
    out = sys.stdout
    written = 0
    for h in head:
        out.write(h + "\n")
    n = 0
    chunk = []
    while written < size:
        line = body(n) + "\n"
        chunk.append(line)
        written += len(line)
        n += 1
        if len(chunk) >= 10_000:
            out.write("".join(chunk))
            chunk = []
    out.write("".join(chunk))
    for t in tail:
        out.write(t + "\n")


if __name__ == "__main__":
    main()
