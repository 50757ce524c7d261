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

from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from operator import attrgetter, is_
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from . import ranking
from .errors import AELError
from .memory_view import FlatView
from .policies import TIERS, PolicySpec

TIER_BOOST = {"episodic": 1.0, "semantic": 1.2, "procedural": 1.5}
WRITE_THRESHOLD = 0.3
CAP_PER_TIER = 500
_MISSING = -1
_UNSEEN = -2

# similarity(query, tier, episodes) -> scores in [0, 1], one per entry, for the entries of
# `tier` written at `episodes` (scenario-supplied; scenarios identify entries by episode).
# A similarity may also be an object with an index over a tier: its method
# `shortlist(query, tier, episodes, k) -> positions | None`, given the episodes of every
# entry of the tier in write order, returns the positions of the entries that may be among
# the k most similar (None: score them all). The memory asks it only for a similarity
# policy that reads the whole tier (no filter, no window), then scores and ranks just
# those: a read whose cost does not grow with the tier (the stream world's row index).
Similarity = Callable[[dict[str, Any], str, np.ndarray], np.ndarray]


@dataclass
class MemoryEntry:
    # `metadata` is never changed in place once written (a re-distilled pattern gets a new dict):
    # saves and time travel's snapshots share it instead of copying it (engine/timetravel.py)
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


@dataclass(slots=True)
class Hit:
    entry: MemoryEntry
    score: float
    row: int = -1  # the entry's index in its tier when retrieved (a hint: rows shift on removal)


class _Tier:
    """One tier: entries in write order plus numpy columns kept in step.

    `retrievals` and `useful` mirror the entries' retrieval_count and usefulness
    (the store updates both), so eviction is vectorised too. `version` changes
    with every change to a column, for the store's concatenated view."""

    def __init__(self, name: str, intern: dict[str, dict[Any, int]]):
        self.name = name
        self.entries: list[MemoryEntry] = []
        self._intern = intern
        self._n = 0
        self._cap = 64
        self.quality = np.zeros(self._cap)
        self.episode = np.zeros(self._cap, dtype=np.int64)
        self.retrievals = np.zeros(self._cap, dtype=np.int64)
        self.useful = np.zeros(self._cap)
        self.codes: dict[str, np.ndarray] = {}
        self.version = 0
        self.ordered = True  # episodes never decrease in write order (kept up to date, not rescanned per read)

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
            for name in ("quality", "episode", "retrievals", "useful"):
                setattr(self, name, np.resize(getattr(self, name), self._cap))
            self.codes = {k: np.resize(v, self._cap) for k, v in self.codes.items()}
        self.entries.append(entry)
        self._n += 1
        self.refresh(self._n - 1)

    def extend(self, entries: list[MemoryEntry]) -> None:
        """`append` of each, in one pass over the columns (a load or a time-travel put-back
        rebuilds a thousand entries per tier: one per call was most of a proposal preview)."""
        start, n = self._n, self._n + len(entries)
        if not entries:
            return
        while self._cap < n:
            self._cap *= 2
        if len(self.quality) < self._cap:
            for name in ("quality", "episode", "retrievals", "useful"):
                setattr(self, name, np.resize(getattr(self, name), self._cap))
            self.codes = {k: np.resize(v, self._cap) for k, v in self.codes.items()}
        self.entries.extend(entries)
        self._n = n
        self.quality[start:n] = [e.quality for e in entries]
        self.episode[start:n] = [e.episode for e in entries]
        self.retrievals[start:n] = [e.retrieval_count for e in entries]
        self.useful[start:n] = [e.usefulness for e in entries]
        for key, col in self.codes.items():
            col[start:n] = [self._code(key, e.metadata.get(key)) for e in entries]
        episodes = self.episode[max(0, start - 1):n]
        if (episodes[1:] < episodes[:-1]).any():
            self.ordered = False  # as append would have found it, entry by entry
        self.version += len(entries)

    def remove(self, index: int) -> MemoryEntry:
        entry = self.entries.pop(index)
        n = self._n
        for arr in (self.quality, self.episode, self.retrievals, self.useful, *self.codes.values()):
            arr[index : n - 1] = arr[index + 1 : n]
        self._n -= 1
        self.version += 1
        if not self.ordered:
            self.ordered = bool((self.episode[1:self._n] >= self.episode[: self._n - 1]).all())
        return entry

    def refresh(self, index: int) -> None:
        """Re-read an entry that was updated in place (a re-distilled pattern)."""
        e = self.entries[index]
        self.quality[index] = e.quality
        self.episode[index] = e.episode
        n = self._n
        if (index > 0 and self.episode[index - 1] > e.episode) or (index + 1 < n and e.episode > self.episode[index + 1]):
            self.ordered = False  # until a removal rescans (an in-place edit that restores order is not looked for)
        self.retrievals[index] = e.retrieval_count
        self.useful[index] = e.usefulness
        for key, col in self.codes.items():
            col[index] = self._code(key, e.metadata.get(key))
        self.version += 1

    def row_of(self, entry: MemoryEntry, hint: int = -1) -> int:
        """The entry's index (the hint if it still holds, else a search by identity)."""
        if 0 <= hint < self._n and self.entries[hint] is entry:
            return hint
        return next((i for i, e in enumerate(self.entries) if e is entry), -1)


