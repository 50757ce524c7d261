"""What each policy would have retrieved for one query, side by side (from an explanation's JSON).

One column per policy, the played one first; each entry is its id, the episode it was
written at and its score. In the other columns `=` marks an entry the played policy
retrieved too and `+` one it did not; under each column, how many of the played
policy's entries it left out (`−`). A column shows SHOWN entries and says how many
more there are (`--json` has them all).

`side_by_side(retrieval, width)` lays the columns out in bands no wider than `width`,
the played column again at the head of each band, so nothing is cut (a band a line);
`width=None` puts them all in one band (the lab scrolls it sideways).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SHOWN = 12
GAP = " │ "
WIDEST = 30  # a column's text beyond this is cut with "…" (a policy's long name; ids are short)


@dataclass(frozen=True)
class Column:
    title: str
    cells: list[str]
    note: str

    @property
    def width(self) -> int:
        return min(WIDEST, max(len(t) for t in (self.title, self.note, *self.cells)))


def _cell(mark: str, h: dict[str, Any]) -> str:
    return f"{mark}{h['id']} ep {h['episode']} {h['score']:.3f}"


def _shown(cells: list[str]) -> list[str]:
    return cells if len(cells) <= SHOWN else [*cells[:SHOWN], f"… {len(cells) - SHOWN} more"]


def columns(retrieval: dict[str, Any]) -> list[Column]:
    """The played policy's column, then one per other policy (in the pool's order)."""
    hits = retrieval["hits"]
    cols = [Column(f"{retrieval['policy']} ({retrieval.get('role', 'played')})", _shown([_cell("  ", h) for h in hits]) or ["  (nothing)"],
                   f"{len(hits)} entries")]
    for name, other in retrieval.get("other_policies", {}).items():
        cells = [_cell("= " if h["shared"] else "+ ", h) for h in other["hits"]]
        note = ("the same entries" if other["same"] else
                f"+{len(other['only_here'])} new, −{len(other['missing'])} left out")
        title = f"{name} (proposed)" if other.get("proposed") else name  # the arm being decided
        cols.append(Column(title, _shown(cells) or ["(nothing)"], note))
    return cols


def _fit(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"


def bands(cols: list[Column], width: int | None) -> list[list[Column]]:
    """The columns in bands no wider than `width` (None: one band), the played one heading each."""
    if width is None or len(cols) <= 1:
        return [cols]
    head, rest, out = cols[0], cols[1:], []
    band, used = [head], head.width
    for c in rest:
        if len(band) > 1 and used + len(GAP) + c.width > width:
            out.append(band)
            band, used = [head], head.width
        band.append(c)
        used += len(GAP) + c.width
    out.append(band)
    return out


def side_by_side(retrieval: dict[str, Any], width: int | None = None) -> list[str]:
    """The retrieval's columns as lines of text (a blank line between bands)."""
    lines: list[str] = []
    for band in bands(columns(retrieval), width):
        if lines:
            lines.append("")
        widths = [c.width for c in band]
        rows = max(len(c.cells) for c in band)
        lines.append(GAP.join(_fit(c.title, w) for c, w in zip(band, widths)).rstrip())
        lines.append("─┼─".join("─" * w for w in widths))
        for i in range(rows):
            lines.append(GAP.join(_fit(c.cells[i] if i < len(c.cells) else "", w)
                                  for c, w in zip(band, widths)).rstrip())
        lines.append(GAP.join(_fit(c.note, w) for c, w in zip(band, widths)).rstrip())
    return lines
