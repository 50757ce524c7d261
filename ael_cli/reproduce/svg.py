"""A small SVG chart for the report: the paper's value and ours, per row, for one metric,
ours with its bootstrap interval. Plain SVG text (no plotting library): it renders on
GitHub and in any browser, and a report diff shows what moved."""

from __future__ import annotations

from html import escape

WIDTH, ROW_H, LEFT, RIGHT, TOP = 720, 26, 230, 40, 34
PAPER, OURS = "#9aa5b1", "#1f6feb"


def chart(title: str, rows: list[tuple[str, float | None, float | None, tuple[float, float] | None]]) -> str:
    """rows: (label, paper, ours, ours' interval). Bars start at zero; negative values go left."""
    values = [v for _, p, o, ci in rows for v in (p, o, *(ci or ())) if v is not None]
    lo, hi = min(0.0, *values) if values else 0.0, max(0.0, *values) if values else 1.0
    hi = hi if hi > lo else lo + 1
    span = WIDTH - LEFT - RIGHT

    def x(v: float) -> float:
        return LEFT + (v - lo) / (hi - lo) * span

    height = TOP + ROW_H * len(rows) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="8" y="18" font-weight="bold">{escape(title)}</text>',
           f'<rect x="{WIDTH - 190}" y="8" width="10" height="10" fill="{PAPER}"/>'
           f'<text x="{WIDTH - 176}" y="17">paper</text>',
           f'<rect x="{WIDTH - 120}" y="8" width="10" height="10" fill="{OURS}"/>'
           f'<text x="{WIDTH - 106}" y="17">ours (95% CI)</text>']
    zero = x(0.0)
    for i, (label, paper, ours, ci) in enumerate(rows):
        y = TOP + i * ROW_H
        out.append(f'<text x="{LEFT - 6}" y="{y + 15}" text-anchor="end">{escape(label)}</text>')
        for offset, value, colour in ((2, paper, PAPER), (12, ours, OURS)):
            if value is None:
                continue
            left, right = sorted((zero, x(value)))
            out.append(f'<rect x="{left:.1f}" y="{y + offset}" width="{max(right - left, 1):.1f}" height="9" '
                       f'fill="{colour}"><title>{escape(label)}: {value:.3f}</title></rect>')
        if ci is not None:
            a, b = x(ci[0]), x(ci[1])
            mid = y + 16.5
            out.append(f'<path d="M{a:.1f} {mid}H{b:.1f}M{a:.1f} {mid - 4}V{mid + 4}M{b:.1f} {mid - 4}V{mid + 4}" '
                       f'stroke="#0b2e6b" fill="none"/>')
    axis_y = TOP + ROW_H * len(rows) + 4
    out.append(f'<path d="M{LEFT} {axis_y}H{WIDTH - RIGHT}M{zero:.1f} {TOP - 4}V{axis_y}" stroke="#444"/>')
    for v in (lo, 0.0, hi) if lo < 0 else (0.0, hi / 2, hi):
        out.append(f'<text x="{x(v):.1f}" y="{axis_y + 16}" text-anchor="middle">{v:.2f}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
