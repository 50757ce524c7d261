"""From finished sessions to the numbers of the paper's tables.

`run_result` summarises one (selector, seed) run: mean reward per true regime
and overall (for classification scenarios the reward is 1 when correct, so
these are accuracies), the reward stream's Sharpe (mean / population std, no
annualisation, as the paper's synthetic table), and the injections.
`summarise` aggregates runs per selector across seeds: means, and the
overall's sample standard deviation (ddof = 1; null for a single seed).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .approvals import KIND_NAMES  # noqa: F401  (what a proposal's kind is called: one table, in approvals.py)
from .metrics import mean_by_regime, sharpe
from .session import Session


def run_result(session: Session) -> dict[str, Any]:
    scenario = session.scenario
    rewards = np.array([h["reward"] for h in session.history], dtype=float)
    by_index = mean_by_regime(rewards, [h["regime"] for h in session.history])
    regimes = {name: float(by_index[i]) for i, name in enumerate(scenario.regime_names) if i in by_index}
    result: dict[str, Any] = {
        # a variant is part of what ran: its rows never pool with (or take the paper's row of) the plain selector
        "selector": session.config.selector + (f" · {','.join(session.config.variants)}"
                                               if session.config.variants else ""),
        "seed": session.config.seed,
        "episodes": len(session.history),
        "complete": session.done,  # False: stopped before the stream's end (--until, a decision waiting)
        "regimes": regimes,
        "overall": float(rewards.mean()) if len(rewards) else 0.0,
        "sharpe": sharpe(rewards),
        "injections": [{"episode": i["episode"], "arm": i["arm"]} for i in session.injections],
        "reflections": len(session.reflections),
        "memory": session.memory.counts(),
    }
    if session.llm.config.uses_llm:
        result["llm"] = session.llm.summary()
        result["agent_fallbacks"] = sum(1 for h in session.history if h.get("info", {}).get("agent") == "fallback")
    code_failures = sum(1 for h in session.history if "code_failure" in h)
    if code_failures or session.code_arms.suspended:  # absent when no code policy failed: old results unchanged
        result["code_failures"] = code_failures
        result["code_suspended"] = sorted(session.code_arms.suspended)
    result.update(scenario.summary(session.history))
    from .plugins import loaded

    if loaded():  # absent without plugins: old results unchanged; with one, no result hides what else ran
        result["plugins"] = loaded()
    return result


def waiting(session: Session) -> str | None:
    """The proposals a run stopped at, in a few words (None: it waits for nothing)."""
    pending = session.queue.pending
    if not pending:
        return None
    names = [f"#{p.id} ({p.kind_name})" for p in pending]  # a renewal of the insight in use says so
    return ("proposal " if len(names) == 1 else "proposals ") + ", ".join(names)


def run_outcome(session: Session) -> dict[str, Any]:
    """Beside a run's result (whose `complete` says whether it played its whole stream): where a
    proposal stopped it, `waiting` and `stopped_at` (`ael-lab run --json` and `ael_lab`'s results)."""
    what = None if session.done else waiting(session)
    return {"waiting": what, "stopped_at": session.t} if what else {}


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else 0.0


def _sd(values: list[float]) -> float | None:
    return float(np.std(values, ddof=1)) if len(values) > 1 else None


def summarise(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    selectors: list[str] = []
    for r in runs:
        if r["selector"] not in selectors:
            selectors.append(r["selector"])
    out = []
    for sel in selectors:
        rs = [r for r in runs if r["selector"] == sel]
        regime_names = list(rs[0]["regimes"])
        overall = [r["overall"] for r in rs]
        row: dict[str, Any] = {
            "selector": sel,
            "seeds": [r["seed"] for r in rs],
            "regimes": {g: _mean([r["regimes"][g] for r in rs if g in r["regimes"]]) for g in regime_names},
            "overall_mean": _mean(overall),
            "overall_std": _sd(overall),
            "sharpe_mean": _mean([r["sharpe"] for r in rs]),
            "injection_episodes": [r["injections"][0]["episode"] if r["injections"] else None for r in rs],
        }
        if "phases" in rs[0]:
            test = [r["phases"]["test"] for r in rs if r["phases"].get("test")]
            if test:
                keys = [k for k, v in test[0].items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
                row["test_mean"] = {k: _mean([t[k] for t in test]) for k in keys}
                row["test_std"] = {k: _sd([t[k] for t in test]) for k in keys}
        out.append(row)
    return out


def finite(x: Any) -> Any:
    """JSON has no NaN or infinity: map them to null, recursively."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [finite(v) for v in x]
    return x
