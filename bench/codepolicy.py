"""Code-policy retrieval through the sandboxed worker, beside declarative policies.

Every call crosses a process boundary (JSON over pipes) and runs the policy
under RestrictedPython's guards. Measured as a live episode sees it: between
two retrievals one new entry is written and the previous hits' retrieval
counts change, so each call sends those few entries and the order of all.
"""

from __future__ import annotations

import statistics
import time

from engine.sandbox.codearms import CodeArms
from engine.policies import PolicySpec

from .engine import filled_store

TIERS = ("episodic", "semantic", "procedural")
SAME_TICKER = '''def retrieve(entries, query):
    """The query's ticker first, best quality first (what a full_detailed-like code policy does)."""
    same = [e for e in entries if e["metadata"].get("ticker") == query.get("ticker")]
    return sorted(same, key=lambda e: (e["quality"], e["episode"]), reverse=True)[:5]
'''
QUERY = {"ticker": "JPM", "sector": "Fin", "task_type": "portfolio"}


def _median_ms(store, spec, repeats: int) -> float:
    times = []
    for i in range(repeats):
        store.write("episodic", f"JPM entry new {i}", {"ticker": "JPM", "sector": "Fin", "task_type": "portfolio"},
                    0.9, episode=1200 + i)
        t0 = time.perf_counter()
        store.retrieve(spec, QUERY)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def run() -> list[dict]:
    store = filled_store()
    arms = CodeArms()
    store.code_runner = arms.run
    code = PolicySpec("same_ticker", TIERS, 5, code=SAME_TICKER)
    t0 = time.perf_counter()
    store.retrieve(code, QUERY)  # starts the worker, compiles the policy, sends all 1,500 entries
    first = (time.perf_counter() - t0) * 1e3
    n = sum(len(t) for t in store.tiers.values())
    code_ms = _median_ms(store, code, 300)
    declarative = {name: _median_ms(store, PolicySpec(name, TIERS, 5, format="full"), 300)
                   for name in ("full_detailed",)}
    recent = _median_ms(store, PolicySpec("recent_window", ("episodic",), 5, format="sliding_window"), 300)
    arms.close()
    return [
        {"name": f"code policy through the worker, {n} entries (median)", "value": code_ms, "unit": "ms",
         "target": 2.0},
        {"name": "  first call: worker start, compile, all entries sent", "value": first, "unit": "ms",
         "target": None},
        {"name": "  declarative full_detailed, same store (median)", "value": declarative["full_detailed"],
         "unit": "ms", "target": None},
        {"name": "  declarative recent_window, same store (median)", "value": recent, "unit": "ms", "target": None},
    ]
