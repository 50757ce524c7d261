"""Retrieval selects only the k best (a partition, then a sort of those), and the
answer is exactly the full ordering's first k, ties included; the relevance
score and eviction are the same numbers as the formulas they vectorise."""

import math

import numpy as np
import pytest

from engine import ranking
from engine.memory import TIER_BOOST, MemoryStore
from engine.policies import TIERS, Filter, PolicySpec

BONUSES = {"ticker": 2.0, "sector": 0.8}
TICKERS = ["A", "B", "C"]


def similarity(query, tier, episodes):
    """Few distinct values, so similarity ties are everywhere."""
    return ((np.asarray(episodes) * 7 + query["q"]) % 5) / 4.0


def tied_store(seed: int, n: int) -> MemoryStore:
    """Entries whose scores tie often: two qualities, few episodes, few metadata values."""
    rng = np.random.default_rng(seed)
    m = MemoryStore(BONUSES, cap_per_tier=n)
    for i in range(n):
        j = int(rng.integers(3))
        m.write(TIERS[int(rng.integers(3))], f"entry {i} " + "x" * int(rng.integers(0, 40)),
                {"ticker": TICKERS[j], "sector": "S" if j < 2 else "T", "route": f"r{int(rng.integers(4))}"},
                float(rng.choice([0.5, 1.0])), episode=int(rng.integers(0, 12)))
    m.episode = 12
    return m


def reference(m: MemoryStore, spec: PolicySpec, query: dict) -> list[tuple[str, float]]:
    """The ordering as it was before the partition: every candidate scored, filtered,
    then sorted in full by (score desc, episode desc, row desc, tier position)."""
    cands = []
    for pos, name in enumerate(spec.tiers):
        tier = m.tiers[name]
        rows = [r for r, e in enumerate(tier.entries)
                if all(e.metadata.get(f.key) == (query.get(f.key) if f.equals == "query" else f.equals)
                       for f in spec.filters)]
        if spec.window is not None:
            rows = rows[-spec.window:]
        if spec.order == "relevance":
            scores = m.relevance(name, query)
            keep = [(float(scores[r]), r) for r in rows if scores[r] > 0 and scores[r] >= spec.min_score]
        elif spec.order == "recency":
            keep = [(float(tier.entries[r].episode), r) for r in rows]
        else:
            sims = similarity(query, name, np.array([tier.entries[r].episode for r in rows], dtype=np.int64))
            keep = [(float(s), r) for s, r in zip(sims, rows) if s >= spec.min_score]
        cands += [(s, tier.entries[r].episode, r, pos, tier.entries[r]) for s, r in keep]
    cands.sort(key=lambda c: (-c[0], -c[1], -c[2], c[3]))
    if spec.per_group:
        seen: dict = {}
        chosen = []
        for c in cands:
            g = c[4].metadata.get(spec.per_group)
            if seen.get(g, 0) < spec.k:
                seen[g] = seen.get(g, 0) + 1
                chosen.append(c)
        cands = chosen
    else:
        cands = cands[: spec.k]
    if spec.format == "sliding_window" and len(cands) > spec.keep_first + spec.keep_last:
        cands = cands[: spec.keep_first] + (cands[-spec.keep_last:] if spec.keep_last else [])
    elif spec.format == "ranked_truncate":
        kept, used = [], 0
        for c in cands:
            cost = len(c[4].content) // 4
            if kept and used + cost > spec.token_budget:
                break
            kept.append(c)
            used += cost
        cands = kept
    return [(c[4].id, c[0]) for c in cands]


SPECS = [
    PolicySpec("all5", TIERS, 5),
    PolicySpec("all1", TIERS, 1),
    PolicySpec("reversed", ("procedural", "semantic", "episodic"), 7),
    PolicySpec("distilled", ("semantic", "procedural"), 6, format="ranked_truncate", token_budget=20),
    PolicySpec("sliding", ("episodic",), 5, format="sliding_window"),
    PolicySpec("picky", TIERS, 4, min_score=1.5),
    PolicySpec("recent", ("episodic", "semantic"), 9, order="recency"),
    PolicySpec("similar", TIERS, 6, order="similarity", min_score=0.25),
    PolicySpec("per_route", TIERS, 2, per_group="route"),
    PolicySpec("per_route_sim", ("episodic",), 2, order="similarity", per_group="route"),
    PolicySpec("filtered", TIERS, 5, filters=(Filter("ticker"),), window=6),
    PolicySpec("many", TIERS, 400),
]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n", [3, 40, 400, 2_000])
def test_retrieval_equals_the_full_ordering_ties_included(seed, n):
    m = tied_store(seed, n)
    m.frozen = True  # reads only: the reference and the store see the same counts
    for q, ticker in enumerate(TICKERS + ["unseen"]):
        query = {"ticker": ticker, "sector": "S", "q": q}
        for spec in SPECS:
            got = [(h.entry.id, h.score) for h in m.retrieve(spec, query, similarity)]
            assert got == reference(m, spec, query), (spec.name, query)


