#!/usr/bin/env python3
"""Foreign-corpus runner (issue 11, point 6). Stdlib only; see README.md beside this file.

For each sample of FOREIGN/manifest.json: `trajhost sessions --home HOME --json`, then
`trajhost read … --json` for every discovered session of the sample's harness, then the
counts of the canonical records of the sample's own session(s) against `expect` (and
`expect_by_session`), and every sentinel phrase somewhere in those records.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CATEGORIES = ("user", "assistant", "tool_call", "tool_result")
# The sandbox stopped a codec (README, exit codes).
EXIT_SANDBOX = 4
CALL_TIMEOUT_SECS = 300
# The manifest's harness names -> trajhost's harness names (a harness whose old and new
# layouts trajhost reads under another name is listed with both).
HARNESS_NAMES = {
    "deepagents": ("deep-agents", "deepagents"),
    "droid": ("factory-droid", "droid"),
    "grok": ("grok-build", "grok"),
    "omp": ("oh-my-pi", "omp"),
    "kimi-code": ("kimi-code", "kimi-cli"),
}


# ------------------------------------------------------------------ trajhost calls
class Trajhost:
    def __init__(self, binary: Path, data_dir: Path):
        self.binary = binary
        self.data_dir = data_dir
        self.env = dict(os.environ)
        # A persistent cache (TRAJHOST_CACHE_DIR) saves compiling the codecs on every run;
        # without one, the compiled codecs live in this run's data dir.
        self.env.setdefault("TRAJHOST_CACHE_DIR", str(data_dir / "cache"))

    def call(self, *args: str):
        cmd = [str(self.binary), "--data-dir", str(self.data_dir), *args]
        try:
            p = subprocess.run(cmd, capture_output=True, env=self.env, timeout=CALL_TIMEOUT_SECS)
        except subprocess.TimeoutExpired:
            return None, "", f"timed out after {CALL_TIMEOUT_SECS} s"
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def json_lines(text: str):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def crash_of(rc, stderr: str):
    """Why a call counts as a crash, or None."""
    if rc is None:
        return stderr
    if "panicked" in stderr:
        return "panic: " + next(l for l in stderr.splitlines() if "panicked" in l).strip()[:200]
    if rc == EXIT_SANDBOX:
        return f"exit {EXIT_SANDBOX} (codec stopped by the sandbox): {last_line(stderr)}"
    return None


def last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:200] if lines else ""


# ------------------------------------------------------------------ counting
def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)


def record_texts(rec):
    for field in ("text", "content", "arguments"):
        if field in rec:
            yield from strings_in(rec[field])
            if not isinstance(rec[field], str):
                yield json.dumps(rec[field], ensure_ascii=False)


def counts_of(records):
    """The manifest's four counts, taken from canonical records (count.py's definitions:
    user prompts and assistant messages that carry visible text; every call; every result)."""
    c = dict.fromkeys(CATEGORIES, 0)
    for r in records:
        kind = r.get("kind")
        if kind in ("user", "assistant"):
            if isinstance(r.get("text"), str) and r["text"].strip():
                c[kind] += 1
        elif kind in ("tool_call", "tool_result"):
            c[kind] += 1
    return c


def compare(expect: dict, got: dict, where: str = ""):
    diffs = {}
    for k in CATEGORIES:
        if expect.get(k) is None:  # the manifest leaves it unknown (count_notes)
            continue
        if got.get(k) != expect[k]:
            diffs[where + k] = (expect[k], got.get(k))
    return diffs


# ------------------------------------------------------------------ sessions of a sample
def belongs(session_path: str, primary: Path) -> bool:
    """Whether a discovered session is (part of) the manifest's primary file or store."""
    p, f = session_path, str(primary)
    return (p == f or p.startswith(f + "#") or p.startswith(f + "/")
            or (f.startswith(p.rstrip("/") + "/") and os.path.isdir(p)))


