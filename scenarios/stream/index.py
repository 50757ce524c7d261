"""The row index: every stored row reachable at a cost that does not grow with memory.

An inverted index over the TF-IDF terms whose posting lists are capped by impact: each
term keeps the `POSTINGS` rows in which it weighs most (ties: the earlier row stays).
A query adds up, for each of its terms, its weight times the kept rows' weights (a
lower bound of each row's cosine: the terms it shares with the query, as far as they
were kept) and returns the `shortlist` rows with the largest sums; the memory then scores
those exactly (`StreamScenario.sims`) and keeps the k best. The work of a query is at
most (its terms) × `POSTINGS`, whatever the number of rows: flat up to 500,000 rows,
where a brute-force cosine over every row (what scikit-learn's `NearestNeighbors` does
on sparse TF-IDF) or an uncapped inverted index grow with memory (`bench/stream_index.py`
measures the three).

What is capped away are the rows in which a term weighs little (long rows, or a word that
every row has): a neighbour is missed only when none of the terms it shares with the query
keeps it. On small data (every posting list under the cap) the shortlist holds every row
sharing a term with the query, so the k best are exactly brute force's (tested).

State: rows are added in order, 0, 1, 2, ..., and nothing else changes the index, so it is
a pure function of how many rows it holds; `sync(n)` adds the missing ones or rebuilds
from row 0 when it holds more (a rewind, a load, a branch): a saved session rebuilds it
exactly and nothing of it is saved.
"""

from __future__ import annotations

import numpy as np

POSTINGS = 32     # rows kept per term: the cap that keeps a query's cost flat
MIN_SHORTLIST = 64  # rows handed to the exact scoring, at least (8 × k when k is larger)


class RowIndex:
    """The capped inverted index over rows 0..n-1 of a CSR matrix of L2-normalised rows."""

    def __init__(self, x, postings: int = POSTINGS):
        self.x = x
        self.cap = int(postings)
        self.n = 0
        n_terms = x.shape[1]
        self._slot = np.full(n_terms, -1, dtype=np.int64)   # term -> its row in the posting arrays
        self._rows = np.full((0, self.cap), -1, dtype=np.int32)
        self._weights = np.zeros((0, self.cap), dtype=np.float32)
        self._used = np.zeros(0, dtype=np.int64)            # how many postings each slot holds
        self._slots = 0

    # ------------------------------------------------------------- building
    def _grow(self, need: int) -> None:
        have = len(self._used)
        if need <= have:
            return
        size = max(need, 2 * have, 1024)
        rows = np.full((size, self.cap), -1, dtype=np.int32)
        rows[:have] = self._rows
        weights = np.zeros((size, self.cap), dtype=np.float32)  # a shortlist's order only: exact scores come after
        weights[:have] = self._weights
        used = np.zeros(size, dtype=np.int64)
        used[:have] = self._used
        self._rows, self._weights, self._used = rows, weights, used

    def _add(self, r: int) -> None:
        x = self.x
        lo, hi = x.indptr[r], x.indptr[r + 1]
        terms, weights = x.indices[lo:hi], x.data[lo:hi]
        if len(terms) == 0:
            return
        slots = self._slot[terms]
        new = slots < 0
        if new.any():
            fresh = np.arange(self._slots, self._slots + int(new.sum()))
            self._grow(self._slots + len(fresh))
            self._slot[terms[new]] = fresh
            slots = slots.copy()
            slots[new] = fresh
            self._slots += len(fresh)
        used = self._used[slots]
        room = used < self.cap
        if room.any():  # append where a list has room
            s, u = slots[room], used[room]
            self._rows[s, u] = r
            self._weights[s, u] = weights[room]
            self._used[s] = u + 1
        full = ~room
        if full.any():  # replace the lightest posting when this row weighs more (the earlier row stays on ties)
            s, w = slots[full], weights[full]
            lightest = np.argmin(self._weights[s], axis=1)  # the first among equals
            better = w > self._weights[s, lightest]
            s, lightest = s[better], lightest[better]
            self._rows[s, lightest] = r
            self._weights[s, lightest] = w[better]

    def sync(self, n: int) -> None:
        """Hold exactly rows 0..n-1 (add the missing ones; rebuild when it holds more)."""
        if n < self.n:
            self.__init__(self.x, self.cap)
        while self.n < n:
            self._add(self.n)
            self.n += 1

    # -------------------------------------------------------------- queries
    def shortlist(self, terms: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray:
        """The rows (ascending) most likely to be the k nearest to the query (`terms`,
        `weights`: its sparse TF-IDF row): the best max(8k, 64) by their partial dot product."""
        slots = self._slot[terms]
        known = slots >= 0
        if not known.any():
            return np.zeros(0, dtype=np.int64)
        slots, q = slots[known], weights[known]
        rows = self._rows[slots]
        partial = self._weights[slots] * q[:, None]
        mask = rows >= 0
        rows, partial = rows[mask], partial[mask]
        found, where = np.unique(rows, return_inverse=True)
        score = np.bincount(where, weights=partial, minlength=len(found))
        want = max(8 * k, MIN_SHORTLIST)
        found = found.astype(np.int64)
        if len(found) <= want:
            return found
        # the `want` best partial sums; ties at the cut all kept, so the result depends on nothing else
        kth = np.partition(score, len(score) - want)[len(score) - want]
        return found[score >= kth]

    def nbytes(self) -> int:
        return self._slot.nbytes + self._rows.nbytes + self._weights.nbytes + self._used.nbytes
