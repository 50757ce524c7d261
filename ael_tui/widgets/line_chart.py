"""One braille line chart for the lab's progress and the compare view (numpy, no plotext).

A `Chart` says what to draw: curves (`Series`) on a left axis and, optionally, a right
one; vertical marks (regime boundaries, phases, new arms); point marks (reflections);
names along the top or bottom (regimes); a legend. `LineChart` draws it into a grid of
braille cells: every y tick given is labelled on its own row (none is skipped, whatever
the height), the x axis gets as many labelled ticks as fit. It rebuilds its lines only
when it is given a chart that differs from the one it shows, or resized, and paints at
most every `every` seconds (`Throttle`: a chart arriving sooner waits for the interval's end).

plotext built these two charts in 20-100 ms a frame; this takes about half a millisecond each.
"""

from __future__ import annotations

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from ael_lab.text import shown

from ael_lab.drawing import Axis, Chart, Series, quarters, x_ticks  # noqa: F401 - what a chart is
from ael_tui.clock import clock_of
from ael_tui.widgets.throttle import Throttle

# braille dot bits by (row in the cell 0-3, column in the cell 0-1)
BRAILLE_BITS = np.array([[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]], dtype=np.int32)
CELL_BITS = BRAILLE_BITS.T.reshape(-1).astype(np.uint8)  # a cell's dots in (column, row) order; they sum to < 256
DIM, BOLD = Style(dim=True), Style(bold=True)


def braille_cells(dots: np.ndarray) -> np.ndarray:
    """A (4·rows, 2·cols) boolean dot grid as (rows, cols) braille bit codes: each cell's
    eight dots times their bits (a product, as a sum over a 4-d array took five times as long)."""
    rows, cols = dots.shape[0] // 4, dots.shape[1] // 2
    cells = dots[:4 * rows, :2 * cols].reshape(rows, 4, cols, 2).transpose(0, 2, 3, 1).reshape(rows, cols, 8)
    return (cells.view(np.uint8) @ CELL_BITS).astype(np.int32)


def curve_dots(dot_y: np.ndarray, n_dots: int) -> np.ndarray:
    """The dots of a curve given its dot row per dot column (NaN: no point there), each
    joined to the previous one by a vertical run, as (n_dots, len(dot_y)) booleans."""
    ok = ~np.isnan(dot_y)
    r = np.where(ok, dot_y, 0).astype(int)
    prev = np.concatenate([r[:1], r[:-1]])
    prev_ok = np.concatenate([ok[:1], ok[:-1]])
    prev = np.where(prev_ok, prev, r)
    lo, hi = np.minimum(r, prev), np.maximum(r, prev)
    rows = np.arange(n_dots)[:, None]
    return (rows >= lo[None, :]) & (rows <= hi[None, :]) & ok[None, :]


class LineChart(Widget):
    DEFAULT_CSS = "LineChart { padding: 0 1 0 0; }"

    def __init__(self, every: float = 0.25, **kw) -> None:
        super().__init__(**kw)
        self.chart: Chart | None = None        # what is shown, or due to be at the throttle's next paint
        self.throttle = Throttle(self.set_timer, every, self._paint, clock_of(self))
        self._lines: list[Strip] | None = None
        self._built_for: tuple[int, int] | None = None

    def show(self, chart: Chart, now: bool = False) -> bool:
        """Show `chart` (at once if `now`, else at most every `every` s); False if it is
        what is shown already (nothing to redraw)."""
        if chart.same_as(self.chart) and not now:
            return False
        self.chart = chart
        self.throttle.now() if now else self.throttle()
        return True

    def _paint(self) -> None:
        """Draw the chart now; repaint the lines whose picture differs (one more episode
        often moves no braille dot, and a repaint is most of a step's frame)."""
        size = (self.content_size.width, self.content_size.height)
        lines = draw(self.chart, *size)
        before, built_for = self._lines, self._built_for
        self._lines, self._built_for = lines, size
        if before is None or built_for != size or len(before) != len(lines):
            self.refresh()
            return
        # the lines that changed, only: a step moves the played arm's curve, seldom the others
        changed = [Region(0, y, size[0], 1) for y, (new, old) in enumerate(zip(lines, before))
                   if list(new) != list(old)]
        if changed:
            self.refresh(*changed)

    def render_line(self, y: int) -> Strip:
        size = (self.content_size.width, self.content_size.height)
        if self._lines is None or self._built_for != size:
            self._lines, self._built_for = draw(self.chart, *size), size
        return self._lines[y] if 0 <= y < len(self._lines) else Strip.blank(size[0])


