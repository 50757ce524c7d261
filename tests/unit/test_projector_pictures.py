"""Issue 41 item 5, pictures that read at the projector: an arm is never in a decision's
colour, a mark never covers a regime's name, and the strip's key is never cut."""

from __future__ import annotations

import numpy as np
from rich.style import Style

from ael_tui.widgets.charts.arm_strip import ARM_COLOURS, DECISION_COLOURS, MARKS, legend_rows
from ael_lab.drawing import UNIT
from ael_tui.widgets.line_chart import Chart, Series, draw


def test_no_arm_is_drawn_in_the_colour_of_approved_or_rejected():
    marks = {Style.parse(style).color.name for _, style in MARKS.values()}
    assert marks <= set(DECISION_COLOURS)
    arms = {rich for _, rich in ARM_COLOURS}
    assert not arms & set(DECISION_COLOURS), arms & set(DECISION_COLOURS)
    assert len(arms) == len(ARM_COLOURS) >= 11  # the synthetic world's eleven arms, eleven colours


def test_a_reflection_mark_at_the_top_does_not_cover_a_regimes_name():
    chart = Chart("rolling accuracy", "rolling", (0, 100), UNIT,
                  series=[Series(None, np.arange(100.0), np.ones(100), "cyan")])
    chart.names = [(0, "R0 billing", "grey50"), (50, "R1 shipping", "grey50")]
    chart.marks = [(2, 1.0, "R", "magenta"), (52, 1.0, "R", "magenta")]  # at the top row, on the names
    text = "\n".join(line.text for line in draw(chart, 80, 16))
    assert "R0 billing" in text and "R1 shipping" in text
    assert text.count("R") >= 2 + text.count("R0") + text.count("R1")  # both marks still drawn, a row lower


def test_the_strips_key_wraps_instead_of_being_cut():
    colours = {f"policy_number_{i}": rich for i, (_, rich) in enumerate(ARM_COLOURS[:6])}
    rows = legend_rows(colours, 60)
    text = "\n".join(row.text for row in rows)
    assert len(rows) > 1 and "…" not in text
    assert all(name in text for name in colours) and "✗ rejected" in text
    assert all(row.cell_length == 60 for row in rows)
