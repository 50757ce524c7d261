"""The one run loop of the lab and the compare view, UI-free.

A host (one session, or several in lockstep) subclasses `RunLoop` and says how to
advance by one step, where it stands, and what stops it; the loop itself, run by
a worker thread, is the same for both: it holds `lock` only around a step,
returns as soon as the stop event is set (a pause), the target is reached, a
decision blocks or the run ends, waits `settings.delay` between steps of a
longer run, bumps `version` after every step, and calls `on_step` (if set) after
each step of a longer run, so the interface hears of it as a message instead of
polling for it (a step run's end is the interface's own message).

The host owns `running`: `begin` sets it (on the interface's thread, so a second
key is refused at once) and the loop clears it when it ends, before the
interface hears of the end; the interface only reads it.

Time is the settings' clock (`LabSettings.clock`): when a run began, and the delay
between its steps, so a test drives both instead of sleeping.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

import ael_lab.run_events as ev
from ael_lab import AELError
from ael_lab.runs import StopOn

from ael_tui.config import LabSettings

# a run going this long gets its keys in the footer (pause instead of the run keys); a shorter
# one never changes them: rebuilding the footer re-lays the whole screen, and for a run of a few
# dozen milliseconds it was a flicker that also delayed the run's last frame by a frame or two
RUN_KEYS_AFTER = 0.15  # s

# what each run mode does, as the status bars of the lab and the compare view say it
RUN_MODES = {
    "step": "one episode",
    "window": "one slow window",
    "reflection": "to the next proposal",
    "each_reflection": "to the next reflection",
    "phase": "to the end of the phase",
    "tour": "to the next moment of the tour",
}


@dataclass
class RunOutcome:
    mode: str
    steps: int
    reason: str          # reached, reflected, moment (tour), paused, blocked, finished, refused, error
    message: str = ""
    events: list[ev.Event] = field(default_factory=list)
    silent: int = 0      # reflections passed that proposed nothing (the lab's mode "reflection")


class RunLoop:
    """Subclasses implement `target`, `position`, `_stopped_before` and `_advance`."""

    def __init__(self, settings: LabSettings | None = None):
        self.settings = settings or LabSettings()
        self.lock = threading.RLock()
        self.stop_event = threading.Event()
        self.version = 0                       # bumped after every step and decision
        self.running: str | None = None        # the mode of the run in progress (set and cleared here only)
        self.on_step: Callable[[], None] | None = None  # called (in the worker) after every step
        self._run_lock = threading.Lock()      # not `lock`: starting or ending a run never waits for a step
        self._run_id = 0                       # which run `running` belongs to
        self.run_began = 0.0                   # the clock's time when it began
        self.held: str | None = None           # why no run may start now (a served class paused by its
                                               # teacher), said by every run key until it is lifted

    # -------------------------------------------------------------- hooks
    def target(self, mode: str) -> tuple[int, StopOn]:
        raise NotImplementedError

    @property
    def position(self) -> int:
        """The episode the next step plays."""
        raise NotImplementedError

    def _stopped_before(self, mode: str) -> tuple[str, str] | None:
        """(reason, message) when the run cannot take another step (finished, blocked)."""
        raise NotImplementedError

    def _advance(self, mode: str) -> list[ev.Event]:
        """One step (call under the lock)."""
        raise NotImplementedError

    def _after_step(self, mode: str, events: list[ev.Event]) -> None:
        """What follows a step under the lock, once `version` counts it (autosave, the tour)."""

    def _extend(self, mode: str, end: int) -> int:
        """A new target once `end` is reached (queued steps); `end` to stop there."""
        return end

    def _stop_reason(self, mode: str, events: list[ev.Event]) -> tuple[str, str]:
        """(reason, message) when `stop_on` fired on a step's events."""
        return "reflected", ""

    def _cannot_begin(self, mode: str) -> str | None:
        """Why a run of `mode` may not start now (checked by `begin`), else None."""
        return None

    # ---------------------------------------------------------- the loop
    def begin(self, mode: str) -> str | None:
        """Claim a run of `mode` (on the interface's thread): None if it may start, else why not."""
        with self._run_lock:
            if self.running:
                return self._already(self.running)
            reason = self.held or self._cannot_begin(mode)
            if reason:
                return reason
            self.stop_event.clear()
            self.running = mode
            self.run_began = self.settings.clock()
            self._run_id += 1
        return None

    @property
    def run_keys_due(self) -> bool:
        """A longer run (not a step) has gone on for RUN_KEYS_AFTER: the interface shows its keys."""
        return self.running not in (None, "step") and self.settings.clock() - self.run_began >= RUN_KEYS_AFTER

    def _already(self, mode: str) -> str:
        return "already running"

    def _end_run(self, run_id: int) -> None:
        """The run `run_id` is over: `running` is cleared unless a newer run has claimed it."""
        with self._run_lock:
            if self._run_id == run_id:
                self.running = None

    def pause(self) -> None:
        self.stop_event.set()

    def run(self, mode: str, cancelled: Callable[[], bool] = lambda: False) -> RunOutcome:
        """Step towards the target of `mode`; call from a worker thread (after `begin`).
        `running` is cleared when it returns, whatever ended it (an engine bug included)."""
        run_id = self._run_id
        try:
            return self._loop(mode, cancelled)
        finally:
            self._end_run(run_id)

    def _loop(self, mode: str, cancelled: Callable[[], bool]) -> RunOutcome:
        stop = self.stop_event
        steps = 0
        out: list[ev.Event] = []
        try:
            with self.lock:
                end, stop_on = self.target(mode)
            while True:
                if stop.is_set() or cancelled():
                    return RunOutcome(mode, steps, "paused", events=out)
                with self.lock:
                    before = self._stopped_before(mode)
                    if before is not None:
                        return RunOutcome(mode, steps, before[0], before[1], out)
                    if self.position >= end:
                        end = self._extend(mode, end)
                    if self.position >= end:
                        return RunOutcome(mode, steps, "reached", events=out)
                    events = self._advance(mode)
                    steps += 1
                    self.version += 1
                    out.extend(events)
                    self._after_step(mode, events)
                    stopped = stop_on is not None and stop_on(events)
                    why = self._stop_reason(mode, events) if stopped else None
                if self.on_step is not None and mode != "step":
                    # (a step run, queued presses included, is over within milliseconds: the
                    # screen's redraw at its end shows it, and one per step drew it twice)
                    self.on_step()
                if why is not None:
                    return RunOutcome(mode, steps, why[0], why[1], out)
                if mode != "step" and self.settings.delay > 0:
                    self.settings.clock.wait(stop, self.settings.delay)  # a pause cuts the wait short
        except AELError as err:
            return RunOutcome(mode, steps, "refused", str(err), out)
