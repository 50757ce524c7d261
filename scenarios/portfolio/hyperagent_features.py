"""HyperAgent's seven features per bar and ticker, from the world's price arrays and tools.

The offline parametric allocator (engine/prior/hyperagent.py) reads, in this
order: ret4 and ret8 (the return over the last 4 and 8 bars), RSI(14), the
technicals score (0-5 conditions met), vol30 (annualised), the DCF model's
upside and the risk score (both as the tools' sub-scores, NaN where the tool
is unavailable or disabled), each z-scored across the bar's tickers. Every
value at bar t uses prices up to t only (the tools are causal).
"""

from __future__ import annotations

import numpy as np

from engine.prior.generation_search import FEATURES, standardise

from .world import World


def raw_features(world: World) -> np.ndarray:
    """(bars, tickers, 7) in FEATURES order, NaN where a value is missing."""
    p = world.toolbox.p
    n, k = world.scores.shape[:2]

    def tool(name: str) -> np.ndarray:
        return world.scores[:, :, world.tools.index(name)] if name in world.tools else np.full((n, k), np.nan)

    cols = {"ret4": p.mom[4], "ret8": p.mom[8], "rsi": p.rsi, "tech_score": p.tech_score.astype(float),
            "vol30": p.vol30, "dcf_upside": tool("run_dcf_model"), "risk_overall": tool("score_risk")}
    return np.stack([np.asarray(cols[f], dtype=float) for f in FEATURES], axis=-1)


def hyperagent_features(world: World) -> np.ndarray:
    """The z-scored features the allocator reads (bars, tickers, 7); missing -> 0."""
    return standardise(raw_features(world))
