"""Which tools an allocation leaned on, and which of them were wrong: EvoTool's blame and
FactorMiner's skill keys on the portfolio (digest §3, §5, §10).

Both look at the names the allocation overweighted (weight above the equal
share of what was invested), where a tool's call mattered: a tool is
*blamed* when most of its decided calls on those names (call and realised
direction both non-zero) were wrong; the tools *relied on* are those whose
sub-scores agreed most with the allocation's tilt (sum over tickers of
(w - mean w) x sub-score), at most 4 with a positive agreement, which is
known when the agent decides (no outcome read).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .world import World

SKILL_TOOLS = 4   # the released code keys a skill on the first 4 tools used


def overweighted(weights: np.ndarray) -> np.ndarray:
    invested = float(weights.sum())
    if invested <= 0:
        return np.zeros(len(weights), bool)
    return weights > invested / len(weights) + 1e-12


def blamed_tools(world: World, t: int, weights: np.ndarray, members: Sequence[str]) -> list[str]:
    """The members (tools) whose decided calls on the overweighted names at bar t were mostly wrong."""
    over = overweighted(np.asarray(weights, dtype=float))
    realised = world.realised[t][over]
    out = []
    for tool in members:
        if tool not in world.tools:
            continue
        calls = world.calls[t, over, world.tools.index(tool)]
        decided = (calls != 0) & (realised != 0)
        wrong = int((decided & (calls != realised)).sum())
        if decided.any() and wrong > int(decided.sum()) - wrong:
            out.append(tool)
    return out


def relied_tools(world: World, t: int, weights: np.ndarray, allowed: Sequence[str] | None = None,
                 k: int = SKILL_TOOLS) -> list[str]:
    """Up to k tools (of `allowed`, default all) whose sub-scores at bar t agreed most with the
    allocation's tilt, best first (ties in tool order)."""
    w = np.asarray(weights, dtype=float)
    tilt = w - w.mean()
    scores = np.nan_to_num(world.scores[t])           # (tickers, tools); unavailable counts 0
    agree = tilt @ scores
    names = [tl for tl in world.tools if allowed is None or tl in allowed]
    ranked = sorted(names, key=lambda tl: (-agree[world.tools.index(tl)], world.tools.index(tl)))
    return [tl for tl in ranked if agree[world.tools.index(tl)] > 1e-12][:k]
