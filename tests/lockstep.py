"""Two sessions stepped side by side only as far as it takes to tell them apart.

"A method decides otherwise than the stateless agent on some episode" is settled at the first
episode where they differ: running both to the end (a whole market for every seed, method and
world) was a tenth of the unit tests' time for an answer known after a few dozen episodes.
Decisions at episode t depend only on what came before it, so stepping both together decides
exactly what comparing two finished runs does."""

from __future__ import annotations

from typing import Any, Callable

from engine.session import Session


def first_difference(a: Session, b: Session, decision: Callable[[dict[str, Any]], Any]) -> int | None:
    """The first episode at which `a` and `b` decide otherwise (by `decision` of its record), or
    None if they never do before either ends."""
    while not (a.done or b.done):
        a.step()
        b.step()
        if decision(a.history[-1]) != decision(b.history[-1]):
            return len(a.history) - 1
    return None
