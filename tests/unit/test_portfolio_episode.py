"""Episode mechanics: weights on the simplex, return and turnover, outcome score, bandit reward."""

import math

import numpy as np
import pytest

from engine.errors import AELError
from scenarios.portfolio.sources import load_market
from scenarios.portfolio.episode import (PortfolioState, bandit_reward, outcome_score, return_regime,
                                         step_portfolio, to_weights)

TICKERS = ["A", "B", "C", "D"]


# ----------------------------------------------------------------------------- weights
def test_weights_from_a_mapping_follow_ticker_order_and_ignore_cash():
    assert to_weights({"C": 0.3, "A": 0.2, "cash": 0.5}, TICKERS).tolist() == [0.2, 0.0, 0.3, 0.0]


def test_negative_nan_and_dust_weights_become_zero():
    assert to_weights([-0.1, float("nan"), 0.001, 0.5], TICKERS).tolist() == [0.0, 0.0, 0.0, 0.5]


def test_weights_summing_above_one_are_scaled_to_one():
    assert to_weights([0.5, 0.5, 0.5, 0.5], TICKERS) == pytest.approx([0.25] * 4)


def test_weights_for_unknown_tickers_or_of_the_wrong_length_are_user_errors():
    with pytest.raises(AELError, match="ZZZ"):
        to_weights({"ZZZ": 0.1}, TICKERS)
    with pytest.raises(AELError, match="4 weights"):
        to_weights([0.5, 0.5], TICKERS)


# ----------------------------------------------------------------------------- one step
def test_a_portfolio_starts_equal_weight_and_fully_invested():
    s = PortfolioState.start(TICKERS)
    assert s.weights.tolist() == [0.25] * 4 and s.cash == 0.0 and s.value == 1.0


def test_step_books_the_weighted_next_bar_return_and_the_l1_turnover():
    s = PortfolioState.start(TICKERS)
    res = step_portfolio(s, {"A": 0.5, "B": 0.3}, np.array([0.02, -0.01, 0.05, 0.0]), bar=0)
    assert res.gross_return == pytest.approx(0.5 * 0.02 - 0.3 * 0.01)
    assert res.turnover == pytest.approx(0.25 + 0.05 + 0.25 + 0.25)        # not halved
    assert res.cash == pytest.approx(0.2) and res.cost == 0.0
    assert s.value == pytest.approx(1.007) and s.returns == [res.net_return]


def test_proportional_costs_are_turnover_times_bps():
    s = PortfolioState.start(TICKERS)
    res = step_portfolio(s, [1.0, 0, 0, 0], np.zeros(4), bar=0, cost_bps=10)
    assert res.turnover == pytest.approx(1.5)
    assert res.cost == pytest.approx(1.5 * 10 / 1e4) and res.net_return == pytest.approx(-0.0015)


def test_drawdown_runs_from_a_peak_that_starts_at_one():
    s = PortfolioState.start(TICKERS)
    step_portfolio(s, [0.25] * 4, np.full(4, 0.10), bar=0)
    res = step_portfolio(s, [0.25] * 4, np.full(4, -0.10), bar=1)
    assert res.value == pytest.approx(0.99) and res.drawdown == pytest.approx(0.10)


def test_the_last_bar_earns_nothing():
    m = load_market("synthetic")
    s = PortfolioState.start(m.tickers)
    res = step_portfolio(s, [0.1] * 10, m.next_returns()[m.n_bars - 1], bar=m.n_bars - 1)
    assert res.gross_return == 0.0


def test_portfolio_state_round_trips_through_a_plain_dict():
    s = PortfolioState.start(TICKERS)
    step_portfolio(s, [0.4, 0.3, 0.2, 0.0], np.array([0.01, 0.02, -0.03, 0.0]), bar=0)
    back = PortfolioState.from_state_dict(s.state_dict())
    assert back.state_dict() == s.state_dict()


# ----------------------------------------------------------------------------- outcome score
def test_before_eleven_returns_the_score_is_the_return_over_half_a_percent():
    assert outcome_score(0.001, []) == pytest.approx(0.2)
    assert outcome_score(-0.02, [0.0] * 5) == -1.0
    assert outcome_score(0.001, [0.05] * 9) == pytest.approx(0.2)          # 10 returns: still raw


def test_from_the_eleventh_return_the_score_is_half_the_z_score_including_r_t():
    previous = [0.01, -0.01] * 5
    mean = 0.005 / 11
    std = math.sqrt((10 * 1e-4 + 0.005 ** 2) / 11 - mean ** 2)
    assert outcome_score(0.005, previous) == pytest.approx((0.005 - mean) / std / 2)
    assert outcome_score(-0.01, previous) == pytest.approx((-0.01 + 0.01 / 11) / math.sqrt(
        11e-4 / 11 - (0.01 / 11) ** 2) / 2)


def test_the_z_score_is_clipped_and_its_std_floored():
    assert outcome_score(0.05, [0.0] * 10) == 1.0
    assert outcome_score(0.0, [0.0] * 10) == 0.0                          # std 0 -> floor 1e-5


# ----------------------------------------------------------------------------- reward
def test_paper_reward_maps_the_score_to_zero_one():
    assert [bandit_reward(s) for s in (-1, 0, 1)] == [0.0, 0.5, 1.0]


def test_as_logged_reward_is_half_the_clipped_reward_plus_a_sixth():
    assert bandit_reward(0.0, "as_logged") == pytest.approx(0.25 + 1 / 6)
    assert bandit_reward(1.0, "as_logged") == pytest.approx(0.5 * 0.95 + 1 / 6)
    assert bandit_reward(-1.0, "as_logged") == pytest.approx(0.5 * 0.05 + 1 / 6)


def test_an_unknown_reward_mode_is_a_user_error():
    with pytest.raises(AELError, match="as_logged"):
        bandit_reward(0.0, "constant")


def test_the_regime_label_comes_from_the_agents_last_twenty_returns():
    assert return_regime([]) == "unknown"
    assert return_regime([0.002] * 5) == "bullish"
    assert return_regime([-0.002] * 5) == "bearish"
    assert return_regime([0.01] * 30 + [0.0] * 20) == "mixed"                # only the last 20 count