def run_sample(th: Trajhost, foreign: Path, s: dict) -> dict:
    sid = f"{s['harness']}/{s['slug']}"
    home = foreign / s["home"]
    primary = home / s["file"]
    res = {"id": sid, "harness": s["harness"], "non_native": bool(s.get("non_native")),
           "status": "failed", "problems": [], "counts": None, "diagnostics": 0}
    rc, out, err = th.call("sessions", "--home", str(home), "--json")
    diags = [d for d in json_lines(err)]
    res["diagnostics"] += len(diags)
    crash = crash_of(rc, err)
    if crash:
        res["problems"].append(f"sessions: {crash}")
        return res
    try:
        listed = json.loads(out) if out.strip() else []
    except json.JSONDecodeError as e:
        res["problems"].append(f"sessions --json printed no JSON array ({e}); stderr: {last_line(err)}")
        return res
    if rc != 0:
        res["problems"].append(f"sessions exited {rc}: {last_line(err)}")
    names = HARNESS_NAMES.get(s["harness"], (s["harness"],))
    mine = [x for x in listed if x.get("harness") in names]
    paths = [x.get("path") or "" for x in mine]
    ours, all_records = [x for x in mine if belongs(x.get("path") or "", primary)], {}
    for x in mine:
        path = x.get("path") or ""
        if os.path.isfile(path) and paths.count(path) == 1:
            target = [path, "--harness", x["harness"]]
        else:
            target = [x.get("native_id") or "", "--harness", x["harness"]]
        rc, out, err = th.call("read", *target, "--home", str(home), "--json")
        label = x.get("locator") or x.get("native_id")
        crash = crash_of(rc, err)
        if crash:
            res["problems"].append(f"read {label}: {crash}")
            continue
        if rc != 0:
            res["problems"].append(f"read {label} exited {rc}: {last_line(err)}")
            continue
        recs = json_lines(out)
        summary = next((r for r in recs if r.get("kind") == "summary"), {})
        res["diagnostics"] += len(summary.get("diagnostics") or [])
        if x in ours:
            all_records[x.get("native_id")] = [r for r in recs if r.get("kind") != "summary"]

    if res["non_native"]:
        if not mine:
            res["problems"].append("not discovered, so never read" + diag_hint(diags, names))
        if res["diagnostics"] == 0:
            res["problems"].append("no diagnostics (a non-native sample must name what it does not understand)")
        if not res["problems"]:
            res["status"] = "passed"
        return res

    if not ours:
        found = ", ".join(x.get("locator") or "?" for x in mine) or "no session of this harness"
        res["problems"].append(f"{s['file']} not discovered (listed: {found})" + diag_hint(diags, names))
        return res
    if res["problems"]:  # a read failed
        return res
    records = [r for recs in all_records.values() for r in recs]
    got = counts_of(records)
    res["counts"] = got
    diffs = compare(s["expect"], got)
    for native_id, exp in (s.get("expect_by_session") or {}).items():
        if native_id not in all_records:
            res["problems"].append(f"session {native_id} not discovered")
            continue
        diffs.update(compare(exp, counts_of(all_records[native_id]), f"{native_id}:"))
    res["diffs"] = diffs
    haystack = [t for r in records for t in record_texts(r)]
    missing = [(kind, text) for kind, text in (s["expect"].get("sentinels") or {}).items()
               if not any(text in t for t in haystack)]
    res["missing_sentinels"] = missing
    if diffs:
        res["problems"].append("counts " + ", ".join(f"{k} expected {e} got {g}" for k, (e, g) in diffs.items()))
    if missing:
        res["problems"].append("missing sentinels " + ", ".join(f"{k} {t!r}" for k, t in missing))
    if not res["problems"]:
        res["status"] = "passed"
    return res


def diag_hint(diags, names):
    """The discovery diagnostics of the sample's harness, briefly."""
    diags = [d for d in diags if d.get("harness") in names or not d.get("harness")]
    if not diags:
        return "; no diagnostics"
    first = diags[0]
    msg = " ".join(str(first[k]) for k in ("code", "detail", "message", "file") if first.get(k))
    return f"; {len(diags)} diagnostic(s), first: {msg[:200]}"


# ------------------------------------------------------------------ disputes and baseline
def load_disputes(path: Path) -> dict:
    if not path.exists():
        return {}
    if tomllib is None:
        sys.exit(f"foreign: {path} needs Python 3.11+ (tomllib) to read")
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    disputes = data.get("dispute", {})
    for sid, d in disputes.items():
        if not isinstance(d.get("counts"), dict) or not d.get("native") or not d.get("reason"):
            sys.exit(f"foreign: {path}: dispute {sid!r} needs `counts`, `native` and `reason`")
    return disputes


def apply_dispute(res: dict, dispute: dict | None):
    """A failed sample whose only differences are the disputed counts, with trajhost giving
    exactly the disputed values, is shown as disputed."""
    if dispute is None or res["status"] != "failed":
        if dispute is not None:
            res["problems"].append("listed in disputed.toml but passes as counted: remove the entry")
        return
    diffs = res.get("diffs") or {}
    if res.get("missing_sentinels") or not diffs or len(res["problems"]) != 1:
        return
    claimed = dispute["counts"]
    if all(k in claimed and claimed[k] == got for k, (_, got) in diffs.items()):
        res["status"] = "disputed"
        res["problems"] = [f"disputed: {dispute['reason']} (" + ", ".join(
            f"{k} manifest {e}, trajhost {g}" for k, (e, g) in diffs.items()) + ")"]


