"""The run so far: rolling reward or accuracy (or equity and drawdown), with the
regime boundaries, reflections and arm injections marked."""

from __future__ import annotations

import numpy as np
from textual_plotext import PlotextPlot

from ael_tui.readouts import ProgressData, downsample


class ProgressChart(PlotextPlot):
    def show(self, d: ProgressData) -> None:
        plt = self.plt
        plt.clear_data()
        width = max(self.size.width - 10, 16)
        n = max(d.n, 1)
        plt.xlim(0, n)
        if len(d.x) == 0:
            plt.title("no episodes yet")
            plt.ylim(0, 1)
            self.refresh()
            return
        x, y = downsample(d.x, d.y, width)
        if d.kind == "equity":
            plt.plot(x.tolist(), y.tolist(), color="cyan", label="equity", marker="braille")
            if d.y2 is not None:
                _, dd = downsample(d.x, d.y2, width)
                plt.plot(x.tolist(), dd.tolist(), color="red", label="drawdown", marker="braille", yside="right")
            lo, hi = float(np.min(d.y)), float(np.max(d.y))
            pad = max((hi - lo) * 0.1, 1e-3)
            lo, hi = lo - pad, hi + pad
            plt.ylim(lo, hi)
            title = "equity (left) and drawdown (right)"
        else:
            lo, hi = 0.0, 1.0
            plt.ylim(lo, hi)
            # fixed ticks: plotext's own skip one now and then at some heights
            plt.yticks([0, 0.25, 0.5, 0.75, 1], ["0.00", "0.25", "0.50", "0.75", "1.00"])
            plt.plot(x.tolist(), y.tolist(), color="cyan", marker="braille")
            title = f"rolling {d.kind} (last {d.window})"
        for start, label in d.regime_starts[1:]:
            plt.vline(start, "gray")
        # regime names where there is room for them: at the top, or at the bottom under an equity legend
        label_y = lo + (hi - lo) * 0.04 if d.kind == "equity" else hi - (hi - lo) * 0.04
        columns_per_episode = width / n
        free_from = -1.0
        for start, label in d.regime_starts:
            col = start * columns_per_episode
            if col >= free_from:
                plt.text(label, start + n * 0.01, label_y, color="gray", alignment="left")
                free_from = col + len(label) + 2
        for start, label in d.phase_starts:
            plt.vline(start, "blue")
        for ep, arm in d.injections:
            plt.vline(ep, "green")
        if d.reflections:
            ys = [float(d.y[min(e, len(d.y) - 1)]) for e in d.reflections]
            marker = "R" if len(d.reflections) * 4 < width else "•"  # dense reflections: a quieter mark
            plt.scatter(d.reflections, ys, color="magenta", marker=marker)
        r_mark = "R" if len(d.reflections) * 4 < width else "•"
        marks = [name for name, present in ((f"{r_mark} reflection", d.reflections), ("green: new arm", d.injections),
                                            ("gray: regime", d.regime_starts[1:]), ("blue: phase", d.phase_starts))
                 if present]
        full = " · ".join([title, *marks])
        plt.title(full if len(full) <= self.size.width - 6 else title)
        self.refresh()
