"""Engine benchmarks: the synthetic table, save and load (retrieval: `bench.retrieval`)."""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from engine.store.persistence import load_session, save_session
from engine.session import Session, SessionConfig
from scenarios import make_scenario

SEEDS = [42, 123, 456, 789, 1024]
SELECTORS = ["rr", "ucb1", "egreedy", "ts", "ts+reflection", "oracle"]


def synthetic_table() -> float:
    """Engine time of the full synthetic table: 5 seeds × 6 selectors × 208 episodes."""
    total = 0.0
    for sel in SELECTORS:
        for seed in SEEDS:
            s = Session(SessionConfig("synthetic", seed, sel), make_scenario("synthetic", seed))
            t0 = time.perf_counter()
            s.run()
            total += time.perf_counter() - t0
    return total


def long_session() -> Session:
    """A finished 1,200-episode session (the support stream if it is built, else a long synthetic one)."""
    try:
        s = Session(SessionConfig("support", 42, "ts+reflection"), make_scenario("support", 42))
    except Exception:  # support scenario not available in this build
        s = Session(SessionConfig("synthetic", 42, "ts+reflection"), make_scenario("synthetic", 42))
    s.run()
    return s


def save_load(repeats: int = 5) -> tuple[float, float, int, int]:
    s = long_session()
    saves, loads = [], []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        for _ in range(repeats):
            t0 = time.perf_counter()
            save_session(s, path)
            saves.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            load_session(path, make_scenario)
            loads.append(time.perf_counter() - t0)
        size = os.path.getsize(path)
    return statistics.median(saves) * 1e3, statistics.median(loads) * 1e3, len(s.history), size


def run() -> list[dict]:
    table = synthetic_table()
    save_ms, load_ms, n, size = save_load()
    return [
        {"name": "synthetic table, 5 seeds x 6 selectors x 208 episodes (engine)", "value": table, "unit": "s", "target": 1.0},
        {"name": f"save a {n}-episode session ({size // 1024} KiB, median)", "value": save_ms, "unit": "ms", "target": 250},
        {"name": f"load a {n}-episode session (median)", "value": load_ms, "unit": "ms", "target": 250},
    ]
