"""The run so far: rolling reward or accuracy (or equity and drawdown), with the
regime boundaries, phases, reflections and arm injections marked; k on the focused
chart switches to cumulative reward or cumulative regret (ael_lab/drawing/curves.py),
S writes what it shows as SVG."""

from __future__ import annotations

import numpy as np
from textual import events
from textual.message import Message

from textual.app import ComposeResult
from textual.containers import Vertical

from ael_tui.widgets.charts.arm_strip import ArmStrip
from ael_lab.drawing import CURVE_KINDS as KINDS, REGIME, UNIT
from ael_tui.widgets.charts.exportable import ExportableChart
from ael_lab.drawing import PictureSource, chart_svg
from ael_tui.lab.travel_chart import TravelMarks, add_travel, cumulative_with_travel, episode_at
from ael_tui.widgets.line_chart import Axis, Chart, LineChart, Series, plot_margins, quarters
from ael_tui.widgets.readouts import ProgressData

PHASE, NEW_ARM, REFLECTION, CURVE, DRAWDOWN = "blue", "green", "magenta", "cyan", "red"


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


class ProgressChart(ExportableChart, LineChart):
    KINDS = KINDS
    kind = KINDS[0]
    NAMES = {"rolling": "progress", "cumulative": "reward", "regret": "regret"}  # the SVG's name, by kind

    _data: tuple[ProgressData, PictureSource | None, TravelMarks | None] | None = None

    class EpisodeClicked(Message):
        """A click on the plot: the episode under it (the lab goes back there)."""

        def __init__(self, episode: int) -> None:
            super().__init__()
            self.episode = episode

    def show_progress(self, d: ProgressData, pictures: PictureSource | None = None, now: bool = False,
                      travel: TravelMarks | None = None) -> bool:
        self._data = (d, pictures, travel)
        if self.kind in ("cumulative", "regret") and pictures is not None:  # the run ahead drawn too
            chart = cumulative_with_travel(self.kind, pictures, travel)
        else:  # the rolling curve carries the timeline: the run ahead or the original, now, the decisions
            chart = add_travel(progress_chart(d, self.size.width), travel, self.size.width)
        return self.show(chart, now=now)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.chart is None or not self.chart.series:
            return
        episode = episode_at(self.chart, offset.x, self.content_size.width)
        if episode is not None:
            self.post_message(self.EpisodeClicked(episode))

    def kind_changed(self) -> None:
        if self._data is not None:
            d, pictures, travel = self._data
            self.show_progress(d, pictures, now=True, travel=travel)
        self.post_message(self.KindChanged())

    def plot_margins(self) -> tuple[int, int]:
        """The cells the axes take left and right of the plot, padding included."""
        if self.chart is None:
            return (0, 0)
        left, right = plot_margins(self.chart)
        return left, right + 1  # LineChart's right padding

    def chart_name(self) -> str:
        return self.NAMES.get(self.kind, self.kind)

    def kind_label(self) -> str:
        """What it shows now, in words."""
        return {"rolling": "the rolling accuracy", "cumulative": "the cumulative reward",
                "regret": "the cumulative regret"}.get(self.kind, self.kind)

    def chart_svg(self) -> str | None:
        return chart_svg(self.chart) if self.chart is not None and self._data and len(self._data[0].x) else None

    class KindChanged(Message):
        """k switched what the chart shows: the strip lines up with its new axes."""


class ProgressPanel(Vertical):
    """The progress chart with the arm-over-time strip under it, its cells under the
    chart's plot."""

    DEFAULT_CSS = """
    ProgressPanel > ProgressChart { height: 1fr; width: 100%; }
    ProgressPanel > ArmStrip { width: 100%; }
    """

    def __init__(self, every: float, **kw) -> None:
        super().__init__(**kw)
        self.every = every

    def compose(self) -> ComposeResult:
        yield ProgressChart(self.every, id="progress")
        yield ArmStrip(id="arm-strip")

    def on_resize(self) -> None:
        # the posteriors table names the arms in their colours; alone (a small screen's
        # progress page) or given the room, the strip says which colour is which itself
        self.query_one(ArmStrip).set_legend(self.size.height >= 18 or self.screen.has_class("-compact"))

    def show_progress(self, d: ProgressData, pictures: PictureSource, now: bool = False,
                      travel: TravelMarks | None = None) -> None:
        chart = self.query_one(ProgressChart)
        chart.show_progress(d, pictures, now=now, travel=travel)
        self._show_strip(pictures, now)

    def _show_strip(self, pictures: PictureSource, now: bool = False) -> None:
        left, right = self.query_one(ProgressChart).plot_margins()
        self.query_one(ArmStrip).show([pictures], (left, right), now=now)

    def on_progress_chart_kind_changed(self, event: ProgressChart.KindChanged) -> None:
        data = self.query_one(ProgressChart)._data
        if data is not None and data[1] is not None:
            self._show_strip(data[1], now=True)
