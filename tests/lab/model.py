#!/usr/bin/env python3
"""Scripted model for the trajhost conformance lab (Python standard library only).

Serves OpenAI chat completions, OpenAI Responses, Anthropic Messages, Gemini
generateContent / streamGenerateContent (streaming and not), a small fake of
Augment's tenant API (Auggie), plus model listing,
on 127.0.0.1.  It is stateless: every reply is decided from the history in the
request it answers.

Decision rule (see tests/lab/README.md):
  * find the latest *real* user prompt in the history;
  * if tools are offered, the prompt does not contain "[notool]", and fewer
    tool-calling assistant turns follow the prompt than the scenario has steps,
    and the history does not end in an assistant text -> call the next step's
    tool(s) (one step may hold several calls: parallel tool calls);
  * else, if tool results follow the prompt -> answer with text that quotes them
    ("FINAL ANSWER: the tool returned: ...");
  * else -> plain text (side requests without tools, "[notool]" prompts).

The scenario (which calls each step makes) comes from a JSON file named by
--scenario (re-read on every request, so a runner may switch it between runs).
Every request is appended to the JSONL log named by --log.

Usage: model.py --port-file F --log L [--scenario S] [--port N]
"""

import argparse
import gzip
import json
import os
import re
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHELL_NAMES = [
    "Bash", "bash", "shell", "exec_command", "shell_command", "run_shell_command",
    "run_commands", "terminal", "Shell", "exec", "run_terminal_command", "execute",
    "run_command", "execute_command", "local_shell", "Execute", "command",
]
READ_NAMES = [
    "Read", "read", "read_file", "view", "ReadFile", "read_files", "Read_file",
    "file_read", "view_file", "read_text_file", "cat",
]
PATH_KEYS = ["file_path", "absolute_path", "path", "filePath", "target_file", "filename",
             "file", "paths", "file_paths", "files", "filepath", "uri"]
CMD_KEYS = ["command", "cmd", "commands", "script", "code", "input"]

DEFAULT_SCENARIO = {
    "name": "default",
    "workspace": "/home/user/project",
    "steps": [[{"kind": "shell", "command": "cat hello.txt", "path": "hello.txt"}]],
}

PREVIEW = 400  # how much of a long tool result the final answer quotes

STATE = {"log": None, "scenario": None, "lock": threading.Lock()}


# --------------------------------------------------------------------------- helpers

def now_ms():
    return int(time.time() * 1000)


def load_scenario():
    path = STATE["scenario"]
    if path and os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except Exception:  # noqa: BLE001 - a broken file falls back to the default
            pass
    return DEFAULT_SCENARIO


