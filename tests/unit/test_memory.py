"""Three tiers: caps, read-only freeze, the composite score, distil/promote/prune."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.memory import MemoryStore, Pattern
from engine.policies import PolicySpec

ALL = PolicySpec("all", ("episodic", "semantic", "procedural"), 500, format="full")


def store(**kw):
    return MemoryStore({"ticker": 2.0, "sector": 0.8}, **kw)


@settings(max_examples=40)
@given(st.integers(1, 30), st.lists(st.floats(0.3, 1.0), min_size=1, max_size=80))
def test_no_tier_ever_holds_more_than_its_cap(cap, qualities):
    m = store(cap_per_tier=cap)
    for i, q in enumerate(qualities):
        m.episode = i
        m.write("episodic", f"e{i}", {"ticker": "A"}, q)
    assert len(m.tiers["episodic"]) == min(cap, len(qualities))


def test_eviction_drops_the_least_valuable_entry():
    m = store(cap_per_tier=2)
    m.write("episodic", "good", {}, 0.9)
    m.write("episodic", "poor", {}, 0.35)
    m.write("episodic", "fine", {}, 0.6)
    assert [e.content for e in m.entries("episodic")] == ["good", "fine"]


def test_writes_below_the_quality_threshold_are_rejected():
    m = store()
    assert m.write("episodic", "x", {}, 0.29) is None
    assert m.write("episodic", "y", {}, 0.3) is not None


def test_a_frozen_store_is_read_only_but_still_answers():
    m = store()
    m.write("episodic", "x", {"ticker": "A"}, 0.8)
    m.frozen = True
    assert m.write("episodic", "y", {"ticker": "A"}, 0.8) is None
    hits = m.retrieve(ALL, {"ticker": "A"})
    assert [h.entry.content for h in hits] == ["x"]
    assert hits[0].entry.retrieval_count == 0  # reads leave no trace when frozen
    assert m.upsert_pattern(Pattern("k", "c", "up", 5, 0.9)) == (None, False)
    assert m.corroborate([Pattern("k", "c", "up", 5, 0.9)], 1) == []


@settings(max_examples=50)
@given(st.floats(0.3, 1.0), st.floats(0.3, 1.0))
def test_score_is_monotone_in_quality(q1, q2):
    m = store()
    m.write("episodic", "a", {"ticker": "A"}, q1)
    m.write("episodic", "b", {"ticker": "A"}, q2)
    s = m.relevance("episodic", {"ticker": "A"})
    assert (s[0] - s[1]) * (q1 - q2) >= 0


@settings(max_examples=50)
@given(st.integers(0, 500), st.integers(0, 500))
def test_score_is_monotone_in_recency(e1, e2):
    m = store()
    m.write("episodic", "a", {"ticker": "A"}, 0.5, episode=e1)
    m.write("episodic", "b", {"ticker": "A"}, 0.5, episode=e2)
    m.episode = 600
    s = m.relevance("episodic", {"ticker": "A"})
    assert (s[0] - s[1]) * (e1 - e2) >= 0


def test_the_composite_score_matches_the_papers_formula():
    m = store()
    m.write("semantic", "s", {"ticker": "A", "sector": "Tech"}, 0.7, episode=10)
    m.episode = 30
    got = m.relevance("semantic", {"ticker": "A", "sector": "Tech"})[0]
    want = (2.0 + 0.8) * (0.5 + 0.5 * 0.7) * (0.3 + 0.7 * np.exp(-0.01 * 20)) * 1.2
    assert got == pytest.approx(want)


def test_entries_that_match_nothing_are_not_retrieved_by_relevance():
    m = store()
    m.write("episodic", "other", {"ticker": "B"}, 0.9)
    assert m.retrieve(ALL, {"ticker": "A"}) == []


def test_formats_sliding_window_and_ranked_truncate():
    m = store()
    for i in range(6):
        m.write("episodic", "x" * 40, {"ticker": "A"}, 0.4 + 0.1 * i, episode=i)
    m.episode = 6
    sw = PolicySpec("sw", ("episodic",), 6, format="sliding_window", keep_first=1, keep_last=2)
    hits = m.retrieve(sw, {"ticker": "A"})
    assert len(hits) == 3 and hits[0].score >= hits[1].score
    rt = PolicySpec("rt", ("episodic",), 6, format="ranked_truncate", token_budget=25)
    assert len(m.retrieve(rt, {"ticker": "A"})) == 2  # 10 tokens each
    tiny = PolicySpec("tiny", ("episodic",), 6, format="ranked_truncate", token_budget=1)
    assert len(m.retrieve(tiny, {"ticker": "A"})) == 1  # the first always fits


def test_filters_window_and_per_group():
    m = store()
    for i, (t, s) in enumerate([("A", "x"), ("B", "x"), ("A", "y"), ("A", "x"), ("B", "y")]):
        m.write("episodic", f"{t}{s}{i}", {"ticker": t, "sector": s}, 0.8, episode=i)
    spec = PolicySpec.from_dict({"name": "f", "tiers": ["episodic"], "k": 5, "order": "recency",
                                 "filters": [{"key": "ticker"}], "window": 2})
    assert [h.entry.content for h in m.retrieve(spec, {"ticker": "A"})] == ["Ax3", "Ay2"]
    grouped = PolicySpec("g", ("episodic",), 1, order="recency", per_group="sector")
    assert [h.entry.content for h in m.retrieve(grouped, {})] == ["By4", "Ax3"]


def test_a_pattern_corroborated_in_three_windows_is_promoted_and_a_failing_rule_pruned():
    m = store()
    p = Pattern("tool:rsi", "RSI is reliable (0.7, 20 calls)", "reliable", 20, 0.7, rule="RULE: trust RSI")
    assert m.corroborate([p], 1) == [] and m.corroborate([p], 1) == []  # same window counts once
    assert m.corroborate([p], 2) == []
    [rule] = m.corroborate([p], 3)
    assert rule.tier == "procedural" and rule.content == "RULE: trust RSI"
    for held in [True] * 5 + [False] * 4:
        assert m.record_rule_use(rule.id, held) is None
    for _ in range(3):
        gone = m.record_rule_use(rule.id, False)
    assert gone is not None and m.counts()["procedural"] == 0
    assert "held in 3 of its last 10 uses" in m.pruned[-1]["reason"]


def test_a_change_of_direction_resets_corroboration():
    m = store()
    up, down = Pattern("k", "c", "up", 5, 0.9), Pattern("k", "c", "down", 5, 0.9)
    m.corroborate([up], 1), m.corroborate([up], 2), m.corroborate([down], 3)
    assert m.corroborate([down], 4) == []
    assert len(m.corroborate([down], 5)) == 1


def test_upsert_keeps_one_semantic_entry_per_pattern_key():
    m = store()
    _, new = m.upsert_pattern(Pattern("k", "first", "up", 5, 0.9))
    e, again = m.upsert_pattern(Pattern("k", "second", "up", 6, 0.9))
    assert (new, again) == (True, False)
    assert [x.content for x in m.entries("semantic")] == ["second"]


def test_store_round_trips_through_its_dict():
    m = store()
    m.write("episodic", "x", {"ticker": "A"}, 0.8)
    m.corroborate([Pattern("k", "c", "up", 5, 0.9)], 1)
    copy = store()
    copy.load_dict(m.to_dict())
    assert copy.to_dict() == m.to_dict()
    assert [h.entry.id for h in copy.retrieve(ALL, {"ticker": "A"})] == ["e0"]


@settings(max_examples=30)
@given(st.lists(st.tuples(st.integers(0, 50), st.sampled_from(["A", "B", None])), max_size=150),
       st.integers(0, 150))
def test_a_tier_extended_at_once_is_the_tier_appended_to_one_by_one(rows, split):
    """load_dict builds each tier with one `extend` (engine/memory.py): the same columns, codes,
    order flag and version as an entry-by-entry append, whatever came before it."""
    from engine.memory import MemoryEntry, _Tier

    entries = [MemoryEntry(i, "episodic", f"e{i}", {"ticker": t} if t else {}, 0.5 + i % 5 / 10, ep, i % 3, i % 2)
               for i, (ep, t) in enumerate(rows)]
    one, bulk = _Tier("episodic", {}), _Tier("episodic", {})
    for tier in (one, bulk):
        tier.column("ticker")  # a column read before the load: it is kept up to date by both
    for e in entries:
        one.append(e)
    for e in entries[:split]:
        bulk.append(e)
    bulk.extend(entries[split:])
    assert len(one) == len(bulk) and one.entries == bulk.entries
    assert (one.ordered, one.version) == (bulk.ordered, bulk.version)
    for name in ("quality", "episode", "retrievals", "useful"):
        assert np.array_equal(getattr(one, name)[: len(one)], getattr(bulk, name)[: len(bulk)])
    assert np.array_equal(one.column("ticker"), bulk.column("ticker"))


@pytest.mark.parametrize("scenario, episodes", [("support", 400), ("synthetic", 160), ("portfolio", 60), ("stream", 120)])
def test_no_world_changes_an_entrys_metadata_in_place(scenario, episodes, tmp_path):
    """Saves and time travel's snapshots share each entry's metadata dict instead of copying it
    (engine/timetravel.py): a step that changed one in place would change a snapshot too."""
    import copy

    from scenarios.stream.demo import write_demo
    from tests.conftest import new_session

    options = {}
    if scenario == "stream":
        options = {"data": str(write_demo(tmp_path / "demo.csv", 1, 160)), "text": "text", "label": "label",
                   "meta": ["source", "region", "channel"], "regime": "phase"}
    s = new_session(scenario, seed=42, approval="auto", scenario_options=options)
    seen: dict[int, tuple[dict, dict]] = {}
    while s.t < min(episodes, s.n_episodes):
        s.step()
        for tier in s.memory.tiers.values():
            for e in tier.entries:
                if id(e.metadata) not in seen:
                    seen[id(e.metadata)] = (e.metadata, copy.deepcopy(e.metadata))
    assert len(seen) > 20
    assert all(now == then for now, then in seen.values())
