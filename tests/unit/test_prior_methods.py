"""Reflexion, ExpeL and Meta-Reflexion (engine/prior): each mechanism moving, their decisions
differing from the stateless agent's, exact save and resume, and the saved state's schema."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from engine.session import Session, SessionConfig
from scenarios import make_scenario
from tests.lockstep import first_difference

SEEDS = (42, 123, 456, 789, 1024)
DFULL = "/work/shared/data/dfull"


def session(scenario: str, selector: str, seed: int = 42, episodes: int | None = None, **options) -> Session:
    config = SessionConfig(scenario, seed=seed, selector=selector, episodes=episodes, scenario_options=options)
    return Session(config, make_scenario(scenario, seed, options))


# ------------------------------------------------------------------ Reflexion
def test_the_reflexion_window_fills_then_slides_at_20():
    s = session("support", "reflexion", episodes=30)
    for t in range(30):
        s.step()
        critiques = s.method.critiques
        assert [c["episode"] for c in critiques] == list(range(max(0, t - 19), t + 1))
    assert len(s.method.last_shown.records) == 20  # shown before episode 29: the 20 before it


def test_the_blind_critic_of_the_released_code_gives_no_tool_advice():
    s = session("portfolio", "reflexion(blind=true)", episodes=40)
    s.run()
    world = s.method.world
    said = [d for r in s.method.critiques for d in world.directives(r)]
    assert said and not any(d[0] in ("trust", "distrust") for d in said)
    seeing = session("portfolio", "reflexion", episodes=40)
    seeing.run()
    assert any(d[0] == "trust" for r in seeing.method.critiques for d in world.directives(r))


# ------------------------------------------------------------------ ExpeL
def test_expel_counts_uses_and_evicts_the_least_used_then_the_oldest_at_100():
    s = session("support", "expel", episodes=160)
    s.run(until=100)
    assert len(s.method.lessons) == 100 and s.method.evicted == 0
    for _ in range(60):
        before = [(x["added"], x["uses"]) for x in s.method.lessons]
        s.step()
        after_ids = {x["added"] for x in s.method.lessons}
        gone = [b for b in before if b[0] not in after_ids]
        assert len(gone) == 1 and len(s.method.lessons) == 100
        # this step's retrieval counted its uses first; then the least-used, oldest among equals, went
        uses_now = {x["added"]: x["uses"] for x in s.method.lessons}
        retrieved = {r["episode"] for r in s.method.last_shown.records}
        victim_added, victim_uses = gone[0][0], gone[0][1] + (gone[0][0] in retrieved)
        assert all((victim_uses, victim_added) <= (uses_now[a], a) for a in uses_now if a != s.t - 1)
    assert s.method.evicted == 60
    assert max(x["uses"] for x in s.method.lessons) > 5  # uses are counted


def test_expel_as_the_released_code_shows_the_last_10_and_never_counts():
    s = session("support", "expel(as_code=true)", episodes=130)
    s.run()
    assert all(x["uses"] == 0 for x in s.method.lessons) and s.method.evicted == 30
    assert [x["added"] for x in s.method.lessons] == list(range(30, 130))  # first in, first out
    assert [r["episode"] for r in s.method.last_shown.records] == list(range(119, 129))


def test_expel_retrieval_prefers_the_same_endpoint_and_counts_nothing_in_test():
    s = session("portfolio", "expel", episodes=208)
    s.run(until=170)  # into the test phase (168 on)
    uses = [x["uses"] for x in s.method.lessons]
    s.run()
    assert [x["uses"] for x in s.method.lessons] == uses


# ------------------------------------------------------------------ Meta-Reflexion
def test_meta_reflexion_distils_every_5_and_hides_and_prunes_by_its_thresholds():
    s = session("portfolio", "meta-reflexion", episodes=168)
    m = s.method
    hidden_then, pruned_ids = 0, set()
    for t in range(168):
        hidden = [r for r in m.rules if r["applications"] >= 3 and m.rate(r) < 0.4]  # as the step begins
        s.step()
        assert m.distillations == (t + 1) // 5  # every 5 (from the 5th on, raw has >= 3)
        for r in m.rules:  # nothing stored is past the prune threshold
            assert not (r["applications"] >= 5 and m.rate(r) < 0.3)
        shown = {tuple(d) for d in m.last_shown.rules}
        assert not shown & {tuple(r["directive"]) for r in hidden}
        hidden_then += len(hidden)
        pruned_ids |= {(r["born"], r["text"]) for r in m.pruned}
        assert len(m.rules) <= 20 and len(shown) <= 10
    assert hidden_then > 0 and pruned_ids
    assert any(r["applications"] >= 5 for r in m.rules)


def test_meta_reflexion_as_code_never_applies_a_rule():
    s = session("portfolio", "meta-reflexion(as_code=true)", episodes=120)
    s.run()
    m = s.method
    assert len(m.rules) > 10 and all(r["applications"] == 0 for r in m.rules) and not m.pruned
    shown = [tuple(d) for d in m.last_shown.rules]
    assert shown == [tuple(r["directive"]) for r in m.rules[:10]]  # the 10 oldest, forever


# ------------------------------------------------------------------ the label fix
def test_the_always_true_label_reproduces_the_degenerate_success_flag():
    fixed = session("portfolio", "expel", episodes=60)
    fixed.run()
    always = session("portfolio", "expel(label=always)", episodes=60)
    always.run()
    assert {x["record"]["success"] for x in fixed.method.lessons} == {True, False}
    assert {x["record"]["success"] for x in always.method.lessons} == {True}


# ------------------------------------------------------------------ against the stateless agent
def _episodes(scenario: str) -> int | None:
    """A third of support's stream is enough to tell (and a third of the time); every bar of a market."""
    return 400 if scenario == "support" else None


