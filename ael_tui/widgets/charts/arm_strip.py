"""The arm-over-time strip: which retrieval policy played when, one coloured cell per
episode (or per bucket of episodes when the run is longer than the strip is wide),
each arm in its colour in the posteriors table. Decisions are marked in the cells (+ a
new arm, ✓ a proposal approved, ✗ one rejected, ± both in one cell), regime boundaries
as │, and the regimes are named on the row below; a bucket no arm dominates (under 60%)
is ▒.

In the lab it sits under the progress chart, its cells lined up with the chart's plot
(`margins`); in the compare view it has a row per selector, named in the gutter.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from ael_lab.drawing import ARM_COLOURS, DECISION_COLOURS, arm_colour, arm_colours  # noqa: F401 - the arms' colours
from ael_lab.drawing import column_of, strip_cells
from ael_tui.widgets.charts.exportable import ExportableChart
from ael_lab.drawing import APPROVED, NEW_ARM, PictureData, PictureSource, REJECTED, strip_svg
from ael_tui.widgets.throttle import Throttle

MIXED = 0.6        # a bucket whose most played arm has less than this share is drawn ▒
REGIME = "grey50"
NAMES, DIM = Style(color=REGIME), Style(dim=True)
MARKS = {REJECTED: ("✗", "bold red"), APPROVED: ("✓", "bold green"), NEW_ARM: ("+", "bold bright_green")}  # later ones win a cell

def strip_row(d: PictureSource | PictureData, columns: int, colours: dict[str, str]) -> list[Segment]:
    """One run's cells: the arm's colour as the background (▒ in its colour for a mixed
    bucket, · not played yet), the regime boundaries and decisions written on them."""
    cells = strip_cells(d.policies, d.n, columns)
    chars = ["·" if c.arm is None else " " if c.share >= MIXED else "▒" for c in cells]
    backs = [colours.get(c.arm, "white") if c.arm is not None and c.share >= MIXED else None for c in cells]
    made: dict[tuple, Style] = {}  # one Style per arm and look, not one per cell

    def style(arm: str | None, back: str | None) -> Style:
        key = (arm, back)
        if key not in made:
            made[key] = Style(dim=True) if arm is None else Style(bgcolor=back) if back else \
                Style(color=colours.get(arm))
        return made[key]

    styles = [style(c.arm, back) for c, back in zip(cells, backs)]
    over: dict[int, tuple[str, str]] = {column_of(start, d.n, columns): ("│", REGIME) for start, _ in d.regime_starts[1:]}
    for kind, (mark, style) in MARKS.items():  # in order: a new arm shows over its approval
        for col in {column_of(dec.episode, d.n, columns) for dec in d.decisions if dec.kind == kind
                    and dec.episode < d.n}:
            both = kind == APPROVED and over.get(col, ("",))[0] == MARKS[REJECTED][0]
            over[col] = ("±", "bold yellow") if both else (mark, style)  # one approved, one rejected here
    for col, (mark, style) in over.items():
        chars[col] = mark
        styles[col] = Style(color="black", bold=True, bgcolor=backs[col]) if backs[col] else Style.parse(style)
    out, start = [], 0
    for i in range(1, len(chars) + 1):  # one segment per run of a style
        if i == len(chars) or styles[i] != styles[start]:
            out.append(Segment("".join(chars[start:i]), styles[start]))
            start = i
    return out


def names_row(d: PictureSource | PictureData, columns: int) -> Segment:
    """The regimes' names, each from its first column where it has room."""
    row = [" "] * columns
    free = 0
    for start, name in d.regime_starts:
        c = column_of(start, d.n, columns)
        if c < free or c + len(name) > columns:
            continue
        row[c:c + len(name)] = name
        free = c + len(name) + 1
    return Segment("".join(row), NAMES)


