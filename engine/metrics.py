"""Performance metrics shared by every scenario.

Conventions, unless a function says otherwise (they follow the paper's
reference code, `facts §6`, so numbers are comparable with its tables):

- Input is a 1-D sequence of simple per-bar returns (0.01 = +1 %). Every bar
  given counts; callers choose which bars to pass (e.g. the portfolio
  scenario's LLM phases keep the final zero-return bar, the non-LLM baselines
  drop each phase's first bar).
- Standard deviations are population standard deviations (ddof 0).
- No risk-free rate.
- Annualisation multiplies a per-bar ratio by sqrt(ann) and a per-bar mean by
  ann; `ann` defaults to 1008 = 252 days x 4 bars (the hourly D-full task).
- Degenerate inputs (empty, zero spread) give 0.0 rather than inf/NaN, so a
  table of results never holds a non-number.
"""

from __future__ import annotations

from typing import Any, Hashable, Iterable, Sequence

import numpy as np

ANN_HOURLY = 1008  # 252 trading days x 4 bars a day
COST_BPS = (0, 5, 10, 20)
_TINY = 1e-12


def _arr(x: Iterable[float]) -> np.ndarray:
    a = np.asarray(list(x) if not isinstance(x, np.ndarray) else x, dtype=float)
    return a.ravel()


def sharpe(x: Iterable[float]) -> float:
    """mean / std of a stream (ddof 0, not annualised); 0 if the std is ~0.

    Used for per-episode reward streams (the synthetic scenario's "Sharpe"
    is mean / std of the 0/1 rewards of a run).
    """
    a = _arr(x)
    if a.size == 0:
        return 0.0
    sd = a.std()
    return float(a.mean() / sd) if sd > _TINY else 0.0


def annualised_sharpe(returns: Iterable[float], ann: float = ANN_HOURLY) -> float:
    """mean(r) / std_pop(r) x sqrt(ann); 0 if the std is ~0 or no bars."""
    return sharpe(returns) * float(np.sqrt(ann))


def sortino(returns: Iterable[float], ann: float = ANN_HOURLY) -> float:
    """The reference code's Sortino: mean(r) / std_pop(r[r < 0]) x sqrt(ann).

    The denominator is the population std of the negative bars only (not the
    downside deviation). With one or no negative bar it falls back to
    std_pop(r), as the reference does. 0 if that std is ~0.
    See `sortino_downside` for the textbook ratio.
    """
    a = _arr(returns)
    if a.size == 0:
        return 0.0
    neg = a[a < 0]
    sd = neg.std() if neg.size > 1 else a.std()
    return float(a.mean() / sd * np.sqrt(ann)) if sd > _TINY else 0.0


def sortino_downside(returns: Iterable[float], ann: float = ANN_HOURLY, target: float = 0.0) -> float:
    """Textbook Sortino: (mean(r) - target) / sqrt(mean(min(r - target, 0)^2)) x sqrt(ann).

    The downside deviation averages over ALL bars (non-negative ones count as
    zero). 0 if there is no downside.
    """
    a = _arr(returns)
    if a.size == 0:
        return 0.0
    dd = np.sqrt(np.mean(np.minimum(a - target, 0.0) ** 2))
    return float((a.mean() - target) / dd * np.sqrt(ann)) if dd > _TINY else 0.0


def max_drawdown(returns: Iterable[float]) -> float:
    """Largest fall from a running peak of cum = cumprod(1 + r), as a positive fraction.

    As the reference: the peak runs over the compounded values only and
    EXCLUDES the starting 1.0, so the first bar's own loss is not a drawdown.
    """
    a = _arr(returns)
    if a.size == 0:
        return 0.0
    cum = np.cumprod(1.0 + a)
    peak = np.maximum.accumulate(cum)
    return float(np.max((peak - cum) / peak))


