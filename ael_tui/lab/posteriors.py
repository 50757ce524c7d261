"""The bandit's posteriors: a table of arms and a plot of their Beta densities."""

from __future__ import annotations

import numpy as np
from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from ael_tui.line_chart import braille_cells, curve_dots
from ael_tui.readouts import ArmRow, beta_pdf, density_grid
from ael_tui.row_list import RowList
from ael_tui.throttle import Throttle

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


LEFT = 6  # y labels and the axis


def _tick(value: float) -> str:
    """A y label in five characters (a narrow posterior's peak passes 100)."""
    return f"{value:5.2f}" if value < 10 else f"{value:5.1f}" if value < 1000 else f"{value:5.0f}"


class DensityPlot(Widget):
    """Beta(α, β) of every arm as braille curves over [0, 1], each in its arm's colour, the
    chosen arm drawn last (on top) and named in the corner with "now", an injected one "new".

    Drawn with numpy into a dot grid, not plotext: a step redraws it, and plotext took
    20 ms to build these curves against about 1 ms here, which kept a step's frame with
    its plots over 50 ms."""

    DEFAULT_CSS = "DensityPlot { padding: 0 1 0 0; }"

    def __init__(self, every: float = 0.25, **kw) -> None:
        super().__init__(**kw)
        self._rows: list[ArmRow] = []
        self._frozen = False
        self._lines: list[Strip] | None = None
        self._built_for: tuple[int, int] | None = None
        self.throttle = Throttle(self.set_timer, every, self._paint)

    def show(self, rows: list[ArmRow], frozen: bool, now: bool = False) -> bool:
        """Draw these posteriors (at once if `now`, else at most every `every` s); False if
        they are the ones shown (nothing to redraw)."""
        if rows == self._rows and frozen == self._frozen and not now:
            return False
        self._rows, self._frozen = list(rows), frozen
        self.throttle.now() if now else self.throttle()
        return True

    def _paint(self) -> None:
        self._lines = None
        self.refresh()

    def render_line(self, y: int) -> Strip:
        size = (self.content_size.width, self.content_size.height)
        if self._lines is None or self._built_for != size:
            self._lines, self._built_for = self._build(*size), size
        return self._lines[y] if 0 <= y < len(self._lines) else Strip.blank(size[0])

    def _build(self, width: int, height: int) -> list[Strip]:
        dim, bold = Style(dim=True), Style(bold=True)
        title = "Beta posteriors" + ("  ·  ❄ frozen for test" if self._frozen else "")
        lines: list[Text] = [Text(title.center(width), style=bold)]
        cols, rows = width - LEFT - 1, height - 3
        if cols < 8 or rows < 2 or not self._rows:
            lines += [Text("")] * max(height - 1, 0)
            return [Strip(list(t.render(Console(width=width))), width) for t in lines][:height]
        xs = density_grid(2 * cols)
        ys = [beta_pdf(xs, r.alpha, r.beta) for r in self._rows]
        top = max(1.0, *(float(y.max()) for y in ys)) * 1.05
        n_dots = 4 * rows
        order = sorted(range(len(self._rows)), key=lambda i: (self._rows[i].chosen, self._rows[i].injected))
        codes = np.zeros((rows, cols), dtype=np.int32)
        owner = np.full((rows, cols), -1)
        for i in order:
            r = np.clip(np.round((1 - ys[i] / top) * (n_dots - 1)), 0, n_dots - 1)
            cells = braille_cells(curve_dots(r, n_dots))
            codes |= cells
            owner[cells > 0] = i
        styles = [Style(color=arm_colour(i)[1], bold=self._rows[i].chosen) for i in range(len(self._rows))]
        labelled = {round(k * (rows - 1) / 4) for k in range(5)}
        for row in range(rows):
            value = top * (1 - row / max(rows - 1, 1))
            line = Text(f"{_tick(value)}┤" if row in labelled else "     │", style=dim)
            for col in range(cols):
                code = int(codes[row, col])
                line.append(chr(0x2800 + code) if code else " ", styles[owner[row, col]] if code else Style())
            lines.append(line)
        axis = ["─"] * cols
        for k in range(5):
            axis[min(cols - 1, round(k * (cols - 1) / 4))] = "┬"
        lines.append(Text("     └" + "".join(axis), style=dim))
        ticks = [" "] * (cols + LEFT)
        for k in range(5):
            label = f"{k / 4:.2f}"
            at = max(0, min(LEFT + round(k * (cols - 1) / 4) - 2, cols + LEFT - len(label)))
            ticks[at:at + len(label)] = label
        lines.append(Text("".join(ticks), style=dim))
        legend = [(f"{r.name} ({'now' if r.chosen else 'new'})", styles[i])
                  for i, r in enumerate(self._rows) if r.chosen or r.injected]
        for k, (name, style) in enumerate(legend[: max(rows - 1, 0)]):  # top right, over the curves
            line = lines[1 + k]
            label = Text("━ " + name, style=style)
            start = max(LEFT, width - 1 - label.cell_len)
            lines[1 + k] = line[:start] + label + line[start + label.cell_len:]
        console = Console(width=width, legacy_windows=False)
        return [Strip(list(text.render(console)), width).adjust_cell_length(width) for text in lines[:height]]
