"""Engine benchmarks: the synthetic table, memory scoring, save and load."""

from __future__ import annotations

import os
import statistics
import tempfile
import time

import numpy as np

from engine.memory import MemoryStore
from engine.persistence import load_session, save_session
from engine.policies import PolicySpec
from engine.session import Session, SessionConfig
from scenarios import make_scenario

from .pure_python_store import top_k

SEEDS = [42, 123, 456, 789, 1024]
SELECTORS = ["rr", "ucb1", "egreedy", "ts", "ts+reflection", "oracle"]
BONUSES = {"ticker": 2.0, "sector": 0.8, "task_type": 0.5, "planner": 0.5}


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


def filled_store(n_per_tier: int = 500) -> MemoryStore:
    rng = np.random.default_rng(0)
    tickers = ["AAPL", "NVDA", "JNJ", "UNH", "JPM", "GS", "XOM", "PG", "CAT", "NEE"]
    sectors = ["Tech", "Tech", "Health", "Health", "Fin", "Fin", "Energy", "Staples", "Ind", "Util"]
    m = MemoryStore(BONUSES)
    for tier in ("episodic", "semantic", "procedural"):
        for i in range(n_per_tier):
            j = int(rng.integers(10))
            m.write(tier, f"{tickers[j]} entry {i}", {"ticker": tickers[j], "sector": sectors[j],
                                                       "task_type": "portfolio"}, float(rng.uniform(0.3, 1)),
                    episode=int(rng.integers(0, 1200)))
    m.episode = 1200
    return m


def scoring(repeats: int = 2000) -> tuple[float, float]:
    """Median ms of relevance scoring + top-5 over 1,500 entries (3 tiers × 500): ours, and
    the pure-Python loop of the reference store on the same entries."""
    m = filled_store()
    spec = PolicySpec("full_detailed", ("episodic", "semantic", "procedural"), 5, format="full")
    query = {"ticker": "JPM", "sector": "Fin", "task_type": "portfolio"}
    m.frozen = True  # reads only: keeps retrieval counts, and so the scores, fixed across repeats
    ours = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        m.retrieve(spec, query)
        ours.append(time.perf_counter() - t0)
    plain = [{"tier": e.tier, "metadata": e.metadata, "quality": e.quality, "episode": e.episode}
             for t in m.tiers.values() for e in t.entries]
    theirs = []
    for _ in range(repeats // 10):
        t0 = time.perf_counter()
        top_k(plain, query, BONUSES, 1200)
        theirs.append(time.perf_counter() - t0)
    return statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3


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
    ours, theirs = scoring()
    save_ms, load_ms, n, size = save_load()
    return [
        {"name": "synthetic table, 5 seeds x 6 selectors x 208 episodes (engine)", "value": table, "unit": "s", "target": 1.0},
        {"name": "relevance score + top-5 over 1,500 entries (median)", "value": ours, "unit": "ms", "target": 0.3},
        {"name": "  same with the reference's pure-Python loop (median)", "value": theirs, "unit": "ms", "target": None},
        {"name": f"save a {n}-episode session ({size // 1024} KiB, median)", "value": save_ms, "unit": "ms", "target": 250},
        {"name": f"load a {n}-episode session (median)", "value": load_ms, "unit": "ms", "target": 250},
    ]
