"""The bandit's posteriors: a table of arms and a plot of their Beta densities."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable
from textual_plotext import PlotextPlot

from ..views import ArmRow, beta_pdf, density_grid

COLUMNS = (("arm", "arm", 6), ("α", "alpha", 6), ("β", "beta", 6), ("mean", "mean", 5),
           ("90% interval", "interval", 12), ("pulls", "pulls", 5), ("last", "last", 4), ("now", "now", 3),
           ("added", "added", 5))


def _cells(r: ArmRow) -> list:
    style = "bold reverse" if r.chosen else ("green" if r.injected else "")
    return [
        Text(r.name + (" +" if r.injected else ""), style=style),
        Text(f"{r.alpha:6.1f}", justify="right"),
        Text(f"{r.beta:6.1f}", justify="right"),
        Text(f"{r.mean:.3f}", justify="right", style="bold" if r.chosen else ""),
        Text(f"{r.low:.2f}–{r.high:.2f}"),
        Text(f"{r.pulls:5d}", justify="right"),
        Text("—" if r.last_sample is None else f"{r.last_sample:.2f}", justify="right"),
        Text("◀" if r.chosen else "", style="bold yellow"),
        Text(str(r.added_at), justify="right"),
    ]


class PosteriorTable(DataTable):
    """One row per arm, keyed by name, updated in place so the cursor stays put."""

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for label, key, _ in COLUMNS:
            self.add_column(label, key=key)  # auto width: grows with the longest arm name

    def show(self, rows: list[ArmRow]) -> None:
        names = [r.name for r in rows]
        if [k.value for k in self.rows] != names[: len(self.rows)]:
            self.clear()
        for r in rows:
            cells = _cells(r)
            if r.name in self.rows:
                for (_, key, _), cell in zip(COLUMNS, cells):
                    self.update_cell(r.name, key, cell, update_width=True)
            else:
                self.add_row(*cells, key=r.name)


class DensityPlot(PlotextPlot):
    """Beta(α, β) of every arm, about one point per column; the chosen arm highlighted."""

    def show(self, rows: list[ArmRow], frozen: bool) -> None:
        plt = self.plt
        plt.clear_data()
        width = max(self.size.width - 8, 16)
        x = density_grid(width)
        top = 1.0
        order = sorted(rows, key=lambda r: (r.chosen, r.injected))  # chosen drawn last, on top
        for r in order:
            y = beta_pdf(x, r.alpha, r.beta)
            top = max(top, float(y.max()))
            color = "orange" if r.chosen else ("green" if r.injected else "gray")
            label = f"{r.name} (now)" if r.chosen else (f"{r.name} (new)" if r.injected else None)
            plt.plot(x.tolist(), y.tolist(), color=color, label=label, marker="braille")
        plt.xlim(0, 1)
        plt.ylim(0, top * 1.05)
        plt.title("Beta posteriors" + ("  ·  ❄ frozen for test" if frozen else ""))
        plt.xlabel("success probability")
        self.refresh()
