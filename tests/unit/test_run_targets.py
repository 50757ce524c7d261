"""Run modes stop where the engine says, whoever drives the session."""

import pytest

from engine import events as ev
from engine.errors import AELError
from engine.run_targets import run_target
from tests.conftest import new_session


def test_step_window_and_phase_targets():
    s = new_session(approval="auto")  # synthetic: slow window 13, one train phase of 208
    s.run(until=5)
    assert run_target(s, "step")[0] == 6
    assert run_target(s, "window")[0] == 13
    assert run_target(s, "phase")[0] == 208


def test_reflection_and_proposal_stop_on_their_events():
    s = new_session(approval="auto")
    end, stop_on = run_target(s, "reflection")
    events = s.run(until=end, stop_on=stop_on)
    assert any(isinstance(e, ev.Reflected) for e in events)
    _, proposal = run_target(s, "proposal")
    assert proposal([ev.ProposalQueued(1, 1, "arm")]) and not proposal([ev.Reflected(1, 0, "gate", "x")])


def test_an_unknown_mode_is_refused_with_the_known_ones():
    with pytest.raises(AELError, match="step, window"):
        run_target(new_session(), "fast")
