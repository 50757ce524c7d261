"""The reference's four non-LLM baselines and their simulator (facts §7).

Allocators take the closes seen so far (rows <= the current bar, shape
(t+1, n_tickers)) and return fully invested weights (no cash, no costs).
Each uses 1/N until lookback + 1 closes exist.

Simulator (the reference's `evaluate_portfolio.py`): weights are set at
every bar from the closes up to it; the return credited at bar t is the
previous bar's weights x (close_t / close_{t-1} - 1) (mark-to-market). A
phase's returns are those of its bars except its first one (whose return
was earned by weights set in the previous phase): 39 test returns on D-full.
Sharpe there is ddof 0, x sqrt(1008). On D-full this gives the paper's test
Sharpes 0.70 (EqW), 1.44 (Mom), -0.61 (MinV), -0.20 (InvM).

Note this differs from the LLM agents' convention (next-bar return booked
at the decision bar, all 40 test bars counted, final bar 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from engine.errors import AELError
from engine.metrics import ANN_HOURLY, phase_metrics, sharpe

from .data import PHASES, Market, is_paper_market
from .spec import SPEC

Allocator = Callable[[np.ndarray], np.ndarray]


def equal_weight(closes: np.ndarray) -> np.ndarray:
    """EqW: 1/N."""
    n = closes.shape[1]
    return np.full(n, 1.0 / n)


def momentum_weighted(closes: np.ndarray, lookback: int = 4, floor: float = 0.02) -> np.ndarray:
    """Mom: ret_i = p_t / p_{t-4} - 1. Tickers with ret <= 0 get `floor`; the
    positive ones share max(1 - floor x n_nonpositive, 0.01) in proportion to
    ret; all non-positive gives 1/N; renormalised."""
    n = closes.shape[1]
    if len(closes) < lookback + 1:
        return np.full(n, 1.0 / n)
    ret = closes[-1] / closes[-1 - lookback] - 1.0
    pos = ret > 0
    if not pos.any():
        return np.full(n, 1.0 / n)
    w = np.where(pos, 0.0, floor)
    share = max(1.0 - floor * int((~pos).sum()), 0.01)
    w[pos] = share * ret[pos] / ret[pos].sum()
    return w / w.sum()


def inverse_momentum(closes: np.ndarray, lookback: int = 4) -> np.ndarray:
    """InvM: raw_i = max(ret) - ret_i + eps, eps = max(0.1 (max - min), 1e-6); normalised."""
    n = closes.shape[1]
    if len(closes) < lookback + 1:
        return np.full(n, 1.0 / n)
    ret = closes[-1] / closes[-1 - lookback] - 1.0
    eps = max(0.1 * (ret.max() - ret.min()), 1e-6)
    raw = ret.max() - ret + eps
    return raw / raw.sum()


def inverse_volatility(closes: np.ndarray, lookback: int = 12) -> np.ndarray:
    """MinV (named min-variance in the paper, in fact inverse volatility):
    weight ∝ 1 / std_pop of the last 12 simple returns (1e10 if std < 1e-10)."""
    n = closes.shape[1]
    if len(closes) < lookback + 1:
        return np.full(n, 1.0 / n)
    window = closes[-lookback - 1 :]
    sd = (window[1:] / window[:-1] - 1.0).std(axis=0)
    inv = np.where(sd < 1e-10, 1e10, 1.0 / np.where(sd < 1e-10, 1.0, sd))
    return inv / inv.sum()


BASELINES: dict[str, Allocator] = {
    "EqW": equal_weight,
    "Mom": momentum_weighted,
    "MinV": inverse_volatility,
    "InvM": inverse_momentum,
}


@dataclass
class BaselineRun:
    """A simulated baseline. `returns[t]` is the return credited at bar t
    (NaN at bar 0); `turnover[t]` the L1 weight change at bar t's rebalance
    (the reference's script halves it; Sharpe does not use it)."""

    name: str
    weights: np.ndarray     # (n_bars, n_tickers), set at each bar
    returns: np.ndarray     # (n_bars,)
    turnover: np.ndarray    # (n_bars,)


def simulate_baseline(market: Market, allocator: Allocator, name: str = "") -> BaselineRun:
    c = market.close
    n, k = c.shape
    weights = np.empty((n, k))
    for t in range(n):
        weights[t] = allocator(c[: t + 1])     # sees closes up to and including bar t
    returns = np.full(n, np.nan)
    returns[1:] = np.einsum("ij,ij->i", weights[:-1], c[1:] / c[:-1] - 1.0)
    turnover = np.zeros(n)
    turnover[1:] = np.abs(np.diff(weights, axis=0)).sum(axis=1)
    return BaselineRun(name, weights, returns, turnover)


def phase_returns(run: BaselineRun, phases: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{phase: (returns, turnover)} over the phase's bars minus its first bar."""
    out = {}
    for phase in PHASES:
        bars = np.flatnonzero(phases == phase)[1:]
        out[phase] = (run.returns[bars], run.turnover[bars])
    return out


def evaluate_baselines(market: Market, ann: float = ANN_HOURLY) -> dict[str, dict[str, dict]]:
    """{baseline: {phase: phase_metrics}} for the four baselines on `market`."""
    out = {}
    for name, alloc in BASELINES.items():
        run = simulate_baseline(market, alloc, name)
        out[name] = {ph: phase_metrics(r, t, ann) for ph, (r, t) in phase_returns(run, market.phases).items()}
    return out


# ----------------------------------------------------------------------------- as a CLI run
BASELINE_NAMES = SPEC.baselines  # declared with the scenario (spec.py)
_BY_CLI_NAME = {name.lower(): name for name in BASELINES}


def baseline_run(scenario: Any, name: str, seed: int) -> dict[str, Any]:
    """A non-LLM baseline on the scenario's market, as one run of `ael-lab run` (`baseline:NAME`).

    The run dict has a session run's shape: `overall` is the mean bandit reward
    and `sharpe` the reward stream's mean / std, from the outcome scores of the
    baseline's own returns (scored and rewarded exactly as an agent's, in the
    scenario's reward mode), so the first table compares like with like;
    `regimes` is that mean reward by true regime (synthetic only). `phases`
    follows the baselines' convention (facts §7: mark-to-market, each phase's
    first bar dropped, 39 test returns on D-full), which reproduces the
    paper's test Sharpes. The seed changes nothing (the baselines are
    deterministic); it is recorded so the table lines up.
    """
    from .episode import bandit_reward, outcome_score

    key = name.lower()
    if key not in _BY_CLI_NAME:
        raise AELError(f"unknown baseline {name!r} (expected one of {', '.join(BASELINE_NAMES)})")
    market = scenario.world.market
    run = simulate_baseline(market, BASELINES[_BY_CLI_NAME[key]], _BY_CLI_NAME[key])
    credited = run.returns[1:]                  # bar t's return was earned by weights set at bar t - 1
    rewards, seen = [], []
    for r in credited:
        rewards.append(bandit_reward(outcome_score(float(r), seen), scenario.reward_mode))
        seen.append(float(r))
    rewards_a = np.asarray(rewards)
    regimes: dict[str, float] = {}
    if market.regimes is not None:
        set_at = market.regimes[:-1]
        for i, regime in enumerate(market.regime_names):
            mask = set_at == i
            if mask.any():
                regimes[regime] = float(rewards_a[mask].mean())
    phases = {ph: phase_metrics(r, t) for ph, (r, t) in phase_returns(run, market.phases).items() if len(r)}
    return {"selector": f"baseline:{key}", "seed": seed, "episodes": len(credited), "regimes": regimes,
            "overall": float(rewards_a.mean()), "sharpe": sharpe(rewards_a), "injections": [],
            "reflections": 0, "memory": {}, "phases": phases, "paper_comparable": is_paper_market(market),
            "portfolio": {"final_value": float(np.prod(1 + credited)), "mean_cash": 0.0,
                          "mean_turnover": float(run.turnover[1:].mean())}}
