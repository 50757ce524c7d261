"""The episode log you can question: a filter a person types (ael_tui/lab/episode_filter.py)."""

from __future__ import annotations

import pytest

from ael_tui.lab.episode_filter import parse
from engine.errors import AELError

R = [{"episode": 0, "phase": "train", "regime": 0, "policy": "compressed", "reward": 0.0, "correct": False,
      "action": "route → backend_error", "result": "gold session_resume ✗"},
     {"episode": 1, "phase": "train", "regime": 3, "policy": "route_aware", "reward": 1.0, "correct": True,
      "action": "route → media_pipeline", "result": "gold media_pipeline ✓"},
     {"episode": 2, "phase": "test", "regime": 3, "policy": "compressed", "reward": 0.8,
      "action": "weights …; cash 0.20", "result": "+0.4%"}]


def kept(text: str) -> list[int]:
    f = parse(text)
    return [r["episode"] for r in R if f.matches(r)]


def test_each_word_narrows_and_all_must_hold():
    assert kept("") == [0, 1, 2]
    assert kept("✗") == kept("wrong") == [0]
    assert kept("right") == [1, 2]  # no right-or-wrong: a reward of at least 0.5 is right
    assert kept("policy=compressed") == [0, 2] and kept("policy=compressed wrong") == [0]
    assert kept("regime=R3") == kept("regime=3") == [1, 2] and kept("phase=test") == [2]
    assert kept("#1") == [1, 2] and kept("media") == [1] and kept("Cash") == [2]


@pytest.mark.parametrize("text", ["#x", "colour=red", "policy="])
def test_a_word_it_cannot_read_is_one_line(text):
    with pytest.raises(AELError) as err:
        parse(text)
    assert "\n" not in str(err.value)
