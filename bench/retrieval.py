"""Retrieval against the original store: the same entries, the same query, one process.

Both stores hold the same entries (a third per tier) and answer the paper's
`full_detailed` read (all tiers, relevance-ranked top 5). Blocks of calls
alternate, ours then the original's (see `_interleave`), so load on the machine
hits both alike; the figure that matters is the ratio of the medians, measured
at 150 to 150,000 entries. The store's clock advances before every call, so our
per-episode cache of the recency factor is recomputed each time, as in a run.
Garbage collection is off while timing, as timeit does.
"""

from __future__ import annotations

import gc
import statistics
import time

import numpy as np

from engine.memory import MemoryStore
from engine.policies import TIERS, PolicySpec

from .original_store import BONUSES, OriginalStore

TICKERS = ["AAPL", "NVDA", "JNJ", "UNH", "JPM", "GS", "XOM", "PG", "CAT", "NEE"]
SECTORS = ["Tech", "Tech", "Health", "Health", "Fin", "Fin", "Energy", "Staples", "Ind", "Util"]
QUERY = {"ticker": "JPM", "sector": "Fin", "task_type": "portfolio"}
SPEC = PolicySpec("full_detailed", TIERS, 5, format="full")
# calls per size, for each store at least: enough for a stable median, few where the original is slow
REPEATS = {150: 2000, 1_500: 600, 15_000: 60, 150_000: 7}
BLOCK_S = 0.002
TARGETS = {1_500: 25, 15_000: 40}  # the minimum speed-ups


def filled_pair(n: int, seed: int = 0) -> tuple[MemoryStore, OriginalStore]:
    """Our store and the original holding the same n entries (episodes up to 1,200)."""
    rng = np.random.default_rng(seed)
    ours = MemoryStore(BONUSES, cap_per_tier=n)
    theirs = OriginalStore(max_entries_per_tier=n)
    for i in range(n):
        tier = TIERS[i % 3]
        j = int(rng.integers(10))
        meta = {"ticker": TICKERS[j], "sector": SECTORS[j], "task_type": "portfolio"}
        quality = float(rng.uniform(0.4, 1))
        episode = int(rng.integers(0, 1200))
        ours.write(tier, f"{TICKERS[j]} entry {i}", meta, quality, episode=episode)
        theirs.add(tier, f"{TICKERS[j]} entry {i}", {**meta, "episode_num": episode}, quality)
    ours.episode = theirs.episode_counter = 1200
    return ours, theirs


def compare(n: int, repeats: int) -> tuple[float, float]:
    """Median ms per call of ours and of the original, interleaved."""
    ours, theirs = filled_pair(n)
    mine, orig = [], []
    # as timeit does: a collection triggered by the original's allocations would
    # otherwise land in whichever call happens to cross the threshold
    gc.collect()
    gc.disable()
    try:
        _interleave(ours, theirs, repeats, mine, orig)
    finally:
        gc.enable()
    return statistics.median(mine) * 1e3, statistics.median(orig) * 1e3


def _interleave(ours: MemoryStore, theirs: OriginalStore, repeats: int, mine: list, orig: list) -> None:
    """Blocks of at least BLOCK_S of calls, ours then the original's, alternate: a
    drift in the machine's load hits both alike, and each store is timed warm, as
    in a run's loop, not right after the other has flushed the caches."""
    while len(orig) < repeats or len(mine) < repeats:
        for store_calls, times in ((_ours_call, mine), (_theirs_call, orig)):
            start = time.perf_counter()
            while True:
                times.append(store_calls(ours, theirs))
                if time.perf_counter() - start >= BLOCK_S:
                    break


def _ours_call(ours: MemoryStore, theirs: OriginalStore) -> float:
    ours.episode += 1  # the clock moves every call, as between episodes of a run,
    t0 = time.perf_counter()  # so no per-episode cache flatters us
    ours.retrieve(SPEC, QUERY)
    return time.perf_counter() - t0


def _theirs_call(ours: MemoryStore, theirs: OriginalStore) -> float:
    theirs.episode_counter += 1
    t0 = time.perf_counter()
    theirs.retrieve(QUERY, list(TIERS), 5)
    return time.perf_counter() - t0


def run() -> list[dict]:
    rows = []
    for n, repeats in REPEATS.items():
        mine, orig = compare(n, repeats)
        label = f"{n:,}"
        rows.append({"name": f"retrieval top-5 over {label} entries: ours (median)", "value": mine,
                     "unit": "ms", "target": None})
        rows.append({"name": f"  the original store's (median)", "value": orig, "unit": "ms", "target": None})
        rows.append({"name": f"  speed-up over the original at {label}", "value": orig / mine, "unit": "x",
                     "target": TARGETS.get(n), "higher": True})
    return rows
