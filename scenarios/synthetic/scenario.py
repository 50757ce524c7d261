"""The synthetic scenario: arms are Bernoulli machines standing in for
retrieval policies (they retrieve nothing), so the lab can teach Thompson
Sampling and arm injection with nothing else in the way.

One generator per run, `default_rng(seed)`, serves both the selector's draws
and the reward draw `1 if rng.random() < p else 0`, in that order, as the
spec says. Memory still learns, for the lab to show: each pull is an
episodic record, and distillation summarises each arm's recent pay rate.
"""

from __future__ import annotations

from typing import Any

from engine.decision import Decision
from engine.deferred import Deferred
from engine.errors import AELError
from engine.memory import MemoryStore, Pattern
from engine.options import resolve
from engine.policies import PolicySpec
from engine.scenario import AgentContext, Outcome, Query, ScenarioBase

from .reflector import SyntheticReflector
from .spec import SPEC
from .world import ARMS, HIDDEN_ARM, N_EPISODES, P, REGIMES, best_arm, regime_of

DISTILL_SPAN = 52  # distil over the most recent regime-length of pulls


def _arm_spec(name: str) -> PolicySpec:
    hidden = " (hidden: enters only through reflection)" if name == HIDDEN_ARM else ""
    return PolicySpec(name, description=f"Bernoulli arm {name}{hidden}.")


class SyntheticScenario(ScenarioBase):
    spec = SPEC
    name = SPEC.name
    regime_names = REGIMES
    match_bonuses = {"arm": 1.0}
    # what a save's memory must carry, checked on load (imported then: it needs pydantic)
    memory_metadata = Deferred("scenarios.synthetic.saved_metadata", "MEMORY_METADATA")

    def __init__(self, seed: int, **options: Any):
        resolve(SPEC.options, options, "the synthetic scenario")  # it has none: refuses any
        self.seed = seed
        self.n_episodes = N_EPISODES
        self.initial_pool = [_arm_spec(a) for a in ARMS[:10]]
        self.defaults = SPEC.session_defaults()

    def query(self, t: int) -> Query:
        return Query(t, f"pull {t}", {}, {"regime": regime_of(t)})

    def input_seen(self, query: Query) -> dict[str, Any]:
        """A pull has no features: the agent sees only which machines it may pull."""
        return {"pull": query.episode, "context": "none: every arm is a Bernoulli machine with no features"}

    def regime(self, t: int) -> int:
        return regime_of(t)

    def act(self, query: Query, ctx: AgentContext) -> Outcome:
        p = float(P[regime_of(query.episode), ARMS.index(ctx.policy.name)])
        reward = 1 if ctx.rng.random() < p else 0
        decided = Decision(how=f"no agent choice here: the bandit's draw chose the arm, and pulling "
                               f"{ctx.policy.name} pays 1 with its hidden chance in this regime",
                           answer=f"pull {ctx.policy.name}") if ctx.explain else None
        return Outcome(score=2.0 * reward - 1.0, reward=float(reward), action=f"pull {ctx.policy.name}",
                       result="paid 1" if reward else "paid 0", correct=bool(reward), decided=decided)

    def episodic_entry(self, query, outcome, policy):
        paid = int(outcome.reward)
        # quality 0.5 for both outcomes: a loss is as informative as a win here
        return f"{policy} paid {paid} at pull {query.episode}", {"arm": policy, "reward": paid}, 0.5

    def distill(self, memory: MemoryStore, episode: int) -> list[Pattern]:
        recent = [e for e in memory.tiers["episodic"].entries if e.episode > episode - DISTILL_SPAN]
        by_arm: dict[str, list[int]] = {}
        for e in recent:
            by_arm.setdefault(e.metadata["arm"], []).append(e.metadata["reward"])
        patterns = []
        for arm, rewards in sorted(by_arm.items()):
            if len(rewards) < 5:
                continue
            rate = sum(rewards) / len(rewards)
            direction = "pays" if rate >= 0.5 else "poor"
            patterns.append(Pattern(
                key=f"arm:{arm}", direction=direction, support=len(rewards), strength=rate,
                content=f"{arm} paid in {sum(rewards)} of its {len(rewards)} recent pulls ({rate:.2f})",
                rule=f"RULE: {'favour' if direction == 'pays' else 'avoid'} {arm}", metadata={"arm": arm},
            ))
        return patterns

    def check_policy(self, spec: PolicySpec) -> None:
        """Only the eleven Bernoulli machines can be played here."""
        if spec.name not in ARMS:
            raise AELError(f"policy field 'name': the synthetic world has arms {ARMS[0]}..{ARMS[-1]} only; "
                           f"{spec.name!r} has no machine behind it")

    def oracle_arm(self, t: int, pool: list[PolicySpec], memory: MemoryStore) -> PolicySpec:
        return _arm_spec(best_arm(regime_of(t)))

    def make_reflector(self, options: dict[str, Any]):
        settings = SPEC.reflector_settings(options)
        return SyntheticReflector(trigger=settings["trigger"], window=int(settings["window"]),
                                  threshold=float(settings["threshold"]))

    def side_info(self, start: int, end: int) -> dict[str, Any]:
        regimes = sorted({regime_of(t) for t in range(start, end)})
        return {"true_regimes": [REGIMES[r] for r in regimes],
                "best_arms": [best_arm(r) for r in regimes]}

