"""engine.metrics against values worked out by hand.

The running example is r = [+1 %, -2 %, +3 %, -1 %]: mean 0.0025, population
variance (0.0075² + 0.0225² + 0.0275² + 0.0125²) / 4 = 3.6875e-4.
"""

import math

import numpy as np
import pytest

from engine import metrics as M

R = [0.01, -0.02, 0.03, -0.01]
ROOT = math.sqrt(1008)


def test_plain_sharpe_is_mean_over_population_std_without_annualisation():
    assert M.sharpe([0, 1, 1, 0]) == pytest.approx(1.0)          # 0.5 / 0.5
    assert M.sharpe(R) == pytest.approx(0.0025 / math.sqrt(3.6875e-4))


def test_annualised_sharpe_multiplies_by_sqrt_1008():
    assert M.annualised_sharpe(R) == pytest.approx(0.0025 / math.sqrt(3.6875e-4) * ROOT)
    assert M.annualised_sharpe(R, ann=252) == pytest.approx(0.0025 / math.sqrt(3.6875e-4) * math.sqrt(252))


def test_sharpe_of_a_constant_or_empty_stream_is_zero():
    assert M.sharpe([0.01, 0.01, 0.01]) == 0.0
    assert M.annualised_sharpe([]) == 0.0


def test_reference_sortino_uses_the_std_of_the_negative_bars():
    # negatives -0.02, -0.01: population std 0.005
    assert M.sortino(R) == pytest.approx(0.0025 / 0.005 * ROOT)


def test_reference_sortino_falls_back_to_the_std_with_one_negative_bar():
    r = [0.01, -0.02, 0.03]
    assert M.sortino(r) == pytest.approx(np.mean(r) / np.std(r) * ROOT)


def test_textbook_sortino_uses_the_downside_deviation_over_all_bars():
    # min(r, 0)^2 = [0, 4e-4, 0, 1e-4]: mean 1.25e-4
    assert M.sortino_downside(R) == pytest.approx(0.0025 / math.sqrt(1.25e-4) * ROOT)
    assert M.sortino_downside([0.01, 0.02]) == 0.0


def test_max_drawdown_is_a_positive_fraction_from_the_running_peak():
    # cum 1.01, 0.9898, 1.019494, 1.00929906: falls of 2 % and 1 %
    assert M.max_drawdown(R) == pytest.approx(0.02)


def test_max_drawdown_does_not_count_the_first_bars_own_loss():
    assert M.max_drawdown([-0.05, 0.01]) == 0.0
    assert M.max_drawdown([-0.05, -0.10]) == pytest.approx(0.10)


def test_calmar_is_arithmetic_annual_return_over_drawdown():
    assert M.calmar(R) == pytest.approx(0.0025 * 1008 / 0.02)


def test_calmar_is_zero_when_the_drawdown_is_at_most_a_tenth_of_a_percent():
    assert M.calmar([0.01, -0.0009, 0.01]) == 0.0


def test_total_return_compounds():
    assert M.total_return(R) == pytest.approx(1.01 * 0.98 * 1.03 * 0.99 - 1)


def test_win_rate_counts_zero_bars_as_non_wins():
    assert M.win_rate(R) == 0.5
    assert M.win_rate([0.0, 0.01]) == 0.5


def test_tail_ratio_uses_linear_percentiles():
    # sorted -0.02 -0.01 0.01 0.03: p95 at 2.85 -> 0.027, p5 at 0.15 -> -0.0185
    assert M.tail_ratio(R) == pytest.approx(0.027 / 0.0185)
    assert M.tail_ratio([0.0, 0.0, 0.01]) == 1.0


def test_cost_adjusted_returns_subtract_turnover_times_bps():
    out = M.cost_adjusted_returns(R, [1.0, 0.5, 0.0, 0.2], 10)
    assert out == pytest.approx([0.009, -0.0205, 0.03, -0.0102])
    assert M.cost_adjusted_sharpe(R, [0, 0, 0, 0], 20) == pytest.approx(M.annualised_sharpe(R))


def test_cost_adjusted_returns_refuse_mismatched_lengths():
    with pytest.raises(ValueError):
        M.cost_adjusted_returns(R, [1.0], 5)


def test_mean_by_regime_groups_in_order_of_appearance():
    out = M.mean_by_regime([1, 0, 1, 1, 0], ["bull", "bear", "bull", "bear", "flat"])
    assert list(out) == ["bull", "bear", "flat"]
    assert out == {"bull": 1.0, "bear": 0.5, "flat": 0.0}


def test_phase_metrics_block_has_the_reference_keys_and_units():
    out = M.phase_metrics(R, [1.0, 0.5, 0.0, 0.2])
    assert set(out) == {"sharpe", "sortino", "calmar", "max_drawdown_pct", "total_return_pct", "win_rate",
                        "tail_ratio", "n_bars", "cost_adjusted_sharpe"}
    assert out["max_drawdown_pct"] == pytest.approx(2.0)
    assert out["total_return_pct"] == pytest.approx((1.01 * 0.98 * 1.03 * 0.99 - 1) * 100)
    assert out["n_bars"] == 4
    assert set(out["cost_adjusted_sharpe"]) == {0, 5, 10, 20}
    assert out["cost_adjusted_sharpe"][0] == pytest.approx(out["sharpe"])
    assert out["cost_adjusted_sharpe"][20] < out["cost_adjusted_sharpe"][5]


def test_phase_metrics_without_turnover_has_no_cost_block():
    assert "cost_adjusted_sharpe" not in M.phase_metrics(R)


def test_phase_metrics_of_no_bars_is_all_zero_not_nan():
    out = M.phase_metrics([], [])
    assert out["n_bars"] == 0
    assert all(np.isfinite(v) for k, v in out.items() if k != "cost_adjusted_sharpe")
