"""The portfolio's side of credit assignment (engine/credit.py): counterfactual replay and evidence.

The allocator is deterministic, so what a bar would have earned with a module
at its baseline is computed exactly, with the memory, the insight and the
holdings as they were when the agent decided:

- planner at baseline: `sequential`, the agent's own consensus rule;
- tools at baseline: the core preset, CORE_TOOLS (price history, technicals,
  momentum and the composite signal: what every planner reads first);
- memory at baseline: the policy `none` (no hits, no rules).

v(S) is the outcome score of the allocation with the modules in S as played,
the same score the bandit's reward comes from; the coalition of all three is
the bar as played (the offline agent's allocation, reproduced exactly).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.credit import MODULES, coalitions
from engine.policies import PAPER_POLICIES

from .episode import outcome_score
from .memory_records import short

if TYPE_CHECKING:
    from engine.scenario import AgentContext

    from .scenario import PortfolioScenario

CORE_TOOLS = ("get_price_history", "compute_technicals", "compute_momentum", "score_composite_signal")
NO_MEMORY = next(p for p in PAPER_POLICIES if p.retrieves_nothing)
MAX_HITS_SHOWN = 5


def _balance(agree: np.ndarray, weight: np.ndarray) -> float:
    """(weighted agreements − disagreements) / total weight, in [-1, 1]; 0 with no weight."""
    total = float(weight.sum())
    return float(((2.0 * agree - 1.0) * weight).sum() / total) if total > 0 else 0.0


def credit_inputs(scenario: "PortfolioScenario", t: int, ctx: "AgentContext", held: np.ndarray) -> dict[str, Any]:
    """v over the 8 coalitions (by frozenset), the structural evidence per module, and
    the lines an LLM credit prompt shows, for bar t decided with holdings `held`."""
    w = scenario.world
    before = scenario.state.returns[:t]
    values: dict[frozenset[str], float] = {}
    played = None
    for s in coalitions():
        core = tuple(x for x in CORE_TOOLS if x in w.tools)
        view = dataclasses.replace(ctx.view, planner=ctx.view.planner if "planner" in s else None,
                                   tools=ctx.view.tools if "tools" in s else core)
        memory_in = "memory" in s
        alloc, _ = scenario.allocation(ctx.policy if memory_in else NO_MEMORY, t, ctx.memory, ctx.insight,
                                       ctx.hits if memory_in else [], ctx.rules if memory_in else [],
                                       quiet=True, view=view, held=held)
        values[s] = outcome_score(scenario._net_return(alloc.weights, t, held), before)
        if len(s) == len(MODULES):
            played = alloc
    r, realised = w.next_returns[t], w.realised[t]
    shown = np.array([ctx.view.tools is None or tool in ctx.view.tools for tool in w.tools])
    calls = w.calls[t][:, shown]
    decided = (calls != 0) & (realised[:, None] != 0)
    tools = _balance((calls == realised[:, None])[decided].astype(float), np.ones(int(decided.sum())))
    paid = ((played.weights - played.weights.mean()) * (r - r.mean()) > 0).astype(float)
    memory = _balance(paid, played.evidence_calls)
    called = (np.abs(played.signal) > 1e-9) & (realised != 0)
    planner = _balance((np.sign(played.signal) == realised)[called].astype(float), np.ones(int(called.sum())))
    return {"values": values, "structural": {"planner": planner, "tools": tools, "memory": memory},
            "prompt": _prompt_lines(scenario, t, ctx, played, values)}


def _prompt_lines(scenario, t: int, ctx, played, values) -> list[str]:
    """What the LLM-FCC prompt shows (digest §7): the planner, per ticker its weight, composite
    signal and realised return, the memory read, the outcome and whether it was good."""
    w = scenario.world
    composite = w.tools.index("score_composite_signal") if "score_composite_signal" in w.tools else None
    lines = [f"Planner: {ctx.view.planner or 'sequential'}; tools shown: "
             f"{'all' if ctx.view.tools is None else ', '.join(short(x) for x in ctx.view.tools) or 'none'}"]
    for j, ticker in enumerate(w.tickers):
        sig = "" if composite is None or np.isnan(w.scores[t, j, composite]) else \
            f", composite {w.scores[t, j, composite] * 100:+.0f}"
        lines.append(f"{ticker}: weight {played.weights[j]:.1%}{sig}, view {played.signal[j]:+.2f}, "
                     f"realised {w.next_returns[t, j]:+.2%}")
    hits = [h.entry.content for h in ctx.hits[:MAX_HITS_SHOWN]]
    lines.append("Memory retrieved: " + (" | ".join(hits) if hits else "No memory retrieved"))
    score = values[frozenset(MODULES)]
    lines.append(f"Outcome score {score:+.2f}: {'GOOD' if score > 0 else 'BAD'}")
    return lines