def text_of(content):
    """Flatten any content representation into plain text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (int, float, bool)):
        return str(content)
    if isinstance(content, list):
        return "\n".join(t for t in (text_of(c) for c in content) if t)
    if isinstance(content, dict):
        for k in ("text", "output", "content", "result", "output_text", "stdout", "llm_content", "response"):
            if k in content:
                return text_of(content[k])
        return json.dumps(content, ensure_ascii=False)
    return str(content)


INTERNAL_USER_MARKERS = ("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>",)


def is_internal_user_text(t):
    s = t.strip()
    return any(s.startswith(m) for m in INTERNAL_USER_MARKERS)


# --------------------------------------------------------------------------- normalising requests
# History item kinds: ("user", text), ("assistant", text), ("call", name, args_json, id),
# ("result", id, text).  A list of items is a flat history.


def norm_anthropic(body):
    items = []
    for m in body.get("messages", []):
        role = m.get("role")
        c = m.get("content")
        blocks = [{"type": "text", "text": c}] if isinstance(c, str) else (c or [])
        user_texts = []
        for b in blocks:
            t = b.get("type")
            if t == "text":
                if role == "user":
                    user_texts.append(b.get("text", ""))
                else:
                    items.append(("assistant", b.get("text", "")))
            elif t == "tool_use":
                items.append(("call", b.get("name"), json.dumps(b.get("input"), ensure_ascii=False), b.get("id")))
            elif t == "tool_result":
                items.append(("result", b.get("tool_use_id"), text_of(b.get("content"))))
        if role == "user" and user_texts:
            has_result = any(b.get("type") == "tool_result" for b in blocks)
            items.append(("user_aux" if has_result else "user", "\n".join(user_texts)))
    tools = [{"name": t.get("name"), "schema": t.get("input_schema") or {}} for t in body.get("tools", []) or []
             if t.get("name")]
    return items, tools


def norm_chat(body):
    items = []
    for m in body.get("messages", []):
        role = m.get("role")
        if role == "user":
            items.append(("user", text_of(m.get("content"))))
        elif role == "assistant":
            t = text_of(m.get("content"))
            if t:
                items.append(("assistant", t))
            for tc in m.get("tool_calls") or []:
                fn = tc.get("function") or {}
                items.append(("call", fn.get("name"), fn.get("arguments") or "", tc.get("id")))
        elif role in ("tool", "function"):
            items.append(("result", m.get("tool_call_id"), text_of(m.get("content"))))
    tools = []
    for t in body.get("tools", []) or []:
        fn = t.get("function") or t
        if fn.get("name"):
            tools.append({"name": fn["name"], "schema": fn.get("parameters") or {}})
    return items, tools


def norm_responses(body):
    items = []
    inp = body.get("input")
    if isinstance(inp, str):
        inp = [{"type": "message", "role": "user", "content": inp}]
    for it in inp or []:
        typ = it.get("type", "message")
        if typ == "message":
            role = it.get("role")
            t = text_of(it.get("content"))
            if role == "user":
                items.append(("user", t))
            elif role == "assistant":
                items.append(("assistant", t))
        elif typ in ("function_call", "custom_tool_call"):
            items.append(("call", it.get("name"), it.get("arguments") or it.get("input") or "", it.get("call_id")))
        elif typ == "local_shell_call":
            items.append(("call", "local_shell", json.dumps(it.get("action")), it.get("call_id")))
        elif typ in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            items.append(("result", it.get("call_id"), text_of(it.get("output"))))
    tools = []
    for t in body.get("tools", []) or []:
        if t.get("type", "function") == "function" and t.get("name"):
            tools.append({"name": t["name"], "schema": t.get("parameters") or {}})
    return items, tools


def norm_gemini(body):
    items = []
    for c in body.get("contents", []):
        role = c.get("role", "user")
        user_texts = []
        has_result = False
        for p in c.get("parts", []):
            if "text" in p and not p.get("thought"):
                if role == "user":
                    user_texts.append(p["text"])
                else:
                    items.append(("assistant", p["text"]))
            elif "functionCall" in p:
                fc = p["functionCall"]
                items.append(("call", fc.get("name"), json.dumps(fc.get("args", {}), ensure_ascii=False), fc.get("id")))
            elif "functionResponse" in p:
                fr = p["functionResponse"]
                has_result = True
                items.append(("result", fr.get("id") or fr.get("name"), text_of(fr.get("response"))))
        if user_texts:
            items.append(("user_aux" if has_result else "user", "\n".join(user_texts)))
    tools = []
    for t in body.get("tools", []) or []:
        for fd in t.get("functionDeclarations", []) or t.get("function_declarations", []) or []:
            tools.append({"name": fd.get("name"),
                          "schema": fd.get("parametersJsonSchema") or fd.get("parameters") or {}})
    return items, tools


def norm_augment(body):
    """Augment's /chat-stream: `chat_history[]` exchanges, then the new `message` / `nodes`.

    An exchange is {request_message, request_nodes[], response_text, response_nodes[]}. Request node types:
    0 text, 1 tool result (`tool_result_node`), 4 IDE state; response node types: 0 text, 5 tool use."""
    items = []

    def request(message, nodes):
        texts = []
        has_result = False
        for n in nodes or []:
            t = n.get("type")
            if t == 1:
                r = n.get("tool_result_node") or {}
                has_result = True
                items.append(("result", r.get("tool_use_id"), text_of(r.get("content"))))
            elif t == 0:
                tn = n.get("text_node") or {}
                if tn.get("content"):
                    texts.append(tn["content"])
        if message and message not in texts:
            texts.insert(0, message)
        if texts:
            items.append(("user_aux" if has_result else "user", "\n".join(texts)))

    for ex in body.get("chat_history") or []:
        request(ex.get("request_message"), ex.get("request_nodes"))
        texts, calls = [], []
        for n in ex.get("response_nodes") or []:
            if n.get("type") == 5 and n.get("tool_use"):
                tu = n["tool_use"]
                calls.append(("call", tu.get("tool_name"), tu.get("input_json") or "", tu.get("tool_use_id")))
            elif n.get("type") == 0 and n.get("content"):
                texts.append(n["content"])
        text = ex.get("response_text") or "".join(texts)
        if text:
            items.append(("assistant", text))
        items.extend(calls)
    request(body.get("message"), body.get("nodes"))
    tools = []
    for t in body.get("tool_definitions") or []:
        try:
            schema = json.loads(t.get("input_schema_json") or "{}")
        except ValueError:
            schema = {}
        if t.get("name"):
            tools.append({"name": t["name"], "schema": schema})
    return items, tools


# --------------------------------------------------------------------------- deciding

def find_tool(tools, kind, overrides):
    names = {t["name"]: t for t in tools}
    want = overrides.get(kind)
    if want and want in names:
        return names[want]
    order = SHELL_NAMES if kind == "shell" else READ_NAMES
    for n in order:
        if n in names:
            return names[n]
    lower = {n.lower(): t for n, t in names.items()}
    for n in order:
        if n.lower() in lower:
            return lower[n.lower()]
    return None


def empty_for(schema):
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), "string")
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}.get(typ, "")


def build_args(tool, call, workspace):
    """Fill a tool's arguments from its JSON schema for a scenario call."""
    schema = tool.get("schema") or {}
    props = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    args = {}
    abs_path = call.get("path", "")
    if abs_path and not abs_path.startswith("/"):
        abs_path = workspace.rstrip("/") + "/" + abs_path
    if call["kind"] == "shell":
        for k in CMD_KEYS:
            if k in props:
                p = props[k]
                if p.get("type") == "array":
                    item_t = (p.get("items") or {}).get("type")
                    if k == "commands" or item_t in ("string", None) and k != "command":
                        args[k] = [call["command"]]
                    else:
                        args[k] = ["bash", "-lc", call["command"]]
                else:
                    args[k] = call["command"]
                break
        if "description" in props:
            args["description"] = "Run " + call["command"]
        for k in ("dir_path", "directory", "cwd", "workdir"):
            if k in props and k in required:
                args[k] = workspace
    else:
        for k in PATH_KEYS:
            if k in props:
                p = props[k]
                if p.get("type") == "array":
                    item = p.get("items") or {}
                    if item.get("type") == "object":
                        ip = item.get("properties") or {}
                        key = next((x for x in PATH_KEYS if x in ip), "path")
                        args[k] = [{key: abs_path}]
                    else:
                        args[k] = [abs_path]
                else:
                    args[k] = abs_path
                break
        cmd = props.get("command")
        if cmd and "enum" in cmd and "view" in cmd["enum"]:
            args["command"] = "view"
    for k in required:
        if k not in args:
            args[k] = empty_for(props.get(k) or {})
    extra = call.get("extra_args") or {}
    args.update(extra)
    return args


