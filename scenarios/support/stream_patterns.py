"""Distillation of an unbroken run of a seed's tickets, from the stream's arrays.

When the episodic tier holds exactly tickets first..last of the stream (the usual
case: one ticket written per episode, none evicted), what `patterns.distill`
finds is a function of (seed, first, last): the entries' endpoints and routes are
the tickets' endpoints and gold routes, their texts the tickets' texts. This
computes the same patterns without reading the entries: endpoint patterns from
list slices, token counts as one small matrix product (incidence rows of the last
200 tickets × their routes one-hot: exact integer counts). `patterns.distill`
stays the reference and the path for any other memory; a test checks both agree.
"""

from __future__ import annotations

import numpy as np

from engine.memory import Pattern

from .bank import ROUTES
from .patterns import TOKEN_RECENT, endpoint_patterns_of, token_patterns_of
from .stream import tickets
from .text import stream_incidence


class StreamPatterns:
    def __init__(self, seed: int):
        stream = tickets(seed)
        self.endpoints = [t["endpoint"] for t in stream]
        self.routes = [t["gold_route"] for t in stream]
        self.tokens, self.vocabulary = stream_incidence(seed)
        gold = np.array([ROUTES.index(r) for r in self.routes])
        self.route_columns = (gold[:, None] == np.arange(len(ROUTES))[None, :]).astype(np.float64)

    def distill(self, first: int, last: int) -> list[Pattern]:
        """`patterns.distill` of a tier holding exactly tickets first..last."""
        found = endpoint_patterns_of(self.endpoints[first:last + 1], self.routes[first:last + 1])
        lo = max(first, last + 1 - TOKEN_RECENT)
        counts = self.tokens[lo:last + 1].T @ self.route_columns[lo:last + 1]  # token × route
        seen = np.flatnonzero(counts.sum(axis=1))
        totals = counts[seen].sum(axis=1).astype(np.int64).tolist()
        best = counts[seen].argmax(axis=1).tolist()
        tops = counts[seen].max(axis=1).astype(np.int64).tolist()
        # the best route of each token is the only one that can pass the 0.9 precision
        return found + token_patterns_of(
            (self.vocabulary[v], ROUTES[r], top, n) for v, r, top, n in zip(seen.tolist(), best, tops, totals))
