"""The compare view's chart: one rolling curve per selector on one set of axes,
with the regime boundaries and each selector's arm injections marked."""

from __future__ import annotations

import numpy as np
from textual_plotext import PlotextPlot

from ael_tui.readouts import ProgressData, downsample

# plotext colour names, one per selector in the order chosen; ARM_STYLES has the same colours for Rich
COLOURS = ("cyan", "magenta", "orange", "green", "red")
RICH_COLOURS = ("cyan", "magenta", "dark_orange", "green", "red")


class CompareChart(PlotextPlot):
    def show(self, curves: list[tuple[str, ProgressData]]) -> None:
        plt = self.plt
        plt.clear_data()
        width = max(self.size.width - 10, 16)
        lead = curves[0][1]
        n = max(lead.n, 1)
        plt.xlim(0, n)
        if len(lead.x) == 0:
            plt.title("no episodes yet: space steps every selector, w a window, r to a reflection")
            plt.ylim(0, 1)
            self.refresh()
            return
        kind = lead.kind
        if kind == "equity":
            lo = min(float(np.min(d.y)) for _, d in curves if len(d.y))
            hi = max(float(np.max(d.y)) for _, d in curves if len(d.y))
            pad = max((hi - lo) * 0.1, 1e-3)
            lo, hi = lo - pad, hi + pad
            title = "equity"
        else:
            lo, hi = 0.0, 1.0
            title = f"rolling {kind} (last {lead.window})"
        plt.ylim(lo, hi)
        for start, _ in lead.regime_starts[1:]:
            plt.vline(start, "gray")
        for i, (name, d) in enumerate(curves):
            colour = COLOURS[i % len(COLOURS)]
            for ep, _arm in d.injections:
                plt.vline(ep, colour)
            if len(d.x):
                x, y = downsample(d.x, d.y, width)
                plt.plot(x.tolist(), y.tolist(), color=colour, label=name, marker="braille")
        # regime names where there is room, along the top
        columns_per_episode = width / n
        free_from = -1.0
        for start, label in lead.regime_starts:
            col = start * columns_per_episode
            if col >= free_from:
                plt.text(label, start + n * 0.01, lo + (hi - lo) * 0.04, color="gray", alignment="left")
                free_from = col + len(label) + 2
        marks = " · gray: regime · a line in a selector's colour: its new arm"
        full = title + marks
        plt.title(full if len(full) <= self.size.width - 6 else title)
        self.refresh()
