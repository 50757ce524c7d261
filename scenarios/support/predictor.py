"""The LLM-free router of spec §5: a similarity-weighted 5-NN vote.

Conventions:
- The support set is given as ticket episodes; similarities are looked up in
  the stream's similarity row of the query, never taken from retrieval scores
  (a recency-ordered policy scores by episode, not similarity).
- Neighbours are ranked by similarity, descending; ties go to the more recent
  ticket (the higher episode).
- Each of the k nearest votes for its gold route with weight = its similarity.
- The answer is the default route when there is no usable evidence: an empty
  support set, a best similarity of 0, or a winning share below `vote_share`.
- Among routes tied on weight, the one of the highest-ranked neighbour wins.
- Weights are compared with a tolerance of 1e-9: sums of Jaccard values that
  are equal as numbers (0.5 + 0.1 vs 0.6) can differ in the last float bit,
  while distinct Jaccard sums differ by far more (their denominators are small).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bank import DEFAULT_ROUTE, ROUTES

K_NEIGHBOURS = 5
DEFAULT_INDEX = ROUTES.index(DEFAULT_ROUTE)
EPS = 1e-9


@dataclass(frozen=True)
class Vote:
    """A prediction and why: `route` is a route index; `confident` is False
    when the answer is the default for lack of evidence."""

    route: int
    confident: bool
    share: float
    neighbours: tuple[int, ...]  # episodes of the voters, best first


def rank(episodes: np.ndarray, sims: np.ndarray, k: int = K_NEIGHBOURS) -> np.ndarray:
    """Positions of the k nearest: similarity descending, then newest first."""
    order = np.lexsort((-episodes, -sims))  # last key is primary
    return order[:k]


def vote(episodes: np.ndarray, sims: np.ndarray, routes: np.ndarray, vote_share: float = 0.5,
         k: int = K_NEIGHBOURS) -> Vote:
    """Vote over a support set given as parallel arrays (episode, similarity, route index)."""
    if len(episodes) == 0:
        return Vote(DEFAULT_INDEX, False, 0.0, ())
    top = rank(np.asarray(episodes), np.asarray(sims, dtype=float), k)
    top_sims = [float(sims[i]) for i in top]
    if top_sims[0] <= 0.0:
        return Vote(DEFAULT_INDEX, False, 0.0, ())
    weight: dict[int, float] = {}
    for i, s in zip(top, top_sims):
        r = int(routes[i])
        weight[r] = weight.get(r, 0.0) + s
    best = max(weight.values())
    winner = next(int(routes[i]) for i in top if weight[int(routes[i])] >= best - EPS)  # highest-ranked tied
    total = sum(top_sims)
    share = best / total
    neighbours = tuple(int(episodes[i]) for i in top)
    if best < vote_share * total - EPS:
        return Vote(DEFAULT_INDEX, False, share, neighbours)
    return Vote(winner, True, share, neighbours)
