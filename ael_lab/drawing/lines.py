"""What a line chart is, apart from any way of drawing it: curves (`Series`) on a left axis
and, optionally, a right one; vertical marks (regime boundaries, phases, new arms); point
marks (reflections); names along the top or bottom (regimes); a legend. The lab draws a
`Chart` in braille cells (ael_tui/widgets/line_chart.py), `ael-lab chart` and a notebook
as SVG (picture_svg.py). Colours are named as the lab names them (colours.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Series:
    label: str | None          # in the legend, if given
    x: np.ndarray
    y: np.ndarray
    colour: str                # a Rich colour name
    right: bool = False        # on the right axis
    bold: bool = False


@dataclass
class Axis:
    low: float
    high: float
    ticks: list[float]         # every one is labelled, on its own row
    fmt: str | Callable[[float], str] = "{:.2f}"

    def label(self, value: float) -> str:
        return self.fmt(value) if callable(self.fmt) else self.fmt.format(value)


@dataclass
class Chart:
    title: str
    short_title: str                # when the title does not fit
    x_range: tuple[float, float]
    left: Axis
    right: Axis | None = None
    series: list[Series] = field(default_factory=list)
    vlines: list[tuple[float, str]] = field(default_factory=list)             # (x, colour)
    marks: list[tuple[float, float, str, str]] = field(default_factory=list)  # (x, y on the left axis, char, colour)
    names: list[tuple[float, str, str]] = field(default_factory=list)         # (x, text, colour), where room
    names_at_top: bool = True
    legend: list[tuple[str, str]] = field(default_factory=list)               # (text, colour), top right
    x_format: str = "{:.0f}"

    def same_as(self, other: Chart | None) -> bool:
        if other is None:
            return False
        mine, theirs = self.__dict__, other.__dict__
        for key, value in mine.items():
            if key == "series":
                if len(value) != len(theirs[key]) or any(
                        (a.label, a.colour, a.right, a.bold) != (b.label, b.colour, b.right, b.bold)
                        or not np.array_equal(a.x, b.x) or not np.array_equal(a.y, b.y)
                        for a, b in zip(value, theirs[key])):
                    return False
            elif value != theirs[key]:
                return False
        return True


def quarters(low: float, high: float) -> list[float]:
    return [low + (high - low) * k / 4 for k in range(5)]


def x_ticks(low: float, high: float, cols: int, fmt: str) -> list[tuple[int, str]]:
    """(column, label) of as many evenly spaced x ticks (5, 3 or 2) as fit without touching."""
    for count in (5, 3, 2):
        values = [low + (high - low) * k / (count - 1) for k in range(count)]
        ticks = [(round(k * (cols - 1) / (count - 1)), fmt.format(v)) for k, v in enumerate(values)]
        spans = [(max(0, min(c - len(s) // 2, cols - len(s))), len(s)) for c, s in ticks]
        if all(a + n + 1 <= b for (a, n), (b, _) in zip(spans, spans[1:])):
            return ticks
    return []
