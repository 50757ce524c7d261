"""A variant with saved state and a lab panel, written only in this module: it counts the
agent's winning streaks in the urns world (tests/ext_world). Its state is checked on load
by the model named in `state_model`; its panel shows what its `panel_view` returns and
is registered with the lab's panel registry (ael_tui/lab/panels.py), so no screen names it."""
from typing import Annotated

from pydantic import Field
from textual.widgets import Static

from ael_tui.lab.panels import LabPanel
from engine.deferred import Deferred
from engine.store.schema_types import Count, SavedState
from engine.variants import Variant
from engine.variants.panel_views import variant_view


class StreakState(SavedState):
    streak: Count
    best: Count
    ends: Annotated[list[Count], Field(max_length=50)] = []   # the episodes where a streak ended

    def record_episodes(self):
        return self.ends


class Streaks(Variant):
    name = "streaks"
    summary = "counts the agent's winning streaks (a test variant with saved state and a panel)"
    scenarios = ("urns",)
    state_model = Deferred("tests.ext_variant", "StreakState")

    def __init__(self, **options):
        super().__init__(**options)
        self.streak = self.best = 0
        self.ends: list[int] = []

    def learn(self, session, query, outcome, ctx):
        if outcome.reward > 0:
            self.streak += 1
            self.best = max(self.best, self.streak)
        elif self.streak:
            self.streak, self.ends = 0, [*self.ends, query.episode][-50:]

    def state_dict(self):
        return {"streak": self.streak, "best": self.best, "ends": list(self.ends)} if self.best else {}

    def load_state_dict(self, state):
        self.streak, self.best, self.ends = state.get("streak", 0), state.get("best", 0), list(state.get("ends", []))

    def panel_view(self, session):
        """What its panel shows (plain data): the lab reads nothing else of the variant."""
        return {"streak": self.streak, "best": self.best} if self.best else None


class StreakPanel(Static):
    def show(self, data):
        self.update("no draw yet" if data is None else f"streak {data['streak']} · best {data['best']}")


PANEL = LabPanel("streaks", "Streaks", StreakPanel, variant_view("streaks"), variants=("streaks",))
