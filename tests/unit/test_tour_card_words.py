"""Tour cards quote a diagnosis cut after a whole word, never mid-word, and name the episodes the
reflection read as its evidence (and the Reflection panel beside the card) does (issue 41 item 6)."""

from __future__ import annotations

import scenarios
from ael_tui.tour.guide import DIAGNOSIS, TourGuide, words_within
from engine.reflection import Reflection
from engine.session import Session, SessionConfig

LONG = ("Accuracy 0.558 over episodes 800–919 is below 0.58; of the 22 failures in episodes 880–919, "
        "route_aware would have fixed 8 that all 5 initial policies miss. The failing tickets' text is shared "
        "across routes while their endpoint tells the route: retrieval must condition on the endpoint.")


class Diagnoses:
    name, trigger = "test", "diagnose"

    def should_reflect(self, ctx) -> bool:
        return True

    def reflect(self, ctx) -> Reflection:
        return Reflection(ctx.episode, "diagnose", LONG, insight="Route by the endpoint.",
                          evidence={"trailing_window": [800, 919], "slow_window": [880, 919]})

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state) -> None:
        pass


def test_a_long_diagnosis_is_cut_after_a_word_and_the_windows_are_the_evidences():
    s = Session(SessionConfig(scenario="synthetic", seed=42), scenarios.make_scenario("synthetic", 42, {}))
    s.reflector = Diagnoses()
    guide = TourGuide(s, key_for=lambda _: "d")
    while not any(c.moment == "reflected" for c in guide.cards):
        guide.feed(s.step(), s)
    card = next(c for c in guide.cards if c.moment == "reflected")
    quoted = card.text.split("Diagnosis: ", 1)[1].split("…", 1)[0]
    assert LONG.startswith(quoted) and LONG[len(quoted)] == " "  # the next character starts a new word
    assert "episodes 800–919 (its gate's trailing window) and 880–919 (the slow window it diagnoses)" in card.text
    assert "over the last" not in card.text  # not a window size the panel beside it does not show


def test_words_within_never_cuts_a_word():
    assert words_within("short", 10) == "short"
    cut = words_within(LONG, DIAGNOSIS)
    assert len(cut) <= DIAGNOSIS and cut.endswith("…") and LONG[len(cut) - 1] == " "
