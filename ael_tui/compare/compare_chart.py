"""The compare view's chart: one rolling curve per selector on one set of axes,
with the regime boundaries and each selector's arm injections marked; k on the focused
chart switches to cumulative reward or cumulative regret, S writes it as SVG."""

from __future__ import annotations

import numpy as np

from ael_lab.drawing import CURVE_KINDS as KINDS, REGIME, UNIT, cumulative_chart, regret_chart
from ael_tui.widgets.charts.exportable import ExportableChart
from ael_lab.drawing import PictureSource, chart_svg
from ael_tui.widgets.line_chart import Axis, Chart, LineChart, Series, quarters
from ael_tui.widgets.readouts import ProgressData

# one per selector in the order chosen (the arm bars' titles use the same)
RICH_COLOURS = ("cyan", "magenta", "dark_orange", "green", "red")


def compare_chart(curves: list[tuple[str, ProgressData]]) -> Chart:
    lead = curves[0][1]
    n = max(lead.n, 1)
    if len(lead.x) == 0:
        return Chart("no episodes yet: space steps every selector, w a window, r to a reflection",
                     "no episodes yet", (0, n), UNIT)
    if lead.kind == "equity":
        lo = min(float(np.min(d.y)) for _, d in curves if len(d.y))
        hi = max(float(np.max(d.y)) for _, d in curves if len(d.y))
        pad = max((hi - lo) * 0.1, 1e-3)
        axis, title = Axis(lo - pad, hi + pad, quarters(lo - pad, hi + pad), "{:.3f}"), "equity"
    else:
        axis, title = UNIT, f"rolling {lead.kind} (last {lead.window})"
    colours = [RICH_COLOURS[i % len(RICH_COLOURS)] for i in range(len(curves))]
    return Chart(
        title + " · gray: regime · a line in a selector's colour: its new arm", title, (0, n), axis,
        series=[Series(name, d.x, d.y, colour) for (name, d), colour in zip(curves, colours)],
        vlines=[(start, REGIME) for start, _ in lead.regime_starts[1:]]
        + [(ep, colour) for (_, d), colour in zip(curves, colours) for ep, _ in d.injections],
        names=[(start, label, REGIME) for start, label in lead.regime_starts], names_at_top=False,
        legend=[(name, colour) for (name, _), colour in zip(curves, colours)])


class CompareChart(ExportableChart, LineChart):
    KINDS = KINDS
    kind = KINDS[0]
    NAMES = {"rolling": "curves", "cumulative": "reward", "regret": "regret"}

    _data: tuple[list[tuple[str, ProgressData]], list[PictureSource] | None] | None = None

    def show_curves(self, curves: list[tuple[str, ProgressData]], pictures: list[PictureSource] | None = None,
                    now: bool = False) -> bool:
        self._data = (curves, pictures)
        if self.kind != "rolling" and pictures:
            coloured = [(d.data(), RICH_COLOURS[i % len(RICH_COLOURS)]) for i, d in enumerate(pictures)]
            chart = cumulative_chart(coloured) if self.kind == "cumulative" else regret_chart(coloured)
        else:
            chart = compare_chart(curves)
        return self.show(chart, now=now)

    def kind_changed(self) -> None:
        if self._data is not None:
            self.show_curves(*self._data, now=True)

    def chart_name(self) -> str:
        return self.NAMES.get(self.kind, self.kind)

    def chart_svg(self) -> str | None:
        return chart_svg(self.chart) if self.chart is not None and self._data and len(self._data[0][0][1].x) else None
