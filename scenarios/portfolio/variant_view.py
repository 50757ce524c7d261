"""The portfolio agent's side of the variants (engine/variants.py): an `AgentView` as
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
        out["planner"] = RULES[view.planner]
    return out


def shown_signals(signals: dict[str, dict[str, Any]], view: AgentView | None) -> dict[str, dict[str, Any]]:
    """A model's "Market Signals": only the tools the view shows ({} when it shows none)."""
    if view is None or view.tools is None:
        return signals
    if not view.tools:
        return {}
    return {tk: {tool: o for tool, o in per.items() if tool in view.tools} for tk, per in signals.items()}
