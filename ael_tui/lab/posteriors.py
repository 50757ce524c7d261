"""The bandit's posteriors: a table of arms and a plot of their Beta densities."""

from __future__ import annotations

from rich.style import Style

from ael_tui.widgets.charts.arm_strip import arm_colour
from ael_tui.widgets.charts.exportable import ExportableChart
from ael_lab.drawing import chart_svg
from ael_tui.widgets.line_chart import Axis, Chart, LineChart, Series, quarters
from ael_tui.widgets.readouts import ArmRow, beta_pdf, density_grid
from ael_tui.widgets.row_list import PLAIN, RowList

BOLD, REVERSE, GREEN, YELLOW = Style(bold=True), Style(bold=True, reverse=True), Style(color="green"), \
    Style(bold=True, color="yellow")


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
        widths = [w if w is not None else name for _, w, _ in self.COLUMNS]
        for r in self.rows:  # counts that grow with the stream (α, β, pulls, the episode added) stay whole
            for column, text in ((1, f"{r.alpha:.1f}"), (2, f"{r.beta:.1f}"), (5, str(r.pulls)),
                                 (8, str(r.added_at))):
                widths[column] = max(widths[column], len(text))
        return widths

    def get_content_width(self, container, viewport) -> int:
        return 1 + sum(w + self.GAP for w in self._widths())

    def cells(self, r: ArmRow) -> list[tuple[str, Style]]:
        index = next((i for i, row in enumerate(self.rows) if row is r), 0)
        name_style = Style(color=arm_colour(index)[1], bold=r.injected, reverse=r.chosen)
        return [
            (r.name + (" +" if r.injected else ""), name_style),
            (f"{r.alpha:.1f}", PLAIN), (f"{r.beta:.1f}", PLAIN),
            (f"{r.mean:.3f}", BOLD if r.chosen else PLAIN),
            (f"{r.low:.2f}–{r.high:.2f}", PLAIN),
            (str(r.pulls), PLAIN),
            ("—" if r.last_sample is None else f"{r.last_sample:.2f}", PLAIN),
            ("◀" if r.chosen else "", YELLOW),
            (str(r.added_at), PLAIN),
        ]

    def show(self, rows: list[ArmRow]) -> None:
        if rows == self.rows:
            return  # the same numbers: nothing to repaint
        widths = self._widths()
        self.set_rows(rows)
        if self._widths() != widths:  # a longer arm name (a new arm): the box grows
            self.refresh(layout=True)

    def cell(self, name: str, column: str) -> str:
        """The text shown in a row's column (for tests and the benchmark)."""
        index = [c for c, _, _ in self.COLUMNS].index(column)
        row = next(r for r in self.rows if r.name == name)
        return self.cells(row)[index][0]


def _tick(value: float) -> str:
    """A y label in five characters (a narrow posterior's peak passes 100)."""
    return f"{value:5.2f}" if value < 10 else f"{value:5.1f}" if value < 1000 else f"{value:5.0f}"


class DensityPlot(ExportableChart, LineChart):
    """Beta(α, β) of every arm as braille curves over [0, 1], each in its arm's colour, the
    chosen arm drawn last (on top) and named in the corner with "now", an injected one "new".
    A `LineChart` (numpy into braille cells): a step redraws it, and plotext took 20 ms.
    Focused, S writes it alone as SVG."""

    def chart_name(self) -> str:
        return "posteriors"

    def chart_svg(self) -> str | None:
        return chart_svg(self.chart) if self.chart is not None and self.chart.series else None

    def show_posteriors(self, rows: list[ArmRow], frozen: bool, now: bool = False) -> bool:
        """Draw these posteriors (at once if `now`, else on the chart's throttle); False if
        they are the ones shown."""
        return self.show(density_chart(rows, frozen, self.content_size.width), now=now)


def density_chart(rows: list[ArmRow], frozen: bool, width: int) -> Chart:
    title = "Beta posteriors" + ("  ·  ❄ frozen for test" if frozen else "")
    xs = density_grid(2 * max(width - 6, 8))  # a point per dot column (the labels take 6)
    ys = [beta_pdf(xs, r.alpha, r.beta) for r in rows]
    top = max(1.0, *(float(y.max()) for y in ys)) * 1.05 if rows else 1.0
    order = sorted(range(len(rows)), key=lambda i: (rows[i].chosen, rows[i].injected))  # chosen on top
    return Chart(
        title, title, (0.0, 1.0), Axis(0.0, top, quarters(0.0, top), _tick), x_format="{:.2f}",
        series=[Series(rows[i].name, xs, ys[i], arm_colour(i)[1], bold=rows[i].chosen) for i in order],
        legend=[(f"{r.name} ({'now' if r.chosen else 'new'})", arm_colour(i)[1])
                for i, r in enumerate(rows) if r.chosen or r.injected])
