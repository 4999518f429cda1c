#!/usr/bin/env python3
"""A scripted model server on 127.0.0.1 for driving the real agent CLIs end to end (issue 40).

It speaks just enough of four APIs to drive a turn, streamed (SSE) or not:

  Anthropic Messages       POST /v1/messages, /v1/messages/count_tokens
  OpenAI Responses         POST /v1/responses
  OpenAI Chat Completions  POST /v1/chat/completions, GET /v1/models
  Gemini                   POST /v1beta/models/M:generateContent, :streamGenerateContent, :countTokens

A *main* request is one that offers tools (every agent CLI offers its tools on each turn of the
job); each main request takes the next reply of the script, in order. A reply is one of

  {"answer": X}    X called through the request's structured-output tool when one is offered
                   (Claude Code's StructuredOutput, Qwen Code's structured_output), else X as
                   JSON text
  {"text": "..."}  text, as given
  {"call": {"name": N, "input": {...}}}   a call of the agent's own tool N (its shell tool:
                   `sojx run --acp` cases answer its permission request)
  {"error": {"status": 400, "body": {...}}}   an HTTP error with that JSON body

and any reply may add {"delay": S}: the reply comes S seconds late (an agent cancelled meanwhile).

A request whose last message is the result of a structured-output call the CLI accepted is
answered "Done." without taking a reply; one the CLI rejected (its own validation) takes the
next. Requests without tools (titles, routing, next-speaker checks) get a short text, or, when
they ask for JSON under a schema, an object made from the schema. When the script is used up, a
main request gets HTTP 400 (which no CLI retries, so a case that asks for too much fails fast)
and the log says so.

Every request is logged as one JSON line: {"n", "method", "path", "api", "role", "reply", "body"}.
The server listens only on 127.0.0.1 (port 0 unless --port), prints the port as its first line
on stdout, and exits after --lifetime seconds whatever happens (default 600).

Python's standard library, not a Rust test binary: CI builds nothing more for it, each API is a
few dozen lines, and the harness (tests/e2e/agents.py) is Python too.
"""

import argparse
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STRUCTURED_TOOLS = ("StructuredOutput", "structured_output")


class Script:
    def __init__(self, replies, log_path):
        self.replies = list(replies)
        self.next = 0
        self.lock = threading.Lock()
        self.count = 0
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None

    def take(self):
        with self.lock:
            if self.next >= len(self.replies):
                return None
            r = self.replies[self.next]
            self.next += 1
            return r

    def record(self, entry):
        with self.lock:
            self.count += 1
            entry = {"n": self.count, **entry}
            if self.log:
                self.log.write(json.dumps(entry) + "\n")
                self.log.flush()


def from_schema(schema):
    """A small value that a simple schema accepts (for auxiliary JSON requests)."""
    if not isinstance(schema, dict):
        return "x"
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    t = schema.get("type")
    if isinstance(t, list):
        t = t[0]
    t = t.lower() if isinstance(t, str) else t
    if t == "object" or "properties" in schema:
        props = schema.get("properties", {})
        keys = schema.get("required") or list(props)
        return {k: from_schema(props.get(k, {})) for k in keys}
    if t == "array":
        return []
    if t in ("integer", "number"):
        return schema.get("minimum", 0)
    if t == "boolean":
        return False
    return "user" if "speaker" in json.dumps(schema) else "x"


# ---- what a request offers and ends with, per API ----------------------------------------


def tool_names(api, body):
    names = []
    for t in body.get("tools") or []:
        if api == "gemini":
            for d in t.get("functionDeclarations") or t.get("function_declarations") or []:
                names.append(d.get("name"))
        elif api == "chat":
            names.append((t.get("function") or {}).get("name"))
        else:  # anthropic, responses
            names.append(t.get("name"))
    return [n for n in names if n]


def last_tool_result(api, body):
    """(name or id, is_error) of a structured-output result ending the request, or None."""
    if api == "anthropic":
        msgs = body.get("messages") or []
        if not msgs or msgs[-1].get("role") != "user":
            return None
        content = msgs[-1].get("content")
        if not isinstance(content, list):
            return None
        results = [c for c in content if isinstance(c, dict) and c.get("type") == "tool_result"]
        if not results:
            return None
        called = structured_call_ids_anthropic(msgs)
        for r in results:
            if r.get("tool_use_id") in called:
                return (r.get("tool_use_id"), bool(r.get("is_error")) or rejected(r.get("content")))
        return None
    if api == "chat":
        msgs = body.get("messages") or []
        if not msgs or msgs[-1].get("role") != "tool":
            return None
        called = set()
        for m in msgs:
            for c in m.get("tool_calls") or []:
                if (c.get("function") or {}).get("name") in STRUCTURED_TOOLS:
                    called.add(c.get("id"))
        last = msgs[-1]
        if last.get("tool_call_id") in called:
            return (last.get("tool_call_id"), rejected(last.get("content")))
        return None
    return None


