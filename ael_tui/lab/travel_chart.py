"""The timeline on the progress chart: where the run is now against how far it has been,
and the decisions, so going back and forth in a run can be seen.

`TravelMarks` is taken with the lab's view (under the host's lock): the episode now, the
furthest the timeline can go (its reach), the decisions (✓ approved, ✗ rejected, at
the boundary after which each was made), and the curve of the run that is not shown
by the session's own history: the run ahead after a rewind (the engine's tape), or,
after a branch, the run it came from. `add_travel` draws them on the chart: that curve
dim under the live one, a line at "now" when there is a run ahead, the marks on top.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ael_lab.drawing import (CURVE, PictureSource, cumulative, cumulative_chart, picture_source, reference_for, regret,
                             regret_chart)
from ael_tui.widgets.line_chart import Axis, Chart, Series, quarters
from ael_tui.widgets.readouts import progress_data

if TYPE_CHECKING:
    from ael_lab.runs import Session

GHOST, NOW, APPROVED, REJECTED = "grey42", "yellow", "green", "red"
DECIDED = ("approve", "edit", "reject")


@dataclass(eq=True)
class TravelMarks:
    t: int
    reach: int
    decisions: list[tuple[int, str, bool]] = field(default_factory=list)  # (episode, approve|edit|reject,
                                    # made in the other run only: ahead of now, or the original's)
    ghost_label: str = ""           # "run ahead" or "original"
    ghost_x: np.ndarray | None = None
    ghost_y: np.ndarray | None = None
    ghost_run: PictureSource | None = None  # that run for the cumulative charts (its rewards and arms)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TravelMarks):
            return False
        return ((self.t, self.reach, self.decisions, self.ghost_label) ==
                (other.t, other.reach, other.decisions, other.ghost_label)
                and _same(self.ghost_x, other.ghost_x) and _same(self.ghost_y, other.ghost_y))


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


class _WithHistory:
    """The session read with another history (the progress curve of another run of it)."""

    def __init__(self, s: "Session", history: list[dict[str, Any]]) -> None:
        self._s, self.history = s, history
        self.reflections, self.injections = [], []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._s, name)


_curves: dict[tuple[int, int], tuple[list, np.ndarray, np.ndarray]] = {}  # a run's curve, computed once


def _curve(s: "Session", history: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    key = (id(history), len(history))
    hit = _curves.get(key)
    if hit is None or hit[0] is not history:
        d = progress_data(_WithHistory(s, history))  # type: ignore[arg-type]
        _curves.clear()  # one other run at a time: the tape, or the original
        hit = _curves[key] = (history, d.x, d.y)
    return hit[1], hit[2]


def travel_marks(s: "Session", original: dict[str, Any] | None) -> TravelMarks:
    """What the chart marks of the timeline now (call with the host's lock held)."""
    tape = s.timeline.tape
    mine = [(a.proposal_id, a.episode, a.decision) for a in s.queue.audit
            if a.proposal_id > 0 and a.decision in DECIDED]
    departs = s.timeline.departs(s)  # decided otherwise here: a branch from now on, said at once
    marks = TravelMarks(s.t, s.t if departs else s.timeline.reach(s), [(e, d, False) for _, e, d in mine])
    other, theirs, label = None, [], ""
    if departs and original is None:
        original = {"history": tape.history, "queue": {"audit": [asdict(a) for a in tape.audit]}}
    if tape is not None and tape.t > s.t and not departs:
        other, label = tape.history, "run ahead"
        theirs = [(a.proposal_id, a.episode, a.decision) for a in tape.audit
                  if a.proposal_id > 0 and a.decision in DECIDED]
    elif original is not None and (len(original["history"]) > s.t or original["history"] != s.history[
            :len(original["history"])]):
        other, label = original["history"], "original"
        theirs = [(a["proposal_id"], a["episode"], a["decision"]) for a in original["queue"]["audit"]
                  if a["proposal_id"] > 0 and a["decision"] in DECIDED]
    if other:
        marks.ghost_x, marks.ghost_y = _curve(s, other)
        marks.ghost_label = label
        marks.ghost_run = picture_source(s, other, label)
        marks.decisions += [(e, d, True) for pid, e, d in theirs if (pid, e, d) not in mine]
    return marks


def add_travel(chart: Chart, travel: TravelMarks | None, width: int) -> Chart:
    """The timeline drawn on `chart` (the progress chart of the same session, `width` cells wide)."""
    if travel is None or not chart.series:
        return chart
    legend = []
    if travel.ghost_x is not None and len(travel.ghost_x):
        chart.series.insert(0, Series(None, travel.ghost_x, travel.ghost_y, GHOST))
        legend.append((travel.ghost_label, GHOST))
    if travel.reach > travel.t:
        chart.vlines.append((travel.t, NOW))
        legend.append((f"now {travel.t} of {travel.reach}", NOW))
    top = chart.left.high
    below = top - (top - chart.left.low) / 8  # the other run's marks about a row lower: both seen
    for episode, decision, other in travel.decisions:
        colour = GHOST if other else REJECTED if decision == "reject" else APPROVED
        chart.marks.append((episode, below if other else top, "✗" if decision == "reject" else "✓", colour))
    note = " · ✓✗ decisions"
    if travel.decisions and len(chart.title) + len(note) <= width - 10:  # the whole title still fits (borders)
        chart.title += note
    chart.legend = [*chart.legend, *legend]
    return chart


def cumulative_with_travel(kind: str, pictures: PictureSource, travel: TravelMarks | None) -> Chart:
    """Cumulative reward or regret (`kind`) of the session, with the timeline: the other run's
    curve dim under it (the run ahead, or the original) and a line at "now". Regret without an
    oracle is measured against the run as known now (the run ahead included), so going back
    does not move the yardstick."""
    live = pictures.data()
    ghost = travel.ghost_run.data() if travel is not None and travel.ghost_run is not None else None
    other: np.ndarray | None = None
    if kind == "cumulative":
        chart = cumulative_chart([(live, CURVE)])
        other = cumulative(ghost.rewards) if ghost is not None and ghost.played else None
    else:
        known = [ghost] if ghost is not None and travel.ghost_label == "run ahead" else [live, *([ghost] if ghost else [])]
        reference = reference_for([d for d in known if d.played])
        chart = regret_chart([(live, CURVE)], reference)
        if reference is not None and ghost is not None and ghost.played:
            other = regret(ghost.rewards, reference, ghost.policies)
    if travel is None or not chart.series:
        return chart
    if other is not None and len(other):
        mine = chart.series[0].y
        lo = min(0.0, float(np.min(other)), float(np.min(mine)) if len(mine) else 0.0)
        hi = max(0.0, float(np.max(other)), float(np.max(mine)) if len(mine) else 0.0)
        hi = hi if hi > lo else lo + 1.0
        chart.left = Axis(lo, hi, quarters(lo, hi), "{:.0f}" if hi - lo >= 8 else "{:.1f}")
        chart.series.insert(0, Series(None, np.arange(len(other)), other, GHOST))
        chart.legend = [*chart.legend, (travel.ghost_label, GHOST)]
    if travel.reach > travel.t:
        chart.vlines.append((travel.t, NOW))
        chart.legend = [*chart.legend, (f"now {travel.t} of {travel.reach}", NOW)]
    return chart


def episode_at(chart: Chart | None, column: int, width: int) -> int | None:
    """The episode under a column of a chart drawn `width` cells wide (as `line_chart.draw`
    lays it out), or None off the plot."""
    if chart is None:
        return None
    lw = max(len(chart.left.label(v)) for v in chart.left.ticks) + 1
    rw = max(len(chart.right.label(v)) for v in chart.right.ticks) + 1 if chart.right else 0
    cols = width - lw - rw
    c = column - lw
    if cols < 8 or not 0 <= c < cols:
        return None
    x0, x1 = chart.x_range
    return int(round(x0 + c / max(cols - 1, 1) * (x1 - x0)))
