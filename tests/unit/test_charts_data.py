"""The numbers behind the pictures (issue 31 item 5), against small cases worked by hand:
the strip's cells, cumulative reward and regret, the best arm in hindsight, the means
per regime, and what the pictures read of a session's decisions."""

from __future__ import annotations

import numpy as np
import pytest

from ael_lab.drawing.data import (Reference, best_arm_in_hindsight, column_of, column_span, cumulative,
                                 hindsight_reference, regime_means, regret, strip_cells)
from ael_lab.drawing.reads import APPROVED, NEW_ARM, REJECTED, PictureData


# ------------------------------------------------------------------ strip
def test_a_run_longer_than_the_strip_is_bucketed_and_each_bucket_shows_its_most_played_arm():
    # 6 episodes over 3 cells: [a a] [b b] [b c]; the last bucket's tie goes to b, which played first
    cells = strip_cells(list("aabbbc"), 6, 3)
    assert [(c.start, c.end, c.arm, c.share) for c in cells] == [(0, 2, "a", 1.0), (2, 4, "b", 1.0), (4, 6, "b", 0.5)]


def test_a_run_shorter_than_the_strip_gives_each_episode_its_cells_and_unplayed_ones_none():
    # 4 planned episodes, 2 played, 8 cells: two cells an episode
    cells = strip_cells(["a", "b"], 4, 8)
    assert [c.arm for c in cells] == ["a", "a", "b", "b", None, None, None, None]
    assert [c.start for c in cells] == [0, 0, 1, 1, 2, 2, 3, 3]


def test_a_bucket_with_a_mixed_majority_says_how_much_of_it_the_arm_played():
    cells = strip_cells(list("abcab"), 5, 1)
    assert (cells[0].arm, cells[0].share) == ("a", 0.4)  # a and b twice each: a played first


@pytest.mark.parametrize("n,columns", [(10, 4), (4, 10), (1200, 77), (7, 7), (3, 80)])
def test_every_episode_is_marked_in_a_column_that_stands_for_it(n, columns):
    for e in range(n):
        start, end = column_span(column_of(e, n, columns), columns, n)
        assert start <= e < end


# ---------------------------------------------------------- reward, regret
def test_cumulative_reward_is_the_running_sum():
    assert cumulative([1, 0, 1, 1]).tolist() == [1, 1, 2, 3]


def test_regret_against_an_oracle_run_sums_its_reward_minus_the_played_one():
    oracle = Reference("vs the oracle", "oracle", per_episode=np.array([1.0, 1.0, 0.0, 1.0]))
    # per episode: 1-0, 1-1, 0-1, 1-0 -> 1, 0, -1, 1
    assert regret([0.0, 1.0, 1.0, 0.0], oracle).tolist() == [1.0, 1.0, 0.0, 1.0]


def test_regret_stops_where_the_shorter_of_the_run_and_its_oracle_does():
    oracle = Reference("vs the oracle", "oracle", per_episode=np.array([1.0, 1.0]))
    assert regret([0.0, 0.0, 0.0], oracle).tolist() == [1.0, 2.0]


def test_the_best_arm_in_hindsight_needs_enough_plays_and_regret_uses_its_mean():
    policies = ["a", "a", "a", "b", "b", "b", "c"]
    rewards = [1, 0, 1, 1, 1, 0, 1]  # a 2/3, b 2/3 (a played first), c 1/1 but one play only
    assert best_arm_in_hindsight(policies, rewards, min_pulls=2) == ("a", pytest.approx(2 / 3), 3)
    assert best_arm_in_hindsight(policies, rewards, min_pulls=1)[0] == "c"
    ref = hindsight_reference(policies, rewards)  # at least 5 plays asked: none has, so all count
    assert ref is not None and ref.constant == 1.0 and "c" in ref.label and "no oracle" in ref.label
    assert regret([1.0, 0.0], Reference("", "", constant=0.75)).tolist() == [-0.25, 0.5]


def test_no_episodes_no_yardstick():
    assert hindsight_reference([], []) is None


# ------------------------------------------------------------------ regimes
def test_means_per_regime_follow_the_scenarios_order_and_skip_episodes_without_one():
    means = regime_means([1, 0, 1, 1, 0, 1], [1, 1, 0, None, 0, 7], ["R0", "R1"])
    assert [(m.regime, m.mean, m.episodes) for m in means] == [("R0", 0.5, 2), ("R1", 0.5, 2), ("7", 1.0, 1)]


# ------------------------------------------------------------------ reads
def test_regime_starts_name_each_run_of_one_regime():
    d = PictureData("ts", 6, ["a"], ["a"] * 6, [1.0] * 6, "reward", [1.0] * 6, [0, 0, 1, 1, 0, None], ["R0", "R1"])
    assert d.regime_starts == [(0, "R0"), (2, "R1"), (4, "R0")]


def test_the_pictures_read_the_decisions_of_a_session(monkeypatch):
    from engine.approvals import AuditEntry
    from ael_lab.drawing.reads import decisions_of, picture_data
    from tests.tui_helpers import synthetic

    s = synthetic(approval="auto")
    s.run(until=40)
    s.queue.audit.append(AuditEntry(99, 20, 7, "insight", "reject", "human", {}, None))
    kinds = {(d.episode, d.kind) for d in decisions_of(s)}
    assert (21, REJECTED) in kinds                      # a decision marks the first episode it could change
    assert {(i["episode"], NEW_ARM) for i in s.injections} <= kinds
    assert any(k == APPROVED for _, k in kinds)         # the synthetic world's arm proposal, approved
    d = picture_data(s)
    assert d.policies == [r["policy"] for r in s.history] and d.n == s.n_episodes
    assert d.arms == [a.name for a in s.selector.arms]
