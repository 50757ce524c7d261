"""The four non-LLM baselines: allocators by hand, the simulator, and the paper's D-full test Sharpes."""

from pathlib import Path

import numpy as np
import pytest

from scenarios.portfolio.baselines import (BASELINES, evaluate_baselines, inverse_momentum, inverse_volatility,
                                           momentum_weighted, phase_returns, simulate_baseline)
from scenarios.portfolio.sources import load_market

DFULL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dfull"
needs_dfull = pytest.mark.skipif(not (DFULL / "prices_1h").is_dir(), reason="../shared/data/dfull is absent")


def closes_with_4bar_returns(rets):
    """Five rows of closes whose last/first ratio is 1 + ret per ticker."""
    first = np.full(len(rets), 100.0)
    return np.vstack([first, first, first, first, first * (1 + np.asarray(rets))])


RETS = [0.1, 0.3, -0.05, 0.0]


def test_momentum_floors_losers_and_shares_the_rest_by_return():
    w = momentum_weighted(closes_with_4bar_returns(RETS))
    assert w == pytest.approx([0.96 * 0.25, 0.96 * 0.75, 0.02, 0.02])


def test_momentum_with_no_winner_is_equal_weight():
    assert momentum_weighted(closes_with_4bar_returns([-0.1, 0.0, -0.2])) == pytest.approx([1 / 3] * 3)


def test_inverse_momentum_favours_the_laggards():
    # max .3, min -.05: eps = .035; raw = .3 - ret + .035
    raw = np.array([0.235, 0.035, 0.385, 0.335])
    assert inverse_momentum(closes_with_4bar_returns(RETS)) == pytest.approx(raw / raw.sum())


def test_min_variance_is_inverse_volatility_of_the_last_12_returns():
    rng = np.random.default_rng(1)
    closes = 100 * np.cumprod(1 + rng.normal(0, [0.01, 0.02], size=(20, 2)), axis=0)
    sd = (closes[-12:] / closes[-13:-1] - 1).std(axis=0)
    assert inverse_volatility(closes) == pytest.approx((1 / sd) / (1 / sd).sum())


def test_a_flat_price_takes_almost_all_of_the_min_variance_weight():
    closes = np.column_stack([np.full(13, 50.0), 100 + np.arange(13.0) % 2])
    assert inverse_volatility(closes)[0] > 0.999


@pytest.mark.parametrize("name,lookback", [("Mom", 4), ("InvM", 4), ("MinV", 12)])
def test_allocators_are_equal_weight_until_lookback_plus_one_closes(name, lookback):
    rng = np.random.default_rng(2)
    closes = 100 * np.cumprod(1 + rng.normal(0, 0.01, size=(lookback + 1, 3)), axis=0)
    assert BASELINES[name](closes[:lookback]) == pytest.approx([1 / 3] * 3)
    assert BASELINES[name](closes) != pytest.approx([1 / 3] * 3)


def test_the_simulator_credits_last_bars_weights_with_this_bars_move():
    m = load_market("synthetic")
    run = simulate_baseline(m, momentum_weighted)
    t = 50
    assert np.isnan(run.returns[0])
    assert run.returns[t] == pytest.approx(run.weights[t - 1] @ (m.close[t] / m.close[t - 1] - 1))
    assert np.allclose(run.weights.sum(axis=1), 1.0)


def test_each_phase_drops_its_first_bar():
    m = load_market("synthetic")
    parts = phase_returns(simulate_baseline(m, momentum_weighted), m.phases)
    assert {p: len(r) for p, (r, _) in parts.items()} == {"train": 127, "val": 39, "test": 39}


@needs_dfull
def test_dfull_test_sharpes_round_to_the_papers_table():
    result = evaluate_baselines(load_market(str(DFULL)))
    paper = {"EqW": 0.70, "Mom": 1.44, "MinV": -0.61, "InvM": -0.20}
    for name, sharpe in paper.items():
        test = result[name]["test"]
        assert test["n_bars"] == 39
        assert round(test["sharpe"], 2) == sharpe, (name, test["sharpe"])
