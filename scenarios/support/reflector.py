"""The offline reflector of the support stream (spec §6): gate, diagnose, prescribe.

Two triggers:
- `diagnose` (default, our resolution of the paper's contradiction, spec §0):
  every `cadence` episodes, while nothing has been proposed yet,
  1. gate: the accuracy over the trailing `window` episodes (t−window+1..t)
     must be below `threshold`;
  2. diagnose: F = the failures among the last `cadence` episodes (the slow
     window just completed). Replay the candidate `route_aware` on them and
     count the failures it gets right while all 5 initial policies get them
     wrong;
  3. prescribe `route_aware` only if that count is ≥ 5 and ≥ 0.25·|F|.
  Without a prescription the reflection still carries its diagnosis.
- `paper` (paper-literal): the gate alone prescribes `route_aware`.

At most one proposal at a time, and never a policy already in the pool (compared
by behaviour, so a renamed copy counts). A rejected proposal starts a cool-down
of `cooldown` episodes (3 cadences); after it the gate and the diagnosis run
again on slow windows that start after the rejection (fresh evidence), and may
propose again. Checks happen when
(episode + 1) % cadence == 0, whether the session asks every episode or at
its slow-window boundaries (then its slow window should divide the cadence).

History records need the keys "episode" and "correct" (or "reward", correct
meaning reward ≥ 0.5); they are read from `ctx.history`, so the session's own
window lengths do not matter. The gate (cadence, the pending proposal, the
cool-down, the candidate in the pool, the trailing accuracy) is the engine's
`ReflectionGate`, configured here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from engine.memory import Pattern
from engine.policies import PolicySpec
from engine.reflection import Reflection, ReflectionContext
from engine.reflection_gate import DeclaredReflector, ReflectionGate, TrailingAccuracy

from .policies import INITIAL_POOL, ROUTE_AWARE, behaviour_key
from .spec import SPEC

MIN_FIXED = 5
MIN_FIXED_SHARE = 0.25


@dataclass
class SupportReflector(DeclaredReflector):
    """Diagnose-before-prescribe reflection for the support stream (the paper's 40 / 120 / 0.58
    are the spec's defaults)."""

    SPEC = SPEC
    SAVED = ("candidate", "cooldown")
    candidate: dict[str, Any] = field(default_factory=ROUTE_AWARE.to_dict)
    cooldown: int | None = None     # episodes to wait after a rejection (None: 3 cadences)
    name: str = "support-offline"

    def make_gate(self) -> ReflectionGate:
        if self.cooldown is None:
            self.cooldown = self.COOLDOWN_CADENCES * self.cadence
        return ReflectionGate(cadence=self.cadence, cooldown=self.cooldown, metric=TrailingAccuracy(),
                              window=self.window, threshold=self.threshold)

    def outlook(self, episode: int) -> str:
        """When this reflector will next consider a proposal (for the lab's reflection panel)."""
        if self.gate.cooling(episode):
            first = self.gate.next_due(self.cooldown_until)
            return (f"A proposal was rejected: cool-down until episode {self.cooldown_until}; the reflector "
                    f"next considers {self.candidate['name']} after episode {first}, on failures since then.")
        return ""

    def holds_candidate(self, pool: list[PolicySpec]) -> bool:
        """The candidate is in the pool by name or by behaviour (a renamed copy counts)."""
        key = behaviour_key(PolicySpec.from_dict(self.candidate))
        return any(p.name == self.candidate["name"] or behaviour_key(p) == key for p in pool)

    # -------------------------------------------------------------- reflect
    def reflect(self, ctx: ReflectionContext) -> Reflection | None:
        verdict = self.gate.check(ctx, self.holds_candidate)
        if not verdict:
            return None
        t, acc = ctx.episode, verdict.value
        start, failures = self.slow_window_failures(ctx)
        candidate = PolicySpec.from_dict(self.candidate)
        cand_ok = ctx.scenario.counterfactual(candidate, failures)
        init_ok = [ctx.scenario.counterfactual(p, failures) for p in INITIAL_POOL]
        fixed = [u for i, u in enumerate(failures) if cand_ok[i] and not any(ok[i] for ok in init_ok)]
        n_f, n_fixed = len(failures), len(fixed)
        supported = n_fixed >= MIN_FIXED and n_fixed >= MIN_FIXED_SHARE * n_f
        pattern = _fixed_pattern(ctx, fixed)
        evidence = {
            "trailing_accuracy": round(acc, 4), "trailing_window": [max(0, t - self.window + 1), t],
            "threshold": self.threshold, "slow_window": [start, t], "failures": n_f,
            "candidate": candidate.name, "candidate_fixes": n_fixed,
            "fixed_episodes": fixed, "pattern": pattern.content if pattern else "",
        }
        gate = verdict.why  # "accuracy 0.512 over episodes 800–919 is below 0.58"
        counts = (f"of the {n_f} failures in episodes {start}–{t}, {candidate.name} would have fixed "
                  f"{n_fixed} that all 5 initial policies miss")
        prescribe = supported or self.trigger == "paper"
        if not prescribe:
            return Reflection(
                episode=t, trigger=self.trigger,
                diagnosis=f"{gate.capitalize()}, but {counts} (a prescription needs ≥ {MIN_FIXED} and ≥ "
                          f"{MIN_FIXED_SHARE:.0%} of the failures), so {candidate.name} is not proposed: "
                          "these failures are not ones endpoint-aware retrieval would fix.",
                confidence=round(1 - n_fixed / n_f, 3) if n_f else 1.0, evidence=evidence,
            )
        self.gate.proposed(t)
        support = f" Supporting pattern: {pattern.content}." if pattern else ""
        semantic = _strongest_endpoint_pattern(ctx)
        if semantic:
            support += f" Memory agrees: {semantic}."
        return Reflection(
            episode=t, trigger=self.trigger,
            diagnosis=(f"{gate.capitalize()}; {counts}. The failing tickets' text is shared across "
                       "routes while their endpoint tells the route: retrieval must condition on the endpoint."
                       if supported else f"{gate.capitalize()} (paper gate: no diagnosis required; {counts})."),
            insight="When the text is ambiguous, route by the endpoint: recent tickets on the same "
                    "endpoint with similar text share one route.",
            regime_label="route-aware regression" if supported else "",
            confidence=round(n_fixed / n_f, 3) if n_f else 0.0,
            evidence=evidence, policy=candidate.to_dict(),
            rationale=(f"{counts[0].upper()}{counts[1:]} ({n_fixed} ≥ {MIN_FIXED} and "
                       f"{n_fixed / max(n_f, 1):.2f} ≥ {MIN_FIXED_SHARE} of the failures).{support}"
                       if supported else f"Paper gate: {gate}.{support}"),
        )


def _fixed_pattern(ctx: ReflectionContext, fixed: list[int]) -> Pattern | None:
    """How the fixed failures' endpoints line up with their gold routes (both revealed
    to the agent by then): the endpoint with the most fixed failures is the pattern,
    and the content lists up to three endpoints."""
    if not fixed:
        return None
    by_endpoint: dict[str, Counter[str]] = defaultdict(Counter)
    for u in fixed:
        q = ctx.scenario.query(u)
        by_endpoint[q.metadata["endpoint"]][q.truth["gold_route"]] += 1
    ranked = sorted(by_endpoint, key=lambda e: (-sum(by_endpoint[e].values()), e))
    parts = []
    for e in ranked[:3]:
        route, count = by_endpoint[e].most_common(1)[0]
        parts.append(f"{e} → {route} ({count} of {sum(by_endpoint[e].values())})")
    more = f", and {len(ranked) - 3} more endpoints" if len(ranked) > 3 else ""
    top = ranked[0]
    route, count = by_endpoint[top].most_common(1)[0]
    n = sum(by_endpoint[top].values())
    return Pattern(key=f"endpoint:{top}", direction=route, support=n, strength=count / n,
                   content=f"endpoint → gold route on the fixed failures: {', '.join(parts)}{more}",
                   metadata={"kind": "endpoint", "endpoint": top})


def _strongest_endpoint_pattern(ctx: ReflectionContext) -> str:
    best = None
    for e in ctx.memory.entries("semantic"):
        if e.metadata.get("kind") == "endpoint":
            key = (e.metadata.get("strength", 0.0), e.metadata.get("support", 0))
            if best is None or key > best[0]:
                best = (key, e.content)
    return best[1] if best else ""
