"""SupportScenario behind the engine's Scenario protocol: what it shows, how it acts,
what memory learns from it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.methods import parse_method
from engine.errors import AELError
from engine.memory import MemoryStore
from engine.scenario import AgentContext
from scenarios.support import SupportScenario, generate
from scenarios.support.bank import ENDPOINT_ROUTE, ROUTES
from scenarios.support.policies import ALL_POLICIES, COMPRESSED, NONE, ROUTE_AWARE


@pytest.fixture(scope="module")
def scenario() -> SupportScenario:
    return SupportScenario(123)


def _memory(scenario: SupportScenario, cap: int | None = None) -> MemoryStore:
    return MemoryStore(scenario.match_bonuses, cap_per_tier=cap or scenario.defaults["memory_cap"])


def _context(scenario, memory, spec, t, rng=None):
    """Retrieve as the session does, fallback substitution included."""
    qdict = scenario.query_dict(scenario.query(t))
    hits = memory.retrieve(spec, qdict, scenario.similarity)
    if not hits and spec.fallback:
        hits = memory.retrieve(COMPRESSED, qdict, scenario.similarity)
    return AgentContext(policy=spec, hits=hits, rules=[], insight=None, memory=memory,
                        rng=rng or np.random.default_rng(0))


def _write(scenario, memory, t, outcome=None):
    q = scenario.query(t)
    memory.write("episodic", *scenario.episodic_entry(q, outcome, "none"), episode=t)


# ------------------------------------------------------------------ surface
def test_protocol_surface_follows_the_spec(scenario):
    assert scenario.name == "support" and scenario.n_episodes == 1200
    assert scenario.regime_names == ["R0", "R1", "R2", "R3"]
    assert [p.name for p in scenario.initial_pool] == [
        "none", "recent_window", "compressed", "full_detailed", "class_balanced"]
    assert scenario.session_seed() == [123, 1]
    assert [scenario.regime(t) for t in (0, 300, 600, 899, 900)] == [0, 1, 2, 2, 3]


def test_defaults_keep_every_ticket_and_evaluate_every_episode(scenario):
    d = scenario.defaults
    assert d["memory_cap"] >= 1200 and d["warmup"] == 0 and d["slow_window"] == 40
    assert d["phases"] == {"train": 1200, "val": 0, "test": 0}


def test_every_listed_selector_is_one_the_engine_knows(scenario):
    for name in scenario.spec.selectors:
        parse_method(name)
    assert {"ts", "ts+reflection", "ucb1", "oracle", "fixed:none"} <= set(scenario.spec.selectors)


def test_unknown_or_bad_options_are_refused():
    with pytest.raises(AELError, match="unknown option 'colour'"):
        SupportScenario(42, colour="red")
    with pytest.raises(AELError, match="n_episodes"):
        SupportScenario(42, n_episodes=5000)


def test_query_shows_the_text_and_endpoint_and_hides_the_truth(scenario):
    ticket = generate(123)[950]
    q = scenario.query(950)
    assert q.text == ticket["text"] and q.metadata == {"endpoint": ticket["endpoint"]}
    assert q.truth["gold_route"] == ticket["gold_route"] and q.truth["regime"] == 3


def test_episodic_entry_stores_the_gold_route_and_nothing_the_agent_may_not_read(scenario):
    content, meta, quality = scenario.episodic_entry(scenario.query(5), None, "none")
    ticket = generate(123)[5]
    assert content == f"{ticket['text']} -> {ticket['gold_route']}"
    assert meta == {"endpoint": ticket["endpoint"], "route": ticket["gold_route"]}
    assert quality >= 0.3  # above the engine's write threshold: every ticket is kept


# ---------------------------------------------------------------------- act
def test_act_scores_a_route_plus_one_or_minus_one(scenario):
    memory = _memory(scenario)
    t = 0
    out = scenario.act(scenario.query(t), _context(scenario, memory, NONE, t))
    gold = scenario.query(t).truth["gold_route"]
    assert out.action == "route → backend_error"
    assert out.correct == (gold == "backend_error")
    assert (out.score, out.reward) == ((1.0, 1.0) if out.correct else (-1.0, 0.0))
    assert out.result == f"gold {gold} {'✓' if out.correct else '✗'}"
    assert out.info["source"] == "table"


def test_live_retrieval_of_an_edited_policy_equals_the_table(scenario):
    """Over a few hundred episodes (cold start and the R2→R3 switch), every built-in
    policy, edited so that it misses the table (keep_first does nothing without
    sliding_window), routes through act exactly as the table says."""
    memory = _memory(scenario)
    edited = [replace(p, keep_first=p.keep_first + 7) for p in ALL_POLICIES]
    checked = set(range(0, 150)) | set(range(880, 1060))
    for t in range(max(checked) + 1):
        memory.episode = t
        if t in checked:
            for j, spec in enumerate(edited):
                out = scenario.act(scenario.query(t), _context(scenario, memory, spec, t))
                assert out.info["source"] == "live"
                assert out.info["route"] == ROUTES[scenario.table.routes[t, j]], (t, spec.name)
        _write(scenario, memory, t)


def test_act_goes_live_when_memory_is_not_the_specs(scenario):
    memory = _memory(scenario, cap=50)
    for t in range(300):
        _write(scenario, memory, t)
    memory.episode = 300
    out = scenario.act(scenario.query(300), _context(scenario, memory, COMPRESSED, 300))
    assert out.info["source"] == "live"
    assert out.info["route"] == scenario.live_route(COMPRESSED, memory, 300)


def test_similarity_is_the_jaccard_row_for_episodic_entries_only(scenario):
    eps = np.array([0, 5, 9])
    row = scenario.similarity({"_episode": 10}, "episodic", eps)
    assert row.shape == (3,) and np.all((0 <= row) & (row <= 1))
    assert not scenario.similarity({"_episode": 10}, "semantic", eps).any()


# --------------------------------------------------------------- hindsight
def test_oracle_arm_is_right_whenever_any_of_the_six_policies_is(scenario):
    table = scenario.table
    pool = list(scenario.initial_pool)
    for t in range(1200):
        arm = scenario.oracle_arm(t, pool, MemoryStore())
        assert table.correct[t, table.column(arm)] == table.correct[t].any()


def test_oracle_arm_reaches_outside_the_pool_for_route_aware(scenario):
    table = scenario.table
    only_route_aware = np.flatnonzero(table.correct[:, 5] & ~table.correct[:, :5].any(axis=1))
    assert len(only_route_aware) > 100
    assert scenario.oracle_arm(int(only_route_aware[0]), list(scenario.initial_pool), MemoryStore()) == ROUTE_AWARE


def test_counterfactual_replays_an_untabled_policy(scenario):
    edited = replace(COMPRESSED, k=3)
    got = scenario.counterfactual(edited, [10, 400, 950])
    assert got.dtype == bool and got.shape == (3,)


# ----------------------------------------------------------- memory learning
@pytest.fixture(scope="module")
def filled(scenario):
    """Memory holding tickets 0..599 and 0..1099."""
    stores = {}
    memory = _memory(scenario)
    for t in range(1100):
        _write(scenario, memory, t)
        if t + 1 in (600, 1100):
            stores[t + 1] = scenario.distill(memory, t)
    return stores


def test_endpoints_give_no_pattern_before_regime_3(filled):
    assert not [p for p in filled[600] if p.key.startswith("endpoint:")]


def test_regime_3_distils_every_endpoint_to_its_route(filled):
    found = {p.metadata["endpoint"]: p for p in filled[1100] if p.key.startswith("endpoint:")}
    assert set(found) == set(ENDPOINT_ROUTE)
    for endpoint, p in found.items():
        assert p.direction == ENDPOINT_ROUTE[endpoint]
        assert p.content.startswith(f"endpoint {endpoint} → {p.direction} in ")
        assert p.content.endswith(" recent tickets")


def test_token_patterns_are_readable_with_stable_keys(filled):
    tokens = [p for p in filled[600] if p.key.startswith("token:")]
    assert tokens
    for p in tokens:
        tok = p.key.split(":", 1)[1]
        assert p.content.startswith(f"token {tok} → {p.direction} (") and p.strength >= 0.9


def test_rules_apply_by_endpoint_or_token_and_hold_on_the_gold_route(scenario):
    memory = _memory(scenario)
    for t in range(1100):
        _write(scenario, memory, t)
    patterns = scenario.distill(memory, 1099)
    for window in range(3):  # corroborated in 3 windows -> promoted
        memory.corroborate(patterns, window)
    q = scenario.query(1100)
    rules = scenario.applicable_rules(q, memory)
    endpoint_rules = [r for r in rules if r.metadata.get("kind") == "endpoint"]
    assert [r.metadata["endpoint"] for r in endpoint_rules] == [q.metadata["endpoint"]]
    for r in rules:
        assert scenario.rule_held(r, q, None) == (r.metadata["direction"] == q.truth["gold_route"])


def test_side_info_reports_endpoint_concentration_the_agent_never_sees(scenario):
    info = scenario.side_info(900, 1200)
    assert all(v["top_route"] == ENDPOINT_ROUTE[e] for e, v in info["endpoint_routes"].items())
    assert info["route_signal_share"] == 0.0
    assert info["policy_accuracy"]["route_aware"] > 0.85
    assert scenario.side_info(0, 300)["route_signal_share"] > 0.9


# -------------------------------------------------------- persistence, summary
def test_state_round_trips_and_refuses_another_seed(scenario):
    state = scenario.state_dict()
    SupportScenario(123).load_state_dict(state)
    with pytest.raises(AELError, match="seed 123"):
        SupportScenario(42).load_state_dict(state)


def test_summary_gives_the_first_route_aware_episode(scenario):
    history = [{"episode": t, "policy": "route_aware" if t >= 950 else "none", "correct": t % 2 == 0}
               for t in range(1200)]
    assert scenario.summary(history) == {"first_route_aware_episode": 950}


def test_export_stream_is_the_generator(scenario):
    assert SupportScenario.export_stream(42) == generate(42)
