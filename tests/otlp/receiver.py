"""A loopback OTLP/HTTP receiver that decodes with the official protobuf definitions
(opentelemetry-proto) and checks what `trajhost export` sends for every lab fixture."""

import argparse
import base64
import http.server
import json
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = ("simple", "parallel", "failing-tool", "multibyte", "long-output")
CONTENT_KEYS = {
    "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result", "trajhost.observation.text", "trajhost.compaction.summary",
    "trajhost.session.title",
}
KIND = {"invoke_agent": trace_pb2.Span.SPAN_KIND_INTERNAL, "chat": trace_pb2.Span.SPAN_KIND_CLIENT,
        "execute_tool": trace_pb2.Span.SPAN_KIND_INTERNAL}


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.fail_next = 0          # answer 503 to this many requests first
        self.retry_after = None
        self.requests = []          # (path, content type, body, time)
        self.refused = []


STATE = State()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with STATE.lock:
            if STATE.fail_next > 0:
                STATE.fail_next -= 1
                STATE.refused.append(time.monotonic())
                self.send_response(503)
                if STATE.retry_after is not None:
                    self.send_header("Retry-After", str(STATE.retry_after))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            STATE.requests.append((self.path, self.headers.get("Content-Type"), body, time.monotonic()))
        ctype = self.headers.get("Content-Type")
        if ctype == "application/json":
            answer, out_type = b"{}", "application/json"
        else:
            answer, out_type = trace_service_pb2.ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf"
        self.send_response(200)
        self.send_header("Content-Type", out_type)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def attrs(kvs):
    out = {}
    for kv in kvs:
        kind = kv.value.WhichOneof("value")
        out[kv.key] = getattr(kv.value, kind) if kind else None
    return out


def check(request, content):
    """The span tree and attribute rules; returns a list of problems."""
    problems = []
    if not request.resource_spans:
        return ["no resource spans"]
    for rs in request.resource_spans:
        res = attrs(rs.resource.attributes)
        if not res.get("service.name"):
            problems.append("resource without service.name")
        spans = [s for ss in rs.scope_spans for s in ss.spans]
        by_id = {s.span_id: s for s in spans}
        if len(by_id) != len(spans):
            problems.append("duplicate span ids")
        roots = [s for s in spans if not s.parent_span_id]
        if len(roots) != 1 or attrs(roots[0].attributes).get("gen_ai.operation.name") != "invoke_agent":
            problems.append(f"{len(roots)} roots, not one invoke_agent root")
        for s in spans:
            a = attrs(s.attributes)
            op = a.get("gen_ai.operation.name")
            if op not in KIND:
                problems.append(f"{s.name}: operation {op!r}")
                continue
            if s.kind != KIND[op]:
                problems.append(f"{s.name}: kind {s.kind}, not {KIND[op]}")
            if not s.name.startswith(op):
                problems.append(f"{s.name}: name does not start with {op}")
            if len(s.trace_id) != 16 or s.trace_id != spans[0].trace_id or len(s.span_id) != 8:
                problems.append(f"{s.name}: bad trace or span id")
            if s.start_time_unix_nano > s.end_time_unix_nano:
                problems.append(f"{s.name}: starts after it ends")
            if not a.get("gen_ai.conversation.id"):
                problems.append(f"{s.name}: no gen_ai.conversation.id")
            if s.parent_span_id:
                parent = by_id.get(s.parent_span_id)
                want = "chat" if op == "execute_tool" else "invoke_agent"
                if parent is None:
                    problems.append(f"{s.name}: parent missing")
                elif attrs(parent.attributes).get("gen_ai.operation.name") != want:
                    problems.append(f"{s.name}: parent {parent.name}, not a {want} span")
            if op == "execute_tool":
                for key in ("gen_ai.tool.name", "gen_ai.tool.call.id"):
                    if not a.get(key):
                        problems.append(f"{s.name}: no {key}")
                if a.get("gen_ai.tool.type") != "function":
                    problems.append(f"{s.name}: gen_ai.tool.type {a.get('gen_ai.tool.type')!r}")
            if op == "invoke_agent" and not a.get("gen_ai.agent.name"):
                problems.append(f"{s.name}: no gen_ai.agent.name")
            for key, value in a.items():
                if key.startswith("gen_ai.usage.") and (not isinstance(value, int) or value < 0):
                    problems.append(f"{s.name}: {key} = {value!r}")
            present = CONTENT_KEYS & (set(a) | {k for e in s.events for k in attrs(e.attributes)})
            if present and not content:
                problems.append(f"{s.name}: content {sorted(present)} without --content")
        if content and not any("gen_ai.output.messages" in attrs(s.attributes) for s in spans
                               if attrs(s.attributes).get("gen_ai.operation.name") == "chat"):
            problems.append("--content but no gen_ai.output.messages")
    return problems


