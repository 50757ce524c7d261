"""A method with saved state, written only in this module: Thompson sampling that also
keeps a tally of the rewards it saw, and shows the agent nothing. Its state is checked on
load by the model named in `state_model` (here too, read only when a save is)."""
from typing import Annotated

from pydantic import Field

from engine.bandits import ThompsonSampling
from engine.deferred import Deferred
from engine.method_base import Method
from engine.options import OptionSpec
from engine.store.schema_types import Count, SavedState


class TallyState(SavedState):
    wins: Count
    seen: Count
    last: Annotated[list[Count], Field(max_length=100)]   # the episodes of the last wins

    def record_episodes(self):
        return self.last


class Tally(Method):
    name = "tally"
    summary = "Thompson sampling that keeps a tally of the wins it saw (a test method with saved state)"
    selector_class = ThompsonSampling
    options = (OptionSpec("keep", int, 5, "how many of the last wins to remember", minimum=1, maximum=100),)
    state_model = Deferred("tests.ext_method", "TallyState")

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.wins = self.seen = 0
        self.last: list[int] = []

    def make_selector(self, arms, prior):
        sel = ThompsonSampling()   # `keep` is the tally's option, not the bandit's
        for arm in arms:
            sel.add_arm(arm, prior)
        return sel

    def observe(self, query, outcome, t, learning):
        if learning:
            self.seen += 1
            if outcome.reward > 0:
                self.wins += 1
                self.last = [*self.last, t][-self.settings["keep"]:]

    def state_dict(self):
        return {"wins": self.wins, "seen": self.seen, "last": list(self.last)}

    def load_state_dict(self, state):
        self.wins, self.seen, self.last = state.get("wins", 0), state.get("seen", 0), list(state.get("last", []))
