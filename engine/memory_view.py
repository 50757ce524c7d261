"""The memory tiers' columns concatenated, so one relevance pass covers every tier.

`MemoryStore` keeps each tier's columns separately (entries are written, evicted
and refreshed per tier); this view joins them while nothing changes, which, in a
run, is between one episode's write and the next.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class FlatView:
    """The tiers' columns concatenated (in TIERS order), rebuilt only when a tier
    changed: the relevance score of every entry is then one pass of vector
    operations instead of one per tier. Columns that cannot change between
    writes (0.5 + 0.5·quality, the tier boost) are computed once per rebuild,
    the recency factor once per store clock tick."""

    def __init__(self, tiers: dict[str, Any], boost: dict[str, float]):
        self.tiers = tiers
        self.versions = tuple((t.version, len(t)) for t in tiers.values())
        sizes = [len(t) for t in tiers.values()]
        ends = np.cumsum(sizes)
        self.bounds = {name: (int(e - n), int(e)) for name, n, e in zip(tiers, sizes, ends)}
        self.episode = np.concatenate([t.episode[: len(t)] for t in tiers.values()])
        self.half_quality = 0.5 + 0.5 * np.concatenate([t.quality[: len(t)] for t in tiers.values()])
        self.boost = np.repeat([boost[name] for name in tiers], sizes)
        self.codes: dict[str, np.ndarray] = {}
        self._positions: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray | None]] = {}
        self._recency_at: int | None = None
        self._recency = self.half_quality

    def column(self, key: str) -> np.ndarray:
        col = self.codes.get(key)
        if col is None:
            col = self.codes[key] = np.concatenate([t.column(key) for t in self.tiers.values()])
        return col

    def positions(self, tiers: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray | None]:
        """For a policy's tiers: each entry's position among them, and which entries
        are visible (None: all are). Cached: a few policies ask again and again."""
        found = self._positions.get(tiers)
        if found is None:
            pos = np.zeros(len(self.episode), dtype=np.int64)
            visible = np.zeros(len(self.episode), dtype=bool)
            for p, name in enumerate(tiers):
                lo, hi = self.bounds[name]
                pos[lo:hi] = p
                visible[lo:hi] = True
            found = self._positions[tiers] = (pos, None if visible.all() else visible)
        return found

    def starts(self, tiers: tuple[str, ...]) -> np.ndarray:
        return np.array([self.bounds[name][0] for name in tiers], dtype=np.int64)

    def recency(self, now: int) -> np.ndarray:
        if self._recency_at != now:
            self._recency = _recency_of(np.maximum(now - self.episode, 0))
            self._recency_at = now
        return self._recency


def _recency_table(n: int) -> np.ndarray:
    return 0.3 + 0.7 * np.exp(-0.01 * np.arange(n))


_RECENCY = _recency_table(2048)  # _RECENCY[Δ] = 0.3 + 0.7·e^(−0.01Δ); a memo, grown on demand


def _recency_of(delta: np.ndarray) -> np.ndarray:
    """The recency factor by table lookup: the same elementwise values as evaluating
    the formula on `delta` (a test pins that), at a third of the cost."""
    global _RECENCY
    top = int(delta.max()) if len(delta) else 0
    if top >= len(_RECENCY):
        _RECENCY = _recency_table(max(top + 1, 2 * len(_RECENCY)))
    return _RECENCY[delta]
