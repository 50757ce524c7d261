"""The function contracts the sandbox runs: what model-written code may be, in one place.

A contract names the one function a source must define, its parameters, the
sample arguments its smoke test calls it with, and how its answer is checked
in our process (after the worker returned it as JSON). Every contract goes
through the same gates as a retrieval policy: the static filter
(`engine.sandbox.codepolicy.check_source`, with the contract's name and arity), the
smoke test in a worker of its own, then live calls in the session's worker
with the same deadline and failure rules (`engine.sandbox.codeworker`).

- `retrieve(entries, query)`: a memory-retrieval policy (engine/sandbox/codepolicy.py);
  it answers entries it was given, checked by identity in the worker.
- `allocate(features)`: HyperAgent's allocation code. `features` is one dict
  per ticker of the bar (the seven z-scored features of
  `engine.prior.generation_search.FEATURES`, numbers); it returns one finite
  score per ticker, and the weights are the softmax of the scores.
- `plan(scores, weights, tools)`: a planner, as the portfolio's planner rules
  (scenarios/portfolio/planners.py) are called for one ticker: each tool's
  sub-score / 100 (None where unavailable), its reliability weight over the
  prior's, and the tools' names; it returns one finite view, clipped to [-1, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from .rules import CodePolicyError

MAX_SCORE = 1e6   # an answer beyond this is a bug or an attack on the softmax, not a score


@dataclass(frozen=True)
class Contract:
    name: str                                   # the function the source defines
    params: tuple[str, ...]
    samples: Callable[[], list[tuple]]          # smoke-test arguments, plain JSON data
    check: Callable[[Any, tuple], Any] | None   # the answer as we use it, or CodePolicyError; None: retrieve's own

    @property
    def signature(self) -> str:
        return f"def {self.name}({', '.join(self.params)})"


def _finite(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or abs(x) > MAX_SCORE:
        raise CodePolicyError(f"{what} must be a finite number (at most {MAX_SCORE:g} in size), not {str(x)[:40]}")
    return float(x)


def check_allocation(answer: Any, args: tuple) -> list[float]:
    """One finite score per ticker of the bar."""
    tickers = len(args[0])
    if not isinstance(answer, list) or len(answer) != tickers:
        got = f"a list of {len(answer)}" if isinstance(answer, list) else type(answer).__name__
        raise CodePolicyError(f"allocate must return a list of {tickers} scores (one per ticker), not {got}")
    return [_finite(x, f"allocate's score {i}") for i, x in enumerate(answer)]


def check_view(answer: Any, args: tuple) -> float:
    """One finite view, clipped to [-1, 1]."""
    return min(1.0, max(-1.0, _finite(answer, "plan's view")))


FEATURE_NAMES = ("ret4", "ret8", "rsi", "tech_score", "vol30", "dcf_upside", "risk_overall")
PLAN_TOOLS = ("get_price_history", "compute_technicals", "run_dcf_model", "score_risk")


def allocation_samples() -> list[tuple]:
    """Bars of three and eight tickers, one all-zero (a bar where every feature was missing)."""
    def bar(k: int, shift: float) -> list[dict[str, float]]:
        return [{f: round(math.sin(shift + i * 1.3 + j) * 1.5, 4) for j, f in enumerate(FEATURE_NAMES)}
                for i in range(k)]
    return [(bar(3, 0.0),), (bar(8, 0.7),), ([{f: 0.0 for f in FEATURE_NAMES} for _ in range(5)],)]


def plan_samples() -> list[tuple]:
    tools = list(PLAN_TOOLS)
    return [([0.4, -0.2, 0.1, -0.6], [0.5, 1.0, 0.2, 0.8], tools),
            ([None, None, 0.3, None], [1.0, 1.0, 1.0, 1.0], tools),   # most tools unavailable
            ([None] * 4, [0.0] * 4, tools)]                             # none available


def _no_samples() -> list[tuple]:
    return []   # retrieve's smoke test builds its own from the session's memory


CONTRACTS: dict[str, Contract] = {
    "retrieve": Contract("retrieve", ("entries", "query"), _no_samples, None),
    "allocate": Contract("allocate", ("features",), allocation_samples, check_allocation),
    "plan": Contract("plan", ("scores", "weights", "tools"), plan_samples, check_view),
}


def contract(name: str) -> Contract:
    try:
        return CONTRACTS[name]
    except KeyError:
        raise CodePolicyError(f"unknown code contract {name!r} (known: {', '.join(CONTRACTS)})") from None


def unfenced(code: str) -> str:
    """A model's source without the Markdown fences it may wrap it in."""
    lines = code.strip().splitlines()
    if lines and lines[0].startswith("```"):
        lines = lines[1:]
    if lines and lines[-1].strip() == "```":
        lines = lines[:-1]
    return "\n".join(lines) + "\n"
