"""The paper's original memory store, re-implemented from its documented behaviour
(`../shared/reference/original-implementation-facts.md` §1) so `make bench` can
measure our retrieval against it in the same process. Not used by the product.

What it keeps of the original, because that is what its cost is made of: one
`MemoryEntry` object per entry (uuid id, ISO timestamp, metadata dict, an
`avg_usefulness` property), a Python-level `_relevance_score` per candidate with
the original's five factors (match bonuses summed, quality, usefulness once
retrieved, recency from `metadata["episode_num"]` or the whole counter, tier
boost, and the regime factor), one `MemoryHit` per scored candidate, a full sort,
then top-k, and the retrieval counts of the returned entries raised.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

TIER_BOOST = {"episodic": 1.0, "semantic": 1.2, "procedural": 1.5}
# the original's hard-coded match bonuses; tool_name is a membership test on the entry's list
BONUSES = {"ticker": 2.0, "sector": 0.8, "task_type": 0.5, "planner": 0.5}
TOOL_BONUS = 1.0


@dataclass
class MemoryEntry:
    entry_id: str
    tier: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    quality_score: float = 0.5
    retrieval_count: int = 0
    usefulness_sum: float = 0.0

    @property
    def avg_usefulness(self) -> float:
        return self.usefulness_sum / self.retrieval_count if self.retrieval_count > 0 else 0.5


@dataclass
class MemoryHit:
    entry: MemoryEntry
    relevance_score: float


class OriginalStore:
    def __init__(self, retrieval_top_k: int = 5, write_quality_threshold: float = 0.3,
                 max_entries_per_tier: int = 500):
        self.retrieval_top_k = retrieval_top_k
        self.write_quality_threshold = write_quality_threshold
        self.max_entries_per_tier = max_entries_per_tier
        self.tiers: dict[str, list[MemoryEntry]] = {t: [] for t in TIER_BOOST}
        self.episode_counter = 0
        self.read_only = False

    def add(self, tier: str, content: str, metadata: dict[str, Any], quality: float) -> MemoryEntry | None:
        if self.read_only or quality < self.write_quality_threshold:
            return None
        entry = MemoryEntry(str(uuid.uuid4())[:8], tier, content, dict(metadata),
                            datetime.now().isoformat(), quality)
        entries = self.tiers[tier]
        entries.append(entry)
        if len(entries) > self.max_entries_per_tier:
            self._evict(tier)
        return entry

    def _evict(self, tier: str) -> None:
        entries = self.tiers[tier]
        excess = len(entries) - self.max_entries_per_tier
        entries.sort(key=lambda e: e.quality_score * (0.5 + 0.5 * e.avg_usefulness))
        del entries[:excess]

    def _relevance_score(self, entry: MemoryEntry, query: dict[str, Any]) -> float:
        md = entry.metadata
        score = 0.0
        for key, bonus in BONUSES.items():
            wanted = query.get(key)
            if wanted is not None and md.get(key) == wanted:
                score += bonus
        tool = query.get("tool_name")
        if tool is not None and tool in md.get("tool_names", []):
            score += TOOL_BONUS
        score *= 0.5 + 0.5 * entry.quality_score
        if entry.retrieval_count > 0:
            score *= 0.5 + 0.5 * entry.avg_usefulness
        episode = md.get("episode_num")
        delta = self.episode_counter - episode if episode is not None else self.episode_counter
        score *= 0.3 + 0.7 * math.exp(-0.01 * delta)
        score *= TIER_BOOST.get(entry.tier, 1.0)
        if "market_regime" in query and "market_regime" in md:
            score *= 1.3 if md["market_regime"] == query["market_regime"] else 0.7
        return score

    def retrieve(self, query: dict[str, Any], tiers: list[str] | None = None,
                 top_k: int | None = None) -> list[MemoryHit]:
        top_k = self.retrieval_top_k if top_k is None else top_k
        candidates: list[MemoryEntry] = []
        for tier in tiers or list(self.tiers):
            candidates.extend(self.tiers[tier])
        if len(self.tiers["episodic"]) < 100:  # young store: drop weak episodic entries
            candidates = [e for e in candidates if e.tier != "episodic" or e.quality_score >= 0.4]
        hits = []
        for entry in candidates:
            score = self._relevance_score(entry, query)
            if score > 0:
                hits.append(MemoryHit(entry, score))
        hits.sort(key=lambda h: h.relevance_score, reverse=True)
        hits = hits[:top_k]
        for h in hits:
            h.entry.retrieval_count += 1
        return hits
