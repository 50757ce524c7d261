"""The lab's hold on one session: runs it in a worker thread, safely.

`SessionHost` is UI-free. A worker thread calls `run(mode)`, the loop it shares
with the compare view (`run_loop.RunLoop`): one episode a step while holding
`lock`, `version` bumped after each, `on_step` called so the screen hears of it,
and a return as soon as the stop event is set (a pause), the engine's target of
the mode is reached (`engine.run_targets`), a decision is pending, or the run
ends. The interface never touches the session without the lock (`read`). The
host owns `running`: set by `begin`, cleared by the loop as the run ends.

`saved_version` is the version last written to a file (a save, a load, an
autosave), so `unsaved` tells whether quitting would lose progress. A guided
tour (`tour`) is fed every step's and decision's events.
"""

from __future__ import annotations

import itertools
import os
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import ael_lab.run_events as ev
from ael_lab import AELError
from ael_lab.runs import Session, StopOn, proposed, reflected, run_target
from ael_lab.store import save_session

from ael_tui.config import LabSettings
from ael_tui.widgets.run_loop import RUN_MODES, RunLoop, RunOutcome

if TYPE_CHECKING:
    from ael_tui.tour.guide import TourGuide

T = TypeVar("T")
_HOSTS = itertools.count(1)  # hosts made by this process, for unique autosave names

# the lab's names for the engine's run modes (r: the next reflection that proposes something)
ENGINE_MODE = {"reflection": "proposal", "each_reflection": "reflection"}


