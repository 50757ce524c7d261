"""What the lab's panels show of a session at one moment: `LabView`, a snapshot taken
under the host's lock (`take_view`), so the panels update from it without touching
the session while the engine's thread steps it.

The lab screen keeps the latest one in a reactive; each panel skips what did not
change (the episode log its known rows, the reflection panel an equal text, the
charts an equal chart), so there are no "what changed" flags to keep by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ael_lab.review import Reflection

from ael_lab.drawing import PictureSource, picture_source
from ael_tui.lab.panels import extension_panels
from ael_tui.lab.session_host import SessionHost
from ael_tui.widgets.run_loop import RUN_MODES
from ael_tui.lab.travel_chart import TravelMarks, travel_marks
from ael_tui.widgets.readouts import ArmRow, ProgressData, Status, posterior_rows, progress_data, proposal_notes, status_of


@dataclass(eq=False)  # two views are never "equal": a new one is always shown
class LabView:
    version: int
    status: Status
    running: str | None            # the run in progress, in words ("one episode (+2 queued)")
    run_mode: str | None           # its mode (step, window, ...)
    delay: float
    autosave_every: int
    arms: list[ArmRow]
    frozen: bool
    history: list[dict[str, Any]]
    reflections: list[Reflection]
    insight: dict[str, Any] | None
    notes: list[str]               # what became of the last reflection's proposals
    outlook: str                   # when the reflector will next consider a proposal
    memory_counts: dict[str, int]
    memory_cap: int
    progress: ProgressData
    pictures: PictureSource        # the arm strip's, cumulative reward's and regret's (ael_tui/widgets/charts/)
    pending: int                   # proposals waiting
    decision_waits: bool           # a proposal or a quarantined code arm waits for a person
    variant_views: dict[str, Any]  # the extensions' panels' data, by panel ({} for a session without any)
    travel: TravelMarks | None = None  # the timeline on the progress chart (now, reach, decisions, the other run)

    run_keys: bool = False         # the footer shows a run's keys (`RunLoop.run_keys_due`)

    @property
    def footer_state(self) -> tuple[bool, bool]:
        """What the footer's keys depend on: a longer run that has gone on for a moment (a
        single step, or a run over sooner, never changes them: see `RUN_KEYS_AFTER`), and a
        decision waiting."""
        return self.run_keys, self.decision_waits


def variant_panels(s) -> dict[str, bool]:
    """Which extensions' panels a session has (ael_tui/lab/panels.py: planners, tools, skills, credit...)."""
    return {p.name: p.shown(s) for p in extension_panels()}


def _variant_views(s) -> dict[str, Any]:
    """The data of the panels the session shows, by panel name."""
    return {p.name: p.view(s) for p in extension_panels() if p.shown(s)}


def take_view(host: SessionHost) -> LabView:
    """The panels' data now (call with `host.lock` held)."""
    s = host.session
    history = list(s.history)
    mode = host.running
    running = RUN_MODES.get(mode or "")
    if running and host.queued_steps:
        running += f" (+{host.queued_steps} queued)"
    return LabView(
        version=host.version, status=status_of(s), running=running, run_mode=mode,
        delay=host.settings.delay, autosave_every=host.settings.autosave_every,
        arms=posterior_rows(s), frozen=s.frozen, history=history, reflections=list(s.reflections),
        insight=s.insight, notes=proposal_notes(s).get(len(s.reflections) - 1, []),
        outlook=s.reflector.outlook(s.t) if s.reflector is not None else "",
        memory_counts=s.memory.counts(), memory_cap=s.memory.cap_per_tier, progress=progress_data(s),
        pictures=picture_source(s, history),
        pending=len(s.queue.pending), decision_waits=bool(s.queue.pending or s.code_arms.quarantined),
        variant_views=_variant_views(s),
        travel=travel_marks(s, host.original),
        run_keys=host.run_keys_due,
    )
