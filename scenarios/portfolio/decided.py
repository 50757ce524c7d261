"""How the portfolio's agent decided a bar, as the explanation shows it (engine/decision.py).

The allocator (agent.py) turns each ticker's tool sub-scores into a signal, each tool
weighted by the reliability memory shows it; the weights follow the signals (tilted,
capped, blended with what was held, scaled by the exposure). This reads that very
allocation back: per ticker its signal, the weight it got and the calls that moved it most.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.decision import Decision, Holding

from .agent import Allocation
from .memory_records import short

MOVERS = 3  # the calls shown per ticker: those that pulled its signal most


def allocation_decision(world: Any, t: int, alloc: Allocation, weights: np.ndarray, agent: str,
                        notes: list[str]) -> Decision:
    """Bar t's decision from its allocation `alloc` and the weights finally held."""
    w = world.world
    tools = [short(tool) for tool in w.tools]
    scores = w.scores[t]
    holdings = []
    for j, ticker in enumerate(w.tickers):
        pull = alloc.pulls[j] if alloc.pulls is not None else np.zeros(len(tools))
        movers = np.argsort(-np.abs(pull), kind="stable")[:MOVERS]
        calls = tuple((tools[i], float(scores[j, i]), float(alloc.reliability[j, i]), float(pull[i]))
                      for i in movers if pull[i] != 0)
        holdings.append(Holding(ticker, float(alloc.signal[j]), float(weights[j]), calls))
    holdings.sort(key=lambda h: -h.weight)
    cash = 1.0 - float(np.sum(weights))
    how = (f"each ticker's signal is its tools' sub-scores weighted by the reliability memory shows "
           f"(2·reliability − 1); weights follow the signals (tilted, capped, half kept from the bar "
           f"before), exposure {alloc.exposure:.2f}, cash {cash:.0%}")
    extra = []
    if alloc.advice.trust or alloc.advice.shrink:
        extra.append(f"the insight trusts {', '.join(map(short, alloc.advice.trust)) or 'none'}, "
                     f"shrinks {', '.join(map(short, alloc.advice.shrink)) or 'none'}")
    if agent != "offline":
        extra.append(f"the weights held are the {'method' if agent == 'method' else 'model'}'s "
                     "(the allocation above was its offline advice)")
    extra.extend(notes)
    top = ", ".join(f"{h.ticker} {h.weight:.0%}" for h in holdings[:3])
    return Decision(how=how, answer=f"{top}; cash {cash:.0%}", holdings=tuple(holdings), notes=tuple(extra))