def export(trajhost, data_dir, home, url, extra):
    cmd = [trajhost, "--data-dir", data_dir, "export", "--all", "--home", str(home), "--otlp-endpoint", url, *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trajhost", required=True)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    homes = sorted(p for p in (ROOT / "fixtures").glob("*/*/*")
                   if p.is_dir() and p.name in SCENARIOS and p.parts[-3] != "broken")
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as data_dir:
        for i, home in enumerate(homes):
            name = str(home.relative_to(ROOT))
            problems = []
            # 1. protobuf, one 503 first (the first fixture's with Retry-After: 1).
            with STATE.lock:
                STATE.requests.clear()
                STATE.refused.clear()
                STATE.fail_next = 1
                STATE.retry_after = 1 if i == 0 else None
            out = export(args.trajhost, data_dir, home, base, [])
            if out.returncode != 0:
                if "no session" in out.stderr or "exported 0 of 0" in out.stderr:
                    print(f"SKIP {name}: no session the built-in codecs find")
                    skipped += 1
                    continue
                problems.append(f"export failed ({out.returncode}): {out.stderr.strip()[-300:]}")
            requests = list(STATE.requests)
            if "exported 0 of 0" in out.stderr:
                print(f"SKIP {name}: no session the built-in codecs find")
                skipped += 1
                continue
            if not STATE.refused:
                problems.append("the 503 was never met")
            elif requests and i == 0 and requests[0][3] - STATE.refused[0] < 0.9:
                problems.append("Retry-After: 1 was not honored")
            if not requests:
                problems.append("nothing arrived after the 503 (no retry)")
            for path, ctype, body, _ in requests:
                if path != "/v1/traces" or ctype != "application/x-protobuf":
                    problems.append(f"POST {path} as {ctype}")
                request = trace_service_pb2.ExportTraceServiceRequest()
                try:
                    request.ParseFromString(body)
                except Exception as e:  # noqa: BLE001
                    problems.append(f"not an ExportTraceServiceRequest: {e}")
                    continue
                problems += check(request, content=False)
            # 2. OTLP JSON with content, parsed by the official JSON mapping.
            with STATE.lock:
                STATE.requests.clear()
                STATE.fail_next = 0
            out = export(args.trajhost, data_dir, home, base + "/v1/traces", ["--format", "otlp-json", "--content"])
            if out.returncode != 0:
                problems.append(f"json export failed ({out.returncode}): {out.stderr.strip()[-300:]}")
            for path, ctype, body, _ in list(STATE.requests):
                if ctype != "application/json":
                    problems.append(f"JSON sent as {ctype}")
                try:
                    # OTLP JSON writes ids as hex, where protobuf's JSON mapping has base64: check the hex, convert.
                    doc = json.loads(body)
                    for rs in doc["resourceSpans"]:
                        for ss in rs["scopeSpans"]:
                            for span in ss["spans"]:
                                for key, size in (("traceId", 16), ("spanId", 8), ("parentSpanId", 8)):
                                    if key in span:
                                        raw = bytes.fromhex(span[key])
                                        if len(raw) != size or span[key] != span[key].lower():
                                            problems.append(f"{span['name']}: {key} {span[key]!r}")
                                        span[key] = base64.b64encode(raw).decode()
                    request = json_format.Parse(json.dumps(doc), trace_service_pb2.ExportTraceServiceRequest())
                except Exception as e:  # noqa: BLE001
                    problems.append(f"not OTLP JSON: {e}")
                    continue
                problems += check(request, content=True)
            if problems:
                failed += 1
                print(f"FAIL {name}")
                for p in problems[:10]:
                    print(f"  {p}")
            else:
                passed += 1
                print(f"PASS {name} ({len(requests)} request(s))")
    server.shutdown()
    print(f"otlp receiver: {passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
