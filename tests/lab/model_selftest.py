#!/usr/bin/env python3
"""Self-test of the scripted model: every API, streaming and not, turn 1 (tool call) and turn 2 (answer).

Starts model.py on a free loopback port, sends hand-written requests, checks the replies. Exit 0 = all passed.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS_SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
                "required": ["command"]}


def post(port, path, body, stream=False):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read().decode("utf-8")


def cases():
    # (name, path, body, must-contain)
    u1 = "Read hello.txt"
    yield ("chat tool call", "/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": u1}],
           "tools": [{"type": "function", "function": {"name": "bash", "parameters": TOOLS_SCHEMA}}]}, '"tool_calls"')
    yield ("chat answer (stream)", "/v1/chat/completions", {"model": "m", "stream": True, "stream_options": {"include_usage": True},
           "messages": [{"role": "user", "content": u1},
                        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
                        {"role": "tool", "tool_call_id": "c1", "content": "PAPAYA-42"}],
           "tools": [{"type": "function", "function": {"name": "bash", "parameters": TOOLS_SCHEMA}}]}, "PAPAYA-42")
    yield ("responses tool call (stream)", "/v1/responses", {"model": "m", "stream": True, "input": [
           {"type": "message", "role": "user", "content": [{"type": "input_text", "text": u1}]}],
           "tools": [{"type": "function", "name": "exec_command", "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}}}]},
           "response.function_call_arguments.done")
    yield ("responses answer", "/v1/responses", {"model": "m", "input": [
           {"type": "message", "role": "user", "content": u1},
           {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c1"},
           {"type": "function_call_output", "call_id": "c1", "output": "PAPAYA-42"}],
           "tools": [{"type": "function", "name": "exec_command", "parameters": {"type": "object", "properties": {}}}]}, "FINAL ANSWER")
    yield ("anthropic tool call (stream)", "/v1/messages?beta=true", {"model": "m", "stream": True,
           "messages": [{"role": "user", "content": u1}], "tools": [{"name": "Bash", "input_schema": TOOLS_SCHEMA}]}, "input_json_delta")
    yield ("anthropic answer", "/v1/messages", {"model": "m", "messages": [
           {"role": "user", "content": u1},
           {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
           {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "PAPAYA-42"}]}],
           "tools": [{"name": "Bash", "input_schema": TOOLS_SCHEMA}]}, "FINAL ANSWER")
    yield ("gemini tool call", "/v1beta/models/x:generateContent", {"contents": [{"role": "user", "parts": [{"text": u1}]}],
           "tools": [{"functionDeclarations": [{"name": "run_shell_command", "parameters": TOOLS_SCHEMA}]}]}, "functionCall")
    yield ("gemini answer (stream)", "/v1beta/models/x:streamGenerateContent?alt=sse", {"contents": [
           {"role": "user", "parts": [{"text": u1}]},
           {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": {}}}]},
           {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command", "response": {"output": "PAPAYA-42"}}}]}],
           "tools": [{"functionDeclarations": [{"name": "run_shell_command", "parameters": TOOLS_SCHEMA}]}]}, "PAPAYA-42")
    yield ("notool", "/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "again? [notool]"}],
           "tools": [{"type": "function", "function": {"name": "bash", "parameters": TOOLS_SCHEMA}}]}, "NOTOOL ANSWER")
    yield ("side request without tools", "/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": u1}]},
           "Lab session")


def main():
    d = tempfile.mkdtemp(prefix="trajhost-lab-model-selftest-")
    pf = os.path.join(d, "port")
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "model.py"), "--port-file", pf, "--log",
                          os.path.join(d, "requests.jsonl")], stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(pf):
                break
            time.sleep(0.05)
        port = int(open(pf).read())
        ok = fail = 0
        for name, path, body, want in cases():
            try:
                got = post(port, path, body)
            except Exception as e:  # noqa: BLE001
                got = "ERROR %s" % e
            if want in got:
                ok += 1
            else:
                fail += 1
                print("FAIL model selftest %s: %r not in %s" % (name, want, got[:300]))
        n = sum(1 for _ in open(os.path.join(d, "requests.jsonl")))
        if n != ok + fail:
            fail += 1
            print("FAIL model selftest: %d requests logged for %d sent" % (n, ok + fail - 1))
        print("model selftest: %d passed, %d failed" % (ok, fail))
        return 1 if fail else 0
    finally:
        p.kill()
        p.wait()


if __name__ == "__main__":
    sys.exit(main())