def read_baseline(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [l.strip() for l in path.read_text().splitlines() if l.strip() and not l.startswith("#")]


def write_baseline(path: Path, results):
    ok = sorted(r["id"] for r in results if r["status"] in ("passed", "disputed"))
    path.write_text("# Foreign samples that pass (or are disputed) today; written by "
                    "`tests/foreign/run --write-baseline`.\n# A listed sample that fails is a regression "
                    "and fails the run.\n" + "".join(f"{i}\n" for i in ok))
    return ok


# ------------------------------------------------------------------ main
def find_trajhost(arg: str | None) -> Path:
    if arg:
        p = Path(arg)
        if not p.is_absolute():
            p = Path.cwd() / p
        if not p.exists():
            sys.exit(f"foreign: no trajhost binary at {p}")
        return p
    p = REPO / "target" / "debug" / "trajhost"
    if not p.exists():
        print(f"foreign: {p} is missing; building it with `cargo build -p trajhost`", flush=True)
        subprocess.run(["cargo", "build", "-p", "trajhost"], cwd=REPO, check=True)
    return p


def print_table(results):
    by = {}
    for r in results:
        row = by.setdefault(r["harness"], {"samples": 0, "passed": 0, "failed": 0, "disputed": 0})
        row["samples"] += 1
        row[r["status"]] += 1
    head = ("harness", "samples", "passed", "failed", "disputed")
    width = max(len("harness"), *(len(h) for h in by))
    print(f"{head[0]:<{width}}  " + "  ".join(f"{h:>8}" for h in head[1:]))
    for h in sorted(by):
        row = by[h]
        print(f"{h:<{width}}  " + "  ".join(f"{row[k]:>8}" for k in head[1:]))


def main():
    ap = argparse.ArgumentParser(description="Read the foreign corpus with trajhost and compare with its manifest.")
    ap.add_argument("--trajhost", help="trajhost binary (default: target/debug/trajhost of this repo)")
    ap.add_argument("--foreign", help="corpus directory (default: ../shared/foreign beside the repo)")
    ap.add_argument("--json", action="store_true", help="one JSON object with every sample's result")
    ap.add_argument("--write-baseline", action="store_true", help="write passing.txt from this run")
    ap.add_argument("--plugin", action="append", default=[], metavar="FILE.wasm",
                    help="install this codec into the run's data dir first (repeatable; shadows a built-in of the same version)")
    ap.add_argument("--only", action="append", default=[], metavar="HARNESS",
                    help="run only the samples of this manifest harness (repeatable); the baseline is then not checked")
    args = ap.parse_args()

    # Resolved: trajhost reports canonical paths, and ../shared may be a link.
    foreign = (Path(args.foreign) if args.foreign else REPO.parent / "shared" / "foreign").resolve()
    manifest = foreign / "manifest.json"
    if not manifest.exists():
        print(f"foreign: skipped: no corpus at {foreign} (no manifest.json); it exists only on machines that have ../shared/foreign")
        return 0
    samples = json.loads(manifest.read_text())["samples"]
    disputes = load_disputes(HERE / "disputed.toml")
    known = {f"{s['harness']}/{s['slug']}" for s in samples}
    for sid in disputes:
        if sid not in known:
            sys.exit(f"foreign: disputed.toml names {sid!r}, which is not a sample of {manifest}")
    binary = find_trajhost(args.trajhost)

    with tempfile.TemporaryDirectory(prefix="trajhost-foreign-") as tmp:
        th = Trajhost(binary, Path(tmp))
        for plugin in args.plugin:
            rc, out, err = th.call("plugin", "install", str(Path(plugin).resolve()))
            if rc != 0:
                sys.exit(f"foreign: cannot install {plugin}: {last_line(err) or out}")
        if args.only:
            samples = [s for s in samples if s["harness"] in args.only]
        results = []
        for s in samples:
            res = run_sample(th, foreign, s)
            apply_dispute(res, disputes.get(res["id"]))
            results.append(res)

    baseline_path = HERE / "passing.txt"
    if args.write_baseline:
        ok = write_baseline(baseline_path, results)
        print(f"foreign: wrote {len(ok)} sample ids to {baseline_path.relative_to(REPO)}", file=sys.stderr)
    baseline = read_baseline(baseline_path) if not args.only else []
    status = {r["id"]: r["status"] for r in results}
    regressions = [i for i in baseline if status.get(i) == "failed"]
    vanished = [i for i in baseline if i not in status]
    n = {k: sum(1 for r in results if r["status"] == k) for k in ("passed", "failed", "disputed")}

    if args.json:
        print(json.dumps({"samples": results, "regressions": regressions, "missing_from_manifest": vanished,
                          **n}, indent=1, default=str))
    else:
        print_table(results)
        failed = [r for r in results if r["status"] != "passed"]
        if failed:
            print()
        for r in failed:
            mark = "REGRESSION " if r["id"] in regressions else ""
            print(f"{mark}{r['status'].upper()} {r['id']}: " + "; ".join(r["problems"]))
        print()
        for i in regressions:
            print(f"regression: {i} is in passing.txt and fails now")
        for i in vanished:
            print(f"baseline: {i} is in passing.txt but not in the manifest")
        closing = f"{n['passed']} passed, {n['failed']} failed"
        if n["disputed"]:
            closing += f", {n['disputed']} disputed"
        print(closing)
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
