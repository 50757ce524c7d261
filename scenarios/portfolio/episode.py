"""One portfolio episode: weights in, return, turnover, outcome score and bandit reward out.

Conventions (facts §5, steps 2 and 7-9):
- Weights are long-only over the tickers; cash = 1 - sum(weights) earns 0.
  Weights <= 0.001 are dropped; a sum above 1 is scaled down to 1.
- The return of bar t is sum_i w_i r_i with r_i = close_i(t+1)/close_i(t) - 1
  (the next bar; 0 on the last bar, which has no next bar).
- Turnover is the L1 change of the ticker weights, sum_i |w_new - w_old|
  (not halved), against the weights held before the bar; the portfolio
  starts equal-weight before bar 0.
- An optional proportional cost of `cost_bps` x turnover is subtracted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from engine.errors import AELError

from .spec import REWARD_MODES

MIN_WEIGHT = 0.001
SCORE_WARMUP = 10          # z-scores once MORE than this many returns (r_t included) are seen
SCORE_SCALE = 0.005        # before that: s = clip(r / 0.5 %)


def to_weights(weights: Mapping[str, float] | Sequence[float] | np.ndarray, tickers: Sequence[str],
               min_weight: float = MIN_WEIGHT) -> np.ndarray:
    """Ticker weights as an array in `tickers` order, on the simplex with cash.

    Negative, NaN and <= min_weight weights become 0 (long only; dust is
    dropped as the reference does); a sum above 1 is scaled down to 1.
    Unknown tickers in a mapping are an AELError.
    """
    if isinstance(weights, Mapping):
        unknown = [t for t in weights if t not in tickers and t != "cash"]
        if unknown:
            raise AELError(f"weights for unknown ticker(s) {', '.join(map(str, unknown))}")
        w = np.array([float(weights.get(t, 0.0)) for t in tickers])
    else:
        w = np.asarray(weights, dtype=float).copy()
        if w.shape != (len(tickers),):
            raise AELError(f"expected {len(tickers)} weights, got shape {w.shape}")
    w = np.where(np.isfinite(w) & (w > min_weight), w, 0.0)
    total = w.sum()
    return w / total if total > 1.0 else w


def equal_weights(n: int) -> np.ndarray:
    return np.full(n, 1.0 / n)


@dataclass
class StepResult:
    bar: int
    weights: np.ndarray       # ticker weights held over the bar
    cash: float
    gross_return: float
    cost: float
    net_return: float         # what the portfolio earned: gross - cost
    turnover: float           # L1, not halved
    value: float              # after the bar
    drawdown: float           # 1 - value / peak (peak starts at 1.0)


@dataclass
class PortfolioState:
    """What the portfolio holds and has earned. JSON-safe through `state_dict`."""

    tickers: list[str]
    weights: np.ndarray
    value: float = 1.0
    peak: float = 1.0
    returns: list[float] = field(default_factory=list)
    turnovers: list[float] = field(default_factory=list)

    @classmethod
    def start(cls, tickers: Sequence[str]) -> "PortfolioState":
        """Equal weight before bar 0, as the reference."""
        return cls(list(tickers), equal_weights(len(tickers)))

    @property
    def cash(self) -> float:
        return float(max(0.0, 1.0 - self.weights.sum()))

    @property
    def drawdown(self) -> float:
        return 1.0 - self.value / self.peak

    def state_dict(self) -> dict[str, Any]:
        return {"tickers": list(self.tickers), "weights": self.weights.tolist(), "value": self.value,
                "peak": self.peak, "returns": list(self.returns), "turnovers": list(self.turnovers)}

    @classmethod
    def from_state_dict(cls, d: dict[str, Any]) -> "PortfolioState":
        return cls(list(d["tickers"]), np.asarray(d["weights"], float), float(d["value"]), float(d["peak"]),
                   [float(x) for x in d["returns"]], [float(x) for x in d["turnovers"]])


def step_portfolio(state: PortfolioState, weights: Mapping[str, float] | Sequence[float] | np.ndarray,
                   next_returns: np.ndarray, bar: int, cost_bps: float = 0.0) -> StepResult:
    """Rebalance to `weights`, hold over bar `bar`, and book the result (mutates `state`).

    `next_returns` is the row `market.next_returns()[bar]` (per ticker, in
    state.tickers order).
    """
    w = to_weights(weights, state.tickers)
    r = np.asarray(next_returns, dtype=float)
    turnover = float(np.abs(w - state.weights).sum())
    gross = float(w @ r)
    cost = turnover * cost_bps / 1e4
    net = gross - cost
    state.weights = w
    state.value *= 1.0 + net
    state.peak = max(state.peak, state.value)
    state.returns.append(net)
    state.turnovers.append(turnover)
    return StepResult(bar, w, state.cash, gross, cost, net, turnover, state.value, state.drawdown)


def outcome_score(r: float, previous: Sequence[float]) -> float:
    """The outcome score s_t in [-1, 1] of a return r_t (facts §5 step 9).

    With all = previous returns + [r_t]: if len(all) > 10,
    z = (r_t - mean(all)) / max(std_pop(all), 1e-5) and s = clip(z / 2, -1, 1);
    otherwise s = clip(r_t / 0.005, -1, 1). The history never shrinks.
    """
    if len(previous) + 1 > SCORE_WARMUP:
        a = np.append(np.asarray(previous, dtype=float), r)
        z = (r - a.mean()) / max(a.std(), 1e-5)
        return float(np.clip(z / 2.0, -1.0, 1.0))
    return float(np.clip(r / SCORE_SCALE, -1.0, 1.0))


def bandit_reward(score: float, mode: str = "paper") -> float:
    """The bandit reward of an outcome score s.

    "paper": (s + 1) / 2 (the paper's Algorithm 1).
    "as_logged": the reference's logs under uniform credit: with
    r = clip((s + 1) / 2, 0.05, 0.95), reward = 0.5 r + 0.5 x (1/3) = 0.5 r + 1/6.
    """
    if mode == "paper":
        return float(np.clip((score + 1.0) / 2.0, 0.0, 1.0))
    if mode == "as_logged":
        r = float(np.clip((score + 1.0) / 2.0, 0.05, 0.95))
        return 0.5 * r + 0.5 * (1.0 / 3.0)
    raise AELError(f"unknown reward mode {mode!r} (use {' or '.join(REWARD_MODES)})")


def return_regime(returns: Sequence[float], window: int = 20) -> str:
    """The regime label the agent sees (facts §5 step 2), from its own last 20
    returns: mean > 0.1 % bullish, < -0.1 % bearish, else mixed; unknown if none."""
    if not len(returns):
        return "unknown"
    m = float(np.mean(np.asarray(returns[-window:], dtype=float)))
    return "bullish" if m > 0.001 else "bearish" if m < -0.001 else "mixed"