def decide(items, tools, scenario):
    """Return ("text", str) or ("calls", [(name, args_dict), ...])."""
    last_user = None
    for i, it in enumerate(items):
        if it[0] == "user" and not is_internal_user_text(it[1]):
            last_user = i
    prompt = items[last_user][1] if last_user is not None else ""
    after = items[last_user + 1:] if last_user is not None else items
    call_turns = 0
    prev_call = False
    for it in after:
        if it[0] == "call":
            if not prev_call:
                call_turns += 1
            prev_call = True
        elif it[0] in ("assistant",):
            pass
        else:
            prev_call = False
    results = [it for it in after if it[0] == "result"]
    ends_in_text = bool(after) and after[-1][0] == "assistant"
    steps = scenario.get("steps") or []
    if not tools:
        ran = text_tool_outputs(items)
        if ran and "[notool]" not in prompt:
            return ("text", "FINAL ANSWER: the command printed: " + " | ".join(quote(o) for o in ran))
        return ("text", side_text(prompt))
    if "[notool]" in prompt:
        return ("text", notool_text(items))
    if call_turns < len(steps) and not ends_in_text and (call_turns == 0 or (after and after[-1][0] in ("result", "user_aux"))):
        overrides = scenario.get("tool_overrides") or {}
        workspace = scenario.get("workspace", "/home/user/project")
        calls = []
        for c in steps[call_turns]:
            tool = find_tool(tools, c["kind"], overrides)
            if tool is None and c["kind"] == "read" and c.get("command"):
                c = dict(c, kind="shell")
                tool = find_tool(tools, "shell", overrides)
            if tool is None and c["kind"] == "shell" and c.get("path"):
                c = dict(c, kind="read")
                tool = find_tool(tools, "read", overrides)
            if tool is None:
                continue
            args = build_args(tool, c, workspace)
            over = (scenario.get("arg_overrides") or {}).get(tool["name"])
            if over:
                args.update(json.loads(json.dumps(over).replace("{command}", c.get("command", "")).replace(
                    "{path}", c.get("path", ""))))
            calls.append((tool["name"], args))
        if calls:
            if not scenario.get("parallel", True) and len(calls) > 1:
                calls = calls[:1]
            return ("calls", calls)
    if results:
        return ("text", final_text(results))
    return ("text", "Hello from the scripted lab model.")


