"""A failed step is undone from a checkpoint of what a step changes, not a copy of the
whole session: afterwards the session is exactly as before and runs on identically."""

import json

import pytest

from tests.conftest import new_session


@pytest.mark.heavy
@pytest.mark.parametrize("scenario, until", [("portfolio", 31), ("synthetic", 12), ("support", 119)])
def test_rolling_back_a_step_restores_the_session_exactly(scenario, until):
    s = new_session(scenario, seed=5, selector="ts+reflection", approval="auto")
    s.run(until=until)
    before = json.dumps(s.to_dict(), sort_keys=True)
    cp = s._checkpoint()
    s.step()  # crosses a slow window: memory, reflection, proposals, scenario state all move
    s.step()
    assert json.dumps(s.to_dict(), sort_keys=True) != before
    s._rollback(cp)
    assert json.dumps(s.to_dict(), sort_keys=True) == before
    s.run()
    straight = new_session(scenario, seed=5, selector="ts+reflection", approval="auto")
    straight.run()
    assert s.history == straight.history
