"""Cumulative reward and cumulative regret as `Chart`s for the one braille chart
(`LineChart`): the lab's progress chart shows them for its session (k on the chart
switches), the compare view for every selector, and the SVG writer draws the same
`Chart` as vectors.

Regret is measured against the oracle's reward episode by episode where an oracle
ran on the same stream (the compare view with `oracle` among its selectors, or
`ael-lab chart --kind regret`, which runs one); otherwise against the best arm's
observed mean in hindsight, and the chart's title says which."""

from __future__ import annotations

import numpy as np

from ael_lab.drawing.data import Reference, cumulative, hindsight_reference, regret
from ael_lab.drawing.reads import NEW_ARM, PictureData
from ael_lab.drawing.lines import Axis, Chart, Series, quarters

REGIME, NEW_ARM_COLOUR, CURVE = "grey50", "green", "cyan"
KINDS = ("rolling", "cumulative", "regret")  # what k cycles through on a progress chart
ORACLE = "oracle"
UNIT = Axis(0.0, 1.0, quarters(0.0, 1.0))  # rolling reward and accuracy (lab and compare): every quarter labelled


def _axis(curves: list[np.ndarray]) -> Axis:
    values = [float(v) for c in curves if len(c) for v in (np.min(c), np.max(c))]
    lo, hi = min([0.0, *values]), max([0.0, *values])
    hi = hi if hi > lo else lo + 1.0
    return Axis(lo, hi, quarters(lo, hi), "{:.0f}" if hi - lo >= 8 else "{:.1f}")


def _frame(title: str, items: list[tuple[PictureData, np.ndarray, str]], short: str, several: bool) -> Chart:
    """A chart of one curve per item over the run's episodes, the lead's regimes marked and
    each run's new arms as a line in its colour (green for the lab's single run); `several`:
    a comparison, whose legend names the selectors."""
    lead = items[0][0]
    n = max(lead.n, 1)
    series = [Series(d.name, np.arange(len(y)), y, colour) for d, y, colour in items]
    starts = lead.regime_starts
    chart = Chart(title, short, (0, n), _axis([y for _, y, _ in items]), series=series,
                  names=[(s, label, REGIME) for s, label in starts], names_at_top=False,
                  legend=[(d.name, colour) for d, _, colour in items] if several else [])
    chart.vlines = [(s, REGIME) for s, _ in starts[1:]] + [
        (dec.episode, colour if several else NEW_ARM_COLOUR)
        for d, _, colour in items for dec in d.decisions if dec.kind == NEW_ARM]
    return chart


def cumulative_chart(items: list[tuple[PictureData, str]]) -> Chart:
    """Cumulative reward of each (run, colour)."""
    title = "cumulative reward"
    if not items or not items[0][0].policies:
        return Chart(f"{title}: no episodes yet", title, (0, max(items[0][0].n if items else 1, 1)), _axis([]))
    several = len(items) > 1
    marks = "a line in a selector's colour: its new arm" if several else "green: new arm"
    return _frame(f"{title} · gray: regime · {marks}", [(d, cumulative(d.rewards), c) for d, c in items], title,
                  several)


def reference_for(items: list[PictureData]) -> Reference | None:
    """The oracle run among `items` if there is one, else the best arm in hindsight over
    every run's plays (they all saw the same stream)."""
    for d in items:
        if d.name == ORACLE:
            return Reference("vs the oracle run (same stream and seed)", "vs the oracle run",
                             per_episode=np.asarray(d.rewards))
    return hindsight_reference([p for d in items for p in d.policies], [r for d in items for r in d.rewards])


def regret_chart(items: list[tuple[PictureData, str]], reference: Reference | None = None) -> Chart:
    """Cumulative regret of each (run, colour) against `reference` (by default
    `reference_for` the runs); an oracle run itself is left out (its regret is 0)."""
    runs = [d for d, _ in items]
    reference = reference or (reference_for(runs) if runs else None)
    shown = [(d, c) for d, c in items if d.name != ORACLE or len(items) == 1]
    if reference is None or not shown or not shown[0][0].policies:
        lead_n = items[0][0].n if items else 1
        return Chart("cumulative regret: no episodes yet", "cumulative regret", (0, max(lead_n, 1)), _axis([]))
    return _frame(f"cumulative regret {reference.label}", [(d, regret(d.rewards, reference, d.policies), c) for d, c in shown],
                  f"regret {reference.short}", len(items) > 1)
