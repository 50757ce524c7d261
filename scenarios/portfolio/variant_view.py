"""The portfolio agent's side of the variants (engine/variants/__init__.py): an `AgentView` as
the allocator's arguments, and what the planner and per-tool variants read of a bar."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from engine.variants import AgentView

from .planners import RULES


def view_arguments(view: AgentView | None, tools: Sequence[str]) -> dict[str, Any]:
    """`allocate`'s keyword arguments for what the variants let the agent see."""
    if view is None:
        return {}
    out: dict[str, Any] = {}
    if view.tools is not None:
        out["shown"] = np.array([t in view.tools for t in tools])
    if view.tool_prior:
        out["prior"] = np.array([view.tool_prior.get(t, (0.0, 0.0)) for t in tools], dtype=float)
    if view.planner is not None:
        out["planner"] = view.planner_rule or RULES[view.planner]
    return out


def shown_signals(signals: dict[str, dict[str, Any]], view: AgentView | None) -> dict[str, dict[str, Any]]:
    """A model's "Market Signals": only the tools the view shows ({} when it shows none)."""
    if view is None or view.tools is None:
        return signals
    if not view.tools:
        return {}
    return {tk: {tool: o for tool, o in per.items() if tool in view.tools} for tk, per in signals.items()}


# ------------------------------------------------------------------ cold start
# The offline rating table (prior-methods digest §10): price-derived compute_* 4; the DCF
# model and the risk score 3; the raw get_* readers 2; the composite 1.
def tool_rating(tool: str) -> int:
    if tool == "score_composite_signal":
        return 1
    if tool in ("run_dcf_model", "score_risk"):
        return 3
    return 4 if tool.startswith("compute_") else 2


def planner_ratings(tool_ratings: dict[str, int]) -> dict[str, int]:
    """A planner's rating: the rounded mean rating of the tools it consults first."""
    from .planners import BUILT_IN, COMPOSITE, QUICK, TREND

    first = {"adaptive": QUICK, "cot_reasoning": TREND, "reflexion": COMPOSITE}
    out = {}
    for name in BUILT_IN:
        tools = [t for t in first.get(name, tuple(tool_ratings)) if t in tool_ratings] or list(tool_ratings)
        out[name] = int(round(float(np.mean([tool_ratings[t] for t in tools]))))
    return out


# ------------------------------------------------------------------ the planners' context
CONTEXT_FEATURES = ("bias", "trailing return", "volatility change", "tool agreement", "signal dispersion",
                    "drawdown", "market trend")
CONTEXT_SHORT = ("bias", "ret", "vol", "agree", "disp", "dd", "trend")


def planner_context(returns: list[float], scores: np.ndarray, calls: np.ndarray,
                    tools: Sequence[str]) -> list[float]:
    """The LinUCB context of a bar, from what the agent knows before acting: its own last 20
    returns (mean / 0.2 %, and their volatility against all its returns, minus 1), how much
    the tools agree per ticker (|mean call|, averaged), how far apart the tickers' mean
    sub-scores are (2 x their sd), the drawdown (x 10), and the trend tools' mean view.
    Each feature is clipped to [-1, 1]."""
    from .planners import TREND

    value = np.cumprod(1.0 + np.asarray(returns, float))
    drawdown = float(1.0 - value[-1] / max(1.0, value.max())) if len(value) else 0.0
    r = np.asarray(returns[-20:], float)
    mean_ret = float(r.mean() / 0.002) if len(r) else 0.0
    every = np.asarray(returns, float)
    vol = float(r.std() / every.std() - 1.0) if len(r) >= 3 and every.std() > 0 else 0.0
    avail = ~np.isnan(scores)
    n = avail.sum(axis=1)
    agreement = float(np.mean(np.abs(calls.sum(axis=1)) / np.maximum(n, 1)))
    ticker_view = np.where(n > 0, np.nansum(np.where(avail, scores, 0.0), axis=1) / np.maximum(n, 1), 0.0)
    dispersion = float(2.0 * ticker_view.std())
    trend_cols = [i for i, t in enumerate(tools) if t in TREND]
    trend = scores[:, trend_cols]
    market = float(np.nanmean(trend)) if trend.size and (~np.isnan(trend)).any() else 0.0
    raw = [1.0, mean_ret, vol, agreement, dispersion, drawdown * 10.0, market]
    return [round(float(np.clip(v, -1.0, 1.0)), 6) for v in raw]
