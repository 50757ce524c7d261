"""The prediction table from indices, every episode at once: what each built-in policy
retrieves at episode t is a set of earlier ticket episodes (memory holds exactly
tickets 0..t-1, in order), so it is found with array operations over the stream's
similarity matrix instead of a `MemoryStore` filled and searched 7,200 times, and
the router's vote runs on all 1,200 episodes as whole columns.
`table.compute_predictions` (the real retrieval path) stays the reference: a test
checks both agree on every episode and policy.

Why the shortcuts are exact:
- the router votes with the 5 nearest of the support set by (similarity desc,
  episode desc), and episodes are unique, so one integer per (t, j) orders
  candidates: the similarity's bit pattern (a non-negative double's bits order
  as its value) with its low bits dropped, then the episode. Dropping the bits
  keeps the order: distinct Jaccard values p/q, p'/q' differ by at least 1/(q·q'),
  far more than the 2^-40 relative step dropped; equal values are equal doubles
  (division is correctly rounded), so they tie and the episode decides;
- a similarity policy's top k (k ≥ 5) contains the 5 nearest of all earlier tickets;
- the per-route top 3, cut to its 5 nearest, is the 5 best of the union of each
  route's 3 best;
- the vote adds the voters' similarities slot by slot in rank order, as the
  router's loop does, so weights and totals are the same floats.
"""

from __future__ import annotations

import math

import numpy as np

from engine.policies import PolicySpec

from .bank import ENDPOINTS, ROUTES
from .predictor import DEFAULT_INDEX, EPS, K_NEIGHBOURS
from .stream import tickets
from .text import stream_similarity

NO = -1  # an empty candidate slot (keys of real candidates are >= 0)


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


class _Stream:
    """One seed's first n tickets as arrays: similarity, gold route, endpoint, and the
    ranking key of every earlier ticket j for every episode t (NO where j >= t)."""

    def __init__(self, seed: int, n: int):
        stream = tickets(seed)[:n]
        self.n = n
        self.sim = stream_similarity(seed)[:n, :n]
        self.gold = np.array([ROUTES.index(t["gold_route"]) for t in stream], dtype=np.int64)
        self.endpoint = np.array([ENDPOINTS.index(t["endpoint"]) for t in stream], dtype=np.int64)
        self.bits = max(1, (n - 1).bit_length())  # room for an episode in the key's low bits
        # a double in [0, 1] has bits < 2^62: drop (bits - 1) low ones so the key fits 63 bits
        key = (np.ascontiguousarray(self.sim).view(np.int64) >> (self.bits - 1)) << self.bits
        key |= np.arange(n, dtype=np.int64)[None, :]
        key[np.arange(n)[None, :] >= np.arange(n)[:, None]] = NO  # only earlier tickets
        self.key = key
        self.rows = np.arange(n)

    def episodes(self, keys: np.ndarray) -> np.ndarray:
        return keys & ((1 << self.bits) - 1)

    def windowed(self, start: np.ndarray, width: int) -> np.ndarray:
        """Keys of episodes start[t] .. start[t]+width-1 for each t (NO outside 0..t-1)."""
        cols = start[:, None] + np.arange(width)[None, :]
        inside = (cols >= 0) & (cols < self.rows[:, None])
        return np.where(inside, self.key[self.rows[:, None], np.clip(cols, 0, self.n - 1)], NO)


def _best(keys: np.ndarray, m: int) -> np.ndarray:
    """The m largest keys of each row, largest first (NO-padded when a row has fewer)."""
    n, width = keys.shape
    if width <= 8 * m:
        if width > m:
            keys = np.take_along_axis(keys, np.argpartition(keys, -m, axis=1)[:, -m:], axis=1)
        return -np.sort(-keys, axis=1)
    # A partition of every row costs ~50 µs a row at 1,200 columns. Instead, as
    # `ranking.shortlist` does: cut each row into about √width blocks; the m-th
    # largest block maximum is at most the m-th largest key (those m maxima are m
    # keys at least that large), so only keys at or above it can be among the m.
    size = math.isqrt(width)
    blocks = width // size
    maxima = keys[:, : blocks * size].reshape(n, blocks, size).max(axis=2)
    floor = np.maximum(np.partition(maxima, blocks - m, axis=1)[:, blocks - m], 0) if blocks >= m else np.zeros(n)
    row, col = np.nonzero(keys >= floor[:, None].astype(np.int64))
    found = keys[row, col]
    order = np.lexsort((-found, row))  # by row, largest key first
    row, found = row[order], found[order]
    rank = np.arange(len(row)) - np.searchsorted(row, np.arange(n))[row]
    out = np.full((n, m), NO, dtype=np.int64)
    out[row[rank < m], rank[rank < m]] = found[rank < m]
    return out


