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


# ------------------------------------------------------------- the input text
INPUTS = {0: "readtimeout: client timeout of 60s exceeded\n/v1/responses", 1: "refund for a double charge\n/v1/billing",
          2: "bar 2 (2025-01-15 09:30): allocate over 11 tickers and cash; regime mixed"}


def kept_with_inputs(text: str) -> list[int]:
    f = parse(text)
    return [r["episode"] for r in R if f.matches(r, lambda rec: INPUTS[rec["episode"]])]


def test_text_words_look_in_the_input_and_plain_words_in_the_input_too():
    assert kept_with_inputs("text:refund") == [1] and kept("text:refund") == []  # no input given: nothing
    assert kept_with_inputs("text:backend") == []  # in the action, not the input
    assert kept_with_inputs("timeout") == [0] and kept("timeout") == []
    assert kept_with_inputs("media billing") == [1]  # one in the action, one in the input
    assert kept_with_inputs('text:"client timeout of 60s"') == [0] and kept_with_inputs('"allocate over"') == [2]
    assert kept_with_inputs("text:refund wrong") == []


def test_the_input_is_read_only_when_a_word_needs_it():
    reads = []
    f = parse("media")
    assert f.matches(R[1], lambda rec: reads.append(rec) or "")
    assert not reads  # found in the action: the input was not asked for


@pytest.mark.parametrize("text", ['text:"stream', "text:", 'text:""'])
def test_a_text_word_it_cannot_read_is_one_line(text):
    with pytest.raises(AELError) as err:
        parse(text)
    assert "\n" not in str(err.value) and "text:" in str(err.value)


def test_inputs_come_from_the_scenario_by_index_once_per_record():
    import scenarios
    from ael_tui.lab.episode_inputs import InputTexts

    world = scenarios.make_scenario("support", 42, {})
    ticket = scenarios.scenario_class("support").export_stream(42)[918]
    texts = InputTexts(lambda: world)
    record = {"episode": 918, "action": "route → x", "result": "gold y ✗"}
    text = texts(record)
    assert ticket["text"].lower() in text and ticket["endpoint"].lower() in text
    assert texts(record) == text and texts.reads == 1  # kept
    texts({**record})  # another record for episode 918 (a rewind replayed it): read again
    assert texts.reads == 2
    word = ticket["text"].split()[0].lower()
    assert parse(f"text:{word}").matches(record, texts)
