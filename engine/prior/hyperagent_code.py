"""HyperAgent with a model: each generation's allocation code written by the model, run only in the sandbox.

The paper's HyperAgent asks an LLM for a new `allocate()` every generation
(digest §6). Here, with `--reflector PROVIDER` (the method's critic client),
each generation asks the model for one function under the sandbox's
`allocate(features)` contract (engine/sandbox/contracts.py): the prompt shows the
current best code, the last five generations (score, accepted or not, why one
failed) and the contract. The answer is untrusted code:

1. parsed as the reflector's answers are (`LLMClient.complete_json`: retries,
   one repair round, the fallback when the model cannot answer: then the
   generation is the offline Gaussian move, marked as a fallback);
2. vetted and smoke-tested (`engine.sandbox.codepolicy.smoke_test_function`); refused
   code is that generation's validation failure, as the original's invalid code;
3. a proposal in the session's queue (engine/proposers.py): a person approves
   or rejects it (in the CLI it is rejected unless --allow-code-auto);
4. only approved code is scored, bar by bar in the session's sandboxed worker
   (`engine.sandbox.codearms.run_function`); a failing call fails the generation.

The scores a function answers become weights as the original's did: negative
scores count as cash (clipped to 0, the rest divided by the sum of |score|),
all-zero scores are equal weight.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np

from ..sandbox.contracts import unfenced
from ..sandbox.rules import CodePolicyError
from .generation_search import FEATURES

PURPOSE = "prior.hyperagent"
SCHEMA = {"type": "object", "properties": {"code": {"type": "string"}, "rationale": {"type": "string"}},
          "required": ["code", "rationale"]}
EXAMPLE = ("def allocate(features):\n"
           "    return [1.0 for f in features]\n")


def feature_rows(z: np.ndarray) -> list[dict[str, float]]:
    """One bar's z-scored features (tickers x 7) as the contract's plain data."""
    return [{name: round(float(x), 6) for name, x in zip(FEATURES, row)} for row in z]


def scores_to_weights(scores: list[float]) -> np.ndarray:
    """Negative scores are cash; the rest over the sum of |score|; all zero: equal weight."""
    s = np.asarray(scores, dtype=float)
    total = np.abs(s).sum()
    if total <= 1e-12:
        return np.full(len(s), 1.0 / len(s))
    return np.clip(s, 0.0, None) / total


def code_weights(sandbox, source: str, z: np.ndarray) -> np.ndarray:
    """The weights `source` gives for one bar, computed in the sandboxed worker.
    Raises CodePolicyError when the call fails or answers outside the contract."""
    from ..sandbox.codearms import run_function

    return scores_to_weights(run_function(sandbox, "allocate", source, (feature_rows(z),)))


def code_returns(sandbox, source: str, z: np.ndarray, next_returns: np.ndarray) -> np.ndarray:
    """Per-bar returns of `source` held over the bars given; CodePolicyError naming the bar."""
    out = []
    for i in range(len(z)):
        try:
            out.append(code_weights(sandbox, source, z[i]) @ next_returns[i])
        except CodePolicyError as err:
            raise CodePolicyError(f"bar {i}: {err}") from None
    return np.array(out)


def messages(best_code: str, best_theta: str, recent: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The meta-prompt: the task, the contract, the current best, the last generations."""
    system = ("You are HyperAgent's code-writing step: you rewrite a portfolio allocation function to raise its "
              "annualised Sharpe ratio on the training bars. Answer with one JSON object: the full source of the "
              "function in `code`, one sentence on the change in `rationale`.")
    rules = ("The function is `def allocate(features)`: `features` is a list with one dict per ticker of the bar, "
             f"each with the numbers {', '.join(FEATURES)} (z-scored across the bar's tickers; 0 where missing). "
             "It returns a list with one number per ticker, in the same order: a score. Weights are the positive "
             "scores divided by the sum of |score| (negative scores become cash; all zero is equal weight). "
             "Write only that one function: no imports, no other functions or classes, no while loops, no "
             "try/except, no names starting with '_'; use plain arithmetic, comparisons, for loops, "
             "comprehensions and len, sum, min, max, abs, sorted, range, enumerate, zip, float. It runs in a "
             "sandbox with a deadline of half a second per bar.")
    current = best_code or f"(a parametric allocator: {best_theta or 'equal weight'})"
    user = (f"{rules}\n\nThe current best allocator:\n{current}\n\nThe last generations (newest last):\n"
            f"{json.dumps(recent)}\n\nAn example of the form only:\n{EXAMPLE}")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def ask(client, best_code: str, best_theta: str, recent: list[dict[str, Any]]) -> tuple[str, str] | None:
    """(code, rationale) from the model, or None when the fallback answered."""
    result = client.complete_json(messages(best_code, best_theta, recent), SCHEMA, purpose=PURPOSE,
                                  fallback=lambda _m, _s: {"code": "", "rationale": "the model did not answer"})
    if result.fallback:
        return None
    code = unfenced(str(result.data.get("code", "")))
    return code, str(result.data.get("rationale", ""))[:500]


def vet(code: str, label: str, smoke: Callable[..., Any] | None = None) -> str:
    """'' when `code` passed the static filter and the smoke test, else why not (one line)."""
    from ..sandbox.codepolicy import smoke_test_function

    try:
        (smoke or smoke_test_function)(code, "allocate", name=label)
    except CodePolicyError as err:
        return str(err)
    return ""
