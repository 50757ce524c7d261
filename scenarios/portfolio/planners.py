"""Planners: how the offline agent turns its tools' signals into one view per ticker.

The reference's six planners differ in which tools they consult and in what
order (prior-methods digest §7); in its portfolio mode they changed one prompt
line only. Here each is a deterministic rule over the tools' reliability-weighted
sub-scores (digest §10), so choosing a planner changes the allocation:

- sequential:      every tool, in one weighted consensus (the agent's default rule);
- decompose:       the mean of per-dimension sub-views (trend, valuation, sentiment, risk);
- adaptive:        the quick tools (price, technicals, momentum) unless their view is
                   ambiguous (|view| < 0.3), then every tool;
- cot_reasoning:   trend, then valuation; when the two disagree, risk breaks the tie;
- reflexion:       a quick prediction from the composite signal, expanded to every
                   tool when its confidence is below 0.6;
- hypothesis_test: bull minus bear evidence: each tool votes (its weighted
                   sub-score beyond the call threshold), the view is the net share.

Evolved planners are library rules, each countering a diagnosed failure (which
tools misled the agent): `reversal` (trend tools keep missing: fade them),
`valuation_anchor` (valuation and sentiment only), `risk_first` (never more
bullish than the risk tools allow). A reflection proposes one declaratively;
nothing here runs code from outside.

A rule gets `s` (sub-scores / 100, NaN where unavailable or not shown), `omega`
(each tool's weight: 2 rho - 1 times factors) and `w0` (the prior's weight), and
returns a view in [-1, 1]. The weighted mean over a set of tools is the
sequential rule restricted to that set.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .agent import clip1
from .tools import CALL_THRESHOLD

TREND = ("get_price_history", "compute_technicals", "compute_momentum", "compute_correlations")
QUICK = ("get_price_history", "compute_technicals", "compute_momentum")
VALUATION = ("run_dcf_model", "get_fundamentals", "get_analyst_data")
SENTIMENT = ("get_options_data", "get_analyst_data", "get_earnings_data")
RISK = ("compute_quant_risk", "score_risk")
COMPOSITE = ("score_composite_signal",)
AMBIGUOUS = 0.3          # adaptive: a quick view this weak asks for the deep tools
CONFIDENT = 0.6          # reflexion: the reference's confidence < 0.6 x 100 expansion

Rule = Callable[[np.ndarray, np.ndarray, Sequence[str], float], float]


def _mean(s: np.ndarray, omega: np.ndarray, tools: Sequence[str], w0: float,
          subset: Sequence[str] | None = None) -> float | None:
    """The reliability-weighted mean sub-score over `subset` (all tools if None); None
    when none of them is available."""
    mask = ~np.isnan(s)
    if subset is not None:
        mask &= np.array([t in subset for t in tools])
    if not mask.any():
        return None
    return clip1(float((omega[mask] * s[mask]).sum() / (w0 * mask.sum())))


def _or0(x: float | None) -> float:
    return 0.0 if x is None else x


def sequential(s, omega, tools, w0) -> float:
    return _or0(_mean(s, omega, tools, w0))


def decompose(s, omega, tools, w0) -> float:
    views = [v for group in (TREND, VALUATION, SENTIMENT, RISK) if (v := _mean(s, omega, tools, w0, group)) is not None]
    return float(np.mean(views)) if views else 0.0


def adaptive(s, omega, tools, w0) -> float:
    quick = _mean(s, omega, tools, w0, QUICK)
    if quick is not None and abs(quick) >= AMBIGUOUS:
        return quick
    return sequential(s, omega, tools, w0)


def cot_reasoning(s, omega, tools, w0) -> float:
    trend, value = _mean(s, omega, tools, w0, TREND), _mean(s, omega, tools, w0, VALUATION)
    if trend is None or value is None:
        return _or0(trend if value is None else value)
    if np.sign(trend) == np.sign(value):
        return (trend + value) / 2.0
    risk = _or0(_mean(s, omega, tools, w0, RISK))
    return clip1(float((trend + value) / 2.0 + 0.5 * risk))


def reflexion(s, omega, tools, w0) -> float:
    quick = _mean(s, omega, tools, w0, COMPOSITE)
    if quick is not None and abs(quick) >= CONFIDENT:
        return quick
    return sequential(s, omega, tools, w0)


def hypothesis_test(s, omega, tools, w0) -> float:
    mask = ~np.isnan(s)
    if not mask.any():
        return 0.0
    evidence = omega[mask] * s[mask] / w0
    bull = int((evidence >= CALL_THRESHOLD / 100).sum())
    bear = int((evidence <= -CALL_THRESHOLD / 100).sum())
    return (bull - bear) / int(mask.sum())


def reversal(s, omega, tools, w0) -> float:
    trend = _or0(_mean(s, omega, tools, w0, TREND))
    rest = _mean(s, omega, tools, w0, tuple(t for t in tools if t not in TREND))
    return clip1(float(_or0(rest) - trend))


def valuation_anchor(s, omega, tools, w0) -> float:
    return _or0(_mean(s, omega, tools, w0, VALUATION + SENTIMENT))


def risk_first(s, omega, tools, w0) -> float:
    view, risk = sequential(s, omega, tools, w0), _mean(s, omega, tools, w0, RISK)
    return view if risk is None else min(view, risk)


BUILT_IN: dict[str, Rule] = {
    "sequential": sequential, "decompose": decompose, "adaptive": adaptive,
    "cot_reasoning": cot_reasoning, "reflexion": reflexion, "hypothesis_test": hypothesis_test,
}
LIBRARY: dict[str, Rule] = {"reversal": reversal, "valuation_anchor": valuation_anchor, "risk_first": risk_first}
RULES: dict[str, Rule] = {**BUILT_IN, **LIBRARY}
# what each library rule counters: the tool group that misled the agent
COUNTERS = {"reversal": TREND, "valuation_anchor": TREND + COMPOSITE, "risk_first": VALUATION + SENTIMENT}


def counter_rule(misled: Sequence[str], have: Sequence[str]) -> str | None:
    """The library rule that counters tools that misled the agent (the group with the
    most of them), skipping rules already in the pool; None when none fits."""
    best, hits = None, 0
    for rule, group in COUNTERS.items():
        n = sum(t in group for t in misled)
        if rule not in have and n > hits:
            best, hits = rule, n
    return best