def structured_call_ids_anthropic(msgs):
    ids = set()
    for m in msgs:
        content = m.get("content")
        if m.get("role") == "assistant" and isinstance(content, list):
            for c in content:
                if isinstance(c, dict) and c.get("type") == "tool_use" and c.get("name") in STRUCTURED_TOOLS:
                    ids.add(c.get("id"))
    return ids


def rejected(content):
    """A tool result whose text says the CLI refused the call (its own schema check)."""
    if isinstance(content, list):
        content = " ".join(c.get("text", "") for c in content if isinstance(c, dict))
    text = str(content or "").lower()
    return any(w in text for w in ("error", "invalid", "does not match", "failed", "must"))


def wants_json(api, body):
    """The schema of an auxiliary request that asks for JSON, or None."""
    if api == "gemini":
        cfg = body.get("generationConfig") or {}
        if cfg.get("responseMimeType") == "application/json":
            return cfg.get("responseJsonSchema") or cfg.get("responseSchema") or {}
    if api == "chat":
        rf = body.get("response_format") or {}
        if rf.get("type") == "json_schema":
            return (rf.get("json_schema") or {}).get("schema") or {}
        if rf.get("type") == "json_object":
            return {}
    return None


# ---- replies, per API ---------------------------------------------------------------------


def sse(events, named=True):
    out = []
    for e in events:
        if isinstance(e, str):
            out.append(f"data: {e}\n\n")
        elif named:
            out.append(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n")
        else:
            out.append(f"data: {json.dumps(e)}\n\n")
    return "".join(out).encode()


def anthropic(body, text=None, call=None):
    model = body.get("model", "claude-sonnet-4-5")
    mid = "msg_" + uuid.uuid4().hex[:20]
    usage = {"input_tokens": 12, "output_tokens": 7, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if call:
        block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": call[0], "input": call[1]}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": text}
        stop = "end_turn"
    if not body.get("stream"):
        return "application/json", json.dumps({"id": mid, "type": "message", "role": "assistant", "model": model,
                                               "content": [block], "stop_reason": stop, "stop_sequence": None,
                                               "usage": usage}).encode()
    start = dict(block)
    if call:
        start["input"] = {}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
    else:
        start["text"] = ""
        delta = {"type": "text_delta", "text": text}
    events = [
        {"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant", "model": model,
                                              "content": [], "stop_reason": None, "stop_sequence": None,
                                              "usage": {**usage, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": start},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 7}},
        {"type": "message_stop"},
    ]
    return "text/event-stream", sse(events)


def responses(body, text, call=None):
    rid = "resp_" + uuid.uuid4().hex[:20]
    model = body.get("model", "gpt-5")
    if call:
        item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:20], "call_id": "call_" + uuid.uuid4().hex[:20],
                "name": call[0], "arguments": json.dumps(call[1]), "status": "completed"}
    else:
        item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:20], "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
    usage = {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 7,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 19}
    base = {"id": rid, "object": "response", "created_at": int(time.time()), "model": model}
    if not body.get("stream"):
        return "application/json", json.dumps({**base, "status": "completed", "output": [item], "usage": usage}).encode()
    if call:
        added = {**item, "status": "in_progress", "arguments": ""}
        delta = {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": item["id"],
                 "delta": item["arguments"]}
    else:
        added = {**item, "status": "in_progress", "content": []}
        delta = {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": item["id"],
                 "delta": text}
    events = [
        {"type": "response.created", "response": {**base, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        delta,
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {**base, "status": "completed", "output": [item], "usage": usage}},
    ]
    return "text/event-stream", sse(events)


def chat(body, text=None, call=None):
    cid = "chatcmpl-" + uuid.uuid4().hex[:20]
    model = body.get("model", "gpt-4o")
    created = int(time.time())
    usage = {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
    if call:
        tc = {"id": "call_" + uuid.uuid4().hex[:20], "type": "function",
              "function": {"name": call[0], "arguments": json.dumps(call[1])}}
        message, finish = {"role": "assistant", "content": None, "tool_calls": [tc]}, "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": text}, "stop"
    if not body.get("stream"):
        return "application/json", json.dumps({"id": cid, "object": "chat.completion", "created": created, "model": model,
                                               "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                               "usage": usage}).encode()
    chunk = lambda delta, fin=None, **kw: {"id": cid, "object": "chat.completion.chunk", "created": created,
                                           "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": fin}], **kw}
    if call:
        delta = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **tc}]}
    else:
        delta = {"role": "assistant", "content": text}
    events = [chunk(delta), chunk({}, finish)]
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                       "choices": [], "usage": usage})
    events.append("[DONE]")
    return "text/event-stream", sse(events, named=False)


