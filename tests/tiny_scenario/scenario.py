from engine.options import resolve
from engine.policies import PolicySpec
from engine.scenario import Outcome, Query, ScenarioBase

from .spec import SPEC

COINS = ("heads", "tails", "edge")
PAYS = ((0.8, 0.3, 0.1), (0.2, 0.9, 0.1))  # per regime: the chance each coin pays


class TinyScenario(ScenarioBase):
    spec = SPEC
    name = SPEC.name
    regime_names = ["first", "second"]

    def __init__(self, seed, **options):
        self.seed = seed
        self.n_episodes = resolve(SPEC.options, options, "tiny scenario")["length"]
        self.initial_pool = [PolicySpec(c, description=f"toss {c}") for c in COINS]
        self.defaults = SPEC.session_defaults()

    def regime(self, t):
        return int(t >= self.n_episodes // 2)

    def query(self, t):
        return Query(t, f"toss {t}", {}, {"regime": self.regime(t)})

    def act(self, query, ctx):
        paid = ctx.rng.random() < PAYS[self.regime(query.episode)][COINS.index(ctx.policy.name)]
        return Outcome(score=1.0 if paid else -1.0, reward=float(paid), action=f"toss {ctx.policy.name}",
                       result="paid" if paid else "lost", correct=bool(paid))

    def oracle_arm(self, t, pool, memory):
        best = max(range(len(COINS)), key=lambda i: PAYS[self.regime(t)][i])
        return next(p for p in pool if p.name == COINS[best])
