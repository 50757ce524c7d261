"""A planner written by a model (the planners variant with `--reflector`): code, so sandbox and a person.

When the planners variant decides a planner keeps failing, and a model is the
reflector, the model is asked for a planner as a function under the sandbox's
`plan(scores, weights, tools)` contract (engine/sandbox/contracts.py), the way
the portfolio's planner rules are called per ticker. Its answer is untrusted
code: parsed as the reflector's answers are (a model that cannot answer falls
back to the library planner), vetted and smoke-tested, then a `planner`
proposal with code, which the queue never approves without a person (or
--allow-code-auto). An approved code planner is an arm like the others; each
of its calls runs in the session's sandboxed worker, and a failed call gives
that ticker the sequential view (every available tool, reliability-weighted).
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np

from ..sandbox.contracts import unfenced
from ..sandbox.rules import CodePolicyError

PURPOSE = "variant.planner"
SCHEMA = {"type": "object", "properties": {"code": {"type": "string"}, "rationale": {"type": "string"}},
          "required": ["code", "rationale"]}


def messages(reason: str, evidence: dict[str, Any], tools: list[str], planners: list[str]) -> list[dict[str, str]]:
    system = ("You write a planner for a portfolio agent: a function that turns its tools' signals for one ticker "
              "into one view in [-1, 1]. Answer with one JSON object: the function's full source in `code`, one "
              "sentence on the idea in `rationale`.")
    user = ("The function is `def plan(scores, weights, tools)`: `scores[i]` is tool i's sub-score / 100 (in "
            "[-1, 1], None where the tool gave nothing), `weights[i]` its reliability weight (higher: more often "
            "right), `tools[i]` its name. It returns one number: the view (clipped to [-1, 1]). Write only that "
            "one function: no imports, no other functions or classes, no while loops, no try/except, no names "
            "starting with '_'; plain arithmetic, comparisons, for loops, comprehensions and len, sum, min, max, "
            "abs, sorted, range, enumerate, zip, float. It runs in a sandbox, half a second per call.\n\n"
            f"Why a new planner: {reason}.\nEvidence: {json.dumps(evidence)}\nThe tools: {', '.join(tools)}\n"
            f"The planners so far: {', '.join(planners)}")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def propose_code_planner(client, session, variant, reason: str, evidence: dict[str, Any]) -> dict[str, Any] | None:
    """The model's planner as a proposal, or None (no answer, or refused: the library planner stands in)."""
    from ..sandbox.codepolicy import smoke_test_function

    tools = list(getattr(session.scenario, "tools", []) or getattr(session.scenario.world, "tools", []))
    result = client.complete_json(messages(reason, evidence, tools, list(variant.arms)), SCHEMA, purpose=PURPOSE,
                                  fallback=lambda _m, _s: {"code": "", "rationale": ""})
    if result.fallback:
        return None
    code = unfenced(str(result.data.get("code", "")))
    name = f"model_planner_{session.t}"
    try:
        smoke_test_function(code, "plan", name=name)
    except CodePolicyError:
        return None
    return {"kind": "planner", "source": "llm", "rationale": str(result.data.get("rationale", ""))[:500] or reason,
            "evidence": {"misled": list(evidence.get("misled") or [])},
            "payload": {"name": name, "rule": name, "reason": reason, "contract": "plan", "code": code}}


def sandbox_rule(arms, code: str) -> Callable[[np.ndarray, np.ndarray, Any, float], float]:
    """A planner rule (planners.py's signature) that calls `code` in the sandboxed worker."""
    from ..sandbox.codearms import run_function

    def rule(s: np.ndarray, omega: np.ndarray, tools, w0: float) -> float:
        scores = [None if not np.isfinite(x) else round(float(x), 6) for x in s]
        weights = [round(float(w / w0), 6) for w in omega]
        try:
            return run_function(arms, "plan", code, (scores, weights, list(tools)))
        except CodePolicyError:   # the sequential view for this ticker
            mask = np.isfinite(s)
            if not mask.any():
                return 0.0
            return float(np.clip((omega[mask] * s[mask]).sum() / (w0 * mask.sum()), -1.0, 1.0))

    return rule
