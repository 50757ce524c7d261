"""Credit assignment over the agent's three modules: uniform, FCC and LLM-FCC (the paper's appendix).

An episode's outcome is shared between the planner, the tools and the memory;
the bandit, which chooses the memory-retrieval policy, is credited with the
memory's share instead of the whole outcome.

- uniform: each module gets a third of the outcome, g = (2r - 1) / 3.
- FCC: g = 0.2 structural + 0.3 counterfactual + 0.5 Shapley, where
  * structural is the module's own evidence on the bar, in [-1, 1] (tools:
    right minus wrong calls over decided calls; memory: read evidence whose tilt
    paid minus that whose did not; planner: tickers whose view matched the
    realised direction minus those that did not);
  * counterfactual is v(all) - v(all without the module), the module replaced
    by its baseline, and Shapley the exact Shapley value over the 8 coalitions
    of {planner, tools, memory}; both normalised by their sum of absolute values;
  * v(S) is the bar's outcome score with the modules in S as played and the
    others at their baselines, replayed by the deterministic allocator.
- LLM-FCC: g = 0.2 structural + 0.8 L, L the model's credit per module in
  [-1, 1]; offline (or when the model fails) L is the normalised Shapley value
  rounded to 0.05, the digest's offline formula.

The memory's credit g in [-1, 1] becomes the bandit's reward (1 + g) / 2.
"""

from __future__ import annotations

from itertools import combinations
from math import factorial
from typing import Mapping

MODULES = ("planner", "tools", "memory")
FCC_WEIGHTS = (0.2, 0.3, 0.5)        # structural, counterfactual, Shapley
LLM_WEIGHTS = (0.2, 0.8)             # structural, model
TINY = 1e-12

Coalition = frozenset


def coalitions(players: tuple[str, ...] = MODULES) -> list[frozenset[str]]:
    """Every subset of the players, smallest first (8 for three modules)."""
    return [frozenset(c) for n in range(len(players) + 1) for c in combinations(players, n)]


def label(coalition: frozenset[str]) -> str:
    """A coalition as text, in module order ("planner+memory"; "∅" for the empty one)."""
    return "+".join(m for m in MODULES if m in coalition) or "∅"


def shapley(values: Mapping[frozenset[str], float], players: tuple[str, ...] = MODULES) -> dict[str, float]:
    """The exact Shapley value of each player from v over every coalition:
    φ_i = Σ_{S ⊆ N∖{i}} |S|! (n−|S|−1)! / n! · (v(S ∪ {i}) − v(S))."""
    n = len(players)
    out = {}
    for i in players:
        others = tuple(p for p in players if p != i)
        total = 0.0
        for s in coalitions(others):
            weight = factorial(len(s)) * factorial(n - len(s) - 1) / factorial(n)
            total += weight * (values[s | {i}] - values[s])
        out[i] = total
    return out


def counterfactual(values: Mapping[frozenset[str], float], players: tuple[str, ...] = MODULES) -> dict[str, float]:
    """v(all) − v(all without the player): what replacing it by its baseline costs."""
    full = frozenset(players)
    return {i: values[full] - values[full - {i}] for i in players}


def normalised(parts: Mapping[str, float]) -> dict[str, float]:
    """Each part over the sum of absolute values (all 0 when they are all 0)."""
    total = sum(abs(v) for v in parts.values())
    return {k: (v / total if total > TINY else 0.0) for k, v in parts.items()}


def clip1(x: float) -> float:
    return max(-1.0, min(1.0, float(x)))


def uniform_credit(reward: float) -> dict[str, float]:
    return {m: (2.0 * reward - 1.0) / 3.0 for m in MODULES}


def fcc_credit(structural: Mapping[str, float], values: Mapping[frozenset[str], float]) -> dict[str, dict[str, float]]:
    """Every part of FCC per module: structural, counterfactual, shapley (normalised), combined."""
    counter, shap = normalised(counterfactual(values)), normalised(shapley(values))
    ws, wc, wp = FCC_WEIGHTS
    return {m: {"structural": structural[m], "counterfactual": counter[m], "shapley": shap[m],
                "combined": clip1(ws * structural[m] + wc * counter[m] + wp * shap[m])} for m in MODULES}


def offline_llm_credit(values: Mapping[frozenset[str], float]) -> dict[str, float]:
    """The digest's offline stand-in for the model: the normalised Shapley value rounded to 0.05."""
    return {m: round(round(v / 0.05) * 0.05, 2) for m, v in normalised(shapley(values)).items()}


def llm_fcc_credit(structural: Mapping[str, float], model: Mapping[str, float]) -> dict[str, float]:
    ws, wl = LLM_WEIGHTS
    return {m: clip1(ws * structural[m] + wl * clip1(model[m])) for m in MODULES}


def memory_reward(credit: Mapping[str, float]) -> float:
    """The bandit's reward for the retrieval policy: the memory's credit mapped to [0, 1]."""
    return max(0.0, min(1.0, (1.0 + credit["memory"]) / 2.0))
