"""The lab loop: phases, freezing, the approval queue and its audit log, events."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import events as ev
from engine.errors import AELError
from engine.session import Session
from scenarios import make_scenario
from tests.conftest import new_session


def run_to_first_proposal(s: Session) -> None:
    s.run()
    assert s.queue.pending, "expected a pending proposal"


def test_manual_mode_stops_at_a_proposal_and_refuses_to_step():
    s = new_session(approval="manual")
    run_to_first_proposal(s)
    p = s.queue.pending[0]
    assert p.kind == "arm" and p.payload["name"] == "a10"
    assert "waiting for a decision" in s.blocked_reason
    with pytest.raises(AELError, match="cannot step: proposal #1"):
        s.step()


def test_approving_adds_the_arm_with_the_prior_and_logs_who_and_why():
    s = new_session(approval="manual", prior=(2.0, 3.0))
    run_to_first_proposal(s)
    events = s.decide(s.queue.pending[0].id, "approve", reason="looks right")
    assert [e.kind for e in events] == ["Decided", "ArmAdded"]
    arm = s.selector.arms[-1]
    assert (arm.name, arm.alpha, arm.beta, arm.added_at) == ("a10", 2.0, 3.0, s.t)
    [entry] = s.queue.audit
    assert (entry.decision, entry.who, entry.reason) == ("approve", "human", "looks right")
    assert entry.accepted == s.pool["a10"].to_dict()
    assert s.injections == [{"episode": s.t, "arm": "a10", "proposal": 1}]
    s.step()  # stepping resumes


def test_rejecting_keeps_the_pool_and_records_the_reason():
    s = new_session(approval="manual")
    run_to_first_proposal(s)
    s.decide(1, "reject", reason="too early")
    assert "a10" not in s.pool
    assert s.queue.audit[-1].decision == "reject" and s.queue.audit[-1].accepted is None
    with pytest.raises(AELError, match="already decided"):
        s.decide(1, "approve")


def test_an_invalid_edit_is_refused_naming_the_field_and_a_valid_one_is_used_normalised():
    s = new_session(approval="manual")
    run_to_first_proposal(s)
    p = s.queue.pending[0]
    with pytest.raises(AELError, match="'k'"):
        s.decide(p.id, "edit", edited={"name": "a10", "k": -3})
    assert p.status == "pending" and not s.queue.audit
    s.decide(p.id, "edit", edited={"name": "a10", "description": "edited"})
    assert s.pool["a10"].description == "edited"
    assert s.queue.audit[-1].accepted["description"] == "edited"
    assert s.queue.audit[-1].accepted["k"] == 0  # the normalised object, defaults filled in


def test_a_standing_rule_approves_without_asking_and_says_so():
    s = new_session(approval="manual")
    s.queue.set_standing("arm", "approve")
    s.run()
    assert s.done and not s.queue.pending
    assert s.queue.audit[0].who == "rule:always-approve-arm"


def test_batch_modes_auto_and_reject():
    auto = new_session(approval="auto")
    auto.run()
    assert auto.queue.audit[0].who == "rule:auto-approve" and auto.injections
    rej = new_session(approval="reject")
    rej.run()
    assert rej.queue.audit and all(a.decision == "reject" for a in rej.queue.audit)
    assert not rej.injections


def test_test_phase_freezes_learning_but_keeps_choosing():
    s = new_session(selector="ts", split=(0.5, 0.25))
    s.run(until=155)
    assert not s.frozen
    events = s.step()  # the last val episode: learning freezes as it ends, before any test episode
    assert any(isinstance(e, ev.PhaseChanged) and e.frozen and e.episode == 156 for e in events)
    assert s.frozen and s.phase == "test"
    counts = [(a.alpha, a.beta) for a in s.selector.arms]
    mem = s.memory.counts()
    s.run()
    assert [(a.alpha, a.beta) for a in s.selector.arms] == counts
    assert s.memory.counts() == mem
    assert len({h["policy"] for h in s.history[156:]}) > 1


def test_warm_up_plays_the_first_arm_without_drawing_or_writing():
    s = new_session(selector="ts", warmup=15)
    s.run(until=15)
    assert {h["policy"] for h in s.history} == {"a0"} and {h["phase"] for h in s.history} == {"warmup"}
    assert s.memory.counts()["episodic"] == 0
    assert s.selector.arms[0].pulls == 15  # the reference still credits the forced arm


def test_events_are_typed_and_returned_by_the_steps():
    s = new_session()
    seen = s.run(until=30)
    kinds = {e.kind for e in seen}
    assert {"EpisodeDone", "Reflected", "ProposalQueued", "Decided", "ArmAdded", "Distilled"} <= kinds
    assert all(json.dumps(e.to_dict()) for e in seen)


def test_memory_learns_in_the_synthetic_scenario():
    s = new_session(selector="ts")
    s.run()
    counts = s.memory.counts()
    assert counts["episodic"] == 208 and counts["semantic"] > 0 and counts["procedural"] > 0


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 207), st.sampled_from(["ts+reflection", "ucb1", "egreedy", "oracle"]))
def test_save_at_any_episode_then_load_continues_the_same_run(k, selector):
    whole = new_session(selector=selector)
    whole.run()
    part = new_session(selector=selector)
    part.run(until=k)
    doc = json.loads(json.dumps(part.to_dict()))
    resumed = Session.from_dict(doc, make_scenario)
    resumed.run()
    assert resumed.history == whole.history
    assert resumed.selector.to_dict() == whole.selector.to_dict()
    assert resumed.memory.to_dict() == whole.memory.to_dict()


def test_the_synthetic_reflector_waits_after_a_rejection_instead_of_asking_every_window():
    from ael_tui.widgets.opening import NewSession, build_session
    s = build_session(NewSession("synthetic", 42, "ts+reflection", "manual"))
    s.run()
    first = s.queue.pending[0]
    s.decide(first.id, "reject", reason="not yet")
    s.run()
    assert s.queue.pending and s.queue.pending[0].episode >= first.episode + 1 + 39
