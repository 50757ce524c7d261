"""The local model (`make local`): seconds per call for the agent and the
reflector in a real support run, and for the stream world's agent on the demo
stream, one thread (the default), and how far `make local`'s Q8_0 repack moved the
bundled weights (`bench/repack_error.py`). Skipped, with a line saying why, where the
local extra is not installed."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench.repack_error import default_files, largest_change_per_step

EPISODES, REFLECT_EVERY = 60, 10  # six reflections: twelve reflector calls beside sixty agent calls
STREAM_ROWS = 20  # 19 calls: the offered labels (the schema) change in the first rows, then settle


def latencies() -> dict[str, list[float]]:
    """Seconds per call by role, from the ledger of a fresh-process support run."""
    with tempfile.TemporaryDirectory() as d:
        save = os.path.join(d, "s.json")
        cmd = [os.path.join(os.path.dirname(sys.executable), "ael-lab"), "run", "support", "--seeds", "42",
               "--episodes", str(EPISODES), "--reflect-every", str(REFLECT_EVERY), "--agent", "local",
               "--reflector", "local", "--error-policy", "raise", "--quiet", "--save", save]
        subprocess.run(cmd, check=True, env={**os.environ, "AEL_LOCAL_THREADS": "1"})
        records = json.loads(open(save).read())["session"]["usage"]["records"]
    out: dict[str, list[float]] = {"agent": [], "reflector": []}
    for r in records:
        out["agent" if r["purpose"].startswith("agent") else "reflector"].append(r["latency_s"])
    return out


def stream_latencies() -> list[float]:
    """Seconds per call of the stream world's local agent, from the ledger of a fresh-process run."""
    from scenarios.stream.demo import write_demo

    with tempfile.TemporaryDirectory() as d:
        data = write_demo(os.path.join(d, "demo.csv"), 1, n_rows=STREAM_ROWS)
        save = os.path.join(d, "s.json")
        cmd = [os.path.join(os.path.dirname(sys.executable), "ael-lab"), "run", "stream", "--data", str(data),
               "--text", "text", "--label", "label", "--meta", "source,region", "--seeds", "1", "--selector", "ts",
               "--agent", "local", "--error-policy", "raise", "--quiet", "--save", save]
        subprocess.run(cmd, check=True, env={**os.environ, "AEL_LOCAL_THREADS": "1"})
        records = json.loads(open(save).read())["session"]["usage"]["records"]
    return [r["latency_s"] for r in records]


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def run() -> list[dict]:
    from engine.llm.local_model import why_unusable

    why = why_unusable()
    if why:
        print(f"    local model benchmarks skipped: {why}", flush=True)
        return []
    rows = []
    files = default_files()
    if files:  # the model that runs is `make local`'s Q8_0 repack: how far it is from the bundled file
        rows.append({"name": "local: Q8_0 repack, largest weight change / Q4_1 step",
                     "value": largest_change_per_step(*files), "unit": "step", "target": 1 / 16})
    for role, values in latencies().items():
        rows.append({"name": f"local: {role} call, median of {len(values)} ({EPISODES}-episode support run)",
                     "value": statistics.median(values), "unit": "s", "target": 5})
        rows.append({"name": f"local: {role} call, p95", "value": p95(values), "unit": "s", "target": 12})
    values = stream_latencies()
    rows.append({"name": f"local: stream agent call, median of {len(values)} ({STREAM_ROWS}-row demo stream)",
                 "value": statistics.median(values), "unit": "s", "target": 5})
    rows.append({"name": "local: stream agent call, p95", "value": p95(values), "unit": "s", "target": 12})
    return rows
