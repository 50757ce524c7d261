"""The compare view's chart: one rolling curve per selector on one set of axes,
with the regime boundaries and each selector's arm injections marked."""

from __future__ import annotations

import numpy as np

from ael_tui.lab.progress_chart import REGIME, UNIT
from ael_tui.line_chart import Axis, Chart, LineChart, Series, quarters
from ael_tui.readouts import ProgressData

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


class CompareChart(LineChart):
    def show_curves(self, curves: list[tuple[str, ProgressData]], now: bool = False) -> bool:
        return self.show(compare_chart(curves), now=now)
