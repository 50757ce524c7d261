"""Per-regime bars for the compare view: each selector's mean accuracy (or reward) in
each true regime, as a horizontal bar in the selector's colour with its value, one row
per regime, the selectors side by side in the order of the chart's legend. Where a
selector gains and loses is read off at a glance, which the overall mean hides."""

from __future__ import annotations

from rich.text import Text

from ael_lab.drawing import RegimeMean, regime_means
from ael_tui.widgets.charts.exportable import ExportableChart
from ael_lab.drawing import PictureData, bars_svg

Group = tuple[str, str, list[RegimeMean]]  # (selector, its colour, its means by regime)


def regime_groups(runs: list[tuple[PictureData, str]]) -> tuple[list[Group], str]:
    """(selector, colour, per-regime means) of each run, and the metric they are in."""
    groups = [(d.name, colour, regime_means(d.values, d.regimes, d.regime_names)) for d, colour in runs]
    return groups, runs[0][0].metric if runs else "reward"


def bar(value: float, high: float, width: int) -> str:
    """`value` of [0, high] as eighths of a cell in `width` cells."""
    eighths = round(max(0.0, min(value / high if high > 0 else 0.0, 1.0)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")).ljust(width)


class RegimeBars(ExportableChart):
    DEFAULT_CSS = "RegimeBars { height: auto; }"

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.groups: list[Group] = []
        self.metric = "reward"

    def show(self, groups: list[Group], metric: str) -> None:
        if (groups, metric) != (self.groups, self.metric):
            resized = len(groups[0][2] if groups else ()) != len(self.groups[0][2] if self.groups else ())
            self.groups, self.metric = groups, metric
            self.refresh(layout=resized)

    def regimes(self) -> list[str]:
        names: list[str] = []
        for _, _, means in self.groups:
            names += [m.regime for m in means if m.regime not in names]
        return names

    def get_content_height(self, container, viewport, width: int) -> int:
        return 1 + max(1, len(self.regimes()))

    def render(self) -> Text:
        width = self.content_size.width
        regimes = self.regimes()
        out = Text(no_wrap=True, overflow="crop")
        if not regimes:
            out.append(f"mean {self.metric} per true regime\n(no episodes yet)", style="dim")
            return out
        label = max(len(r) for r in regimes) + 1
        each = max(6, (width - label) // max(len(self.groups), 1))
        out.append(" " * label)
        for name, colour, _ in self.groups:  # each column under its selector's name
            out.append(name[:each - 1].ljust(each), style=f"bold {colour}")
        high = max([1.0] + [m.mean for _, _, means in self.groups for m in means])
        for regime in regimes:
            out.append("\n" + regime.ljust(label), style="dim")
            for name, colour, means in self.groups:
                m = next((m for m in means if m.regime == regime), None)
                if m is None:
                    out.append(" " * each)
                    continue
                out.append(bar(m.mean, high, each - 6), style=colour)
                out.append(f"{m.mean:5.2f} ")
        return out

    def chart_name(self) -> str:
        return "regimes"

    def chart_svg(self) -> str | None:
        return bars_svg(self.groups, self.metric) if self.regimes() else None
