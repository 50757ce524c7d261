"""A world from another package: two lamps, the bright one changes halfway; a method offered
to it and a variant with saved state whose panel the lab shows.

Installed (`pip install examples/plugin-world`), they appear in `ael-lab run --help`, on the
start screen and in the compare view, with nothing in AEL Lab edited: pyproject.toml declares
this module's `SPEC` in `ael_lab.scenarios`, `LampGreedy` in `ael_lab.methods`, `LampLog` in
`ael_lab.variants`, and the panel (ael_plugin_world_panel.py, the only module here that imports
Textual) in `ael_lab.panels`, which only the lab reads. `SPEC.factory` names the class below,
built only for a session. tests/test_plugin_world.py generates this package's own tests from
`ael_lab.check_scenario`, `check_method` and `check_variant`.
"""

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from engine.bandits import Selector
from engine.deferred import Deferred
from engine.method_base import Method
from engine.options import OptionSpec, resolve
from engine.policies import PolicySpec
from engine.scenario import Outcome, Query, ScenarioBase
from engine.scenario_spec import ScenarioSpec
from engine.store.schema_types import Count, Name, SavedState
from engine.variants import Variant

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


# ------------------------------------------------------------------ a method offered to this world
@dataclass
class GreedySelector(Selector):
    """Each arm once, then the best mean so far (the first of a tie): no exploration at all, which
    a world whose best lamp changes halfway punishes. Its state is the arms' counts (saved with them)."""

    kind: str = "lamp-greedy"

    def choose(self, rng, oracle):
        open_arms = self._open()
        untried = [i for i in open_arms if self.arms[i].pulls == 0]
        if untried:
            return untried[0]
        return max(open_arms, key=lambda i: self.arms[i].reward_sum / self.arms[i].pulls)


class LampGreedy(Method):
    """Offered to plugin-world by the method itself (`worlds`): the world's spec is not edited, and
    a session of another world refuses it in one line."""

    name = "lamp-greedy"
    summary = "each lamp once, then always the best so far (an example plugin method, offered to plugin-world)"
    selector_class = GreedySelector
    worlds = ("plugin-world",)


# ------------------------------------------------------------------ a variant with state and a panel
class LampLogState(SavedState):
    """What the variant saves, checked on load (a save is hostile input)."""

    lit: Annotated[dict[Name, Count], Field(max_length=len(LAMPS))] = {}
    dark: Annotated[dict[Name, Count], Field(max_length=len(LAMPS))] = {}


class LampLog(Variant):
    """Counts how often each lamp lit and stayed dark; the lab shows it in a panel that comes from
    this package's `ael_lab.panels` entry point (ael_plugin_world_panel.py), which `ael-lab run`
    never imports."""

    name = "lamp-log"
    summary = "counts each lamp's lit and dark nights (an example plugin variant with a lab panel)"
    scenarios = ("plugin-world",)
    state_model = Deferred("ael_plugin_world", "LampLogState")

    def __init__(self, **options):
        super().__init__(**options)
        self.lit: dict[str, int] = {}
        self.dark: dict[str, int] = {}

    def learn(self, session, query, outcome, ctx):
        tally = self.lit if outcome.reward > 0 else self.dark
        tally[ctx.policy.name] = tally.get(ctx.policy.name, 0) + 1

    def state_dict(self):
        return {"lit": dict(self.lit), "dark": dict(self.dark)} if self.lit or self.dark else {}

    def load_state_dict(self, state):
        self.lit, self.dark = dict(state.get("lit", {})), dict(state.get("dark", {}))

    def panel_view(self, session):
        """What its panel shows, as plain data: (lamp, lit, dark) rows; the lab reads nothing else."""
        return [(lamp, self.lit.get(lamp, 0), self.dark.get(lamp, 0)) for lamp in LAMPS]
