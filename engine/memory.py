"""The three-tier memory: episodic records, semantic patterns, procedural rules.

Each tier keeps its entries in a list plus parallel numpy columns (quality,
episode, retrievals, usefulness, and one interned-code column per metadata key
that something matches or filters on), so the composite relevance score of the
paper is a handful of vector operations over the whole tier rather than a
Python loop. What an entry matches on, and with what bonus, is supplied by
the scenario (`match_bonuses`); the engine hard-codes no domain keys.

Learning in memory is three mechanisms:
- distillation: the scenario turns recent episodic entries into `Pattern`s,
  upserted as semantic entries (one per pattern key);
- promotion: a pattern seen in the same direction in `promote_after` distinct
  slow windows becomes a procedural rule;
- pruning: a rule whose rolling success over its last `prune_window` uses
  falls below `prune_below` is removed.
When frozen (test phase) the store is read-only: writes, retrieval counts and
rule bookkeeping stop, reads go on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from .errors import AELError
from .policies import TIERS, PolicySpec

TIER_BOOST = {"episodic": 1.0, "semantic": 1.2, "procedural": 1.5}
WRITE_THRESHOLD = 0.3
CAP_PER_TIER = 500
_MISSING = -1
_UNSEEN = -2

# similarity(query, tier, episodes) -> scores in [0, 1], one per entry, for the entries of
# `tier` written at `episodes` (scenario-supplied; scenarios identify entries by episode).
Similarity = Callable[[dict[str, Any], str, np.ndarray], np.ndarray]


@dataclass
class MemoryEntry:
    id: str
    tier: str
    content: str
    metadata: dict[str, Any]
    quality: float
    episode: int
    retrieval_count: int = 0
    usefulness: float = 0.0  # sum of usefulness marks; see avg_usefulness

    @property
    def avg_usefulness(self) -> float:
        return self.usefulness / self.retrieval_count if self.retrieval_count else 0.5


@dataclass
class Pattern:
    """What distillation found: one readable regularity with a stable key.

    `direction` is what the pattern says (a route, "reliable"/"unreliable");
    corroboration counts slow windows that saw the same key in the same
    direction. `rule` is the procedural rule's text if it is promoted.
    """

    key: str
    content: str
    direction: str
    support: int
    strength: float
    rule: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    quality: float = 0.7


@dataclass
class Hit:
    entry: MemoryEntry
    score: float


class _Tier:
    """One tier: entries in write order plus numpy columns kept in step."""

    def __init__(self, name: str, intern: dict[str, dict[Any, int]]):
        self.name = name
        self.entries: list[MemoryEntry] = []
        self._intern = intern
        self._n = 0
        self._cap = 64
        self.quality = np.zeros(self._cap)
        self.episode = np.zeros(self._cap, dtype=np.int64)
        self.codes: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return self._n

    def _code(self, key: str, value: Any) -> int:
        if value is None:
            return _MISSING
        table = self._intern.setdefault(key, {})
        value = _hashable(value)
        code = table.get(value)
        if code is None:
            code = table[value] = len(table)
        return code

    def column(self, key: str) -> np.ndarray:
        """The interned codes of metadata[key] for every entry (built once, then kept)."""
        col = self.codes.get(key)
        if col is None:
            col = np.full(self._cap, _MISSING, dtype=np.int64)
            for i, e in enumerate(self.entries):
                col[i] = self._code(key, e.metadata.get(key))
            self.codes[key] = col
        return col[: self._n]

    def append(self, entry: MemoryEntry) -> None:
        if self._n == self._cap:
            self._cap *= 2
            self.quality = np.resize(self.quality, self._cap)
            self.episode = np.resize(self.episode, self._cap)
            self.codes = {k: np.resize(v, self._cap) for k, v in self.codes.items()}
        i = self._n
        self.entries.append(entry)
        self.quality[i] = entry.quality
        self.episode[i] = entry.episode
        for key, col in self.codes.items():
            col[i] = self._code(key, entry.metadata.get(key))
        self._n += 1

    def remove(self, index: int) -> MemoryEntry:
        entry = self.entries.pop(index)
        n = self._n
        for arr in (self.quality, self.episode, *self.codes.values()):
            arr[index : n - 1] = arr[index + 1 : n]
        self._n -= 1
        return entry

    def refresh(self, index: int) -> None:
        """Re-read an entry that was updated in place (a re-distilled pattern)."""
        e = self.entries[index]
        self.quality[index] = e.quality
        self.episode[index] = e.episode
        for key, col in self.codes.items():
            col[index] = self._code(key, e.metadata.get(key))


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


class MemoryStore:
    def __init__(
        self,
        match_bonuses: dict[str, float] | None = None,
        cap_per_tier: int = CAP_PER_TIER,
        write_threshold: float = WRITE_THRESHOLD,
        promote_after: int = 3,
        prune_window: int = 10,
        prune_below: float = 0.4,
    ):
        self.match_bonuses = dict(match_bonuses or {})
        self.cap_per_tier = cap_per_tier
        self.write_threshold = write_threshold
        self.promote_after = promote_after
        self.prune_window = prune_window
        self.prune_below = prune_below
        self.frozen = False
        self.episode = 0  # the store's clock, for recency
        self._intern: dict[str, dict[Any, int]] = {}
        self.tiers = {name: _Tier(name, self._intern) for name in TIERS}
        self._next_id = {name: 0 for name in TIERS}
        # pattern key -> {"direction", "windows": count, "last_window"}
        self.corroboration: dict[str, dict[str, Any]] = {}
        # rule entry id -> outcomes of its last uses (1 held, 0 did not)
        self.rule_uses: dict[str, list[int]] = {}
        self.pruned: list[dict[str, Any]] = []
        # runs a code policy in a sandbox (the session's `CodeArms.run`); code never runs here
        self.code_runner: Callable[[PolicySpec, list[MemoryEntry], dict[str, Any]], list[MemoryEntry]] | None = None

    # ---------------------------------------------------------------- writes
    def write(self, tier: str, content: str, metadata: dict[str, Any], quality: float,
              episode: int | None = None) -> MemoryEntry | None:
        """Add an entry; None if frozen or below the write threshold. Evicts past the cap."""
        if tier not in self.tiers:
            raise AELError(f"unknown memory tier {tier!r}")
        if self.frozen or quality < self.write_threshold:
            return None
        prefix = tier[0]
        entry = MemoryEntry(
            id=f"{prefix}{self._next_id[tier]}", tier=tier, content=content, metadata=dict(metadata),
            quality=float(quality), episode=self.episode if episode is None else int(episode),
        )
        self._next_id[tier] += 1
        t = self.tiers[tier]
        t.append(entry)
        if len(t) > self.cap_per_tier:
            self._evict(t)
        return entry

    def _evict(self, tier: _Tier) -> None:
        """Drop the least valuable entry: lowest quality × (0.5 + 0.5·usefulness), oldest first."""
        # inlined avg_usefulness: this runs on every write to a full tier
        value = [e.quality * (0.75 if not e.retrieval_count else 0.5 + 0.5 * e.usefulness / e.retrieval_count)
                 for e in tier.entries]
        worst = value.index(min(value))  # the first, i.e. the oldest, among equals
        gone = tier.remove(worst)
        self.rule_uses.pop(gone.id, None)

    def mark_used(self, hits: Iterable[Hit], useful: bool) -> None:
        """Usefulness feedback after an episode that retrieved `hits`."""
        if self.frozen:
            return
        for h in hits:
            h.entry.usefulness += 1.0 if useful else 0.0

    # ------------------------------------------------------------- scoring
    def relevance(self, tier_name: str, query: dict[str, Any]) -> np.ndarray:
        """The paper's composite score for every entry of a tier, at once:
        Σ match bonuses × (0.5 + 0.5·quality) × (0.3 + 0.7·e^(−0.01Δ)) × tier boost,
        with Δ = the store's episode − the episode the entry was written."""
        tier = self.tiers[tier_name]
        n = len(tier)
        match = np.zeros(n)
        for key, bonus in self.match_bonuses.items():
            if key not in query:
                continue
            col = tier.column(key)  # interns the tier's values first, so the lookup below can hit
            qcode = self._intern.get(key, {}).get(_hashable(query[key]), _UNSEEN)
            if qcode == _UNSEEN:
                continue
            match += bonus * (col == qcode)
        delta = np.maximum(self.episode - tier.episode[:n], 0)
        return (match * (0.5 + 0.5 * tier.quality[:n]) * (0.3 + 0.7 * np.exp(-0.01 * delta))
                * TIER_BOOST[tier_name])

    # ------------------------------------------------------------ retrieval
    def retrieve(self, spec: PolicySpec, query: dict[str, Any],
                 similarity: Similarity | None = None, count: bool = True) -> list[Hit]:
        """The entries `spec` shows for `query`, best first; among equal scores the
        most recently written first. Vectorised: entries are materialised only
        for the few that are returned. `count=False` reads without raising the
        entries' retrieval counts (a counterfactual read is not a use)."""
        hits = self._retrieve(spec, query, similarity)
        if count and not self.frozen:
            for h in hits:
                h.entry.retrieval_count += 1
        return hits

    def _retrieve(self, spec: PolicySpec, query: dict[str, Any], similarity: Similarity | None) -> list[Hit]:
        if spec.retrieves_nothing:
            return []
        if spec.code:
            return self._retrieve_code(spec, query)
        scores, episodes, tiers, rows, groups = [], [], [], [], []
        for tier_pos, tier_name in enumerate(spec.tiers):
            tier = self.tiers[tier_name]
            n = len(tier)
            if n == 0:
                continue
            keep = np.ones(n, dtype=bool)
            for f in spec.filters:
                value = query.get(f.key) if f.equals == "query" else f.equals
                col = tier.column(f.key)
                code = _UNSEEN if value is None else self._intern.get(f.key, {}).get(_hashable(value), _UNSEEN)
                keep &= col == code
            idx = np.flatnonzero(keep)
            if spec.window is not None and len(idx) > spec.window:
                idx = idx[-spec.window:]  # entries are in write order, so the newest are last
            if len(idx) == 0:
                continue
            if spec.order == "relevance":
                score = self.relevance(tier_name, query)[idx]
                ok = (score > 0) & (score >= spec.min_score)
            elif spec.order == "recency":
                score = tier.episode[idx].astype(float)
                ok = np.ones(len(idx), dtype=bool)
            else:
                if similarity is None:
                    raise AELError(f"policy {spec.name!r} orders by similarity, which this scenario does not define")
                score = np.asarray(similarity(query, tier_name, tier.episode[idx]), dtype=float)
                ok = score >= spec.min_score
            scores.append(score[ok])
            episodes.append(tier.episode[idx[ok]])
            rows.append(idx[ok])
            tiers.append(np.full(int(ok.sum()), tier_pos))
            if spec.per_group:
                groups.append(tier.column(spec.per_group)[idx[ok]])
        if not scores:
            return []
        score = np.concatenate(scores)
        episode = np.concatenate(episodes)
        row = np.concatenate(rows)
        tier_pos = np.concatenate(tiers)
        # lexsort: last key is primary. Best score, then newest episode, then latest write.
        order = np.lexsort((-row, -episode, -score))
        if spec.per_group:
            # rank within each group without a Python loop: group codes in ranked order,
            # a stable sort by group, then each entry's position inside its group
            group = np.concatenate(groups)[order]
            by_group = np.argsort(group, kind="stable")
            sorted_groups = group[by_group]
            starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
            rank = np.empty(len(group), dtype=np.int64)
            rank[by_group] = np.arange(len(group)) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))
            top = order[rank < spec.k]
        else:
            top = order[: spec.k]
        top = np.asarray(top, dtype=np.int64)
        lists = [self.tiers[name].entries for name in spec.tiers]
        # plain Python ints and floats: indexing numpy scalars one by one is the slow part here
        hits = [Hit(lists[p][r], s) for p, r, s in
                zip(tier_pos[top].tolist(), row[top].tolist(), score[top].tolist())]
        if spec.format == "sliding_window" and len(hits) > spec.keep_first + spec.keep_last:
            hits = hits[: spec.keep_first] + (hits[-spec.keep_last:] if spec.keep_last else [])
        elif spec.format == "ranked_truncate":
            kept, used = [], 0
            for h in hits:
                cost = len(h.entry.content) // 4
                if kept and used + cost > (spec.token_budget or 0):
                    break
                kept.append(h)
                used += cost
            hits = kept
        return hits

    def _retrieve_code(self, spec: PolicySpec, query: dict[str, Any]) -> list[Hit]:
        """A code policy picks from the visible tiers' entries, in the sandbox the
        session attached (`code_runner`; none attached: nothing is retrieved); its
        order is the ranking, k (if set) caps it. A policy that fails retrieves
        nothing, so the session's fallback takes over."""
        from .codepolicy import CodePolicyError

        if self.code_runner is None:
            return []
        entries = [e for name in spec.tiers for e in self.tiers[name].entries]
        try:
            chosen = self.code_runner(spec, entries, {k: v for k, v in query.items() if not k.startswith("_")})
        except CodePolicyError:
            return []
        if spec.k:
            chosen = chosen[: spec.k]
        n = len(chosen)
        return [Hit(e, (n - i) / n) for i, e in enumerate(chosen)]

    # ------------------------------------------------ distil, promote, prune
    def upsert_pattern(self, pattern: Pattern) -> tuple[MemoryEntry | None, bool]:
        """Write or refresh the semantic entry for `pattern.key`; (entry, is_new)."""
        if self.frozen:
            return None, False
        tier = self.tiers["semantic"]
        meta = {**pattern.metadata, "pattern_key": pattern.key, "direction": pattern.direction,
                "support": pattern.support, "strength": round(pattern.strength, 4)}
        for i, e in enumerate(tier.entries):
            if e.metadata.get("pattern_key") == pattern.key:
                e.content, e.metadata, e.quality, e.episode = pattern.content, meta, pattern.quality, self.episode
                tier.refresh(i)
                return e, False
        return self.write("semantic", pattern.content, meta, pattern.quality), True

    def corroborate(self, patterns: list[Pattern], window: int) -> list[MemoryEntry]:
        """Count this slow window's evidence for each pattern; promote the ones seen in the
        same direction in `promote_after` windows. Returns the rules promoted now."""
        if self.frozen:
            return []
        promoted = []
        rules = {e.metadata.get("pattern_key"): e for e in self.tiers["procedural"].entries}
        for p in patterns:
            c = self.corroboration.get(p.key)
            if c is None or c["direction"] != p.direction:
                c = self.corroboration[p.key] = {"direction": p.direction, "windows": 0, "last_window": -1}
            if c["last_window"] != window:
                c["windows"] += 1
                c["last_window"] = window
            rule = rules.get(p.key)
            if rule is not None and rule.metadata.get("direction") != p.direction:
                self._remove("procedural", rule.id, reason="pattern changed direction")
                rule = None
            if rule is None and c["windows"] >= self.promote_after:
                text = p.rule or f"RULE: {p.content}"
                entry = self.write("procedural", text, {**p.metadata, "pattern_key": p.key,
                                                        "direction": p.direction}, 0.8)
                if entry is not None:
                    self.rule_uses[entry.id] = []
                    promoted.append(entry)
        return promoted

    def record_rule_use(self, rule_id: str, held: bool) -> MemoryEntry | None:
        """Note whether a rule held when it applied; prune it when it stops holding.
        Returns the pruned rule, if any."""
        if self.frozen or rule_id not in self.rule_uses:
            return None
        uses = self.rule_uses[rule_id]
        uses.append(1 if held else 0)
        del uses[: -self.prune_window]
        if len(uses) >= self.prune_window and sum(uses) / len(uses) < self.prune_below:
            return self._remove("procedural", rule_id, reason=f"held in {sum(uses)} of its last {len(uses)} uses")
        return None

    def _remove(self, tier_name: str, entry_id: str, reason: str) -> MemoryEntry | None:
        tier = self.tiers[tier_name]
        for i, e in enumerate(tier.entries):
            if e.id == entry_id:
                gone = tier.remove(i)
                self.rule_uses.pop(entry_id, None)
                self.corroboration.pop(gone.metadata.get("pattern_key"), None)
                self.pruned.append({"id": gone.id, "content": gone.content, "episode": self.episode,
                                    "reason": reason})
                return gone
        return None

    # ------------------------------------------------------------- queries
    def entries(self, tier: str) -> list[MemoryEntry]:
        return list(self.tiers[tier].entries)

    def counts(self) -> dict[str, int]:
        return {name: len(t) for name, t in self.tiers.items()}

    # -------------------------------------------------------- persistence
    def to_dict(self) -> dict[str, Any]:
        return {
            "episode": self.episode, "frozen": self.frozen, "next_id": dict(self._next_id),
            "tiers": {name: [asdict(e) for e in t.entries] for name, t in self.tiers.items()},
            "corroboration": self.corroboration, "rule_uses": self.rule_uses, "pruned": self.pruned,
        }

    def load_dict(self, d: dict[str, Any]) -> None:
        self.episode = int(d["episode"])
        self.frozen = bool(d["frozen"])
        self._next_id = {k: int(v) for k, v in d["next_id"].items()}
        self._intern.clear()
        self.tiers = {name: _Tier(name, self._intern) for name in TIERS}
        for name, rows in d["tiers"].items():
            for row in rows:
                self.tiers[name].append(MemoryEntry(**row))
        self.corroboration = d["corroboration"]
        self.rule_uses = {k: list(v) for k, v in d["rule_uses"].items()}
        self.pruned = list(d["pruned"])