class SessionHost(RunLoop):
    def __init__(self, session: Session, settings: LabSettings | None = None, path: Path | None = None):
        super().__init__(settings)
        self.session = session
        self.path = path                       # where it was loaded from or last saved
        self.notices: deque[tuple[str, str]] = deque()  # (severity, message) for the UI to show
        self.saved_version = 0                 # loaded or new: nothing to lose yet
        self.saved_at = path                   # the file holding saved_version, if any
        self.tour: TourGuide | None = None
        self.autosave_id = f"{time.strftime('%Y%m%dT%H%M%S')}-p{os.getpid()}-{next(_HOSTS)}"
        self.queued_steps = 0                  # step presses made while a step was running
        self._silent = 0                       # silent reflections passed in this run (mode "reflection")
        self.undone: dict[int, str] = {}       # proposals reopened by an undo: what their next decision's
                                               # reason says, so the audit log tells of the undo

    @property
    def original(self) -> dict[str, Any] | None:
        """The run before it went back (ael_tui/lab/time_travel.py), kept on the session's
        timeline so that a save holds it and a load brings it back."""
        return self.session.timeline.original

    @original.setter
    def original(self, doc: dict[str, Any] | None) -> None:
        self.session.timeline.original = doc

    def read(self, look: Callable[[Session], T]) -> T:
        """`look(session)` under the lock: how the interface reads the session (it waits at
        most for the episode in progress)."""
        with self.lock:
            return look(self.session)

    @property
    def unsaved(self) -> bool:
        """Progress no file holds: episodes or decisions since the last save, load or autosave."""
        return self.version != self.saved_version

    # ------------------------------------------------------------ running
    def target(self, mode: str) -> tuple[int, StopOn]:
        """(episode to stop before, stop_on) of a run mode: the engine's, and the tour's."""
        s = self.session
        if mode == "tour":
            if self.tour is None:
                from ael_tui.tour.guide import TourGuide  # the tour/ folder's guide, made when a tour starts

                self.tour = TourGuide(s)
            tour = self.tour
            return s.n_episodes, lambda events: tour.feed(events, self.session)
        if mode not in RUN_MODES:
            raise AELError(f"unknown run mode {mode!r} (expected {', '.join(RUN_MODES)})")
        return run_target(s, ENGINE_MODE.get(mode, mode))

    def _already(self, mode: str) -> str:
        return f"already running {RUN_MODES[mode]}"

    def _cannot_begin(self, mode: str) -> str | None:
        reason = None
        if self.lock.acquire(blocking=False):  # held by a step ending: the run checks it itself
            try:
                reason = self.session.blocked_reason
            finally:
                self.lock.release()
        return f"cannot step: {reason}" if reason else None

    def prepare(self) -> None:
        """What the first episodes would compute (the scenario's `prepare`: support's table);
        call from a worker thread when a session opens. Not under `lock`: a scenario's
        `prepare` is safe beside steps, and a first step must not wait for it."""
        self.session.scenario.prepare()

    def queue_step(self) -> bool:
        """One more episode for the step run in progress (a press is never dropped); False
        if no step run is going (it has just ended: the press starts a new one)."""
        with self._run_lock:
            if self.running != "step":
                return False
            self.queued_steps += 1
            return True

    def _take_queued_step(self) -> bool:
        """Under the run lock: a queued step, or the step run ends now (`running` cleared),
        so a press after this starts a new run instead of queuing into one that is over."""
        with self._run_lock:
            if self.queued_steps <= 0:
                self.running = None
                return False
            self.queued_steps -= 1
            return True

    def _end_run(self, run_id: int) -> None:
        with self._run_lock:
            if self._run_id == run_id:
                self.running = None
                self.queued_steps = 0  # presses made ahead of a run that stopped (a decision, the end)

    def pause(self) -> None:
        with self._run_lock:
            self.queued_steps = 0  # a pause also forgets steps asked for ahead
        super().pause()

    def run(self, mode: str, cancelled: Callable[[], bool] = lambda: False) -> RunOutcome:
        """Step towards the target of `mode` (the shared loop); call from a worker thread."""
        self._silent = 0
        outcome = super().run(mode, cancelled)
        outcome.silent = self._silent
        return outcome

    # the run loop's hooks: a step is one episode of the session
    @property
    def position(self) -> int:
        return self.session.t

    def _stopped_before(self, mode: str) -> tuple[str, str] | None:
        s = self.session
        if s.done:
            return "finished", s.blocked_reason or ""
        if s.blocked_reason:
            return "blocked", s.blocked_reason
        return None

    def _extend(self, mode: str, end: int) -> int:
        return self.session.t + 1 if mode == "step" and self._take_queued_step() else end

    def _advance(self, mode: str) -> list[ev.Event]:
        events = self.session.step()
        if mode == "reflection" and reflected(events) and not proposed(events):
            self._silent += 1
        return events

    def _after_step(self, mode: str, events: list[ev.Event]) -> None:
        self._autosave()
        if mode != "tour" and self.tour is not None:
            self.tour.feed(events, self.session)  # a tour notices moments whatever runs

    def _stop_reason(self, mode: str, events: list[ev.Event]) -> tuple[str, str]:
        s = self.session
        if s.queue.pending:
            return "blocked", s.blocked_reason or ""
        return ("moment" if mode == "tour" else "reflected"), ""

    def _autosave(self) -> None:
        n = self.settings.autosave_every
        if n and self.session.t % n == 0:
            path = self.autosave_path()
            try:
                path = self.settings.place(path, "autosave")  # a served lab: inside its folder, within its quota
                path.parent.mkdir(parents=True, exist_ok=True)
                save_session(self.session, path)
                self.saved_version, self.saved_at = self.version, path
            except (AELError, OSError) as err:
                self.notices.append(("error", f"autosave failed: {err}"))

    # ------------------------------------------------------- files, names
    def session_name(self) -> str:
        """What exports are named after: the save's name if the session has one, else scenario and seed."""
        c = self.session.config
        if self.path is not None and not self.path.stem.startswith("autosave-"):
            return self.path.stem
        return f"{c.scenario}-s{c.seed}"

    def default_save_path(self) -> Path:
        c = self.session.config
        return self.settings.saves_dir / f"{c.scenario}-s{c.seed}-e{self.session.t}.json"

    def autosave_path(self) -> Path:
        """Unique per host (start time, pid, a per-process count): two labs on the same
        scenario and seed never write, or report, each other's autosave."""
        c = self.session.config
        return self.settings.saves_dir / f"autosave-{c.scenario}-s{c.seed}-{self.autosave_id}.json"

    def save(self, path: Path) -> None:
        path = self.settings.place(path, "save")
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

    def revoke_rule(self, kind: str) -> None:
        """Revoke the standing rule for `kind`: its later proposals wait for a person again."""
        with self.lock:
            s = self.session
            s.queue.set_standing(kind, None, who="human", episode=s.t - 1)
            self.version += 1

    def decide(self, pid: int, decision: str, edited: dict[str, Any] | None = None, reason: str = "",
               standing: bool = False) -> list[ev.Event]:
        """A person's decision (the engine's rules: an unchanged edit is an approval, `standing`
        also sets 'always approve this kind'). Returns its events (a new arm, an insight applied)."""
        with self.lock:
            s = self.session
            undone = self.undone.get(pid)
            if undone:
                reason = f"{undone}; {reason}" if reason else undone
            events = s.decide(pid, decision, edited=edited, reason=reason, who="human", standing=standing)
            self.undone.pop(pid, None)
            self.version += 1
            if self.tour is not None:
                self.tour.feed(events, s)
        return events
