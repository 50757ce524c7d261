"""The planners variant's new planners are decisions: a library planner is a proposal a
person (or a rule) decides, audited; with a model, a planner written as code is vetted,
waits for a person and runs only in the sandbox; both save and resume."""

from __future__ import annotations

import os

import pytest

from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from engine.reflection import Reflection
from engine.session import Session, SessionConfig
from scenarios import make_scenario
from tests.fake_llm_server import ok

PLAN = ("def plan(scores, weights, tools):\n"
        "    xs = [s * w for s, w in zip(scores, weights) if s is not None]\n"
        "    return -sum(xs) / len(xs) if xs else 0.0\n")
MISLED = ["compute_momentum", "compute_technicals"]


def planners_session(approval="manual", llm=None, episodes=30) -> Session:
    c = SessionConfig(scenario="portfolio", seed=42, selector="ts+reflection", episodes=episodes,
                      variants=["planners"], approval="auto", llm=llm or {})
    s = Session(c, make_scenario("portfolio", 42, {}))
    s.run(until=20)
    s.queue.mode = approval   # decided from here on as the test says
    return s


def fail_three_times(s: Session) -> None:
    from engine.proposers import queue_outboxes

    v = s.variants.get("planners")
    for _ in range(3):
        v.window = ["adaptive"] * 4
        v.reflected(s, Reflection(episode=s.t - 1, trigger="diagnose", diagnosis="bad.",
                                  evidence={"mean_score": -0.3, "misled": MISLED}))
    queue_outboxes(s, [])


def test_a_library_planner_waits_for_a_decision_and_joins_only_when_approved():
    s = planners_session()
    fail_three_times(s)
    v = s.variants.get("planners")
    [p] = s.queue.pending
    assert p.kind == "planner" and p.payload["name"] == "reversal" and not p.code and p.reflection == -1
    assert "reversal" not in v.arms and "a new planner" in s.blocked_reason
    s.decide(p.id, "approve", standing=True)
    assert "reversal" in v.arms and v.arms["reversal"].added_at == 20
    assert s.queue.standing == {"planner": "approve"} and s.queue.audit[-1].decision == "approve"


def test_a_rejected_library_planner_never_joins():
    s = planners_session()
    fail_three_times(s)
    [p] = s.queue.pending
    s.decide(p.id, "reject", reason="not now")
    assert "reversal" not in s.variants.get("planners").arms
    assert s.queue.audit[-1].decision == "reject" and s.queue.audit[-1].kind == "planner"
    s.queue.mode = "auto"
    s.run()
    assert s.t == 30 and "reversal" not in s.variants.get("planners").arms


def test_a_pending_planner_proposal_saves_and_resumes_exactly(tmp_path):
    whole = planners_session()
    fail_three_times(whole)
    whole.decide(whole.queue.pending[0].id, "approve")
    whole.queue.mode = "auto"
    whole.run()
    part = planners_session()
    fail_three_times(part)
    save_session(part, tmp_path / "p.json")
    part = load_session(tmp_path / "p.json", make_scenario)
    part.decide(part.queue.pending[0].id, "approve")
    part.queue.mode = whole.queue.mode = "auto"
    part.run()
    assert part.history == whole.history
    assert part.variants.state_dict() == whole.variants.state_dict()


def test_a_model_written_planner_is_code_a_person_admits_and_runs_only_in_the_sandbox(gemini, tmp_path):
    s = planners_session(llm={"reflector": "gemini"}, episodes=26)
    gemini.script(ok({"code": PLAN, "rationale": "fade the consensus"}))
    fail_three_times(s)
    [p] = s.queue.pending
    assert p.kind == "planner" and p.code and p.payload["code"] == PLAN and p.source == "llm"
    with pytest.raises(AELError, match="as it stands"):
        s.decide(p.id, "edit", edited={})
    s.decide(p.id, "approve")
    v = s.variants.get("planners")
    name = p.payload["name"]
    assert v.arms[name].code == PLAN and len(s.queue.audit[-1].code_sha256) == 64
    # chosen, its views come from the worker
    for arm in v.arms.values():
        arm.b[:] = -5.0
    v.arms[name].b[:] = 5.0
    s.run(until=22)
    assert s.history[-1]["variant"]["planner"] == name
    assert s.code_arms.worker is not None and s.code_arms.worker.pid != os.getpid()
    save_session(s, tmp_path / "c.json")
    loaded = load_session(tmp_path / "c.json", make_scenario)
    assert list(loaded.code_arms.quarantined) == [f"planner {name}"]
    with pytest.raises(AELError, match="quarantined"):
        loaded.step()
    loaded.review_code_arm(f"planner {name}", "reject")
    assert name not in loaded.variants.get("planners").arms
    loaded.queue.mode = "auto"
    loaded.run()
    assert loaded.t == 26


def test_in_batch_modes_a_model_written_planner_is_rejected(gemini):
    s = planners_session("auto", llm={"reflector": "gemini"})
    gemini.script(ok({"code": PLAN, "rationale": "x"}))
    fail_three_times(s)
    assert s.queue.audit[-1].who == "rule:code-needs-a-person" and s.queue.audit[-1].decision == "reject"
    assert all(not a.code for a in s.variants.get("planners").arms.values())


def test_hostile_planner_code_falls_back_to_the_library_planner(gemini):
    s = planners_session(llm={"reflector": "gemini"})
    gemini.script(ok({"code": "import os\ndef plan(scores, weights, tools):\n    return 0\n", "rationale": "x"}))
    fail_three_times(s)
    [p] = s.queue.pending
    assert p.payload["name"] == "reversal" and not p.code
