"""Where a run of several episodes stops: the run modes of the lab and the compare view.

A target is (the episode to stop before, a test on each step's events that stops
earlier). It is the engine's rule, so the lab, the compare view and any other
driver stop at the same places; an interface only names the mode.
"""

from __future__ import annotations

from typing import Callable

from . import events as ev
from .errors import AELError

StopOn = Callable[[list[ev.Event]], bool] | None

RUN_MODES = {
    "step": "one episode",
    "window": "one slow window",
    "proposal": "to the next reflection that proposes something",
    "reflection": "to the next reflection",
    "phase": "to the end of the phase",
}


def proposed(events: list[ev.Event]) -> bool:
    return any(isinstance(e, ev.ProposalQueued) for e in events)


def reflected(events: list[ev.Event]) -> bool:
    return any(isinstance(e, ev.Reflected) for e in events)


def run_target(session, mode: str, t: int | None = None, n_episodes: int | None = None) -> tuple[int, StopOn]:
    """The target of `mode` for `session` at episode `t` (its own by default) in a run of
    `n_episodes` (its own by default: a comparison passes its longest session's)."""
    t = session.t if t is None else t
    n = session.n_episodes if n_episodes is None else n_episodes
    if mode == "step":
        return t + 1, None
    if mode == "window":
        w = session.slow_window
        return (t // w + 1) * w, None
    if mode == "proposal":
        return n, proposed
    if mode == "reflection":
        return n, reflected
    if mode == "phase":
        phase = session.phase_of(min(t, session.n_episodes - 1))
        # the warm-up is the start of training, not a phase to stop at: every selector plays the
        # same first arm in it, and results count its bars in train (stopping there showed
        # "the train phase" measured on warm-up bars alone, the same for every selector)
        end = session.phase_ends["train" if phase == "warmup" else phase]
        return (end if end > t else n), None
    raise AELError(f"unknown run mode {mode!r} (expected {', '.join(RUN_MODES)})")
