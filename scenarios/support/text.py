"""Tokens and Jaccard similarity of ticket texts (spec §5).

Tokens are `re.findall("[a-z0-9_]+", text.lower())` minus the Appendix A stop
words and minus `sess_*` session ids (random per ticket, so they would only add
noise). Similarity is the Jaccard index of two token *sets*; two empty sets
have similarity 0 (there is no evidence in an empty text).

The whole stream's similarity matrix is computed once per seed with numpy
from a binary token-incidence matrix A (tickets × vocabulary):
inter = A·Aᵀ, union = |a| + |b| − inter. It is cached per seed so every
session on that seed shares one 1200×1200 matrix (about 11 MB).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

import numpy as np

from .bank import STOP_WORDS
from .stream import tickets

_TOKEN = re.compile(r"[a-z0-9_]+")


@lru_cache(maxsize=16384)  # distillation re-reads the same few thousand texts every window
def tokens(text: str) -> frozenset[str]:
    """The token set of a ticket text."""
    return frozenset(
        tok for tok in _TOKEN.findall(text.lower())
        if tok not in STOP_WORDS and not tok.startswith("sess_")
    )


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|, and 0 when both are empty."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def incidence(texts: Iterable[str]) -> tuple[np.ndarray, list[str]]:
    """The binary token-incidence matrix A (texts × vocabulary) and the vocabulary
    (sorted: column j is token vocabulary[j]). float32: products and sums of A are
    token counts, exact in float32 (below 2^24), and float32 products are 3-4×
    faster than float64 ones."""
    sets = [tokens(t) for t in texts]
    vocabulary = sorted(set().union(*sets))
    column = {tok: j for j, tok in enumerate(vocabulary)}
    a = np.zeros((len(sets), max(len(column), 1)), dtype=np.float32)
    for i, s in enumerate(sets):
        a[i, [column[tok] for tok in s]] = 1.0
    return a, vocabulary


def _jaccard_rows(a: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Jaccard similarities (float64) of texts lo..hi-1 of A to every text: exact
    integer counts and one float64 division each, so a row computed alone is the
    same floats as that row of the whole matrix, and as Python's len(a & b) / len(a | b)."""
    inter = a[lo:hi] @ a.T
    size = a.sum(axis=1)
    union = size[lo:hi, None] + size[None, :]
    union -= inter
    np.maximum(union, 1, out=union)  # 0 only for two empty texts, whose intersection is 0 too: 0/1 = 0
    return np.divide(inter, union, dtype=np.float64)


def similarity_matrix(texts: Iterable[str]) -> np.ndarray:
    """Pairwise Jaccard similarities of `texts`, as a dense float64 matrix."""
    a, _ = incidence(texts)
    return _jaccard_rows(a, 0, len(a))


@lru_cache(maxsize=8)
def stream_incidence(seed: int) -> tuple[np.ndarray, list[str]]:
    """`incidence` of the stream of `seed`'s texts (cached, read-only): the
    similarities and the distillation's token counts both read it."""
    a, vocabulary = incidence(t["text"] for t in tickets(seed))
    a.setflags(write=False)
    return a, vocabulary


_MATRICES: dict[int, np.ndarray] = {}  # seed -> S, the last few (about 11 MB each)
_KEEP = 8


def stream_similarity(seed: int) -> np.ndarray:
    """S[i, j] = Jaccard(ticket i, ticket j) for the stream of `seed` (cached, read-only)."""
    seed = int(seed)
    s = _MATRICES.get(seed)
    if s is None:
        a, _ = stream_incidence(seed)
        s = _jaccard_rows(a, 0, len(a))
        s.setflags(write=False)  # shared between sessions: nobody may change it
        if len(_MATRICES) >= _KEEP:
            _MATRICES.pop(next(iter(_MATRICES)))
        _MATRICES[seed] = s
    return s


class SimilarityRows:
    """Rows of a seed's S, for code that may read only a few: a resumed session's
    next episode needs a row or two, and the whole matrix was most of a resume's
    start-up. Rows are computed one at a time (the same floats as the matrix's)
    until `WHOLE_AFTER` were asked for; from then on, or when this process has the
    matrix already (a table was computed), rows are read from the shared matrix."""

    WHOLE_AFTER = 32

    def __init__(self, seed: int):
        self.seed = int(seed)
        self._rows: dict[int, np.ndarray] = {}

    def __getitem__(self, t: int) -> np.ndarray:
        t = int(t)
        if self.seed in _MATRICES or len(self._rows) >= self.WHOLE_AFTER:
            self._rows.clear()  # the matrix holds them now
            return stream_similarity(self.seed)[t]
        row = self._rows.get(t)
        if row is None:
            a, _ = stream_incidence(self.seed)
            row = self._rows[t] = _jaccard_rows(a, t, t + 1)[0]
            row.setflags(write=False)
        return row
