"""The retrieval policies of the paper's 20NG section, the reflector's regime
label, and the k-NN predictor that turns retrieved articles into a class.

| policy | what the predictor sees |
|---|---|
| none | no article |
| recent_window | the last 20 articles |
| compressed | the 10 articles most similar to the query |
| full_detailed | the last 200 articles |
| class_balanced | the 3 most similar articles of each class seen so far |
| regime_filtered | the 10 most similar among articles seen under the current regime label |

Every article is stored in episodic memory with its true class once the episode
is over, so what a policy retrieves at t depends only on earlier articles.
The predictor: the k = 5 retrieved articles nearest to the query (cosine,
ties to the newer) each vote for their class with their cosine; ties go to
the class of the nearest voter. Without evidence (nothing retrieved, or every
cosine 0) it answers the prior: the class seen most often so far (ties to the
name first in order), which is also all that `none` ever answers.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from engine.decision import plurality
from engine.memory import Hit
from engine.policies import Filter, PolicySpec, voting_pool

from .corpus import cluster_of

K_NEIGHBOURS = 5
LABEL_WINDOW = 20  # how many of the latest revealed classes the regime label reads
UNKNOWN = "unknown"
EPISODIC = ("episodic",)

INITIAL_POOL: tuple[PolicySpec, ...] = voting_pool(
    items="articles", nothing="No article: the prior class.", group="label", group_noun="class")
NONE, RECENT_WINDOW, COMPRESSED, FULL_DETAILED, CLASS_BALANCED = INITIAL_POOL
REGIME_FILTERED = PolicySpec(
    "regime_filtered", EPISODIC, 10, order="similarity", filters=(Filter("regime_label"),),
    description="The 10 most similar articles seen under the same regime label as the query "
                "(the reflector's label: the commonest topic cluster of the last 20 revealed classes).")

# P0..P5 of the paper's oracle row, in order
ALL_POLICIES: tuple[PolicySpec, ...] = (*INITIAL_POOL, REGIME_FILTERED)


def regime_label(labels: Sequence[str], t: int) -> str:
    """The regime as the reflector labels it before episode t: the commonest topic
    cluster among the classes of the last 20 articles (revealed by then), ties to
    the cluster seen most recently. Never the true regime."""
    recent = [cluster_of(g) or "misc" for g in labels[max(0, t - LABEL_WINDOW):t]]
    if not recent:
        return UNKNOWN
    counts = Counter(recent)
    best = max(counts.values())
    return next(c for c in reversed(recent) if counts[c] == best)


def prior(labels: Sequence[str], t: int, default: str) -> str:
    """The class seen most often among the first t articles (ties: the first by name);
    `default` before any."""
    counts = Counter(labels[:t])
    if not counts:
        return default
    best = max(counts.values())
    return min(g for g, n in counts.items() if n == best)


def predict(hits: list[Hit], sim_row: np.ndarray, fallback: str, votes: list | None = None,
            policy: str = "") -> tuple[str, list[int]]:
    """(class, the voters' episodes best first) from the retrieved articles. With `votes`, the
    vote taken is added to it as a person reads it (engine/decision.py), under `policy`."""
    arts = [h.entry for h in hits if h.entry.tier == "episodic" and "label" in h.entry.metadata]
    if not arts:
        if votes is not None:
            votes.append(plurality(policy, [], fallback, fallback, "nothing retrieved to vote"))
        return fallback, []
    episodes = np.array([e.episode for e in arts], dtype=np.int64)
    sims = sim_row[episodes]
    top = np.lexsort((-episodes, -sims))[:K_NEIGHBOURS]  # last key primary: cosine, then newest
    if sims[top[0]] <= 0.0:
        if votes is not None:
            votes.append(plurality(policy, [], fallback, fallback, "no retrieved item is similar at all"))
        return fallback, []
    weight: dict[str, float] = {}
    for i in top:
        weight[arts[i].metadata["label"]] = weight.get(arts[i].metadata["label"], 0.0) + float(sims[i])
    best = max(weight.values())
    winner = next(arts[i].metadata["label"] for i in top if weight[arts[i].metadata["label"]] >= best - 1e-12)
    if votes is not None:
        votes.append(plurality(policy, [(arts[i], float(sims[i])) for i in top], winner, fallback))
    return winner, [int(episodes[i]) for i in top]
