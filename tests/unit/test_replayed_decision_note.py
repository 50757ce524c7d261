"""The decision dialog on a replayed run says how the proposal was decided on the run ahead
(issue 41 item 4; ael_tui/lab/time_travel.decided_ahead, which the lab's dialog shows)."""

from __future__ import annotations

import scenarios
from ael_tui.lab.time_travel import decided_ahead
from engine.session import Session, SessionConfig


def test_a_proposal_met_again_says_how_the_run_ahead_decided_it():
    s = Session(SessionConfig(scenario="synthetic", seed=42, approval="manual"),
                scenarios.make_scenario("synthetic", 42, {}))
    while not s.queue.pending:
        s.step()
    p = s.queue.pending[0]
    assert decided_ahead(s, p) == ""  # the first time: nothing lies ahead
    at = s.t
    s.decide(p.id, "reject", reason="not now")
    for _ in range(5):
        if s.queue.pending:
            break
        s.step()
    s.rewind_to(at - 1)
    s.step()  # to the same boundary along the run ahead: the person's decision waits for the person
    again = s.queue.pending[0]
    assert again.id == p.id
    note = decided_ahead(s, again)
    assert note.startswith(f"On the run ahead this proposal was rejected by human after episode {at - 1} (not now)")
    assert "deciding otherwise starts a branch" in note


def test_deciding_otherwise_shows_a_branch_at_once_and_the_same_decision_the_run_ahead():
    from ael_tui.lab.travel_chart import travel_marks

    s = Session(SessionConfig(scenario="synthetic", seed=42, approval="manual"),
                scenarios.make_scenario("synthetic", 42, {}))
    while not s.queue.pending:
        s.step()
    p, at = s.queue.pending[0], s.t
    s.decide(p.id, "reject")
    s.run(until=at + 20)
    s.rewind_to(at - 1)
    s.step()
    assert travel_marks(s, None).ghost_label == "run ahead"
    s.decide(p.id, "approve")  # otherwise: before any step, the legend says the run ahead is left
    marks = travel_marks(s, None)
    assert marks.ghost_label == "original" and marks.reach == s.t
