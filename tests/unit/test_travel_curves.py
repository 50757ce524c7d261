"""Cumulative reward and regret after going back (issue 41 item 4): the run ahead is drawn too,
and regret without an oracle is never negative and keeps its yardstick when the session goes
back (the best arm's mean over the run as known now)."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from ael_tui.lab.travel_chart import GHOST, NOW, cumulative_with_travel, travel_marks
from ael_lab.drawing.data import Reference, hindsight_reference, regret
from ael_lab.drawing.reads import picture_source
from engine.session import Session, SessionConfig


def charts(s: Session, kind: str):
    return cumulative_with_travel(kind, picture_source(s, list(s.history)), travel_marks(s, None))


@pytest.fixture(scope="module")
def went_back():
    s = Session(SessionConfig(scenario="synthetic", seed=42, selector="ts"),
                scenarios.make_scenario("synthetic", 42, {}))
    s.run()
    at_end = charts(s, "regret")
    s.rewind_to(100)
    return s, at_end


def test_regret_keeps_its_yardstick_and_the_run_ahead_is_drawn(went_back):
    s, at_end = went_back
    back = charts(s, "regret")
    assert back.title == at_end.title  # the same best arm and mean: going back moved nothing
    ghost, live = back.series[0], back.series[1]
    assert ghost.colour == GHOST and len(ghost.y) == s.n_episodes > 100 and len(live.y) == 100
    assert np.allclose(ghost.y[:100], live.y) and np.allclose(ghost.y, at_end.series[0].y)
    assert (100, NOW) in back.vlines and ("run ahead", GHOST) in back.legend
    assert np.all(np.diff(ghost.y) >= 0) and np.min(ghost.y) >= 0  # never negative, never falling


def test_cumulative_reward_draws_the_run_ahead(went_back):
    s, _ = went_back
    chart = charts(s, "cumulative")
    ghost, live = chart.series[0], chart.series[1]
    assert len(live.y) == 100 and np.array_equal(live.y, ghost.y[:100])  # the run so far, on the run ahead
    assert len(ghost.y) == s.n_episodes and ghost.y[-1] == sum(r["reward"] for r in s.timeline.tape.history)
    assert chart.left.high >= ghost.y[-1]  # the axis holds the run ahead, not only the run so far


def test_regret_against_the_best_arm_counts_the_played_arms_shortfall_never_a_lucky_draw():
    policies = ["a"] * 6 + ["b"] * 6
    rewards = [1, 1, 1, 1, 0, 1] + [1, 0, 0, 1, 0, 0]  # a 5/6, b 2/6
    ref = hindsight_reference(policies, rewards)
    assert ref.arm_means == {"a": pytest.approx(5 / 6), "b": pytest.approx(2 / 6)}
    curve = regret(rewards, ref, policies)
    assert curve.tolist() == pytest.approx([0] * 6 + [0.5 * i for i in range(1, 7)])
    assert regret([1.0, 0.0], Reference("", "", constant=0.75)).tolist() == [-0.25, 0.5]  # a bare constant