def final_calls(kind, tools, scenario):
    """The scenario's `final_call` (a shell command, e.g. mini-swe-agent's submit command) as calls to add beside a
    final text answer, for harnesses that need a tool call in every reply; none for other harnesses."""
    cmd = scenario.get("final_call")
    if kind != "text" or not tools or not cmd:
        return []
    tool = find_tool(tools, "shell", scenario.get("tool_overrides") or {})
    if tool is None:
        return []
    return [(tool["name"], build_args(tool, {"kind": "shell", "command": cmd}, scenario.get("workspace", "")))]


def quote(t):
    t = t.strip()
    if len(t) > PREVIEW:
        return t[:PREVIEW] + " [... %d characters in all]" % len(t)
    return t


def final_text(results):
    return "FINAL ANSWER: the tool returned: " + " | ".join(quote(r[2]) for r in results)


def notool_text(items):
    results = [it for it in items if it[0] == "result"]
    if results:
        return "NOTOOL ANSWER: earlier the tool returned: " + quote(results[-1][2])
    return "NOTOOL ANSWER: no earlier tool result."


def text_tool_outputs(items):
    """Outputs a harness without tool calling (Aider's `/run`) put into the chat as user text."""
    out = []
    for it in items:
        if it[0] == "user" and it[1].startswith("I ran this command:") and "And got this output:" in it[1]:
            out.append(it[1].split("And got this output:", 1)[1].strip())
    return out


def side_text(prompt):
    return "Lab session"


def schema_sample(schema, depth=0):
    if depth > 6:
        return None
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), "string")
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if typ == "object" or "properties" in schema:
        return {k: schema_sample(v, depth + 1) for k, v in (schema.get("properties") or {}).items()}
    if typ == "array":
        return []
    if typ in ("integer", "number"):
        return 0
    if typ == "boolean":
        return False
    return "Lab session"


