"""The prediction table from indices: what each built-in policy retrieves at episode t
is a set of earlier ticket episodes (memory holds exactly tickets 0..t-1, in
order), so it is found with array slices of the stream's similarity row instead
of a `MemoryStore` filled and searched 7,200 times. `table.compute_predictions`
(the real retrieval path) stays the reference: a test checks both agree on every
episode and policy.

Why the shortcuts are exact:
- the router votes with the 5 nearest of the support set by (similarity desc,
  episode desc), and episodes are unique, so only the support set matters, not
  its order; any superset of the 5 nearest that lies inside the support set
  gives the same vote (`ranking.shortlist` keeps everything tied with the 5th);
- a similarity policy's top k (k ≥ 5) contains the 5 nearest of all earlier tickets;
- the per-route top 3, cut to its 5 nearest, is the first 5 of the global
  ranking that are among the first 3 of their route.
"""

from __future__ import annotations

import numpy as np

from engine.policies import PolicySpec
from engine.ranking import shortlist

from .bank import ENDPOINTS, ROUTES
from .predictor import K_NEIGHBOURS, vote
from .stream import tickets
from .text import stream_similarity


def _kind(spec: PolicySpec) -> str | None:
    """Which indexed shape `spec` has, or None when only the real path can answer it."""
    if spec.code or spec.tiers != ("episodic",) and not spec.retrieves_nothing:
        return None
    if spec.retrieves_nothing:
        return "none"
    plain = spec.format == "full" and spec.min_score == 0 and spec.vote_k is None
    if plain and not spec.filters and spec.window is None:
        if spec.order == "recency" and not spec.per_group:
            return "recent"
        if spec.order == "similarity" and spec.per_group is None and spec.k >= K_NEIGHBOURS:
            return "nearest"
        if spec.order == "similarity" and spec.per_group == "route":
            return "per_route"
    if (spec.order == "similarity" and spec.format == "full" and spec.per_group is None
            and tuple(f.key for f in spec.filters) == ("endpoint",) and spec.filters[0].equals == "query"
            and spec.window is not None and spec.vote_k is not None and spec.vote_k >= spec.k
            and spec.k >= spec.window):
        return "endpoint_window"
    return None


def indexed_predictions(seed: int, specs: tuple[PolicySpec, ...], n: int, start: int = 0) -> np.ndarray | None:
    """Route indices (n - start, len(specs)) of episodes start..n-1 as `compute_predictions`
    gives them (a row needs only the earlier tickets, so any range can be computed alone),
    or None if a policy (or its fallback) has a shape this module does not index."""
    by_name = {s.name: s for s in specs}
    kinds = [_kind(s) for s in specs]
    if None in kinds or any(s.fallback is not None and (s.fallback not in by_name or by_name[s.fallback].fallback)
                            for s in specs):
        return None
    stream = tickets(seed)
    sim = stream_similarity(seed)
    gold = np.array([ROUTES.index(t["gold_route"]) for t in stream], dtype=np.int64)
    endpoint = np.array([ENDPOINTS.index(t["endpoint"]) for t in stream], dtype=np.int64)
    by_endpoint = [np.flatnonzero(endpoint == e) for e in range(len(ENDPOINTS))]
    out = np.zeros((n - start, len(specs)), dtype=np.int8)
    for t in range(start, n):
        row = sim[t]
        votes = {}
        for spec, kind in zip(specs, kinds):
            if kind == "none":
                support = np.zeros(0, dtype=np.int64)
            elif kind == "recent":
                lo = max(0, t - spec.k)
                support = lo + shortlist(row[lo:t], K_NEIGHBOURS)
            elif kind == "nearest":
                support = shortlist(row[:t], K_NEIGHBOURS)
            elif kind == "per_route":
                support = _per_route(row, t, gold, spec.k)
            else:
                same = by_endpoint[endpoint[t]]
                same = same[: np.searchsorted(same, t)][-spec.window:]
                support = same[row[same] >= spec.min_score]
            k = spec.vote_k if spec.vote_k is not None else K_NEIGHBOURS
            votes[spec.name] = vote(support, row[support], gold[support], spec.vote_share, k)
        for j, spec in enumerate(specs):
            v = votes[spec.name]
            if not v.confident and spec.fallback is not None:  # as route_live falls back
                v = votes[spec.fallback]
            out[t - start, j] = v.route
    return out


def _per_route(row: np.ndarray, t: int, gold: np.ndarray, k: int) -> np.ndarray:
    """The 5 nearest earlier tickets among the k nearest of each route: walk a prefix
    of the global ranking, skipping tickets whose route already has k before them,
    and lengthen the prefix until 5 are found or every earlier ticket was seen."""
    m = 4 * K_NEIGHBOURS
    while True:
        near = shortlist(row[:t], m)  # every ticket at least as near as the m-th: a prefix of the ranking
        ranked = near[np.lexsort((-near, -row[near]))]
        taken: dict[int, int] = {}
        chosen = []
        for e, r in zip(ranked.tolist(), gold[ranked].tolist()):
            if taken.get(r, 0) < k:
                taken[r] = taken.get(r, 0) + 1
                chosen.append(e)
                if len(chosen) == K_NEIGHBOURS:
                    return np.array(chosen, dtype=np.int64)
        if len(near) >= t:
            return np.array(chosen, dtype=np.int64)
        m *= 4
