"""The teacher's page counts every key tried, those refused unchecked too (ael_tui/serve/teacher.py).

A barred address's keys are not compared (that is what slows a guesser), and they were not
counted either: a thousand guesses in a second showed the teacher 'Wrong keys tried: 1'."""

from __future__ import annotations

from ael_tui.serve.teacher import KeyGuard

KEY = "k" * 32


class FakeClock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_keys_refused_while_barred_are_counted_apart_and_never_shown():
    guard = KeyGuard(KEY, clock=FakeClock())
    assert guard.summary() == "No wrong keys tried."
    assert not guard.check("10.0.0.7", "guess-0001")
    for _ in range(999):  # the rest of a burst: barred, never compared
        assert guard.barred_for("10.0.0.7") > 0
        guard.refuse_unchecked()
    line = guard.summary()
    assert line == ("Wrong keys tried: 1 (from 1 address(es)), and 999 more refused unchecked while their "
                    "address waited; never shown.")
    assert "guess" not in line and KEY not in line
