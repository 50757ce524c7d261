"""The run so far: rolling reward or accuracy (or equity and drawdown), with the
regime boundaries, phases, reflections and arm injections marked."""

from __future__ import annotations

import numpy as np
from textual import events
from textual.message import Message

from ael_tui.lab.travel_chart import TravelMarks, add_travel, episode_at
from ael_tui.line_chart import Axis, Chart, LineChart, Series, quarters
from ael_tui.readouts import ProgressData

REGIME, PHASE, NEW_ARM, REFLECTION, CURVE, DRAWDOWN = "grey50", "blue", "green", "magenta", "cyan", "red"
UNIT = Axis(0.0, 1.0, quarters(0.0, 1.0))  # reward and accuracy: every quarter labelled


def progress_chart(d: ProgressData, width: int) -> Chart:
    """What the progress panel draws of `d` on a panel `width` cells wide."""
    n = max(d.n, 1)
    if len(d.x) == 0:
        return Chart("no episodes yet", "", (0, n), UNIT)
    regimes = [(start, REGIME) for start, _ in d.regime_starts[1:]]
    names = [(start, label, REGIME) for start, label in d.regime_starts]
    if d.kind == "equity":
        lo, hi = float(np.min(d.y)), float(np.max(d.y))
        pad = max((hi - lo) * 0.1, 1e-3)
        left = Axis(lo - pad, hi + pad, quarters(lo - pad, hi + pad), "{:.3f}")
        series = [Series("equity", d.x, d.y, CURVE)]
        right = None
        if d.y2 is not None:
            low = min(float(np.min(d.y2)), -1e-3) * 1.1
            right = Axis(low, 0.0, quarters(low, 0.0), "{:.1%}")
            series.append(Series("drawdown (right)", d.x, d.y2, DRAWDOWN, right=True))
        title = "equity (left) and drawdown (right)"
        chart = Chart(title, title, (0, n), left, right, series, names_at_top=False,
                      legend=[(s.label or "", s.colour) for s in series])
    else:
        title = f"rolling {d.kind} (last {d.window})"
        chart = Chart(title, title, (0, n), UNIT, series=[Series(None, d.x, d.y, CURVE)])
    chart.vlines = regimes + [(start, PHASE) for start, _ in d.phase_starts] + [(ep, NEW_ARM) for ep, _ in d.injections]
    chart.names = names
    sparse = len(d.reflections) * 4 < width  # dense reflections: a quieter mark
    r_mark = "R" if sparse else "•"
    chart.marks = [(e, float(d.y[min(e, len(d.y) - 1)]), r_mark, REFLECTION) for e in d.reflections]
    marks = [name for name, present in ((f"{r_mark} reflection", d.reflections), ("green: new arm", d.injections),
                                        ("gray: regime", d.regime_starts[1:]), ("blue: phase", d.phase_starts))
             if present]
    chart.title = " · ".join([chart.title, *marks])
    return chart


class ProgressChart(LineChart):
    class EpisodeClicked(Message):
        """A click on the plot: the episode under it (the lab goes back there)."""

        def __init__(self, episode: int) -> None:
            super().__init__()
            self.episode = episode

    def show_progress(self, d: ProgressData, now: bool = False, travel: TravelMarks | None = None) -> bool:
        return self.show(add_travel(progress_chart(d, self.size.width), travel, self.size.width), now=now)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.chart is None or not self.chart.series:
            return
        episode = episode_at(self.chart, offset.x, self.content_size.width)
        if episode is not None:
            self.post_message(self.EpisodeClicked(episode))