def gemini(model, stream, text, call=None):
    part = {"functionCall": {"name": call[0], "args": call[1]}} if call else {"text": text}
    obj = {"candidates": [{"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}],
           "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 7, "totalTokenCount": 19},
           "modelVersion": model, "responseId": uuid.uuid4().hex[:20]}
    if stream:
        return "text/event-stream", sse([obj], named=False)
    return "application/json", json.dumps(obj).encode()


# ---- the server ---------------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    server_version = "sojx-model/1"
    protocol_version = "HTTP/1.0"

    def log_message(self, *_):
        pass

    def send(self, status, ctype, data):
        try:
            self.write(status, ctype, data)
        except (BrokenPipeError, ConnectionResetError):
            # The agent hung up first (cancelled by `session/cancel`, or killed).
            self.server.script.record({"method": "-", "path": self.path, "api": None, "role": "hung_up"})

    def write(self, status, ctype, data):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if ctype != "text/event-stream":
            self.send_header("Content-Length", str(len(data)))
        else:
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def do_GET(self):
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            data = {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "sojx"} for m in ("mock-model",)]}
            self.server.script.record({"method": "GET", "path": self.path, "api": "models", "role": "aux"})
            return self.send(200, "application/json", json.dumps(data).encode())
        self.server.script.record({"method": "GET", "path": self.path, "api": None, "role": "unknown"})
        self.send(404, "application/json", b'{"error":{"message":"not found"}}')

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?")[0]
        script = self.server.script
        entry = {"method": "POST", "path": self.path, "body": body}

        m = re.search(r"/models/([^/:]+):(\w+)$", path)
        if m:
            api, model, verb = "gemini", m.group(1), m.group(2)
            if verb == "countTokens":
                script.record({**entry, "api": api, "role": "aux", "reply": "count"})
                return self.send(200, "application/json", b'{"totalTokens": 12}')
            stream = verb == "streamGenerateContent"
        elif path.endswith("/messages/count_tokens"):
            script.record({**entry, "api": "anthropic", "role": "aux", "reply": "count"})
            return self.send(200, "application/json", b'{"input_tokens": 12}')
        elif path.endswith("/messages"):
            api = "anthropic"
        elif path.endswith("/responses"):
            api = "responses"
        elif path.endswith("/chat/completions"):
            api = "chat"
        else:
            script.record({**entry, "api": None, "role": "unknown"})
            return self.send(404, "application/json", b'{"error":{"message":"not found"}}')

        names = tool_names(api, body)
        structured = next((n for n in names if n in STRUCTURED_TOOLS), None)
        done = last_tool_result(api, body)
        if not names:
            role, reply = "aux", None
            schema = wants_json(api, body)
            text = json.dumps(from_schema(schema)) if schema is not None else "Done."
        elif done and not done[1]:
            role, reply, text = "after_structured", None, "Done."
        else:
            role, reply = "main", script.take()
            if reply is None:
                script.record({**entry, "api": api, "role": role, "reply": "exhausted"})
                return self.send(400, "application/json", json.dumps(
                    {"type": "error", "error": {"type": "invalid_request_error",
                                                "message": "the scripted model has no more replies"}}).encode())
            text = None
        script.record({**entry, "api": api, "role": role, "tools": names, "reply": reply if reply is not None else text})

        call = None
        if reply is not None:
            if reply.get("delay"):
                time.sleep(reply["delay"])
            if "error" in reply:
                err = reply["error"]
                return self.send(err.get("status", 500), "application/json", json.dumps(err.get("body", {})).encode())
            if "answer" in reply:
                if structured and api in ("anthropic", "chat"):
                    call = (structured, reply["answer"])
                else:
                    text = json.dumps(reply["answer"])
            elif "call" in reply:
                call = (reply["call"]["name"], reply["call"]["input"])
            else:
                text = reply["text"]

        if api == "anthropic":
            self.send(200, *anthropic(body, text, call))
        elif api == "responses":
            self.send(200, *responses(body, text, call))
        elif api == "chat":
            self.send(200, *chat(body, text, call))
        else:
            self.send(200, *gemini(model, stream, text, call))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--script", required=True, help="a JSON file: {\"replies\": [...]}")
    ap.add_argument("--log", help="append one JSON line per request here")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--lifetime", type=float, default=600.0, help="seconds before the server exits")
    args = ap.parse_args()
    with open(args.script, encoding="utf-8") as f:
        replies = json.load(f)["replies"]
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.script = Script(replies, args.log)
    print(server.server_address[1], flush=True)
    timer = threading.Timer(args.lifetime, lambda: os._exit(0))
    timer.daemon = True
    timer.start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
