"""A pure-Python relevance scorer in the style of the paper's reference store
(one Python loop over entries, a dict lookup per feature), kept only so the
benchmark can show what the vectorised store saves. Not used by the product."""

from __future__ import annotations

import math


def score_all(entries: list[dict], query: dict, bonuses: dict[str, float], episode: int) -> list[float]:
    boost = {"episodic": 1.0, "semantic": 1.2, "procedural": 1.5}
    scores = []
    for e in entries:
        match = 0.0
        for key, bonus in bonuses.items():
            if key in query and e["metadata"].get(key) == query[key]:
                match += bonus
        delta = episode - e["episode"]
        scores.append(match * (0.5 + 0.5 * e["quality"]) * (0.3 + 0.7 * math.exp(-0.01 * delta)) * boost[e["tier"]])
    return scores


def top_k(entries, query, bonuses, episode, k=5):
    scores = score_all(entries, query, bonuses, episode)
    ranked = sorted((s, i) for i, s in enumerate(scores) if s > 0)[::-1]
    return [entries[i] for _, i in ranked[:k]]
