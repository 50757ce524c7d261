"""The offline reflector of the news stream: at most one proposal, `regime_filtered`.

Every `cadence` articles, while nothing has been proposed and regime_filtered
is not in the pool:
- gate: the accuracy over the trailing `window` articles is below `threshold`;
- `paper` (default): the gate alone proposes regime_filtered, as the paper's
  P5 was injected;
- `diagnose`: replay regime_filtered on the failures of the slow window just
  completed and propose it only if it gets at least 5, and a quarter, of
  them right where every pool policy is wrong.
The regime label in the reflection is the reflector's own (`policies.regime_label`,
from revealed classes only), never the true regime.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.policies import PolicySpec
from engine.reflection import Reflection, ReflectionContext
from engine.reflection_gate import DeclaredReflector

from .policies import REGIME_FILTERED, regime_label
from .spec import SPEC

MIN_FIXED = 5
MIN_FIXED_SHARE = 0.25


@dataclass
class NewsReflector(DeclaredReflector):
    SPEC = SPEC
    name: str = "news-offline"

    def outlook(self, episode: int) -> str:
        if self.gate.cooling(episode):
            return (f"A proposal was rejected: the reflector looks at {REGIME_FILTERED.name} again from "
                    f"episode {self.cooldown_until}.")
        return ""

    def holds_candidate(self, pool: list[PolicySpec]) -> bool:
        return any(p.name == REGIME_FILTERED.name or p.fingerprint == REGIME_FILTERED.fingerprint for p in pool)

    def reflect(self, ctx: ReflectionContext) -> Reflection | None:
        verdict = self.gate.check(ctx, self.holds_candidate)
        if not verdict:
            return None
        t, acc = ctx.episode, verdict.value
        label = regime_label(ctx.scenario.labels, t + 1)
        start, failures = self.slow_window_failures(ctx)
        cand = ctx.scenario.counterfactual(REGIME_FILTERED, failures)
        pool = [ctx.scenario.counterfactual(p, failures) for p in ctx.pool]
        fixed = [u for i, u in enumerate(failures) if cand[i] and not any(ok[i] for ok in pool)]
        supported = len(fixed) >= MIN_FIXED and len(fixed) >= MIN_FIXED_SHARE * len(failures)
        gate = verdict.why
        counts = (f"of the {len(failures)} failures in episodes {start}–{t}, {REGIME_FILTERED.name} would get "
                  f"{len(fixed)} right that every pool policy gets wrong")
        evidence = {"trailing_accuracy": round(acc, 4), "threshold": self.threshold, "slow_window": [start, t],
                    "failures": len(failures), "candidate_fixes": len(fixed), "fixed_episodes": fixed,
                    "regime_label": label}
        if not (supported or self.trigger == "paper"):
            return Reflection(episode=t, trigger=self.trigger, regime_label=label, evidence=evidence,
                              confidence=round(1 - len(fixed) / len(failures), 3) if failures else 1.0,
                              diagnosis=f"{gate.capitalize()}, but {counts}: filtering by regime would not "
                                        "fix these failures, so nothing is proposed.")
        self.gate.proposed(t)
        return Reflection(
            episode=t, trigger=self.trigger, regime_label=label, evidence=evidence,
            confidence=round(len(fixed) / len(failures), 3) if failures else 0.0,
            diagnosis=(f"{gate.capitalize()}; the topic mix now leans to {label}; {counts}."),
            insight=f"The stream currently leans to the {label} groups: similar recent articles of that "
                    "cluster are the best evidence.",
            policy=REGIME_FILTERED.to_dict(),
            rationale=(f"Paper gate: {gate}." if self.trigger == "paper" and not supported else
                       f"{counts[0].upper()}{counts[1:]} (≥ {MIN_FIXED} and ≥ {MIN_FIXED_SHARE:.0%})."),
        )