# --------------------------------------------------------------------------- HTTP

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "trajhost-lab-model/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    # -- plumbing
    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if not n and self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = b""
            while True:
                line = self.rfile.readline().strip()
                size = int(line.split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                raw += self.rfile.read(size)
                self.rfile.readline()
        enc = (self.headers.get("Content-Encoding") or "").lower()
        try:
            if enc == "gzip":
                raw = gzip.decompress(raw)
            elif enc == "deflate":
                raw = zlib.decompress(raw)
            elif enc == "zstd":
                pass
        except Exception:  # noqa: BLE001
            pass
        try:
            return json.loads(raw.decode("utf-8")) if raw else {}
        except Exception:  # noqa: BLE001
            return {"_raw": raw.decode("utf-8", "replace")}

    def log(self, body, decision):
        hdrs = {}
        for k in ("User-Agent", "Content-Type", "Accept", "anthropic-version", "anthropic-beta", "x-stainless-lang"):
            if self.headers.get(k):
                hdrs[k] = self.headers.get(k)
        rec = {"ts": time.time(), "method": self.command, "path": self.path, "headers": hdrs,
               "body": body, "decision": decision}
        if STATE["log"]:
            with STATE["lock"], open(STATE["log"], "a", encoding="utf-8") as f:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")

    def send_json(self, obj, code=200):
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunks(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def sse(self, obj, event=None):
        s = ""
        if event:
            s += "event: %s\n" % event
        s += "data: %s\n\n" % (obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False))
        self.chunk(s)

    # -- verbs
    def do_GET(self):
        path = self.path.split("?")[0]
        self.log(None, "get")
        if path.endswith("/models") or "/models/" in path:
            models = [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "lab",
                       "name": "models/fake-model", "displayName": "Fake", "type": "model",
                       "display_name": "Fake", "created_at": "2026-01-01T00:00:00Z",
                       "supportedGenerationMethods": ["generateContent"]}]
            if "/models/" in path:
                self.send_json(models[0])
            else:
                self.send_json({"object": "list", "data": models, "models": models, "has_more": False})
            return
        self.send_json({"error": {"message": "not found", "type": "not_found"}}, 404)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.read_body()
        path = self.path.split("?")[0]
        try:
            if path.endswith("/count_tokens") or path.endswith(":countTokens"):
                self.log(body, "count_tokens")
                self.send_json({"input_tokens": 100, "totalTokens": 100})
            elif path.endswith("/messages"):
                self.anthropic(body)
            elif path.endswith("/chat/completions"):
                self.chat(body)
            elif path.endswith("/responses"):
                self.openai_responses(body)
            elif ":generateContent" in path or ":streamGenerateContent" in path:
                self.gemini(body, ":streamGenerateContent" in path)
            elif path.endswith("/chat-stream"):
                self.augment_chat(body)
            elif path.endswith("/get-models"):
                # Augment's tenant API (Auggie): the model list, with the fields the CLI requires
                self.log(body, "augment-models")
                self.send_json({"default_model": "fake-model", "models": [
                    {"name": "fake-model", "suggested_prefix_char_count": 0, "suggested_suffix_char_count": 0}],
                    "feature_flags": {}})
            elif path.endswith("/agents/list-remote-tools"):
                self.log(body, "augment-remote-tools")
                self.send_json({"tools": []})
            elif "/settings/" in path or path.endswith("/report-error") or path.endswith("/record-request-events") \
                    or path.endswith("/record-session-events") or path.endswith("/client-metrics"):
                self.log(body, "augment-aux")
                self.send_json({})
            elif path.endswith("/completions"):
                self.log(body, "legacy-completions")
                self.send_json({"id": "cmpl-lab", "object": "text_completion", "choices": [
                    {"index": 0, "text": "Lab session", "finish_reason": "stop"}]})
            else:
                self.log(body, "unknown")
                self.send_json({"error": {"message": "not found", "type": "not_found"}}, 404)
        except (BrokenPipeError, ConnectionResetError):
            pass

    # -- Augment's tenant API: /chat-stream answers newline-delimited JSON chunks {text, nodes, stop_reason}
    def augment_chat(self, body):
        items, tools = norm_augment(body)
        kind, val = decide(items, tools, load_scenario())
        self.log(body, [kind, val])
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if kind == "text":
            for piece in split(val):
                self.chunk(json.dumps({"text": piece, "nodes": []}, ensure_ascii=False) + "\n")
            self.chunk(json.dumps({"text": "", "nodes": [{"id": 0, "type": 0, "content": val}],
                                   "stop_reason": 1}, ensure_ascii=False) + "\n")
        else:
            nodes = [{"id": i + 1, "type": 5, "content": "",
                      "tool_use": {"tool_use_id": "toolu_lab_" + uuid.uuid4().hex[:20], "tool_name": name,
                                   "input_json": json.dumps(args, ensure_ascii=False)}}
                     for i, (name, args) in enumerate(val)]
            self.chunk(json.dumps({"text": "", "nodes": nodes, "stop_reason": 3}, ensure_ascii=False) + "\n")
        self.end_chunks()

    # -- Anthropic Messages
    def anthropic(self, body):
        items, tools = norm_anthropic(body)
        kind, val = decide(items, tools, load_scenario())
        self.log(body, [kind, val])
        mid = "msg_lab_" + uuid.uuid4().hex[:20]
        model = body.get("model", "fake-model")
        blocks = []
        if kind == "text":
            blocks.append({"type": "text", "text": val})
            stop = "end_turn"
        else:
            for name, args in val:
                blocks.append({"type": "tool_use", "id": "toolu_lab_" + uuid.uuid4().hex[:20], "name": name, "input": args})
            stop = "tool_use"
        usage = {"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream"):
            self.send_json({"id": mid, "type": "message", "role": "assistant", "model": model, "content": blocks,
                            "stop_reason": stop, "stop_sequence": None, "usage": usage})
            return
        self.start_sse()
        self.sse({"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant", "model": model,
                                                        "content": [], "stop_reason": None, "stop_sequence": None,
                                                        "usage": dict(usage, output_tokens=1)}}, "message_start")
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                self.sse({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                         "content_block_start")
                for piece in split(b["text"]):
                    self.sse({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}},
                             "content_block_delta")
            else:
                self.sse({"type": "content_block_start", "index": i,
                          "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}},
                         "content_block_start")
                self.sse({"type": "content_block_delta", "index": i,
                          "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"], ensure_ascii=False)}},
                         "content_block_delta")
            self.sse({"type": "content_block_stop", "index": i}, "content_block_stop")
        self.sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                  "usage": {"output_tokens": 20}}, "message_delta")
        self.sse({"type": "message_stop"}, "message_stop")
        self.end_chunks()

    # -- OpenAI chat completions
    def chat(self, body):
        items, tools = norm_chat(body)
        scenario = load_scenario()
        kind, val = decide(items, tools, scenario)
        rf = body.get("response_format") or {}
        if kind == "text" and not tools and rf.get("type") == "json_schema":
            val = json.dumps(schema_sample((rf.get("json_schema") or {}).get("schema") or {}))
        elif kind == "text" and not tools and rf.get("type") == "json_object":
            val = json.dumps({"title": "Lab session"})
        extra = final_calls(kind, tools, scenario)
        self.log(body, [kind, val] + ([extra] if extra else []))
        cid = "chatcmpl-lab" + uuid.uuid4().hex[:16]
        model = body.get("model", "fake-model")
        created = int(time.time())
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        calls = []
        if kind == "calls" or extra:
            for name, args in (val if kind == "calls" else extra):
                calls.append({"id": "call_lab_" + uuid.uuid4().hex[:16], "type": "function",
                              "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}})
        finish = "tool_calls" if calls else "stop"
        if not body.get("stream"):
            msg = {"role": "assistant", "content": val if kind == "text" else None}
            if calls:
                msg["tool_calls"] = calls
            self.send_json({"id": cid, "object": "chat.completion", "created": created, "model": model,
                            "choices": [{"index": 0, "message": msg, "finish_reason": finish}], "usage": usage})
            return
        self.start_sse()

        def ch(delta, fr=None):
            return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": fr}]}
        self.sse(ch({"role": "assistant", "content": ""}))
        if kind == "text":
            for piece in split(val):
                self.sse(ch({"content": piece}))
        for i, c in enumerate(calls):
            self.sse(ch({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                         "function": {"name": c["function"]["name"], "arguments": ""}}]}))
            self.sse(ch({"tool_calls": [{"index": i, "function": {"arguments": c["function"]["arguments"]}}]}))
        self.sse(ch({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            self.sse({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                      "choices": [], "usage": usage})
        self.sse("[DONE]")
        self.end_chunks()

    # -- OpenAI Responses
    def openai_responses(self, body):
        items, tools = norm_responses(body)
        kind, val = decide(items, tools, load_scenario())
        fmt = ((body.get("text") or {}).get("format") or {})
        if kind == "text" and not tools and fmt.get("type") == "json_schema":
            val = json.dumps(schema_sample(fmt.get("schema") or {}))
        self.log(body, [kind, val])
        rid = "resp_lab" + uuid.uuid4().hex[:20]
        model = body.get("model", "fake-model")
        created = int(time.time())
        out = []
        if kind == "text":
            out.append({"type": "message", "id": "msg_lab" + uuid.uuid4().hex[:16], "status": "completed",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": val, "annotations": []}]})
        else:
            for name, args in val:
                out.append({"type": "function_call", "id": "fc_lab" + uuid.uuid4().hex[:16], "status": "completed",
                            "call_id": "call_lab" + uuid.uuid4().hex[:16], "name": name,
                            "arguments": json.dumps(args, ensure_ascii=False)})
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120}
        resp = {"id": rid, "object": "response", "created_at": created, "status": "completed", "model": model,
                "output": out, "usage": usage, "error": None, "incomplete_details": None,
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
        if not body.get("stream"):
            self.send_json(resp)
            return
        self.start_sse()
        seq = [0]

        def ev(typ, **kw):
            kw["type"] = typ
            kw["sequence_number"] = seq[0]
            seq[0] += 1
            self.sse(kw, typ)
        ev("response.created", response=dict(resp, status="in_progress", output=[], usage=None))
        ev("response.in_progress", response=dict(resp, status="in_progress", output=[], usage=None))
        for i, o in enumerate(out):
            if o["type"] == "message":
                ev("response.output_item.added", output_index=i, item=dict(o, status="in_progress", content=[]))
                ev("response.content_part.added", output_index=i, item_id=o["id"], content_index=0,
                   part={"type": "output_text", "text": "", "annotations": []})
                for piece in split(val):
                    ev("response.output_text.delta", output_index=i, item_id=o["id"], content_index=0, delta=piece)
                ev("response.output_text.done", output_index=i, item_id=o["id"], content_index=0, text=val)
                ev("response.content_part.done", output_index=i, item_id=o["id"], content_index=0,
                   part=o["content"][0])
            else:
                ev("response.output_item.added", output_index=i, item=dict(o, status="in_progress", arguments=""))
                ev("response.function_call_arguments.delta", output_index=i, item_id=o["id"], delta=o["arguments"])
                ev("response.function_call_arguments.done", output_index=i, item_id=o["id"], arguments=o["arguments"])
            ev("response.output_item.done", output_index=i, item=o)
        ev("response.completed", response=resp)
        self.end_chunks()

    # -- Gemini
    def gemini(self, body, stream):
        items, tools = norm_gemini(body)
        kind, val = decide(items, tools, load_scenario())
        gc = body.get("generationConfig") or body.get("generation_config") or {}
        if kind == "text" and not tools and gc.get("responseMimeType") == "application/json":
            val = json.dumps(schema_sample(gc.get("responseJsonSchema") or gc.get("responseSchema") or {}))
        self.log(body, [kind, val])
        if kind == "text":
            parts = [{"text": val}]
        else:
            parts = [{"functionCall": {"name": n, "args": a}} for n, a in val]
        usage = {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}
        resp = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": usage, "modelVersion": "fake-model", "responseId": "lab" + uuid.uuid4().hex[:12]}
        if not stream:
            self.send_json(resp)
            return
        self.start_sse()
        if kind == "text":
            pieces = split(val)
            for j, piece in enumerate(pieces):
                c = {"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]}, "index": 0}],
                     "modelVersion": "fake-model"}
                if j == len(pieces) - 1:
                    c["candidates"][0]["finishReason"] = "STOP"
                    c["usageMetadata"] = usage
                self.sse(c)
        else:
            self.sse(resp)
        self.end_chunks()


def split(text, n=3):
    """Split text into a few streaming pieces without breaking characters."""
    if len(text) < 16:
        return [text]
    size = max(1, len(text) // n)
    return [text[i:i + size] for i in range(0, len(text), size)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--scenario")
    a = ap.parse_args()
    STATE["log"] = a.log
    STATE["scenario"] = a.scenario
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    port = srv.server_address[1]
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(port))
        os.replace(tmp, a.port_file)
    print("scripted model on 127.0.0.1:%d" % port, file=sys.stderr, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
