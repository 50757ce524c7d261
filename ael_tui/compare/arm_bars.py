"""A compact picture of one selector's posteriors: per arm, its 90% interval as a
bar over [0, 1] with the mean marked, the mean, and the pulls.

Narrow enough for three or four selectors side by side at 100 columns; the bar
takes whatever width is left, so the same widget works at any size."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from ael_lab.text import shown

from ael_tui.widgets.readouts import ArmRow

NAME = 16     # room for an arm's name (longer ones are cut)...
MIN_BAR = 8   # ...unless the bar would get narrower than this
NUMBERS = 12  # "  0.73  1234"


def interval_bar(low: float, mean: float, high: float, width: int) -> str:
    """'····───●──···' : dots outside the interval, a line inside, ● at the mean."""
    width = max(width, 3)

    def col(v: float) -> int:
        return min(width - 1, max(0, int(v * width)))

    lo, mid, hi = col(low), col(mean), col(high)
    cells = ["·"] * width
    for i in range(lo, hi + 1):
        cells[i] = "─"
    cells[mid] = "●"
    return "".join(cells)


class ArmBars(Widget):
    DEFAULT_CSS = "ArmBars { height: auto; }"

    _rows: list[ArmRow] = []

    def show(self, rows: list[ArmRow]) -> None:
        if rows != self._rows:
            resized = len(rows) != len(self._rows)
            self._rows = list(rows)
            self.refresh(layout=resized)

    def get_content_height(self, container, viewport, width: int) -> int:
        return max(1, len(self._rows) + 1)

    def render(self) -> Text:
        width = self.size.width
        longest = max((len(r.name) + (2 if r.injected else 0) for r in self._rows), default=4) + 1
        name_w = max(6, min(NAME, longest, width - NUMBERS - MIN_BAR))
        bar_w = max(3, width - name_w - NUMBERS)
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(f"{'arm':<{name_w}}{'0':<{bar_w - 1}}1{'mean':>6}{'pulls':>6}\n", style="dim")
        for i, r in enumerate(self._rows):
            name = shown(r.name) + (" +" if r.injected else "")  # a policy a model named: shown, never obeyed
            name = name if len(name) < name_w else name[: name_w - 2] + "…"
            style = "bold reverse" if r.chosen else ("green" if r.injected else "")
            out.append(f"{name:<{name_w}}", style=style)
            out.append(interval_bar(r.low, r.mean, r.high, bar_w), style="bold" if r.chosen else "dim")
            out.append(f"{r.mean:6.2f}{r.pulls:6d}")
            if i < len(self._rows) - 1:
                out.append("\n")
        return out
