"""`ael-lab reproduce` (issue 42): a sensitivity table's pattern line (the sign of each step,
Kendall's τ of the settings' ranks, a verdict), and the two kinds of "reproduced" in the
header with the seeds that would show equivalence. On outcomes made here: no runs."""

from __future__ import annotations

import pytest

from ael_cli.reproduce import stats
from ael_cli.reproduce.evaluate import REPRODUCED, outcome
from ael_cli.reproduce.markdown import two_kinds
from ael_cli.reproduce.model import PaperTable, Row
from ael_cli.reproduce.patterns import kendall, pattern_lines, steps, verdict
from ael_cli.reproduce.tables import TABLES

SEEDS = 5


def table(paper: list[float], sd: float = 0.01) -> PaperTable:
    rows = tuple(Row(f"k {i}", "ts", {"overall": v}, {"overall": sd}) for i, v in enumerate(paper))
    return PaperTable("t", "tab:t", "T", "synthetic", ("overall",), rows, {"overall": 0.03}, reference="k 0",
                      patterns=(("k", tuple((str(i), f"k {i}") for i in range(len(paper)))),))


def outcomes(t: PaperTable, ours: list[list[float]]):
    return [outcome(t, row, None, [{"overall": v} for v in values], [], False) for row, values in zip(t.rows, ours)]


def test_a_pattern_that_runs_the_other_way_is_not_reproduced_although_every_row_is():
    t = table([0.40, 0.41, 0.42, 0.43], sd=0.003)
    ours = [[0.43 + d for d in (0, .001, -.001, .002, -.002)], [0.42] * SEEDS, [0.41 + d for d in (0, .001, 0, 0, 0)],
            [0.40, 0.401, 0.399, 0.40, 0.40]]
    rows = outcomes(t, ours)
    assert all(o.status == REPRODUCED for o in rows)  # every row within ±0.03 ...
    line = next(x for x in pattern_lines(t, rows) if x.startswith("- k"))
    assert "paper ↑* ↑* ↑*" in line and "ours ↓" in line  # ... the curve runs the other way, and tests say so
    assert "0 of 3 steps agree" in line and line.endswith("**not reproduced**") and "τ = -1.00" in line


def test_identical_settings_are_marked_and_the_same_direction_is_reproduced():
    t = table([0.40, 0.41, 0.42, 0.43])
    base = [0.40, 0.41, 0.39, 0.40, 0.40]
    ours = [base, [v + 0.01 for v in base], [v + 0.01 for v in base], [v + 0.03 for v in base]]
    found = steps([0.40, 0.41, 0.42, 0.43], [0.01] * 4, ours)
    assert [s.ours_identical for s in found] == [False, True, False]
    line = next(x for x in pattern_lines(t, outcomes(t, ours)) if x.startswith("- k"))
    assert "ours ↑* = ↑*" in line and "2 of 3 steps agree" in line and "partly reproduced" in line
    assert verdict(3, 3) == "reproduced" and verdict(0, 3) == "not reproduced"


def test_kendalls_tau_has_no_test_below_four_settings():
    assert kendall([1, 2, 3], [1, 2, 3])[1] is None and kendall([1, 2, 3], [1, 2, 3])[0] == pytest.approx(1)
    tau, p = kendall([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    assert tau == pytest.approx(1) and p == pytest.approx(2 / 120)  # the exact two-sided p of a perfect order


def test_every_sensitivity_table_declares_its_families_over_its_own_rows():
    for key in ("synthetic-hp", "support-hp"):
        t = next(x for x in TABLES if x.key == key)
        labels = {r.label for r in t.rows}
        assert t.patterns and all(label in labels for _, members in t.patterns for _, label in members)


def test_the_seeds_that_would_show_equivalence_are_the_first_count_where_tost_does():
    n = stats.seeds_to_show_equivalence(0.385, 0.023, 5, 0.388, 0.031, 0.03)
    assert stats.tost_from_summary(0.385, 0.023, 5, 0.388, 0.031, n, 0.03) < 0.05
    assert stats.tost_from_summary(0.385, 0.023, 5, 0.388, 0.031, n - 1, 0.03) >= 0.05
    # the paper's own spread over its 5 seeds leaves TOST above 0.05 however many seeds we add
    assert stats.seeds_to_show_equivalence(0.402, 0.026, 5, 0.416, 0.030, 0.03) is None


def test_the_header_counts_the_two_kinds_of_reproduced_and_names_the_seeds_for_each():
    t = table([0.40, 0.40])
    shown = outcome(t, t.rows[0], None, [{"overall": 0.40 + d} for d in (0, .001, -.001, .002, -.002)], [], False)
    wide = outcome(t, Row("wide", "ts", {"overall": 0.40}, {"overall": 0.01}), None,
                   [{"overall": 0.41 + d} for d in (0, .02, -.02, .03, -.03)], [], False)
    assert shown.shown_equivalent and wide.status == REPRODUCED and not wide.shown_equivalent
    text = two_kinds([("tab:t", shown), ("tab:t", wide)])
    n = wide.seeds_needed["overall"]
    assert "1 are **shown equivalent**" in text and "1 are within tolerance where **equivalence" in text
    assert f"tab:t wide: {n}" in text and f"`--seeds {n}`" in wide.why