NEWEST = [
    PolicySpec("newest", ("episodic",), 7, order="recency"),
    PolicySpec("newest_all", ("episodic",), 5_000, order="recency"),
    PolicySpec("newest_slide", ("semantic",), 9, order="recency", format="sliding_window"),
    PolicySpec("newest_budget", ("episodic",), 30, order="recency", format="ranked_truncate", token_budget=40),
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [1, 2, 40, 2_000])
def test_the_newest_read_backwards_equals_the_full_ordering(seed, n):
    """A run writes episodes that never decrease (several entries may share one):
    a one-tier recency policy then reads the rows backwards; the answer is the same.
    The tied stores above (episodes out of order) take the general path."""
    rng = np.random.default_rng(seed)
    m = MemoryStore(BONUSES, cap_per_tier=n)
    episode = 0
    for i in range(n):
        episode += int(rng.integers(0, 2))  # ties between neighbours
        m.write(TIERS[int(rng.integers(2))], f"entry {i} " + "x" * int(rng.integers(0, 40)), {"ticker": "A"},
                1.0, episode=episode)
    m.frozen = True
    for spec in NEWEST + SPECS:
        query = {"ticker": "A", "sector": "S", "q": 1}
        got = [(h.entry.id, h.score) for h in m.retrieve(spec, query, similarity)]
        assert got == reference(m, spec, query), spec.name
    if n > 2:
        assert m._newest_in_order(NEWEST[0]) is not None  # the fast path did answer


def test_the_stores_are_full_of_ties():
    """The test above would prove little without ties at the k-th place."""
    m = tied_store(0, 2_000)
    score = m.relevance("episodic", {"ticker": "A", "sector": "S"})
    top = np.sort(score)[::-1]
    assert top[4] == top[5] and (score == top[4]).sum() > 5


@pytest.mark.parametrize("k", [1, 5, 37])
def test_shortlist_holds_every_score_at_least_the_kth_best(k):
    rng = np.random.default_rng(k)
    for n in (k, k + 1, 100, 5_000):
        score = rng.integers(0, 6, n).astype(float)
        kth = np.sort(score)[::-1][min(k, n) - 1]
        assert ranking.shortlist(score, k).tolist() == np.flatnonzero(score >= kth).tolist()


def test_relevance_is_the_papers_formula_to_the_last_bit():
    m = tied_store(3, 3_000)
    m.episode = 5_000  # recency values far beyond the first table
    query = {"ticker": "B", "sector": "S"}
    for name in TIERS:
        tier = m.tiers[name]
        match = np.array([sum(b for key, b in BONUSES.items() if e.metadata.get(key) == query[key])
                          for e in tier.entries])
        quality = np.array([e.quality for e in tier.entries])
        delta = np.maximum(m.episode - np.array([e.episode for e in tier.entries]), 0)
        expected = match * (0.5 + 0.5 * quality) * (0.3 + 0.7 * np.exp(-0.01 * delta)) * TIER_BOOST[name]
        assert np.array_equal(m.relevance(name, query), expected)


def test_vectorised_eviction_drops_what_the_per_entry_rule_drops():
    rng = np.random.default_rng(5)
    m = MemoryStore(BONUSES, cap_per_tier=30)
    spec = PolicySpec("all", ("episodic",), 4)
    for i in range(400):
        m.episode = i
        if i % 3 == 0:
            hits = m.retrieve(spec, {"ticker": TICKERS[i % 3]})
            m.mark_used(hits, bool(rng.integers(2)))
        entries = m.entries("episodic")
        quality = float(rng.choice([0.4, 0.8]))
        if len(entries) == 30:  # the new entry (never retrieved) is a candidate too
            value = [e.quality * (0.5 + 0.5 * e.avg_usefulness) for e in entries] + [quality * 0.75]
            victim = [e.content for e in entries] + [f"e{i}"]
            victim = victim[value.index(min(value))]
        m.write("episodic", f"e{i}", {"ticker": TICKERS[int(rng.integers(3))]}, quality)
        if len(entries) == 30:
            ids = [e.content for e in m.entries("episodic")]
            assert victim not in ids and len(ids) == 30
    tier = m.tiers["episodic"]
    assert tier.retrievals[: len(tier)].tolist() == [e.retrieval_count for e in tier.entries]
    assert tier.useful[: len(tier)].tolist() == [e.usefulness for e in tier.entries]
    assert any(e.retrieval_count for e in tier.entries) and math.isfinite(sum(tier.useful[: len(tier)]))


def test_an_entrys_saved_state_is_what_asdict_gave():
    from dataclasses import asdict

    m = tied_store(1, 30)
    m.retrieve(PolicySpec("all5", TIERS, 5), {"ticker": "A"})
    state = m.to_dict()["tiers"]
    for name in TIERS:
        assert state[name] == [asdict(e) for e in m.tiers[name].entries]
        assert [list(row) for row in state[name]] == [list(asdict(e)) for e in m.tiers[name].entries]


def test_a_loaded_store_scores_its_own_entries_not_the_ones_it_held_before():
    """Same tier sizes and write counts, different contents: nothing but the load tells them apart."""
    spec = PolicySpec("all5", TIERS, 5)
    stores = []
    for ticker in ("B", "A"):
        m = MemoryStore(BONUSES)
        for i in range(9):
            m.write(TIERS[i % 3], f"{ticker}{i}", {"ticker": ticker if i % 2 else "C"}, 0.5 + i / 20, episode=i)
        m.episode, m.frozen = 9, True
        stores.append(m)
    a, b = stores
    query = {"ticker": "A"}
    assert a.retrieve(spec, query) == []  # and builds a's view of its own entries
    a.load_dict(b.to_dict())
    expected = [(h.entry.id, h.score) for h in b.retrieve(spec, query)]
    assert expected and [(h.entry.id, h.score) for h in a.retrieve(spec, query)] == expected
