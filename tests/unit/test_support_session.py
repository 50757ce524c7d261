"""The support scenario through the engine's session: resume mid-R3, and an injected arm survives a save."""

import json

import pytest

from engine.store.persistence import load_session, save_session
from engine.results import run_result
from scenarios import make_scenario
from tests.conftest import new_session


@pytest.mark.heavy
def test_saving_in_the_middle_of_regime_3_then_resuming_gives_the_identical_run(tmp_path):
    whole = new_session("support", seed=123)
    whole.run()
    part = new_session("support", seed=123)
    part.run(until=1010)
    assert part.injections and part.phase == "train" and part.scenario.regime(part.t) == 3
    save_session(part, tmp_path / "mid.json")
    resumed = load_session(tmp_path / "mid.json", make_scenario)
    resumed.run()
    assert resumed.history == whole.history
    assert resumed.selector.to_dict() == whole.selector.to_dict()
    assert json.dumps(resumed.memory.to_dict()) == json.dumps(whole.memory.to_dict())


def test_an_injected_arm_saves_and_loads_with_its_posterior_and_its_audit_entry(tmp_path):
    s = new_session("support", seed=42)
    s.run(until=1000)
    [inj] = s.injections
    assert (inj["episode"], inj["arm"]) == (920, "route_aware")
    save_session(s, tmp_path / "s.json")
    loaded = load_session(tmp_path / "s.json", make_scenario)
    arm = loaded.selector.arms[loaded.selector.index("route_aware")]
    original = s.selector.arms[s.selector.index("route_aware")]
    assert (arm.alpha, arm.beta, arm.pulls, arm.added_at) == (original.alpha, original.beta, original.pulls, 920)
    assert arm.pulls > 0 and loaded.pool["route_aware"] == s.pool["route_aware"]
    [entry] = [a for a in loaded.queue.audit if a.kind == "arm"]
    assert entry.decision == "approve" and entry.who == "rule:auto-approve"
    assert entry.accepted["name"] == "route_aware" and entry.proposal_id == inj["proposal"]


def test_the_results_regimes_are_the_routing_accuracy():
    s = new_session("support", seed=7, episodes=400)
    s.run()
    result = run_result(s)
    for g, name in enumerate(["R0", "R1"]):
        rows = [h for h in s.history if h["regime"] == g]
        assert result["regimes"][name] == sum(bool(h["correct"]) for h in rows) / len(rows)
    assert result["overall"] == sum(bool(h["correct"]) for h in s.history) / 400


def test_manual_approval_of_route_aware_near_920():
    s = new_session("support", seed=42, approval="manual")
    s.queue.set_standing("insight", "approve")
    s.run()
    [p] = s.queue.pending
    assert p.kind == "arm" and p.payload["name"] == "route_aware" and s.t == 920
    assert p.rationale and p.evidence
    s.decide(p.id, "approve")
    s.run()
    assert s.done and s.injections[0]["episode"] == 920
