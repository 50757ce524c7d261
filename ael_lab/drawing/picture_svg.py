"""The pictures as SVG for slides: vectors drawn from the same data the terminal shows
(a `Chart`'s series, axes, marks and names; the strip's runs of arms; the regime bars),
not a screenshot of cells. Plain SVG text, like the reproduce report's charts
(ael_cli/reproduce/svg.py): it opens in any browser and a slide tool.

The background is the terminal's dark one, so every colour (the lab's names, turned into
the hex of Rich's standard palette by colours.py, which imports no Rich) reads as it does in the lab."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

from ael_lab.drawing.colours import INK, hex_of  # noqa: F401 - hex_of: the one way a name becomes #rrggbb
from ael_lab.drawing.data import RegimeMean
from ael_lab.drawing.reads import APPROVED, NEW_ARM, REJECTED, PictureData, PictureSource
from ael_lab.drawing.lines import Chart, x_ticks

WIDTH = 800
BACK, FAINT = "#11151c", "#5c6370"
FONT = 'font-family="DejaVu Sans Mono, Menlo, monospace" font-size="12"'
DECISION_MARK = {APPROVED: ("✓", "green"), REJECTED: ("✗", "red"), NEW_ARM: ("+", "bright_green")}


def _open(height: int, title: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" {FONT}>',
            f'<rect width="{WIDTH}" height="{height}" fill="{BACK}"/>',
            f'<text x="12" y="20" fill="{INK}" font-weight="bold"{_squeezed(title)}>{escape(title)}</text>']


def _squeezed(title: str) -> str:
    """A title longer than the picture is wide gets a smaller font (a slide shows it whole;
    a monospace glyph is about 0.6 of the font size wide)."""
    room = WIDTH - 24
    return f' font-size="{max(7.0, room / (len(title) * 0.61)):.1f}"' if len(title) * 0.61 * 12 > room else ""


def _legend(entries: Sequence[tuple[str, str]], y: float) -> list[str]:
    """Coloured squares and names in rows from the left."""
    out, x = [], 12.0
    for name, colour in entries:
        size = 16 + 7.3 * len(name)
        if x + size > WIDTH - 12 and x > 12:
            x, y = 12.0, y + 16
        out.append(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="10" height="10" fill="{hex_of(colour)}"/>'
                   f'<text x="{x + 14:.1f}" y="{y:.1f}" fill="{INK}">{escape(name)}</text>')
        x += size + 12
    return out


# ------------------------------------------------------------------ a line chart
def chart_svg(chart: Chart, height: int = 400) -> str:
    """`chart` (the lab's progress chart, cumulative reward or regret, the compare view's
    curves, the densities) as vectors: each series a <polyline> in a <g class="series">
    titled with its name, the axes with every tick labelled, the marks and names."""
    left, right = 70.0, 70.0 if chart.right else 20.0
    legend = [(label, colour) for label, colour in chart.legend] or \
        [(s.label, s.colour) for s in chart.series if s.label]
    top = 48.0 + (16 if legend else 0)
    bottom = height - 46.0
    x0, x1 = chart.x_range
    xspan = (x1 - x0) or 1.0

    def px(x: float) -> float:
        return left + (x - x0) / xspan * (WIDTH - left - right)

    def py(y: float, axis) -> float:
        span = (axis.high - axis.low) or 1.0
        return bottom - (min(max(y, axis.low), axis.high) - axis.low) / span * (bottom - top)

    out = _open(height, chart.title)
    out += _legend(legend, 40)
    out.append(f'<path d="M{left} {top}V{bottom}H{WIDTH - right}" stroke="{FAINT}" fill="none"/>')
    for axis, side in ((chart.left, "left"), (chart.right, "right")):
        if axis is None:
            continue
        x = left - 6 if side == "left" else WIDTH - right + 6
        for v in axis.ticks:
            y = py(v, axis)
            out.append(f'<text x="{x}" y="{y + 4:.1f}" fill="{FAINT}" '
                       f'text-anchor="{"end" if side == "left" else "start"}">{escape(axis.label(v))}</text>'
                       f'<path d="M{left} {y:.1f}H{WIDTH - right}" stroke="{FAINT}" stroke-opacity="0.25"/>')
    for col, text in x_ticks(x0, x1, 100, chart.x_format):
        x = left + col / 99 * (WIDTH - left - right)
        out.append(f'<text x="{x:.1f}" y="{bottom + 16}" fill="{FAINT}" text-anchor="middle">{escape(text)}</text>')
    for x, colour in chart.vlines:
        out.append(f'<path class="vline" d="M{px(x):.1f} {top}V{bottom}" stroke="{hex_of(colour)}" '
                   'stroke-dasharray="3 3"/>')
    name_y = top + 12 if chart.names_at_top else bottom + 32
    for x, name, colour in chart.names:
        out.append(f'<text x="{px(x) + 3:.1f}" y="{name_y}" fill="{hex_of(colour)}">{escape(name)}</text>')
    for s in chart.series:
        if len(s.x) == 0:
            continue
        axis = chart.right if s.right and chart.right else chart.left
        xs, ys = _thin(np.asarray(s.x, dtype=float), np.asarray(s.y, dtype=float))
        points = " ".join(f"{px(x):.1f},{py(y, axis):.1f}" for x, y in zip(xs, ys))
        out.append(f'<g class="series"><title>{escape(s.label or chart.short_title)}</title>'
                   f'<polyline points="{points}" fill="none" stroke="{hex_of(s.colour)}" '
                   f'stroke-width="{2.2 if s.bold else 1.5}"/></g>')
    for x, y, ch, colour in chart.marks:
        out.append(f'<text class="mark" x="{px(x):.1f}" y="{py(y, chart.left) + 4:.1f}" fill="{hex_of(colour)}" '
                   f'text-anchor="middle" font-weight="bold">{escape(ch)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _thin(xs: np.ndarray, ys: np.ndarray, points: int = 1600) -> tuple[np.ndarray, np.ndarray]:
    """At most `points` points (a slide has no more pixels), the ends kept."""
    if len(xs) <= points:
        return xs, ys
    idx = np.unique(np.linspace(0, len(xs) - 1, points).round().astype(int))
    return xs[idx], ys[idx]


# ------------------------------------------------------------------ the arm strip
def runs_of(policies: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, arm) of each run of consecutive episodes played by one arm."""
    out: list[tuple[int, int, str]] = []
    for t, arm in enumerate(policies):
        if out and out[-1][2] == arm:
            out[-1] = (out[-1][0], t + 1, arm)
        else:
            out.append((t, t + 1, arm))
    return out