def _entry_state(e: MemoryEntry) -> dict[str, Any]:
    """`asdict(e)` without the deep copy (same keys, same order: MemoryEntry(**state) reads it)."""
    return {"id": e.id, "tier": e.tier, "content": e.content, "metadata": e.metadata, "quality": e.quality,
            "episode": e.episode, "retrieval_count": e.retrieval_count, "usefulness": e.usefulness}


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
        self._flat_view: FlatView | None = None
        self._score_memo: tuple | None = None  # (flat view, clock, {query's matched values: scores})
        # pattern key -> {"direction", "windows": count, "last_window"}
        self.corroboration: dict[str, dict[str, Any]] = {}
        # rule entry id -> outcomes of its last uses (1 held, 0 did not)
        self.rule_uses: dict[str, list[int]] = {}
        self.pruned: list[dict[str, Any]] = []
        # runs a code policy in a sandbox (the session's `CodeArms.run`); code never runs here
        self.code_runner: Callable[[PolicySpec, list[MemoryEntry], dict[str, Any]], list[MemoryEntry]] | None = None
        # told of every counted read before it counts (`observing`): the explanation's instrument
        self._observer: Callable[[PolicySpec, dict[str, Any], Any, list[Hit]], None] | None = None

    @contextmanager
    def observing(self, observer: Callable[[PolicySpec, dict[str, Any], Any, list[Hit]], None]) -> Iterator[None]:
        """While the block runs, `observer(spec, query, similarity, hits)` sees each counted
        read (a policy's retrieval for an episode) before its hits are counted, so it may read
        other policies for the same query, uncounted, as memory stood at that moment."""
        before, self._observer = self._observer, observer
        try:
            yield
        finally:
            self._observer = before

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
        n = len(tier)
        uses = tier.retrievals[:n]
        # avg_usefulness is 0.5 for a never-retrieved entry; the same operations, in the
        # same order, as MemoryEntry.avg_usefulness, so values (and ties) are unchanged
        with np.errstate(invalid="ignore", divide="ignore"):
            factor = np.where(uses == 0, 0.75, 0.5 + 0.5 * tier.useful[:n] / uses)
        worst = int(np.argmin(tier.quality[:n] * factor))  # the first, i.e. the oldest, among equals
        gone = tier.remove(worst)
        self.rule_uses.pop(gone.id, None)

    def rewrite(self, tier: str, row: int, content: str, metadata: dict[str, Any]) -> MemoryEntry | None:
        """Change the entry at `row` of `tier` in place (a distilled summary that grows as rows
        arrive); None when frozen."""
        if self.frozen:
            return None
        t = self.tiers[tier]
        entry = t.entries[row]
        entry.content, entry.metadata = content, dict(metadata)
        t.refresh(row)
        return entry

    def mark_used(self, hits: Iterable[Hit], useful: bool) -> None:
        """Usefulness feedback after an episode that retrieved `hits`."""
        if self.frozen or not useful:
            return
        hits = list(hits)
        if not hits:
            return
        for h in hits:
            h.entry.usefulness += 1.0
        self._mirror(hits, "useful", "usefulness")

    def _mirror(self, hits: list[Hit], column: str, field: str) -> None:
        """Copy `field` of the hits' entries into their tiers' numpy `column`, one
        vectorised write per tier (a retrieval of 200 hits did 200 scalar writes and
        200 row searches; the per-hit work left is C-level maps)."""
        entries = [h.entry for h in hits]
        rows = [h.row for h in hits]
        names = {e.tier for e in entries}
        for name in names:
            tier = self.tiers[name]
            es, rs = entries, rows
            if len(names) > 1:
                es, rs = [e for e in entries if e.tier == name], [r for e, r in zip(entries, rows) if e.tier == name]
            # the rows at retrieval, unless the tier changed since (or a code policy's hits carry none)
            if not (min(rs) >= 0 and max(rs) < tier._n and all(map(is_, map(tier.entries.__getitem__, rs), es))):
                found = [(tier.row_of(e, r), e) for e, r in zip(es, rs)]
                rs, es = [r for r, _ in found if r >= 0], [e for r, e in found if r >= 0]  # not evicted since
            getattr(tier, column)[rs] = list(map(attrgetter(field), es))

    # ------------------------------------------------------------- scoring
    def _flat(self) -> FlatView:
        view = self._flat_view
        if (view is None or view.tiers is not self.tiers
                or view.versions != tuple((t.version, len(t)) for t in self.tiers.values())):
            view = self._flat_view = FlatView(self.tiers, TIER_BOOST)
        return view

    def _scores(self, query: dict[str, Any]) -> tuple[FlatView, np.ndarray]:
        """The composite score of every entry of every tier (the flat view's order).

        Kept for the flat view and the store's clock it was computed at, by the query's matched
        values: a world that reads memory twice in a step with the same queries (the portfolio's
        played policy and the candidate it shadows, ten tickers each) scores it once. Read-only,
        so no caller can change what another reads."""
        flat = self._flat()
        matched = tuple((k, _hashable(query[k])) for k in self.match_bonuses if k in query)
        memo = self._score_memo
        if memo is None or memo[0] is not flat or memo[1] != self.episode:
            memo = self._score_memo = (flat, self.episode, {})
        found = memo[2].get(matched)
        if found is not None:
            return flat, found
        match = np.zeros(len(flat.episode))
        for key, bonus in self.match_bonuses.items():
            if key not in query:
                continue
            col = flat.column(key)  # interns the tiers' values first, so the lookup below can hit
            qcode = self._intern.get(key, {}).get(_hashable(query[key]), _UNSEEN)
            if qcode == _UNSEEN:
                continue
            np.add(match, bonus, out=match, where=col == qcode)  # = match + bonus·[equal], in key order
        # in place, but in the formula's order, so every score is the same float as before
        np.multiply(match, flat.half_quality, out=match)
        np.multiply(match, flat.recency(self.episode), out=match)
        np.multiply(match, flat.boost, out=match)
        match.flags.writeable = False
        memo[2][matched] = match
        return flat, match

    def relevance(self, tier_name: str, query: dict[str, Any]) -> np.ndarray:
        """The paper's composite score for every entry of a tier, at once:
        Σ match bonuses × (0.5 + 0.5·quality) × (0.3 + 0.7·e^(−0.01Δ)) × tier boost,
        with Δ = the store's episode − the episode the entry was written."""
        flat, score = self._scores(query)
        lo, hi = flat.bounds[tier_name]
        return score[lo:hi]

    # ------------------------------------------------------------ retrieval
    def retrieve(self, spec: PolicySpec, query: dict[str, Any],
                 similarity: Similarity | None = None, count: bool = True, shown: bool | None = None) -> list[Hit]:
        """The entries `spec` shows for `query`, best first; among equal scores the
        most recently written first. Vectorised: only the k best are sorted, and
        entries are materialised only for those that are returned. `count=False`
        reads without raising the entries' retrieval counts (a counterfactual read
        is not a use). An explanation watching (`observing`) sees the counted reads,
        or those `shown` says (an agent's read that an unwatched episode looks up instead)."""
        hits = self._retrieve(spec, query, similarity)
        if (count if shown is None else shown) and self._observer is not None:
            self._observer(spec, query, similarity, hits)
        if count and not self.frozen and hits:
            for h in hits:
                h.entry.retrieval_count += 1
            self._mirror(hits, "retrievals", "retrieval_count")
        return hits

    def _retrieve(self, spec: PolicySpec, query: dict[str, Any], similarity: Similarity | None) -> list[Hit]:
        if spec.retrieves_nothing:
            return []
        if spec.code:
            return self._retrieve_code(spec, query)
        newest = self._newest_in_order(spec)
        if newest is not None:
            hits = newest
        else:
            hits = self._ranked(spec, query, similarity)
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

    def _newest_in_order(self, spec: PolicySpec) -> list[Hit] | None:
        """The k newest entries of a plain recency policy over one tier (full_detailed,
        recent_window), when the tier's episodes never decrease in write order (as a
        run writes them): the ranking (episode, then row, both newest first) is then
        the rows backwards, with no partition or sort. None when it does not apply."""
        if spec.order != "recency" or len(spec.tiers) != 1 or spec.filters or spec.window is not None \
                or spec.per_group:
            return None
        tier = self.tiers[spec.tiers[0]]
        n = len(tier)
        episode = tier.episode[:n]
        if n == 0 or spec.k <= 0 or not tier.ordered:
            return None
        rows = range(n - 1, max(n - spec.k, 0) - 1, -1)
        scores = episode[n - len(rows):][::-1].astype(float).tolist()  # recency's score is the episode
        entries = tier.entries
        return [Hit(entries[r], s, r) for r, s in zip(rows, scores)]

    def _ranked(self, spec: PolicySpec, query: dict[str, Any], similarity: Similarity | None) -> list[Hit]:
        """The k best candidates as hits, best first (any policy but code)."""
        if spec.order == "relevance" and not spec.filters and spec.window is None:
            found = self._candidates_scored(spec, query)
        else:
            found = self._candidates(spec, query, similarity)
        if found is None:
            return []
        score, episode, row, tier_pos, group = found
        if group is not None:
            top = ranking.top_k_per_group(score, episode, row, tier_pos, group, spec.k)
        else:
            top = ranking.top_k(score, episode, row, tier_pos, spec.k)
        lists = [self.tiers[name].entries for name in spec.tiers]
        # plain Python ints and floats: indexing numpy scalars one by one is the slow part here
        if len(lists) == 1:
            entries = lists[0]
            hits = [Hit(entries[r], s, r) for r, s in zip(row[top].tolist(), score[top].tolist())]
        else:
            hits = [Hit(lists[p][r], s, r) for p, r, s in
                    zip(tier_pos[top].tolist(), row[top].tolist(), score[top].tolist())]
        return hits

    def _candidates_scored(self, spec: PolicySpec, query: dict[str, Any]):
        """Candidates of a relevance policy that reads whole tiers, from one pass over the
        flat view. Only entries that can be among the k best are gathered (the `ok`
        entries, score > 0 and ≥ min_score, are the top of the score order, so
        shortlisting first and checking `ok` after keeps exactly the same ones)."""
        flat, score = self._scores(query)
        pos, visible = flat.positions(spec.tiers)
        if visible is not None:
            score = np.where(visible, score, 0.0)
        if spec.per_group:
            near = np.flatnonzero(score > 0)
        else:
            near = ranking.shortlist(score, spec.k)
            near = near[score[near] > 0]
        if spec.min_score > 0:
            near = near[score[near] >= spec.min_score]
        if len(near) == 0:
            return None
        tier_pos = pos[near]
        row = near - flat.starts(spec.tiers)[tier_pos]
        group = flat.column(spec.per_group)[near] if spec.per_group else None
        return score[near], flat.episode[near], row, tier_pos, group

    def _candidates(self, spec: PolicySpec, query: dict[str, Any], similarity: Similarity | None):
        """Candidates tier by tier: filters, the newest-`window` cut, then the score."""
        scores, episodes, tiers, rows, groups = [], [], [], [], []
        every = None
        for tier_pos, tier_name in enumerate(spec.tiers):
            tier = self.tiers[tier_name]
            n = len(tier)
            if n == 0:
                continue
            idx = None
            if spec.order == "similarity" and not spec.filters and spec.window is None \
                    and hasattr(similarity, "shortlist"):
                idx = similarity.shortlist(query, tier_name, tier.episode[:n], spec.k)  # an index, if it has one
            if idx is None:
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
                if every is None:
                    flat, every = self._scores(query)  # once for all tiers
                lo, _ = flat.bounds[tier_name]
                score = every[lo + idx]
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
            return None
        group = np.concatenate(groups) if spec.per_group else None
        return np.concatenate(scores), np.concatenate(episodes), np.concatenate(rows), np.concatenate(tiers), group

    def _retrieve_code(self, spec: PolicySpec, query: dict[str, Any]) -> list[Hit]:
        """A code policy picks from the visible tiers' entries, in the sandbox the
        session attached (`code_runner`; none attached: nothing is retrieved); its
        order is the ranking, k (if set) caps it. A policy that fails retrieves
        nothing, so the session's fallback takes over."""
        from .sandbox.codepolicy import CodePolicyError

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
        """The store's state for a save: a view to serialise at once (entries' metadata
        dicts are shared, not copied; `asdict`'s deep copies were most of a save's time)."""
        return {
            "episode": self.episode, "frozen": self.frozen, "next_id": dict(self._next_id),
            "tiers": {name: [_entry_state(e) for e in t.entries] for name, t in self.tiers.items()},
            "corroboration": self.corroboration, "rule_uses": self.rule_uses, "pruned": self.pruned,
        }

    def load_dict(self, d: dict[str, Any]) -> None:
        self.episode = int(d["episode"])
        self.frozen = bool(d["frozen"])
        self._next_id = {k: int(v) for k, v in d["next_id"].items()}
        self._intern.clear()
        self.tiers = {name: _Tier(name, self._intern) for name in TIERS}
        self._flat_view = None
        for name, rows in d["tiers"].items():
            self.tiers[name].extend([MemoryEntry(**row) for row in rows])
        self.corroboration = d["corroboration"]
        self.rule_uses = {k: list(v) for k, v in d["rule_uses"].items()}
        self.pruned = list(d["pruned"])