def calmar(returns: Iterable[float], ann: float = ANN_HOURLY) -> float:
    """mean(r) x ann / max_drawdown(r); 0 when the drawdown is <= 0.1 %.

    The numerator is an arithmetic annual return (not a CAGR), as the reference.
    """
    a = _arr(returns)
    mdd = max_drawdown(a)
    if a.size == 0 or mdd <= 0.001:
        return 0.0
    return float(a.mean() * ann / mdd)


def total_return(returns: Iterable[float]) -> float:
    """prod(1 + r) - 1 over the bars given (a fraction)."""
    a = _arr(returns)
    return float(np.prod(1.0 + a) - 1.0) if a.size else 0.0


def win_rate(returns: Iterable[float]) -> float:
    """Fraction (0..1) of bars with r > 0; zero-return bars count as non-wins."""
    a = _arr(returns)
    return float(np.mean(a > 0)) if a.size else 0.0


def tail_ratio(returns: Iterable[float]) -> float:
    """|p95 / p5| with numpy's linear percentile; 1.0 if |p5| < 1e-8 or no bars."""
    a = _arr(returns)
    if a.size == 0:
        return 1.0
    p5 = np.percentile(a, 5)
    if abs(p5) < 1e-8:
        return 1.0
    return float(abs(np.percentile(a, 95) / p5))


def cost_adjusted_returns(returns: Iterable[float], turnover: Iterable[float], bps: float) -> np.ndarray:
    """r_t - turnover_t x bps / 1e4, bar by bar (turnover as the caller measures it;
    the portfolio scenario uses the un-halved L1 change of the weights)."""
    a, t = _arr(returns), _arr(turnover)
    if a.shape != t.shape:
        raise ValueError(f"returns ({a.size}) and turnover ({t.size}) differ in length")
    return a - t * bps / 1e4


def cost_adjusted_sharpe(returns: Iterable[float], turnover: Iterable[float], bps: float,
                         ann: float = ANN_HOURLY) -> float:
    """`annualised_sharpe` of `cost_adjusted_returns(returns, turnover, bps)`."""
    return annualised_sharpe(cost_adjusted_returns(returns, turnover, bps), ann)


def mean_by_regime(values: Iterable[float], regimes: Sequence[Hashable]) -> dict[Any, float]:
    """Mean of `values` for each regime label, in order of first appearance.

    `regimes[i]` is the regime of `values[i]`; labels may be ints or strings.
    Used for mean reward (or accuracy, with 0/1 values) by true regime.
    """
    a = _arr(values)
    labels = list(regimes)
    if len(labels) != a.size:
        raise ValueError(f"values ({a.size}) and regimes ({len(labels)}) differ in length")
    out: dict[Any, list[float]] = {}
    for v, g in zip(a, labels):
        out.setdefault(g, []).append(float(v))
    return {g: float(np.mean(v)) for g, v in out.items()}


def phase_metrics(returns: Iterable[float], turnover: Iterable[float] | None = None,
                  ann: float = ANN_HOURLY) -> dict[str, Any]:
    """The reference's per-phase block for one phase's bars (facts §6).

    Keys: sharpe, sortino (reference variant), calmar, max_drawdown_pct and
    total_return_pct (in %, drawdown positive), win_rate (fraction), tail_ratio,
    n_bars, and cost_adjusted_sharpe {bps: sharpe} for 0, 5, 10 and 20 bps when
    `turnover` (same length as `returns`) is given.
    """
    a = _arr(returns)
    out: dict[str, Any] = {
        "sharpe": annualised_sharpe(a, ann),
        "sortino": sortino(a, ann),
        "calmar": calmar(a, ann),
        "max_drawdown_pct": max_drawdown(a) * 100.0,
        "total_return_pct": total_return(a) * 100.0,
        "win_rate": win_rate(a),
        "tail_ratio": tail_ratio(a),
        "n_bars": int(a.size),
    }
    if turnover is not None:
        out["cost_adjusted_sharpe"] = {bps: cost_adjusted_sharpe(a, turnover, bps, ann) for bps in COST_BPS}
    return out
