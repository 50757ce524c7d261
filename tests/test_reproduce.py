"""`ael-lab reproduce`: the statistics, the statuses, the declarative table list, and a
report written end to end for the synthetic tables."""

from __future__ import annotations

import pytest

from ael_tui.cli import main
from ael_tui.reproduce import stats
from ael_tui.reproduce.run import row_missing
from ael_tui.reproduce.evaluate import DIFFERS, NOT_HERE, NOT_RUN, REPRODUCED, outcome
from ael_tui.reproduce.model import PaperTable, Row, metric_of
from ael_tui.reproduce.tables import TABLES

RESULT = {"overall": 0.4, "sharpe": 0.8, "regimes": {"R3": 0.45}, "injections": [{"episode": 13, "arm": "x"}],
          "phases": {"test": {"sharpe": 1.5, "cost_adjusted_sharpe": {"5": 1.2}}}}


def test_metrics_are_read_from_a_result_by_name_regime_or_phase_path():
    assert metric_of(RESULT, "overall") == 0.4
    assert metric_of(RESULT, "R3") == 0.45
    assert metric_of(RESULT, "injected") == 13
    assert metric_of(RESULT, "test.sharpe") == 1.5
    assert metric_of(RESULT, "test.cost_adjusted_sharpe.5") == 1.2
    assert metric_of(RESULT, "test.calmar") is None


def test_welch_and_the_f_test_agree_with_their_definitions():
    from scipy.stats import f, ttest_ind

    a, b = [2.1, 2.5, 1.7, 2.3, 2.0], [1.0, 2.9, 0.2, 1.8, 2.4]
    t, p = stats.welch(a, b)
    expected = ttest_ind(a, b, equal_var=False)
    assert (t, p) == pytest.approx((expected.statistic, expected.pvalue))
    assert t > 0  # the reference (first) is higher: t is positive, as the paper's tab:stats
    import numpy as np

    ratio = np.var(a, ddof=1) / np.var(b, ddof=1)
    assert stats.f_test(a, b) == pytest.approx(2 * f.cdf(ratio, 4, 4))
    assert stats.f_test(a, b) == pytest.approx(stats.f_test(b, a))
    assert stats.welch([1, 1], [1, 1]) == (None, None) and stats.f_test([1, 1], [2, 3]) is None


def test_the_bootstrap_interval_is_repeatable_and_holds_the_mean():
    values = [0.38, 0.41, 0.40, 0.36, 0.43]
    ci = stats.bootstrap_ci(values)
    assert ci == stats.bootstrap_ci(values)
    assert ci[0] < sum(values) / 5 < ci[1] and min(values) <= ci[0] and ci[1] <= max(values)
    assert stats.bootstrap_ci([0.4]) is None


TABLE = PaperTable("t", "tab:t", "a table", "synthetic", ("overall",), tolerance={"overall": 0.03})


def test_a_row_within_tolerance_is_reproduced_and_one_beyond_it_differs_with_a_reason():
    close = Row("ts", "ts", {"overall": 0.40})
    runs = [{"overall": v} for v in (0.41, 0.42, 0.40)]
    assert outcome(TABLE, close, None, runs, [], False).status == REPRODUCED
    far = Row("ts", "ts", {"overall": 0.30}, note="the spec's known gap")
    result = outcome(TABLE, far, None, runs, [], False)
    assert result.status == DIFFERS and "overall +0.110 (tolerance ±0.03)" in result.why
    assert "known gap" in result.why


def test_the_papers_sd_lets_welch_accept_a_difference_beyond_the_tolerance():
    row = Row("ts", "ts", {"overall": 0.35}, {"overall": 0.05})
    runs = [{"overall": v} for v in (0.41, 0.35, 0.44, 0.38, 0.36)]  # mean 0.388: 0.038 away, sd ~0.04
    assert outcome(TABLE, row, None, runs, [], False).status == REPRODUCED


def test_rows_that_cannot_run_here_say_why():
    row = Row("AEL", "ts+reflection", {"overall": 0.4}, llm=True)
    runs = [{"overall": 0.1}] * 3
    offline = outcome(TABLE, row, None, runs, [], llm_on=False)
    assert offline.status == NOT_HERE and "--agent" in offline.why and offline.mean("overall") == pytest.approx(0.1)
    assert outcome(TABLE, row, "the method 'x' is not in this build", [], [], False).status == NOT_RUN
    failed = outcome(TABLE, Row("ts", "ts", {"overall": 0.4}), None, [], ["AELError: no data"], False)
    assert failed.status == NOT_HERE and "no data" in failed.why


def test_the_tables_read_the_scenarios_declared_numbers():
    from scenarios import spec_of

    by_key = {t.key: t for t in TABLES}
    synthetic = by_key["synthetic"]
    assert [r.selector for r in synthetic.rows] == list(spec_of("synthetic").paper_table)
    assert {r.selector: r.paper["overall"] for r in by_key["support"].rows} == \
        {s: v["overall"] for s, v in spec_of("support").paper_table.items()}
    assert all(t.reason or t.rows for t in TABLES)


def test_a_row_runs_as_soon_as_its_method_is_registered():
    """A table's rows of methods another issue adds (the prior methods, issue 15) need
    nothing but their method: until it is registered the row says "not in this build"."""
    from engine.methods import METHODS, TS, register_method

    table = PaperTable("t", "tab:t", "a table", "synthetic", ("overall",), (Row("X", "paper-method-x"),))
    assert "not in this build" in row_missing(table, table.rows[0])

    class PaperMethodX(TS):
        name = "paper-method-x"

    register_method(PaperMethodX)
    try:
        assert row_missing(table, table.rows[0]) is None
    finally:
        METHODS.pop("paper-method-x")


def test_reproduce_writes_a_report_with_charts_for_the_synthetic_tables(tmp_path, capsys):
    report = tmp_path / "docs" / "report.md"
    code = main(["reproduce", "synthetic", "synthetic-hp", "--out", str(tmp_path / "runs"), "--report", str(report)])
    assert code == 0, capsys.readouterr().err
    text = report.read_text()
    assert "## Synthetic cross-domain bandit (`tab:synth_crossdomain`)" in text
    assert "![overall: paper and ours](report-synthetic.svg)" in text
    svg = (tmp_path / "docs" / "report-synthetic.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<rect") >= 12
    rows = [line for line in text.splitlines() if line.startswith("| rr ") or line.startswith("| cadence 40 ")]
    assert len(rows) == 2 and all(REPRODUCED in r or DIFFERS in r for r in rows)
    assert "0.385 → " in rows[0]  # the paper's number beside ours


def test_an_unknown_table_is_one_line(tmp_path, capsys):
    assert main(["reproduce", "tab:nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no table 'tab:nope'" in err and len(err.strip().splitlines()) == 1
