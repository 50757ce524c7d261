"""Going back survives a save (issue 31: "all of it audited, saved, and resumed exactly").

A session saved after a rewind keeps the run ahead: loaded, it steps on to the run it
had, and a proposal a person decided in that run waits for the person again, as it
would have if the session had never stopped. A branch's original comes back with the
save, for the compare view. A timeline that belongs to another run is refused in one
line naming the field.
"""

from __future__ import annotations

import json

import pytest

import scenarios
from engine.errors import AELError
from engine.session import Session, SessionConfig
from engine.store.persistence import load_session, save_session
from tests.unit.test_timetravel import comparable

WORLDS = [("synthetic", {}), ("support", {}), ("portfolio", {"data": "synthetic"})]


def new(name: str, options: dict, approval: str = "auto", **kw) -> Session:
    return Session(SessionConfig(scenario=name, seed=42, scenario_options=options, approval=approval, **kw),
                   scenarios.make_scenario(name, 42, options))


@pytest.mark.parametrize("name, options", WORLDS, ids=[w for w, _ in WORLDS])
def test_a_save_after_a_rewind_steps_on_to_the_run_it_had(tmp_path, name, options):
    s = new(name, options, episodes=160 if name == "support" else None)
    s.run()
    full = comparable(s)
    s.rewind_to(s.n_episodes // 3)
    save_session(s, tmp_path / "back.json")
    loaded = load_session(tmp_path / "back.json", scenarios.make_scenario)
    assert loaded.t == s.n_episodes // 3 and loaded.timeline.reach(loaded) == s.n_episodes  # the run ahead came back
    loaded.run()
    assert loaded.timeline.diverged_at is None  # every replayed episode matched the saved run ahead
    assert comparable(loaded) == full


def _person_overrode_a_rule() -> tuple[Session, int, dict]:
    """An auto-approving support run where a person reopened the first approval and rejected it."""
    s = new("support", {}, episodes=1000)
    while not any(a.who.startswith("rule:") and a.decision == "approve" for a in s.queue.audit):
        s.step()
    entry = next(a for a in s.queue.audit if a.who.startswith("rule:") and a.decision == "approve")
    s.reopen(entry.proposal_id)
    s.decide(entry.proposal_id, "reject", reason="a person's no")
    s.run()
    return s, entry.proposal_id, comparable(s)


def test_a_persons_decision_in_the_saved_run_ahead_waits_for_the_person_again(tmp_path):
    s, pid, full = _person_overrode_a_rule()
    s.rewind_to(1)
    save_session(s, tmp_path / "back.json")
    loaded = load_session(tmp_path / "back.json", scenarios.make_scenario)
    loaded.run()
    assert loaded.blocked_reason is not None and [p.id for p in loaded.queue.pending] == [pid]  # not the rule's
    loaded.decide(pid, "reject", reason="a person's no")
    loaded.run()
    assert comparable(loaded)["history"] == full["history"]


def test_a_branchs_original_comes_back_with_the_save(tmp_path):
    s = new("synthetic", {})
    s.run(until=120)
    s.timeline.original = json.loads(json.dumps(s.to_dict()))  # what the lab keeps before going back
    s.rewind_to(40)
    save_session(s, tmp_path / "branch.json")
    loaded = load_session(tmp_path / "branch.json", scenarios.make_scenario)
    assert loaded.timeline.original == s.timeline.original


def _saved_with(tmp_path, change) -> str:
    s = new("synthetic", {})
    s.run(until=60)
    s.timeline.original = json.loads(json.dumps(s.to_dict()))
    s.rewind_to(30)
    path = tmp_path / "s.json"
    save_session(s, path)
    doc = json.loads(path.read_text())
    change(doc["timeline"])
    path.write_text(json.dumps(doc))
    with pytest.raises(AELError) as refused:
        load_session(path, scenarios.make_scenario)
    assert "\n" not in str(refused.value)
    return str(refused.value)


def test_a_timeline_of_another_run_is_refused_in_one_line(tmp_path):
    def other_episode(t):
        t["tape"]["history"][3]["reward"] = 1.0 - t["tape"]["history"][3]["reward"]

    assert "timeline.tape.history[3]" in _saved_with(tmp_path, other_episode)
    assert "timeline.tape.t" in _saved_with(tmp_path, lambda t: t["tape"].update(t=10, history=t["tape"]["history"][:10]))
    assert "timeline.tape" in _saved_with(tmp_path, lambda t: t["tape"].update(t=61))  # t against its history
    assert "timeline.original.config.seed" in _saved_with(tmp_path, lambda t: t["original"]["config"].update(seed=7))
    assert "timeline.unknown" in _saved_with(tmp_path, lambda t: t.update(unknown=1))
    # the original is rebuilt by the compare view: its world's state is checked as the session's is
    assert "timeline.original.scenario_state" in _saved_with(
        tmp_path, lambda t: t["original"].update(scenario_state={"planted": 1}))
