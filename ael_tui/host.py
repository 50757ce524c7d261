"""The lab's hold on one session: runs it in a worker thread, safely.

`SessionHost` is UI-free. A worker thread calls `run(mode)`, which steps the
session one episode at a time while holding `lock`, bumps `version` after
each episode, and returns as soon as the stop event is set (a pause), the
target is reached, a decision is pending, or the run ends. The interface
never touches the session without the lock, and redraws only when `version`
has moved, so the thread never has to talk to widgets.

`saved_version` is the version last written to a file (a save, a load, an
autosave), so `unsaved` tells whether quitting would lose progress. A guided
tour (`tour`) is fed every step's and decision's events.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from engine import events as ev
from engine.errors import AELError
from engine.persistence import save_session
from engine.session import Session

from .config import LabSettings
from .run_loop import RunOutcome
from .tour import TourGuide

_HOSTS = itertools.count(1)  # hosts made by this process, for unique autosave names

RUN_MODES = {
    "step": "one episode",
    "window": "one slow window",
    "reflection": "to the next reflection",
    "phase": "to the end of the phase",
    "tour": "to the next moment of the tour",
}


class SessionHost:
    def __init__(self, session: Session, settings: LabSettings | None = None, path: Path | None = None):
        self.session = session
        self.settings = settings or LabSettings()
        self.path = path                       # where it was loaded from or last saved
        self.lock = threading.RLock()
        self.stop_event = threading.Event()
        self.version = 0
        self.running: str | None = None        # the mode of the run in progress
        self.notices: deque[tuple[str, str]] = deque()  # (severity, message) for the UI to show
        self.saved_version = 0                 # loaded or new: nothing to lose yet
        self.saved_at = path                   # the file holding saved_version, if any
        self.tour: TourGuide | None = None
        self.autosave_id = f"{time.strftime('%Y%m%dT%H%M%S')}-p{os.getpid()}-{next(_HOSTS)}"

    @property
    def unsaved(self) -> bool:
        """Progress no file holds: episodes or decisions since the last save, load or autosave."""
        return self.version != self.saved_version

    # ------------------------------------------------------------ running
    def target(self, mode: str) -> tuple[int, Callable[[list[ev.Event]], bool] | None]:
        """(episode to stop before, stop_on) of a run mode."""
        s = self.session
        t = s.t
        if mode == "step":
            return t + 1, None
        if mode == "window":
            w = s.slow_window
            return (t // w + 1) * w, None
        if mode == "reflection":
            return s.n_episodes, lambda events: any(isinstance(e, ev.Reflected) for e in events)
        if mode == "tour":
            if self.tour is None:
                self.tour = TourGuide(s)
            tour = self.tour
            return s.n_episodes, lambda events: tour.feed(events, self.session)
        if mode == "phase":
            end = s.phase_ends[s.phase_of(min(t, s.n_episodes - 1))]
            return (end if end > t else s.n_episodes), None
        raise AELError(f"unknown run mode {mode!r} (expected {', '.join(RUN_MODES)})")

    def begin(self, mode: str) -> str | None:
        """Prepare a run on the UI thread: None if it may start, else why not."""
        if self.running:
            return f"already running {RUN_MODES[self.running]}"
        with self.lock:
            reason = self.session.blocked_reason
        if reason:
            return f"cannot step: {reason}"
        self.stop_event.clear()
        self.running = mode
        return None

    def pause(self) -> None:
        self.stop_event.set()

    def run(self, mode: str, cancelled: Callable[[], bool] = lambda: False) -> RunOutcome:
        """Step towards the target of `mode`; call from a worker thread."""
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
                    s = self.session
                    if s.done:
                        return RunOutcome(mode, steps, "finished", s.blocked_reason or "", out)
                    if s.blocked_reason:
                        return RunOutcome(mode, steps, "blocked", s.blocked_reason, out)
                    if s.t >= end:
                        return RunOutcome(mode, steps, "reached", events=out)
                    events = s.step()
                    steps += 1
                    self.version += 1
                    out.extend(events)
                    self._autosave()
                    if mode != "tour" and self.tour is not None:
                        self.tour.feed(events, s)  # a tour notices moments whatever runs
                    stopped = stop_on is not None and stop_on(events)
                    blocked = s.blocked_reason if stopped and s.queue.pending else ""
                if stopped:
                    reason = "blocked" if blocked else ("moment" if mode == "tour" else "reflected")
                    return RunOutcome(mode, steps, reason, blocked, out)
                if mode != "step" and self.settings.delay > 0:
                    stop.wait(self.settings.delay)  # a pause cuts the wait short
        except AELError as err:
            return RunOutcome(mode, steps, "refused", str(err), out)

    def _autosave(self) -> None:
        n = self.settings.autosave_every
        if n and self.session.t % n == 0:
            path = self.autosave_path()
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                save_session(self.session, path)
                self.saved_version, self.saved_at = self.version, path
            except (AELError, OSError) as err:
                self.notices.append(("error", f"autosave failed: {err}"))

    # ------------------------------------------------------- files, names
    def default_save_path(self) -> Path:
        c = self.session.config
        return self.settings.saves_dir / f"{c.scenario}-s{c.seed}-e{self.session.t}.json"

    def autosave_path(self) -> Path:
        """Unique per host (start time, pid, a per-process count): two labs on the same
        scenario and seed never write, or report, each other's autosave."""
        c = self.session.config
        return self.settings.saves_dir / f"autosave-{c.scenario}-s{c.seed}-{self.autosave_id}.json"

    def save(self, path: Path) -> None:
        if path.parent == self.settings.saves_dir:
            path.parent.mkdir(parents=True, exist_ok=True)
        with self.lock:
            save_session(self.session, path)
            self.saved_version = self.version
        self.path = self.saved_at = path

    # ---------------------------------------------------------- decisions
    def review_code(self, name: str, decision: str) -> list[ev.Event]:
        """A person's admit or reject of a code arm a loaded file brought in."""
        with self.lock:
            events = self.session.review_code_arm(name, decision, who="human")
            self.version += 1
        return events

    def decide(self, pid: int, decision: str, edited: dict[str, Any] | None = None, reason: str = "",
               standing: bool = False) -> list[ev.Event]:
        """A person's decision; `standing` also sets 'always approve this kind' first.
        Returns the decision's events (a new arm, an insight applied)."""
        with self.lock:
            s = self.session
            if standing:
                kind = s.queue.get(pid).kind
                s.queue.set_standing(kind, "approve")
                reason = reason or f"always approve {kind} proposals (standing rule set here)"
            events = s.decide(pid, decision, edited=edited, reason=reason, who="human")
            self.version += 1
            if self.tour is not None:
                self.tour.feed(events, s)
        return events
