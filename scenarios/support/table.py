"""The per-seed prediction table: what every built-in policy answers at every episode.

Every policy sees the same memory (all earlier tickets with their gold routes,
spec §5), so policy p's prediction at episode t is a pure function of
(seed, p, t). The table is computed once per seed from the stream's
similarity matrix, every episode at once (`indexed.py`: about 40 ms a seed), and
cached, so the scenario's `act` is a lookup, and the fixed-policy, oracle and
replay analyses read `C[t, p]`; it is also kept on disk by stream hash
(`table_cache.py`), so the resume of a saved run does not compute it again.
`compute_predictions` is the same table through
the real retrieval path — a `MemoryStore` filled one ticket at a time,
`MemoryStore.retrieve` under each `PolicySpec`, then the router: the reference
the indexed table is tested against, and the path for policies it cannot index.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np

from engine.memory import MemoryStore
from engine.policies import PolicySpec

from .bank import N_EPISODES, ROUTES
from . import table_cache
from .indexed import indexed_predictions
from .policies import ALL_POLICIES, behaviour_key, episodic_record, route_live
from .stream import tickets
from .text import SimilarityRows, stream_similarity

EPISODIC_QUALITY = 1.0  # every ticket is kept: its gold route is ground truth


def similarity_for(seed: int, rows: SimilarityRows | None = None):
    """The `similarity(query, tier, episodes)` callback of a seed's stream: the query's
    row of S at the ticket episodes for the episodic tier; 0 for the distilled tiers,
    whose entries are not tickets. The query dict carries its episode as `_episode`.
    Rows are read as needed (`SimilarityRows`): a resume that plays one episode
    does not compute the whole matrix. `rows`: ones the caller reads too."""
    rows = rows if rows is not None else SimilarityRows(seed)

    def similarity(query: dict[str, Any], tier: str, episodes: np.ndarray) -> np.ndarray:
        if tier != "episodic":
            return np.zeros(len(episodes))
        return rows[int(query["_episode"])][np.asarray(episodes, dtype=np.int64)]

    return similarity


@dataclass(frozen=True)
class PredictionTable:
    """Predictions of the built-in policies on one seed's stream.

    `routes[t, p]` is the route index (into `ROUTES`) policy `columns[p]` answers at
    episode t; `correct[t, p]` is C[t, p] of spec §5; `gold[t]` the gold route index.
    """

    seed: int
    columns: tuple[str, ...]
    keys: dict[str, int]       # behaviour_key(spec) -> column
    routes: np.ndarray         # (T, P) int8
    gold: np.ndarray           # (T,) int8
    correct: np.ndarray        # (T, P) bool

    def column(self, spec: PolicySpec) -> int | None:
        """The column of a policy that behaves as `spec`, or None if it is not tabled."""
        return self.keys.get(behaviour_key(spec))

    def column_of(self, name: str) -> int:
        return self.columns.index(name)


def compute_predictions(seed: int, specs: tuple[PolicySpec, ...] = ALL_POLICIES,
                        n: int = N_EPISODES) -> np.ndarray:
    """Route indices (n, len(specs)) through the real path: a store filled incrementally,
    `MemoryStore.retrieve`, the router (with fallbacks). Not cached."""
    stream = tickets(seed)
    s = stream_similarity(seed)
    similarity = similarity_for(seed)
    store = MemoryStore(cap_per_tier=N_EPISODES)  # the whole history, as the spec's policies see it
    out = np.zeros((n, len(specs)), dtype=np.int8)
    for t in range(n):
        ticket = stream[t]
        store.episode = t
        query = {"endpoint": ticket["endpoint"], "_episode": t}
        for j, spec in enumerate(specs):
            out[t, j] = route_live(spec, store, query, similarity, s[t]).route
        content, meta = episodic_record(ticket)
        store.write("episodic", content, meta, EPISODIC_QUALITY, episode=t)
    return out


_BUILDING = threading.Lock()  # one thread builds a table; another asking for it waits, never builds it twice


def prediction_table(seed: int) -> PredictionTable:
    """The cached table of the six built-in policies for `seed` (arrays read-only)."""
    with _BUILDING:
        return _built_table(seed)


def prediction_table_now(seed: int) -> PredictionTable | None:
    """The table (built now by this thread if need be), or None while another thread builds
    it: a step of the lab then computes its own row (`predictions_at`) instead of waiting."""
    if not _BUILDING.acquire(blocking=False):
        return None
    try:
        return _built_table(seed)
    finally:
        _BUILDING.release()


def predictions_at(seed: int, t: int) -> np.ndarray:
    """Row t of the table, (len(ALL_POLICIES),) route indices, computed alone: the same numbers."""
    row = indexed_predictions(int(seed), ALL_POLICIES, t + 1, start=t)
    return row[0] if row is not None else prediction_table(seed).routes[t]


def build_gently(seed: int, block: int = 50, pause: float = 0.01) -> PredictionTable:
    """The table built by a background thread beside an interface: `block` rows at a time
    with a `pause` in between, which leaves the interpreter to the interface's threads (a
    first frame, a first step) instead of holding it for the whole build. Same numbers."""
    with _BUILDING:
        if seed not in _ROUTES:
            routes = _cached_routes(seed)
            if routes is None:
                parts = []
                for start in range(0, N_EPISODES, block):
                    part = indexed_predictions(int(seed), ALL_POLICIES, min(start + block, N_EPISODES), start=start)
                    if part is None:  # a built-in policy indexed.py does not know: the real path, at once
                        parts = [compute_predictions(int(seed))]
                        break
                    parts.append(part)
                    time.sleep(pause)
                routes = np.concatenate(parts)
                table_cache.store(_key(seed), routes)
            _ROUTES[seed] = routes
        return _built_table(seed)


_ROUTES: dict[int, np.ndarray] = {}  # routes built by `build_gently`, for `_built_table` to take


def _key(seed: int) -> str:
    return table_cache.table_key(tickets(seed), (p.fingerprint for p in ALL_POLICIES))


def _cached_routes(seed: int) -> np.ndarray | None:
    return table_cache.load(_key(seed), (N_EPISODES, len(ALL_POLICIES)), len(ROUTES))


@cache
def table_keys() -> dict[str, int]:
    """behaviour_key(spec) -> column, for every built-in policy (what `PredictionTable.keys` holds)."""
    return {behaviour_key(p): j for j, p in enumerate(ALL_POLICIES)}


@lru_cache(maxsize=8)
def _built_table(seed: int) -> PredictionTable:
    routes = _ROUTES.pop(seed, None)
    if routes is None:
        routes = _cached_routes(seed)
    if routes is None:
        routes = indexed_predictions(int(seed), ALL_POLICIES, N_EPISODES)
        if routes is None:  # a built-in policy of a shape indexed.py does not know
            routes = compute_predictions(int(seed))
        table_cache.store(_key(seed), routes)
    gold = np.array([ROUTES.index(t["gold_route"]) for t in tickets(seed)], dtype=np.int8)
    correct = routes == gold[:, None]
    for arr in (routes, gold, correct):
        arr.setflags(write=False)
    return PredictionTable(
        seed=int(seed), columns=tuple(p.name for p in ALL_POLICIES),
        keys=table_keys(),
        routes=routes, gold=gold, correct=correct,
    )


prediction_table.cache_clear = _built_table.cache_clear  # type: ignore[attr-defined]  # tests start afresh
