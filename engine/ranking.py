"""Ranking retrieval candidates: best score first, then the newest episode, then the
latest write (row), then the tier's position in the policy; the k best or the k
best of each group.

Only the k best are wanted, so `top_k` finds the k-th best score with a
partition (linear) and sorts just the candidates at or above it; everything
tied with the k-th best is kept for that sort, so the result is exactly the
first k of the full ordering, ties included, at any store size.
"""

from __future__ import annotations

import math

import numpy as np


def full_order(score: np.ndarray, episode: np.ndarray, row: np.ndarray, tier_pos: np.ndarray) -> np.ndarray:
    """Positions of every candidate in ranked order (lexsort: the last key is primary)."""
    return np.lexsort((tier_pos, -row, -episode, -score))


def shortlist(score: np.ndarray, k: int) -> np.ndarray:
    """Positions (ascending) of every entry scoring at least the k-th best score:
    the k best are among them whatever the tie-breaks.

    A partition of the whole array costs as much as the scoring itself, so the
    array is first cut into about √n blocks: the k-th best of the blocks'
    maxima is at most the k-th best score (those k maxima are k entries at
    least that good), so only entries at or above it can qualify, and the
    exact partition runs on those few."""
    n = len(score)
    if n <= k:
        return np.arange(n)
    near = None
    width = math.isqrt(n)
    blocks = n // width
    if blocks >= k:
        maxima = score[: blocks * width].reshape(blocks, width).max(axis=1)
        near = np.flatnonzero(score >= np.partition(maxima, blocks - k)[blocks - k])
        score = score[near]
        if len(score) <= k:
            return near
    kth = np.partition(score, len(score) - k)[len(score) - k]
    keep = np.flatnonzero(score >= kth)
    return keep if near is None else near[keep]


def top_k(score: np.ndarray, episode: np.ndarray, row: np.ndarray, tier_pos: np.ndarray,
          k: int) -> np.ndarray:
    """Positions of the k best candidates, ranked (the first k of `full_order`)."""
    if len(score) > k > 0:
        near = shortlist(score, k)
        order = near[full_order(score[near], episode[near], row[near], tier_pos[near])]
        return order[:k]
    return full_order(score, episode, row, tier_pos)[:k]


def top_k_per_group(score: np.ndarray, episode: np.ndarray, row: np.ndarray, tier_pos: np.ndarray,
                    group: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best candidates of each group, in overall ranked order."""
    order = full_order(score, episode, row, tier_pos)
    # rank within each group without a Python loop: group codes in ranked order,
    # a stable sort by group, then each entry's position inside its group
    ranked_groups = group[order]
    by_group = np.argsort(ranked_groups, kind="stable")
    sorted_groups = ranked_groups[by_group]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    rank = np.empty(len(order), dtype=np.int64)
    rank[by_group] = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    return order[rank < k]
