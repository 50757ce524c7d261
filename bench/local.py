"""The local model (`make local`): seconds per call for the agent and the
reflector in a real support run, one thread (the default). Skipped, with a
line saying why, where the local extra is not installed."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

EPISODES, REFLECT_EVERY = 60, 10  # six reflections: twelve reflector calls beside sixty agent calls


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


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def run() -> list[dict]:
    from engine.llm.local_model import why_unusable

    why = why_unusable()
    if why:
        print(f"    local model benchmarks skipped: {why}", flush=True)
        return []
    rows = []
    for role, values in latencies().items():
        rows.append({"name": f"local: {role} call, median of {len(values)} ({EPISODES}-episode support run)",
                     "value": statistics.median(values), "unit": "s", "target": 5})
        rows.append({"name": f"local: {role} call, p95", "value": p95(values), "unit": "s", "target": 12})
    return rows
