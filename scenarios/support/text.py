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


def similarity_matrix(texts: Iterable[str]) -> np.ndarray:
    """Pairwise Jaccard similarities of `texts`, as a dense float64 matrix."""
    sets = [tokens(t) for t in texts]
    vocab = {tok: j for j, tok in enumerate(sorted(set().union(*sets)))}
    a = np.zeros((len(sets), max(len(vocab), 1)), dtype=np.float64)
    for i, s in enumerate(sets):
        a[i, [vocab[tok] for tok in s]] = 1.0
    inter = a @ a.T  # exact: small integer counts in float64
    size = a.sum(axis=1)
    union = size[:, None] + size[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
    return s


@lru_cache(maxsize=8)
def stream_similarity(seed: int) -> np.ndarray:
    """S[i, j] = Jaccard(ticket i, ticket j) for the stream of `seed` (cached, read-only)."""
    s = similarity_matrix(t["text"] for t in tickets(seed))
    s.setflags(write=False)  # shared between sessions: nobody may change it
    return s
