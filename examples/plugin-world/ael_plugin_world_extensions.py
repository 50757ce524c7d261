"""A method offered to plugin-world and a variant with saved state whose panel the lab shows.

pyproject.toml declares `LampGreedy` in `ael_lab.methods`, `LampLog` in `ael_lab.variants`,
and the variant's panel (ael_plugin_world_panel.py, the only module of the package that
imports Textual) in `ael_lab.panels`, which only the lab reads: `ael-lab run plugin-world
--selector lamp-greedy --variant lamp-log` imports no Textual module.
"""

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from ael_plugin_world import LAMPS
from engine.bandits import Selector
from engine.deferred import Deferred
from engine.method_base import Method
from engine.store.schema_types import Count, Name, SavedState
from engine.variants import Variant


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
    state_model = Deferred("ael_plugin_world_extensions", "LampLogState")

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