def legend_rows(colours: dict[str, str], width: int) -> list[Strip]:
    """The key: each arm's colour and name, then the marks, on as many rows as `width` needs,
    broken between entries, never cut (a name longer than a row is the only thing cut)."""
    entries = [[Segment("■ ", Style(color=colour)), Segment(arm)] for arm, colour in colours.items()]
    entries.append([Segment("+ new arm ✓ approved ✗ rejected", DIM)])
    rows: list[list[Segment]] = [[]]
    used = 0
    for entry in entries:
        size = sum(len(seg.text) for seg in entry)
        if rows[-1] and used + 2 + size > width:
            rows.append([])
            used = 0
        if rows[-1]:
            rows[-1].append(Segment("  "))
            used += 2
        rows[-1] += entry
        used += size
    return [Strip(row).crop(0, width).adjust_cell_length(width) for row in rows]


class ArmStrip(ExportableChart):
    """`show` it runs (one for the lab, one per selector in the compare view): each a
    `PictureData` or a `PictureSource`, whose lists are made when the strip is painted,
    at most every `every` seconds (`Throttle`, as the charts)."""

    DEFAULT_CSS = "ArmStrip { height: auto; }"
    KINDS = ()

    def __init__(self, legend: bool = True, every: float = 0.25, **kw) -> None:
        super().__init__(**kw)
        self.sources: list[PictureSource | PictureData] = []
        self.margins = (0, 0)
        self.legend = legend
        self._key: tuple | None = None
        self._arms: tuple[str, ...] = ()
        self._lines: list[Strip] = []
        self._built_for: tuple | None = None
        self.throttle = Throttle(self.set_timer, every, self.refresh)

    @property
    def runs(self) -> list[PictureSource | PictureData]:
        """What is shown: a source is read as far as the strip needs (arms played, regimes),
        never into rewards."""
        return self.sources

    def show(self, runs: list[PictureSource | PictureData], margins: tuple[int, int] | None = None,
             now: bool = False) -> None:
        """Draw `runs`; `margins`: cells left of and right of the cells (the chart's axes)."""
        margins = margins if margins is not None else (max((len(d.name) for d in runs), default=0) + 1
                                                       if len(runs) > 1 else 0, 0)
        key = (tuple((d.name, d.n, d.played, tuple(d.arms), len(d.decisions)) for d in runs), margins)
        if key == self._key:
            return
        arms = tuple(a for d in runs for a in d.arms)
        resized = len(runs) != len(self.sources) or arms != self._arms  # a new arm may need another key row
        self.sources, self.margins, self._key, self._arms = list(runs), margins, key, arms
        if resized:
            self.refresh(layout=True)
        else:
            self.throttle.now() if now else self.throttle()

    def set_legend(self, on: bool) -> None:
        if on != self.legend:
            self.legend = on
            self.refresh(layout=True)

    def get_content_height(self, container, viewport, width: int) -> int:
        key = len(legend_rows(arm_colours(self.runs), width)) if self.legend and self.runs else int(self.legend)
        return max(1, len(self.sources)) + 1 + key

    def render_line(self, y: int) -> Strip:
        """The strip's lines, made once per state and size: Segments straight into Strips, as
        the line chart does (a Rich Text through the widget's render cost 5 ms a step)."""
        width = self.content_size.width
        state = (width, self._key, self.legend)
        if self._built_for != state:
            self._lines, self._built_for = self._draw(width), state
        return self._lines[y] if 0 <= y < len(self._lines) else Strip.blank(width)

    def _draw(self, width: int) -> list[Strip]:
        left, right = self.margins
        columns = width - left - right
        runs = self.runs
        if not runs or columns < 4:
            return []
        colours = arm_colours(runs)
        lines = []
        for d in runs:
            gutter = (d.name[:left - 1] if len(runs) > 1 else "arm").rjust(left - 1)[:max(left - 1, 0)]
            lines.append(Strip([Segment(gutter + (" " if left else ""), DIM), *strip_row(d, columns, colours)])
                         .adjust_cell_length(width))
        lines.append(Strip([Segment(" " * left), names_row(runs[0], columns)]).adjust_cell_length(width))
        if self.legend:
            lines += legend_rows(colours, width)
        return lines

    # ----------------------------------------------------------- export
    def chart_name(self) -> str:
        return "arms"

    def chart_svg(self) -> str | None:
        runs = self.runs
        return strip_svg(runs, arm_colours(runs)) if runs and runs[0].played else None