@pytest.mark.heavy
@pytest.mark.parametrize("scenario,options", [("support", {}), ("portfolio", {}), ("portfolio", {"data": DFULL})],
                         ids=["support", "synthetic-market", "dfull"])
@pytest.mark.parametrize("method", ["reflexion", "expel", "meta-reflexion"])
def test_every_seed_has_episodes_where_the_method_decides_otherwise_than_the_stateless_agent(method, scenario,
                                                                                              options):
    for seed in SEEDS:
        prior = session(scenario, method, seed, episodes=_episodes(scenario), **options)
        stateless = session(scenario, "fixed:none", seed, episodes=_episodes(scenario), **options)
        decision = (lambda r: r["info"]["route"]) if scenario == "support" else \
            (lambda r: tuple(round(w, 6) for w in r["info"]["weights"].values()))
        assert first_difference(prior, stateless, decision) is not None, \
            f"{method} on seed {seed} decided every episode as the stateless agent"


# ------------------------------------------------------------------ save and resume
@pytest.mark.parametrize("scenario,episodes,cut", [("support", 260, 137), ("portfolio", 208, 171)])
@pytest.mark.parametrize("method", ["reflexion", "expel", "meta-reflexion(every=3)"])
def test_a_save_at_any_episode_resumes_exactly(method, scenario, episodes, cut, tmp_path):
    whole = session(scenario, method, episodes=episodes)
    whole.run()
    part = session(scenario, method, episodes=episodes)
    part.run(until=cut)
    save_session(part, tmp_path / "s.json")
    again = load_session(tmp_path / "s.json", make_scenario)
    assert again.method.state_dict() == part.method.state_dict()
    again.run()
    assert again.history == whole.history
    assert json.dumps(again.method.state_dict()) == json.dumps(whole.method.state_dict())


def _corrupt(tmp_path, selector: str, change) -> str:
    s = session("support", selector, episodes=60)
    s.run()
    save_session(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    change(doc["session"]["method"])
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(AELError) as err:
        load_session(tmp_path / "bad.json", make_scenario)
    return str(err.value)


def test_a_saved_method_state_is_checked_by_its_declared_schema(tmp_path):
    def more_successes(state):
        state["rules"][0]["successes"] = state["rules"][0]["applications"] + 1

    assert "successes in" in _corrupt(tmp_path, "meta-reflexion", more_successes)
    assert "method.lessons.0.uses" in _corrupt(tmp_path, "expel", lambda st: st["lessons"][0].update(uses=-1))
    assert "beyond the 60 episodes" in _corrupt(
        tmp_path, "reflexion", lambda st: st["critiques"][-1].update(episode=99))
    assert "method.critiques.0.text" in _corrupt(tmp_path, "reflexion", lambda st: st["critiques"][0].update(text=3))


def test_the_channels_change_what_the_agent_reads():
    from engine.prior import Shown
    from scenarios.portfolio.prior import prior_advice
    from scenarios.support.prior import prior_votes
    from engine.scenario import Query
    from scenarios.support.bank import ROUTES

    record = {"advice": {"trust": ["a"], "distrust": ["b"], "over": ["S1"], "under": ["S2"]}}
    factor, tilt = prior_advice(Shown(records=[record, record], rules=[("trust", "a")]), ["a", "b", "c"],
                                ["S1", "S2", "S1"])
    assert factor.tolist() == [1.3, 0.8, 1.0] and tilt == {"S1": 0.2, "S2": -0.2}
    rec = {"route": "queue_backpressure", "salient": ["queue", "full"], "endpoint": "/v1/batches"}
    votes = prior_votes(Shown(records=[rec], rules=[("endpoint", "/v1/batches", "auth_env")]),
                        Query(0, "queue full again", {"endpoint": "/v1/batches"}))
    assert votes[ROUTES.index("queue_backpressure")] == pytest.approx(1 + 2 / 3)
    assert votes[ROUTES.index("auth_env")] == 1.0
    assert np.count_nonzero(votes) == 2
