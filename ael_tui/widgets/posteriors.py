"""The bandit's posteriors: a table of arms and a plot of their Beta densities."""

from __future__ import annotations

from rich.style import Style
from textual_plotext import PlotextPlot

from ..views import ArmRow, beta_pdf, density_grid
from .rows import RowList

BOLD, REVERSE, GREEN, YELLOW = Style(bold=True), Style(bold=True, reverse=True), Style(color="green"), \
    Style(bold=True, color="yellow")


# (plotext name, the same ANSI colour in rich): an arm's curve and its name in the table share
# it, so the table is the densities' legend (a legend of ten names would cover the plot)
ARM_COLOURS = (("cyan", "cyan"), ("orange", "yellow"), ("magenta", "magenta"), ("green", "green"),
               ("blue+", "bright_blue"), ("red", "red"), ("white", "white"), ("cyan+", "bright_cyan"),
               ("orange+", "bright_yellow"), ("magenta+", "bright_magenta"), ("green+", "bright_green"),
               ("red+", "bright_red"))


def arm_colour(index: int) -> tuple[str, str]:
    return ARM_COLOURS[index % len(ARM_COLOURS)]


class PosteriorTable(RowList):
    """One row per arm, in pool order; the arm that played the last episode is marked."""

    # as narrow as the numbers allow (α, β up to 1201.0; an interval "0.03–0.97"), one space
    # apart, so every column fits a 100×30 terminal (the 90% interval, pulls, ◀ and added were cut)
    COLUMNS = (("arm", None, False), ("α", 6, True), ("β", 6, True), ("mean", 5, True), ("90% int.", 9, False),
               ("pulls", 5, True), ("last", 4, True), ("now", 3, False), ("added", 5, True))
    GAP = 1
    FOLLOW = "none"
    FLEX_MIN = 6

    def row_key(self, row: ArmRow) -> str:
        return row.name

    def _widths(self) -> list[int]:
        name = max([len(r.name) + (2 if r.injected else 0) for r in self.rows] + [self.FLEX_MIN])
        return [w if w is not None else name for _, w, _ in self.COLUMNS]

    def get_content_width(self, container, viewport) -> int:
        return 1 + sum(w + self.GAP for w in self._widths())

    def cells(self, r: ArmRow) -> list[tuple[str, Style]]:
        index = next((i for i, row in enumerate(self.rows) if row is r), 0)
        name_style = Style(color=arm_colour(index)[1], bold=r.injected, reverse=r.chosen)
        return [
            (r.name + (" +" if r.injected else ""), name_style),
            (f"{r.alpha:.1f}", Style()), (f"{r.beta:.1f}", Style()),
            (f"{r.mean:.3f}", BOLD if r.chosen else Style()),
            (f"{r.low:.2f}–{r.high:.2f}", Style()),
            (str(r.pulls), Style()),
            ("—" if r.last_sample is None else f"{r.last_sample:.2f}", Style()),
            ("◀" if r.chosen else "", YELLOW),
            (str(r.added_at), Style()),
        ]

    def show(self, rows: list[ArmRow]) -> None:
        widths = self._widths()
        self.set_rows(rows)
        if self._widths() != widths:  # a longer arm name (a new arm): the box grows
            self.refresh(layout=True)

    def cell(self, name: str, column: str) -> str:
        """The text shown in a row's column (for tests and the benchmark)."""
        index = [c for c, _, _ in self.COLUMNS].index(column)
        row = next(r for r in self.rows if r.name == name)
        return self.cells(row)[index][0]


class DensityPlot(PlotextPlot):
    """Beta(α, β) of every arm, about one point per column; the chosen arm highlighted."""

    def show(self, rows: list[ArmRow], frozen: bool) -> None:
        plt = self.plt
        plt.clear_data()
        width = max(self.size.width - 8, 16)
        x = density_grid(width)
        top = 1.0
        # one colour per arm (by its place in the pool, so it keeps it), every arm in the legend;
        # the chosen arm is drawn last, on top, and marked "now", an injected one "new"
        colour = {r.name: arm_colour(i)[0] for i, r in enumerate(rows)}
        order = sorted(rows, key=lambda r: (r.chosen, r.injected))
        for r in order:
            y = beta_pdf(x, r.alpha, r.beta)
            top = max(top, float(y.max()))
            label = f"{r.name} (now)" if r.chosen else (f"{r.name} (new)" if r.injected else None)
            plt.plot(x.tolist(), y.tolist(), color=colour[r.name], label=label, marker="braille")
        plt.xlim(0, 1)
        plt.ylim(0, top * 1.05)
        plt.title("Beta posteriors" + ("  ·  ❄ frozen for test" if frozen else ""))
        plt.xlabel("success probability")
        self.refresh()