def strip_svg(runs: Sequence[PictureData | PictureSource], colours: dict[str, str], title: str = "which policy played when") -> str:
    """One band per run (a selector), a rectangle per run of one arm at full resolution,
    the regimes as lines and names, the decisions as marks above the band; a legend
    of the arms in their colours."""
    left, right, band, gap = (12.0 + 7.3 * max(len(d.name) for d in runs) + 10 if len(runs) > 1 else 20.0), 20.0, 26.0, 28.0
    top = 62.0
    height = int(top + len(runs) * (band + gap) + 40 + 16 * (1 + len(colours) // 6))
    n = max(max(d.n for d in runs), 1)

    def px(t: float) -> float:
        return left + t / n * (WIDTH - left - right)

    out = _open(height, title)
    out += _legend([(arm, colour) for arm, colour in colours.items()] +
                   [(f"{mark} {kind}", colour) for kind, (mark, colour) in DECISION_MARK.items()], 40)
    for i, d in enumerate(runs):
        y = top + gap + i * (band + gap)
        if len(runs) > 1:
            out.append(f'<text x="12" y="{y + band / 2 + 4:.1f}" fill="{INK}">{escape(d.name)}</text>')
        out.append(f'<g class="strip"><title>{escape(d.name)}</title>')
        out += [f'<rect x="{px(a):.2f}" y="{y}" width="{max(px(b) - px(a), 0.3):.2f}" height="{band}" '
                f'fill="{hex_of(colours.get(arm, "white"))}"><title>{escape(arm)}: episodes {a}–{b - 1}</title></rect>'
                for a, b, arm in runs_of(d.policies)]
        out.append("</g>")
        stacked: dict[int, int] = {}  # marks already at an episode: the next goes above them
        for dec in sorted(d.decisions, key=lambda dec: dec.kind == NEW_ARM):  # a new arm's + above its ✓
            mark, colour = DECISION_MARK[dec.kind]
            lift = 2 + 11 * min(stacked.get(dec.episode, 0), 1)
            stacked[dec.episode] = stacked.get(dec.episode, 0) + 1
            out.append(f'<text class="decision" x="{px(dec.episode):.1f}" y="{y - lift}" fill="{hex_of(colour)}" '
                       f'text-anchor="middle" font-weight="bold">{mark}<title>{escape(dec.text)}</title></text>')
    lead, bottom = runs[0], top + len(runs) * (band + gap) + 4
    for k, (start, name) in enumerate(lead.regime_starts):
        if k:
            out.append(f'<path class="regime" d="M{px(start):.1f} {top + 8}V{bottom}" stroke="{FAINT}" '
                       'stroke-dasharray="3 3"/>')
        out.append(f'<text x="{px(start) + 3:.1f}" y="{bottom + 14}" fill="{FAINT}">{escape(name)}</text>')
    out.append(f'<text x="{WIDTH - right}" y="{bottom + 14}" fill="{FAINT}" text-anchor="end">{n} episodes</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ regime bars
def bars_svg(groups: Sequence[tuple[str, str, list[RegimeMean]]], metric: str) -> str:
    """Mean `metric` per regime, one horizontal bar per (selector, colour) in each regime's
    group, its value written at its end."""
    regimes: list[str] = []
    for _, _, means in groups:
        regimes += [m.regime for m in means if m.regime not in regimes]
    values = [m.mean for _, _, means in groups for m in means]
    lo, hi = min([0.0, *values]), max([1.0 if metric == "accuracy" else 0.0, *values])
    hi = hi if hi > lo else lo + 1.0
    left, right, bar, top = 70.0, 70.0, 14.0, 58.0
    group_h = bar * len(groups) + 12
    height = int(top + group_h * len(regimes) + 30)

    def px(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (WIDTH - left - right)

    out = _open(height, f"mean {metric} per regime")
    out += _legend([(name, colour) for name, colour, _ in groups], 40)
    for r, regime in enumerate(regimes):
        y0 = top + r * group_h
        out.append(f'<text x="{left - 8}" y="{y0 + group_h / 2:.1f}" fill="{INK}" text-anchor="end">'
                   f'{escape(regime)}</text>')
        for k, (name, colour, means) in enumerate(groups):
            m = next((m for m in means if m.regime == regime), None)
            if m is None:
                continue
            a, b = sorted((px(0.0), px(m.mean)))
            y = y0 + k * bar
            out.append(f'<rect class="bar" x="{a:.1f}" y="{y:.1f}" width="{max(b - a, 1):.1f}" height="{bar - 3}" '
                       f'fill="{hex_of(colour)}"><title>{escape(name)} in {escape(regime)}: {m.mean:.3f} over '
                       f'{m.episodes} episodes</title></rect>'
                       f'<text x="{b + 4:.1f}" y="{y + bar - 5:.1f}" fill="{INK}">{m.mean:.2f}</text>')
    axis_y = top + group_h * len(regimes)
    out.append(f'<path d="M{px(0.0):.1f} {top - 4}V{axis_y}M{left} {axis_y}H{WIDTH - right}" stroke="{FAINT}"/>')
    for v in (lo, (lo + hi) / 2, hi):
        out.append(f'<text x="{px(v):.1f}" y="{axis_y + 16}" fill="{FAINT}" text-anchor="middle">{v:.2f}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
