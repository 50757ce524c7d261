"""A world with run state, written only against the contract: three urns of red and
blue balls; a draw takes a ball out, so what pays changes with what was drawn. Its
state (the balls left) is saved and checked by its own model (`state_model`)."""
from engine.deferred import Deferred
from engine.options import resolve
from engine.policies import PolicySpec
from engine.scenario import Outcome, Query, ScenarioBase

from .spec import SPEC

URNS = ("left", "middle", "right")
RED_SHARE = (0.7, 0.5, 0.3)


class UrnScenario(ScenarioBase):
    spec = SPEC
    name = SPEC.name
    state_model = Deferred("tests.ext_world.saved_state", "UrnState")

    def __init__(self, seed, **options):
        self.seed = seed
        balls = resolve(SPEC.options, options, "urns scenario")["balls"]
        self.n_episodes = 60
        self.initial_pool = [PolicySpec(u, description=f"draw from the {u} urn") for u in URNS]
        self.defaults = SPEC.session_defaults()
        self.red = [round(balls * s) for s in RED_SHARE]
        self.blue = [balls - r for r in self.red]

    def query(self, t):
        return Query(t, f"draw {t}", {}, {})

    def act(self, query, ctx):
        i = URNS.index(ctx.policy.name)
        left = self.red[i] + self.blue[i]
        red = left > 0 and ctx.rng.random() < self.red[i] / left
        if left:
            (self.red if red else self.blue)[i] -= 1
        return Outcome(score=1.0 if red else -1.0, reward=float(red), action=f"draw {ctx.policy.name}",
                       result="red" if red else "blue", correct=bool(red))

    def oracle_arm(self, t, pool, memory):
        share = [r / max(1, r + b) for r, b in zip(self.red, self.blue)]
        return next(p for p in pool if p.name == URNS[share.index(max(share))])

    def state_dict(self):
        return {"red": list(self.red), "blue": list(self.blue)}

    def load_state_dict(self, state):
        self.red, self.blue = list(state["red"]), list(state["blue"])
