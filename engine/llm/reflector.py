"""The LLM reflector: diagnose, then prescribe, with the offline heuristic behind it.

Two calls per reflection, as the paper's design principle asks and the
reference code did not wire up:
1. *diagnose*: per-episode summaries, per-policy statistics, memory patterns,
   side information the agent never sees and the last three reflections in;
   a causal insight, a regime label and a confidence out;
2. *prescribe*: the diagnosis (the reference never passed it on), the pool and
   its statistics in; at most one new retrieval policy out, as a declarative
   spec. An invalid spec is sent back once with the validator's message, then
   dropped with the reason kept in the evidence (the session logs the drop).

When the gate is, what the slow window is and what a candidate policy may
look like stay with the scenario's heuristic reflector (`should_reflect` is
its gate). A call that fails under the `fallback` error policy is answered by
the heuristic, and the reflection says so (`source="fallback"`).
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import AELError
from ..secrets import clip
from . import LLMClient
from ..policies import FORMATS, MAX_K, ORDERS, TIERS, PolicySpec
from ..reflection import Reflection, ReflectionContext, Reflector

MAX_EPISODE_LINES = 60
MAX_PATTERNS = 15

# Caps on every free-text field: a reply is untrusted, and a grammar-constrained
# local model cannot ramble past them (each token costs time on a small machine).
DIAGNOSIS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["diagnosis", "insight", "regime_label", "confidence"],
    "properties": {
        "diagnosis": {"type": "string", "maxLength": 600},
        "insight": {"type": "string", "maxLength": 300},
        "regime_label": {"type": "string", "maxLength": 60},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
}

_NAME = {"type": "string", "maxLength": 40}
# The common fields of a policy, typed; the rest (POLICY_FIELDS) may be added, and
# `PolicySpec.from_dict` has the last word. Kept short: the schema travels in the
# prompt of models with 2,048 tokens of context. (A grammar-constrained model
# writes only the fields listed here.)
POLICY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "tiers", "k"],
    "properties": {
        "name": _NAME,
        "tiers": {"type": "array", "items": {"type": "string", "enum": list(TIERS)}, "maxItems": len(TIERS)},
        "k": {"type": "integer", "minimum": 0, "maximum": MAX_K},
        "order": {"type": "string", "enum": list(ORDERS)},
        "filters": {"type": "array", "maxItems": 4, "items": {
            "type": "object", "required": ["key"], "additionalProperties": False,
            "properties": {"key": _NAME, "equals": {"type": "string", "maxLength": 80}}}},
        "format": {"type": "string", "enum": list(FORMATS)},
        "description": {"type": "string", "maxLength": 300},
    },
}

PRESCRIPTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["propose", "rationale"],
    "properties": {
        "propose": {"type": "boolean"},
        "policy": POLICY_SCHEMA,
        "rationale": {"type": "string", "maxLength": 400},
    },
}

POLICY_FIELDS = (
    f"name (identifier, new), tiers (subset of {list(TIERS)}), k (0..500), order ({' | '.join(ORDERS)}), "
    "filters (list of {\"key\": metadata key, \"equals\": \"query\" or a value}), window (newest N candidates or null), "
    "per_group (metadata key or null), min_score, "
    f"format ({' | '.join(FORMATS)}), keep_first, keep_last, token_budget (needed for ranked_truncate), "
    "vote_share (0..1), vote_k (or null), fallback (name of a pool policy or null), description, "
    "code (optional: Python source of `def retrieve(entries, query)` returning a list of the given entries; "
    "no imports, no dunders; a person must approve it)"
)

SYSTEM = (
    "You are the slow, reflective loop of an agent that learns how to use its memory. "
    "A Thompson-Sampling bandit picks a memory-retrieval policy every episode; you read a window of "
    "episodes and information the agent never sees, and first explain WHY things went as they did "
    "(which signals misled, what changed in the world), before prescribing anything."
)


class LLMReflector:
    def __init__(self, heuristic: Reflector, client: LLMClient, task: str = ""):
        self.heuristic = heuristic
        self.client = client
        self.task = task
        self.name = f"llm({heuristic.name})"
        self.trigger = heuristic.trigger  # the model reflects behind the offline reflector's gate

    def should_reflect(self, ctx: ReflectionContext) -> bool:
        return self.heuristic.should_reflect(ctx)

    # --------------------------------------------------------------- steps
    def reflect(self, ctx: ReflectionContext) -> Reflection | None:
        offline: list[Reflection | None] = []

        def heuristic() -> Reflection | None:  # computed at most once, only if needed
            if not offline:
                offline.append(self.heuristic.reflect(ctx))
            return offline[0]

        def diagnosis_fallback(messages, schema) -> dict[str, Any]:
            r = heuristic()
            return {"diagnosis": r.diagnosis if r else "offline heuristic: nothing to report",
                    "insight": r.insight if r else "", "regime_label": r.regime_label if r else "",
                    "confidence": float(r.confidence) if r else 0.0}

        messages, trimmed = self._diagnosis_messages(ctx)
        diag = self.client.complete_json(messages, DIAGNOSIS_SCHEMA, purpose="reflect.diagnose",
                                         fallback=diagnosis_fallback, trimmed=trimmed)
        if diag.fallback:
            r = heuristic()
            if r is not None:
                r.source = "fallback"
                r.evidence = {**r.evidence, "llm_failure": diag.reason}
            return r
        d = diag.data
        reflection = Reflection(
            episode=ctx.episode, trigger=f"llm:{self.trigger}",
            diagnosis=d["diagnosis"], insight=d["insight"], regime_label=d["regime_label"],
            confidence=float(d["confidence"]), evidence={"window": _window_stats(ctx)}, source="llm",
        )
        self._prescribe(ctx, reflection, heuristic)
        return reflection

    def _prescribe(self, ctx: ReflectionContext, reflection: Reflection, heuristic) -> None:
        def prescription_fallback(messages, schema) -> dict[str, Any]:
            r = heuristic()
            if r is not None and r.policy is not None:
                return {"propose": True, "policy": r.policy, "rationale": r.rationale}
            return {"propose": False, "rationale": "offline heuristic: no new policy"}

        messages, trimmed = self._prescription_messages(ctx, reflection)
        presc = self.client.complete_json(messages, PRESCRIPTION_SCHEMA, purpose="reflect.prescribe",
                                          fallback=prescription_fallback, trimmed=trimmed)
        if presc.fallback:
            reflection.source = "llm+fallback"
            reflection.evidence["llm_failure"] = presc.reason
        p = presc.data
        if not p.get("propose") or not isinstance(p.get("policy"), dict):
            return
        policy, error = p["policy"], self._check(p["policy"], ctx)
        if error and not presc.fallback:
            retry = messages + [
                {"role": "assistant", "content": json.dumps(p)},
                {"role": "user", "content": f"That policy is invalid: {error}. Send a corrected one, "
                                            "or propose nothing."},
            ]
            again = self.client.complete_json(retry, PRESCRIPTION_SCHEMA, purpose="reflect.prescribe.retry",
                                              fallback=prescription_fallback)
            p = again.data
            if not p.get("propose") or not isinstance(p.get("policy"), dict):
                reflection.evidence["dropped_policy"] = {"policy": policy, "reason": error}
                return
            policy, error = p["policy"], self._check(p["policy"], ctx)
        if error:
            reflection.evidence["dropped_policy"] = {"policy": policy, "reason": error}
        # an invalid policy still goes to the session, which refuses it and logs the reason
        reflection.policy = policy
        reflection.rationale = p.get("rationale", "")

    @staticmethod
    def _check(policy: dict[str, Any], ctx: ReflectionContext) -> str:
        names = {p.name for p in ctx.pool}
        try:
            spec = PolicySpec.from_dict(policy, names)
            if spec.name in names:
                return f"policy field 'name': {spec.name!r} is already in the pool"
            # the world's own refusals (a key its memory lacks...), as the session would make them,
            # so the repair round can tell the model
            if ctx.scenario is not None:
                ctx.scenario.check_policy(spec)
        except AELError as err:
            return clip(str(err))  # it may quote the model's value, which can be long
        return ""

    # ------------------------------------------------------------ prompts
    def _diagnosis_messages(self, ctx: ReflectionContext) -> tuple[list[dict[str, str]], str]:
        """The diagnosis prompt, fitted to the model's context (`LLMClient.fit`) and the
        note on what was cut. What goes first when it must: episodes that went well
        before those that failed (failures are what a diagnosis explains), older
        patterns, rules, reflections and the last items of the side information."""
        window = ctx.window[-MAX_EPISODE_LINES:]
        informative = sorted(range(len(window)), key=lambda i: (window[i]["reward"], -i))
        patterns = [e.content for e in ctx.memory.entries("semantic")][-MAX_PATTERNS:]
        rules = [e.content for e in ctx.memory.entries("procedural")][-MAX_PATTERNS:]
        previous = [{"episode": r.episode, "insight": r.insight, "regime_label": r.regime_label}
                    for r in ctx.previous]
        side = list(ctx.side_info.items()) if isinstance(ctx.side_info, dict) else []
        stats = _window_stats(ctx)

        def build(n: dict[str, int]) -> list[dict[str, str]]:
            body = {
                "task": self.task,
                "window_episodes": [_episode_line(window[i]) for i in sorted(informative[:n["window_episodes"]])],
                "window_stats": stats,
                "posteriors": ctx.posteriors,
                "memory_patterns": _newest(patterns, n["memory_patterns"]),
                "procedural_rules": _newest(rules, n["procedural_rules"]),
                "side_information_agent_never_sees": dict(side[:n["side_information"]]) if side else ctx.side_info,
                "last_three_reflections": _newest(previous, n["last_three_reflections"]),
            }
            user = ("Diagnose this slow window. Explain the cause of the outcomes in 2-3 sentences (diagnosis), "
                    "then write one insight the agent should read before its next decisions (empty if none), "
                    "a short regime label and your confidence in [0, 1].\n" + json.dumps(body, default=str))
            return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

        sizes = {"window_episodes": len(window), "memory_patterns": len(patterns), "procedural_rules": len(rules),
                 "side_information": len(side), "last_three_reflections": len(previous)}
        return self.client.fit(build, sizes, DIAGNOSIS_SCHEMA)

    def _prescription_messages(self, ctx: ReflectionContext,
                               reflection: Reflection) -> tuple[list[dict[str, str]], str]:
        """The prescription prompt, fitted to the context; when it must be cut, the
        policies added to the pool latest go first."""
        pool = [p.to_dict() for p in ctx.pool]
        per_policy = _window_stats(ctx)["per_policy"]

        def build(n: dict[str, int]) -> list[dict[str, str]]:
            body = {
                "diagnosis": reflection.diagnosis,
                "insight": reflection.insight,
                "regime_label": reflection.regime_label,
                "pool": pool[:n["pool"]],
                "per_policy": per_policy,
                "policy_fields": POLICY_FIELDS,
            }
            user = ("Given this diagnosis, is the policy pool itself missing a way of reading memory? "
                    "Propose at most one new retrieval policy (propose=true with the policy) only if the "
                    "diagnosis shows the current policies cannot succeed; otherwise propose=false. "
                    "Always give a rationale that cites the evidence.\n" + json.dumps(body, default=str))
            return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

        return self.client.fit(build, {"pool": len(pool)}, PRESCRIPTION_SCHEMA)

    def rejected(self, kind: str, episode: int) -> None:
        self.heuristic.rejected(kind, episode)  # the offline gate decides when to look again

    def outlook(self, episode: int) -> str:
        return self.heuristic.outlook(episode)

    def state_dict(self) -> dict[str, Any]:
        return {"heuristic": self.heuristic.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.heuristic.load_state_dict(state.get("heuristic", {}))


def _newest(items: list, n: int) -> list:
    """The last n items (n may be 0: `items[-0:]` would be all of them)."""
    return items[len(items) - n:] if n > 0 else []


def _episode_line(r: dict[str, Any]) -> str:
    return f"#{r['episode']} {r['policy']}: {r['action']} -> {r['result']} (reward {r['reward']:.2f})"


def _window_stats(ctx: ReflectionContext) -> dict[str, Any]:
    per: dict[str, list[float]] = {}
    for r in ctx.window:
        per.setdefault(r["policy"], []).append(r["reward"])
    rewards = [r["reward"] for r in ctx.window]
    return {
        "episodes": [ctx.window[0]["episode"], ctx.window[-1]["episode"]] if ctx.window else [],
        "mean_reward": round(sum(rewards) / len(rewards), 4) if rewards else None,
        "per_policy": {k: {"plays": len(v), "mean_reward": round(sum(v) / len(v), 4)} for k, v in per.items()},
    }