def _tick_rows(axis: Axis, rows: int) -> dict[int, str]:
    """Row -> label of the axis' ticks; too few rows for all: the ends, then every other."""
    ticks = axis.ticks
    while len(ticks) > 2 and len(ticks) > rows:
        ticks = ticks[::2] if len(ticks) % 2 else [ticks[0], ticks[-1]]
    span = (axis.high - axis.low) or 1.0
    return {int(round((axis.high - v) / span * (rows - 1))): axis.label(v) for v in ticks}


def plot_margins(chart: Chart) -> tuple[int, int]:
    """The cells the left and right axes' labels take: what lies between is the plot (a
    picture drawn under the chart, the arm strip, lines up with it by these)."""
    lw = max(len(chart.left.label(v)) for v in chart.left.ticks) + 1
    rw = max(len(chart.right.label(v)) for v in chart.right.ticks) + 1 if chart.right else 0
    return lw, rw


def draw(chart: Chart | None, width: int, height: int) -> list[Strip]:
    """The chart as `height` strips of `width` cells."""
    blank = [Strip.blank(width) for _ in range(height)]
    if chart is None or width < 16 or height < 5:
        return blank
    lw, rw = plot_margins(chart)
    title = chart.title if len(chart.title) <= width - 6 or not chart.short_title else chart.short_title
    # the legend names arms a model named: shown, never obeyed
    head = _head(shown(title[:width]), [(shown(text), colour) for text, colour in chart.legend], width, height - 5)
    cols, rows = width - lw - rw, height - 2 - len(head)
    if cols < 8 or rows < 2:
        return blank
    x0, x1 = chart.x_range
    xspan = (x1 - x0) or 1.0

    def col_of(x: float) -> int:
        return min(max(round((x - x0) / xspan * (cols - 1)), 0), cols - 1)

    # the curves, as braille cells owned by the last series drawn there
    codes = np.zeros((rows, cols), dtype=np.int32)
    owner = np.full((rows, cols), -1)
    n_dots = 4 * rows
    dot_x = np.arange(2 * cols) / max(2 * cols - 1, 1) * xspan + x0
    for i, s in enumerate(chart.series):
        if len(s.x) == 0:
            continue
        axis = chart.right if s.right and chart.right else chart.left
        inside = (dot_x >= s.x[0]) & (dot_x <= s.x[-1])
        if len(s.x) == 1:  # one point: its own column
            inside = np.abs(dot_x - s.x[0]) == np.min(np.abs(dot_x - s.x[0]))
        ys = np.interp(dot_x, s.x, s.y)
        span = (axis.high - axis.low) or 1.0
        dot_y = np.where(inside, np.clip(np.round((axis.high - ys) / span * (n_dots - 1)), 0, n_dots - 1), np.nan)
        cells = braille_cells(curve_dots(dot_y, n_dots))
        codes |= cells
        owner[cells > 0] = i

    # the picture as code points and style numbers (into `palette`, -1: none), overlaid in
    # numpy and cut into one segment per run of a style: cell by cell in Python was most
    # of a chart's cost, and a step draws two
    text = np.where(codes > 0, codes + 0x2800, 0x20).astype(np.uint32)
    style = owner
    palette: list[Style] = [Style(color=s.colour, bold=s.bold) for s in chart.series]

    def paint(r: int, c: int, chars: str, st: Style) -> None:
        palette.append(st)
        text[r, c:c + len(chars)] = np.frombuffer(chars.encode("utf-32-le"), dtype=np.uint32)
        style[r, c:c + len(chars)] = len(palette) - 1

    for x, colour in chart.vlines:  # under the curves: a line fills only empty cells
        c = col_of(x)
        empty = text[:, c] == 0x20
        palette.append(Style(color=colour))
        text[empty, c], style[empty, c] = ord("│"), len(palette) - 1
    name_row = 0 if chart.names_at_top else rows - 1
    free_from = 0
    named: set[int] = set()  # the columns a name takes on its row
    for x, name, colour in chart.names:  # each where it has room, after the previous one
        name = shown(name)  # a regime a file named: shown, never obeyed
        c = col_of(x) + 1
        if c < free_from or c + len(name) > cols:
            continue
        paint(name_row, c, name, Style(color=colour))
        named.update(range(c, c + len(name)))
        free_from = c + len(name) + 2
    span = (chart.left.high - chart.left.low) or 1.0
    for x, y, ch, colour in chart.marks:
        r = min(max(round((chart.left.high - y) / span * (rows - 1)), 0), rows - 1)
        c = col_of(x)
        if r == name_row and c in named:  # a mark never covers a regime's name: the row beside it
            r = name_row + 1 if chart.names_at_top else name_row - 1
        paint(r, c, ch, Style(color=colour, bold=True))

    left_rows, right_rows = _tick_rows(chart.left, rows), _tick_rows(chart.right, rows) if chart.right else {}
    lines = list(head)
    for r in range(rows):
        label = left_rows.get(r)
        segments = [Segment(f"{label:>{lw - 1}}┤" if label is not None else " " * (lw - 1) + "│", DIM)]
        segments += _runs(text[r], style[r], palette)
        if chart.right:
            label = right_rows.get(r)
            segments.append(Segment("├" + label.ljust(rw - 1) if label is not None else "│" + " " * (rw - 1), DIM))
        lines.append(Strip(segments).adjust_cell_length(width))
    ticks = x_ticks(x0, x1, cols, chart.x_format)
    axis = ["─"] * cols
    under = [" "] * cols
    for c, text in ticks:
        axis[c] = "┬"
        at = max(0, min(c - len(text) // 2, cols - len(text)))
        under[at:at + len(text)] = text
    corner = "┘" if chart.right else ""
    lines.append(Strip([Segment(" " * (lw - 1) + "└" + "".join(axis) + corner, DIM)]).adjust_cell_length(width))
    lines.append(Strip([Segment(" " * lw + "".join(under), DIM)]).adjust_cell_length(width))
    return lines[:height]


def _head(title: str, legend: list[tuple[str, str]], width: int, spare: int) -> list[Strip]:
    """The title, and the legend beside it where it fits, else on rows of its own under it
    (at most `spare` of them): never over the curves (issue 29)."""
    entries = [[Segment("━ " + name, Style(color=colour, bold=True))] for name, colour in legend]
    if not entries:
        return [Strip([Segment(title.center(width), BOLD)], width)]
    gap = Segment("  ")
    sizes = [len(e[0].text) for e in entries]
    if len(title) + 2 + sum(sizes) + 2 * (len(sizes) - 1) <= width - 1:
        right: list[Segment] = []
        for entry in entries:
            right += ([gap] if right else []) + entry
        used = len(title) + sum(len(seg.text) for seg in right)
        return [Strip([Segment(title, BOLD), Segment(" " * (width - used - 1)), *right]).adjust_cell_length(width)]
    lines = [Strip([Segment(title.center(width), BOLD)], width)]
    line: list[Segment] = []
    used = 0
    for entry, size in zip(entries, sizes):
        if line and used + 2 + size > width - 1:
            lines.append(Strip([Segment(" "), *line]).adjust_cell_length(width))
            line, used = [], 0
        line += ([gap] if line else []) + entry
        used += (2 if used else 0) + size
    if line:
        lines.append(Strip([Segment(" "), *line]).adjust_cell_length(width))
    return lines[: 1 + max(spare, 0)]


def _runs(text: np.ndarray, style: np.ndarray, palette: list[Style]) -> list[Segment]:
    """One segment per run of cells with the same style number."""
    line = text.tobytes().decode("utf-32-le")
    cuts = [0, *(np.flatnonzero(style[1:] != style[:-1]) + 1).tolist(), len(line)]
    ids = style.tolist()
    return [Segment(line[a:b], palette[ids[a]] if ids[a] >= 0 else None) for a, b in zip(cuts, cuts[1:])]
