"""A world from another package: two lamps, the bright one changes halfway.

Installed (`pip install examples/plugin-world`), it appears in `ael-lab run --help`, on the
start screen and in the compare view as `plugin-world`, with nothing in AEL Lab edited: its
pyproject.toml declares this module in the entry-point group `ael_lab.scenarios`, and AEL
Lab reads `SPEC` from it. `SPEC.factory` names the class below, built only for a session.
A method offered to it and a variant with a panel are in ael_plugin_world_extensions.py
(and ael_plugin_world_panel.py); tests/test_plugin_world.py generates the package's tests.
"""

from engine.options import OptionSpec, resolve
from engine.policies import PolicySpec
from engine.scenario import Outcome, Query, ScenarioBase
from engine.scenario_spec import ScenarioSpec

SPEC = ScenarioSpec(
    name="plugin-world",
    summary="two lamps whose brighter one changes halfway (an example plugin from another package)",
    task_brief="Pick the lamp that lights; the better lamp changes halfway through.",
    factory="ael_plugin_world:LampWorld",
    selectors=("ts", "ucb1", "fixed:red", "oracle"),
    options=(OptionSpec("lamps_on", int, 60, "plugin-world: episodes in the stream", minimum=2, maximum=10_000,
                        expose=True),),
    session={"warmup": 0, "slow_window": 10},
    shareable=True,
)

LAMPS = ("red", "green")
LIGHTS = ((0.85, 0.25), (0.2, 0.8))  # per half: the chance each lamp lights


class LampWorld(ScenarioBase):
    spec = SPEC
    name = SPEC.name
    regime_names = ["first half", "second half"]

    def __init__(self, seed, **options):
        self.seed = seed
        self.n_episodes = resolve(SPEC.options, options, "plugin-world scenario")["lamps_on"]
        self.initial_pool = [PolicySpec(lamp, description=f"switch on the {lamp} lamp") for lamp in LAMPS]
        self.defaults = SPEC.session_defaults()

    def regime(self, t):
        return int(t >= self.n_episodes // 2)

    def query(self, t):
        return Query(t, f"night {t}", {}, {"regime": self.regime(t)})

    def act(self, query, ctx):
        lit = ctx.rng.random() < LIGHTS[self.regime(query.episode)][LAMPS.index(ctx.policy.name)]
        return Outcome(score=1.0 if lit else -1.0, reward=float(lit), action=f"switch {ctx.policy.name}",
                       result="lit" if lit else "dark", correct=bool(lit))

    def oracle_arm(self, t, pool, memory):
        best = LAMPS[max(range(len(LAMPS)), key=lambda i: LIGHTS[self.regime(t)][i])]
        return next(p for p in pool if p.name == best)

