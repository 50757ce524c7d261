"""Reflection for the synthetic bandit: the paper's rule, and a diagnosing one.

`paper` (the spec's rule, and the default): after every slow window of 13
episodes, if the hidden arm is not in the pool and the trailing-25 mean
reward is below 0.42, propose the hidden arm. It is a gate, not a diagnosis:
the trailing mean is usually below 0.42 at the very first check, so it tends
to inject at episode 13, long before the hidden arm pays. The reflection
says so, with the numbers, so the lab shows when and why it fired.

`diagnose`: the gate, and then evidence that the pool is failing rather than
unlucky: the best arm of the trailing window (by posterior mean, with at least
8 pulls) must have fallen below the threshold too, i.e. even the arm the
bandit trusts no longer pays.
"""

from __future__ import annotations

from typing import Any

from engine.policies import PolicySpec
from engine.reflection import Reflection, ReflectionContext
from engine.reflection_gate import GatedReflector, ReflectionGate, TrailingReward

from .world import HIDDEN_ARM


class SyntheticReflector(GatedReflector):
    def __init__(self, trigger: str = "paper", window: int = 25, threshold: float = 0.42, cooldown: int = 39):
        self.name = f"synthetic-{trigger}"
        self.trigger = trigger
        self.window = window
        self.threshold = threshold
        # asked at every slow window; after a rejection of the hidden arm it waits `cooldown`
        # episodes (3 slow windows) and asks on fresh numbers (without it the rule re-proposed
        # it at every slow window). It never marked a pending proposal, so that rule stays off.
        self.gate = ReflectionGate(cooldown=cooldown, metric=TrailingReward(), window=window, threshold=threshold)

    def holds_candidate(self, pool: list[PolicySpec]) -> bool:
        return any(p.name == HIDDEN_ARM for p in pool)

    def outlook(self, episode: int) -> str:
        if self.gate.cooling(episode):
            return (f"A proposal was rejected: cool-down until episode {self.cooldown_until}; then the "
                    f"reflector looks at the trailing-{self.window} mean again and may propose {HIDDEN_ARM}.")
        return ""

    def reflect(self, ctx: ReflectionContext) -> Reflection | None:
        verdict = self.gate.check(ctx, self.holds_candidate)
        if not verdict:
            return None
        n = min(self.window, len(ctx.history))
        evidence: dict[str, Any] = {"trailing_mean": round(verdict.value, 4), "trailing_n": n,
                                    "threshold": self.threshold}
        # "trailing-25 mean reward 0.381 < 0.42"
        diagnosis = f"{verdict.why}: the pool looks like it is underperforming"
        if self.trigger == "diagnose":
            trusted = [p for p in ctx.posteriors if p["pulls"] >= 8]
            if not trusted:
                return None
            best = max(trusted, key=lambda p: p["mean"])
            evidence["best_arm"] = best["arm"]
            evidence["best_mean"] = round(best["mean"], 4)
            if best["mean"] >= self.threshold:
                return None
            diagnosis += (f"; even the most trusted arm {best['arm']} has posterior mean "
                          f"{best['mean']:.3f} after {best['pulls']} pulls")
        else:
            diagnosis += " (paper rule: a gate on the trailing mean, not a diagnosis)"
        return Reflection(
            episode=ctx.episode, trigger=self.trigger, diagnosis=diagnosis,
            regime_label="pool underperforming", confidence=0.5, evidence=evidence,
            policy={"name": HIDDEN_ARM, "description": "The hidden arm, proposed by reflection."},
            rationale=f"{diagnosis}; propose the arm outside the pool",
        )

    def state_dict(self) -> dict[str, Any]:
        return {"cooldown": self.gate.cooldown, "cooldown_until": self.cooldown_until}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.gate.cooldown = state.get("cooldown", self.gate.cooldown)  # saves before the cool-down have neither
        self.cooldown_until = state.get("cooldown_until")
