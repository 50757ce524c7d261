"""Shared setup for the lab's interface tests (tests/lab/, tests/served/).

What makes a screen flaky is frozen here: the wall clock the engine stamps on
decisions and saves, the cursor blink, the user's own keymap file, and the
delay between episodes (0 unless a test asks for one). A test that needs time to
pass (a throttled redraw, the run keys' delay, the wait between episodes) gives the
lab a `FakeClock` and advances it; no test sleeps to outwait the interface.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

import engine.approvals
import engine.store.persistence
from ael_tui.app import AelLab
from ael_tui.clock import SYSTEM_CLOCK, Clock
from ael_tui.config import LabSettings
from ael_tui.widgets.opening import NewSession, build_session

FROZEN_NOW = "2026-01-02T03:04:05+00:00"


@pytest.fixture(autouse=True)
def frozen_lab(monkeypatch, tmp_path):
    """Freeze time, ignore the user's keymap, and work in a temporary folder with an empty saves/."""
    monkeypatch.setattr(engine.approvals, "now_iso", lambda: FROZEN_NOW)
    monkeypatch.setattr(engine.store.persistence, "now_iso", lambda: FROZEN_NOW)
    monkeypatch.setenv("AEL_LAB_KEYS", str(tmp_path / "no-keys.json"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "saves").mkdir()
    yield tmp_path


def synthetic(approval: str = "manual", seed: int = 42):
    return build_session(NewSession("synthetic", seed, "ts+reflection", approval))


class FakeClock(Clock):
    """A clock that stands still until the test advances it. Its timers fire inside
    `advance`, on the test's (the app's) thread; a worker waiting out the delay between
    episodes (`wait`) goes on once the clock has moved that far, or at a pause."""

    # a worker's wait ends after this many real seconds even if the clock never moves, and
    # the clock waits no more: when a pause is broken (the test fails on `settle`'s bound),
    # the run's thread then runs to its end instead of holding the test process open forever
    STALL = 10.0

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start
        self.timers: list[FakeTimer] = []
        self.sleepers = 0                    # worker threads inside `wait`
        self.stalled = False                 # a wait outlasted STALL: `wait` returns at once
        self._moved = threading.Condition()

    def __call__(self) -> float:
        return self.t

    def later(self, set_timer, delay: float, callback: Callable[[], object]) -> "FakeTimer":
        timer = FakeTimer(self.t + delay, callback)
        self.timers.append(timer)
        return timer

    def advance(self, seconds: float) -> None:
        """Move on `seconds`, firing every timer due by then, earliest first."""
        with self._moved:
            self.t += seconds
            self._moved.notify_all()
        while due := sorted((tm for tm in self.timers if tm.due <= self.t), key=lambda tm: tm.due):
            self.timers.remove(due[0])
            due[0].callback()

    def wait(self, event: threading.Event, seconds: float) -> bool:
        until, stalled = self.t + seconds, time.monotonic() + self.STALL
        if self.stalled:
            return event.is_set()
        with self._moved:
            self.sleepers += 1
            self._moved.notify_all()
            try:
                # (a set event notifies nobody: look again every few ms; the clock only moves in `advance`)
                while not event.is_set() and self.t < until and time.monotonic() < stalled:
                    self._moved.wait(0.005)
            finally:
                self.sleepers -= 1
            self.stalled = self.stalled or (self.t < until and not event.is_set())
        return event.is_set()

    async def until_waiting(self, bound: float = 30.0) -> None:
        """Until a worker waits on this clock (a run has taken its step and waits out the
        delay); `bound` only turns a hang into a failure."""
        def waiting() -> bool:
            with self._moved:
                return self._moved.wait_for(lambda: self.sleepers > 0, bound)
        assert await asyncio.to_thread(waiting), "no run waited on the clock"


class FakeTimer:
    def __init__(self, due: float, callback: Callable[[], object]) -> None:
        self.due, self.callback = due, callback

    def stop(self) -> None:
        self.due = float("inf")  # never fires (and `advance` never reaches it)


def make_app(session=None, delay: float = 0.0, autosave_every: int = 0, clock: Clock = SYSTEM_CLOCK,
             **kw) -> AelLab:
    settings = LabSettings(delay=delay, autosave_every=autosave_every, saves_dir=Path("saves"),
                           clock=clock)
    return AelLab(session, settings=settings, cursor_blink=False, show_times=False, **kw)


async def settle(pilot, rounds: int = 2, bound: float = 60.0) -> None:
    """Let workers finish and the messages they posted be handled (`bound` s at most for
    the workers: a run that never ends is a failure, not a hang)."""
    for _ in range(rounds):
        await asyncio.wait_for(pilot.app.workers.wait_for_complete(), bound)
        await pilot.pause()


async def until(pilot, holds: Callable[[], bool], step: float = 0.3, rounds: int = 20) -> None:
    """Until `holds()`: each round moves the lab's `FakeClock` on by `step` (past a
    throttle's interval, so a redraw it held back is drawn) and lets the lab settle."""
    clock = pilot.app.settings.clock
    assert isinstance(clock, FakeClock), "until() drives the lab's clock: make_app(clock=FakeClock())"
    for _ in range(rounds):
        if holds():
            return
        clock.advance(step)
        await settle(pilot)
    assert holds(), f"still not so after {rounds} rounds of {step} s"


def notifications(app) -> list[str]:
    return [n.message for n in app.notifications]


async def method_memory(app, pilot):
    """The memory panel's method tab (a prior method's own memory), opened and drawn: the
    `MethodMemoryView` once it shows tables (the panel redraws on a throttle)."""
    from textual.widgets import Tabs

    from ael_tui.memory.method_memory import MethodMemoryView

    tabs = app.screen.query_one("#memory-tabs", Tabs)
    await until(pilot, lambda: bool(tabs.query("#tier-method")))
    tabs.active = "tier-method"
    await settle(pilot)
    view = app.screen.query_one(MethodMemoryView)
    await until(pilot, lambda: view.display and bool(view.tables))
    return view


def count_rebuilds(app):
    """The screen's footer, and a list that grows by one each time it rebuilds its keys."""
    from ael_tui.widgets.steady_footer import SteadyFooter

    footer = app.screen.query_one(SteadyFooter)
    rebuilt: list[int] = []
    original = footer.recompose

    async def recompose():
        rebuilt.append(1)
        await original()

    footer.recompose = recompose
    return footer, rebuilt