def _candidates(s: _Stream, spec: PolicySpec, kind: str) -> np.ndarray:
    """Each episode's support set as keys, best first (NO-padded), at least the voters."""
    if kind == "none":
        return np.full((s.n, 1), NO, dtype=np.int64)
    if kind == "recent":  # the last k tickets, then the router's nearest of them
        return _best(s.windowed(s.rows - spec.k, spec.k), K_NEIGHBOURS)
    if kind == "nearest":
        return _best(s.key, K_NEIGHBOURS)
    if kind == "per_route":  # each route's k nearest, then the router's nearest of their union
        per_route = [_best(s.key[:, s.gold == r], spec.k) for r in range(len(ROUTES)) if (s.gold == r).any()]
        return _best(np.concatenate(per_route, axis=1), K_NEIGHBOURS)
    # endpoint_window: the last `window` earlier tickets on the query's endpoint, if near enough
    keys = np.full((s.n, spec.window), NO, dtype=np.int64)
    for e in range(len(ENDPOINTS)):
        same = np.flatnonzero(s.endpoint == e)
        if len(same) == 0:
            continue
        before = np.searchsorted(same, same)  # how many same-endpoint tickets precede each
        cols = before[:, None] - spec.window + np.arange(spec.window)[None, :]
        eps = same[np.clip(cols, 0, None)]
        near = (cols >= 0) & (s.sim[same[:, None], eps] >= spec.min_score)
        keys[same] = np.where(near, s.key[same[:, None], eps], NO)
    return _best(keys, spec.window)


def _vote(s: _Stream, keys: np.ndarray, vote_share: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """`predictor.vote` on every episode at once: (route index, confident) per episode."""
    keys = keys[:, :k]
    valid = keys != NO
    eps = s.episodes(np.where(valid, keys, 0))
    sims = np.where(valid, s.sim[s.rows[:, None], eps], 0.0)
    routes = np.where(valid, s.gold[eps], 0)
    weight = np.zeros((s.n, len(ROUTES)))
    total = np.zeros(s.n)
    for i in range(keys.shape[1]):  # slot by slot, in rank order: the router's sums, float for float
        weight[s.rows[valid[:, i]], routes[valid[:, i], i]] += sims[valid[:, i], i]
        total += sims[:, i]
    best = weight.max(axis=1)
    wins = valid & (weight[s.rows[:, None], routes] >= (best - EPS)[:, None])
    winner = routes[s.rows, np.argmax(wins, axis=1)]  # the highest-ranked voter of a best route
    confident = valid[:, 0] & (sims[:, 0] > 0.0) & ~(best < vote_share * total - EPS)
    return np.where(confident, winner, DEFAULT_INDEX), confident


def indexed_predictions(seed: int, specs: tuple[PolicySpec, ...], n: int, start: int = 0, *,
                        confident: np.ndarray | None = None) -> np.ndarray | None:
    """Route indices (n - start, len(specs)) of episodes start..n-1 as `compute_predictions`
    gives them (a row needs only the earlier tickets, so the first step of a session can
    ask for its own row before the table is built), or None if a policy (or its
    fallback) has a shape this module does not index. `confident`, an (n - start,
    len(specs)) bool array if given, receives whether each answer was a confident vote
    (EvoTool's ordered policies pass a ticket on when a member is not)."""
    by_name = {s.name: s for s in specs}
    kinds = [_kind(s) for s in specs]
    if None in kinds or any(s.fallback is not None and (s.fallback not in by_name or by_name[s.fallback].fallback)
                            for s in specs):
        return None
    s = _Stream(int(seed), n)
    votes = {spec.name: _vote(s, _candidates(s, spec, kind), spec.vote_share,
                              spec.vote_k if spec.vote_k is not None else K_NEIGHBOURS)
             for spec, kind in zip(specs, kinds)}
    out = np.zeros((n - start, len(specs)), dtype=np.int8)
    for j, spec in enumerate(specs):
        route, sure = votes[spec.name]
        if spec.fallback is not None:  # as route_live falls back when the vote is not confident
            route = np.where(sure, route, votes[spec.fallback][0])
            sure = np.where(sure, sure, votes[spec.fallback][1])
        out[:, j] = route[start:]
        if confident is not None:
            confident[:, j] = sure[start:]
    return out
