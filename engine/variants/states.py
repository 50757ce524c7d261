"""The saved state of the built-in variants (`variants` in a save, by name), checked on load.

Each variant that keeps state names its model with `state_model =
Deferred("engine.variants.states", "NameState")` on its class (engine/variant_*.py),
so pydantic is imported only when a save is read or written; the save schema
(engine/store/session_schema.py) asks the variant registry for it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from ..store.schema_types import Count, Finite, Items, Name, Positive, SavedState, SourceText, Strict, Text, Unit

Beta = Annotated[list[Positive], Field(min_length=2, max_length=2)]


class PerToolState(SavedState):
    """per-tool: a Beta posterior per tool and the tools last shown."""
    arms: Annotated[dict[Name, Beta], Field(max_length=100)]
    pulls: Annotated[dict[Name, Count], Field(max_length=100)] = {}
    last: Annotated[list[Name], Field(max_length=100)] = []
    last_samples: Annotated[dict[Name, Unit], Field(max_length=100)] = {}


class LinUCBArm(Strict):
    A: Annotated[list[Annotated[list[Finite], Field(max_length=64)]], Field(max_length=64)]
    b: Annotated[list[Finite], Field(max_length=64)]
    pulls: Count = 0
    added_at: Count = 0
    rule: Name | None = None          # an evolved planner: the library rule it plays
    reason: Text = ""                  # why it was added (the diagnosis it counters)
    code: SourceText = ""              # a model's plan() code, approved by a person; quarantined after a load


class PlannersState(SavedState):
    """planners: LinUCB over the planners (A, b per arm), the total updates, the last choice."""
    arms: Annotated[dict[Name, LinUCBArm], Field(max_length=20)]
    n: Count = 0
    last: Name | None = None
    last_context: Annotated[list[Finite], Field(max_length=64)] = []
    last_scores: Annotated[dict[Name, Finite], Field(max_length=20)] = {}
    streaks: Annotated[dict[Name, Count], Field(max_length=20)] = {}
    window: Annotated[list[Name], Items] = []   # planners played since the last reflection


class ColdStartState(SavedState):
    """cold-start: the ratings applied and the tool priors they gave the agent."""
    source: Text
    applied_at: Annotated[int, Field(ge=-1, le=2**53)] = -1
    tool_ratings: Annotated[dict[Name, Annotated[int, Field(ge=1, le=5)]], Field(max_length=100)] = {}
    planner_ratings: Annotated[dict[Name, Annotated[int, Field(ge=1, le=5)]], Field(max_length=20)] = {}
    tool_prior: Annotated[dict[Name, Annotated[list[Annotated[float, Field(ge=0.0, le=1e6)]],
                                               Field(min_length=2, max_length=2)]], Field(max_length=100)] = {}




class ShuffledPayload(Strict):
    episode: Count
    insight: Text
    regime_label: Text = ""
    confidence: Unit = 0.0
    evidence: dict[str, Any] = {}


class ShuffledReflectionState(SavedState):
    """shuffled-reflection: the first pass's insights and the derangement that swaps them."""
    payloads: Annotated[list[ShuffledPayload], Items]
    order: Annotated[list[Count], Items] = []
    swapped: Count = 0

    @model_validator(mode="after")
    def _a_derangement(self) -> "ShuffledReflectionState":
        n = len(self.payloads)
        if self.order and (sorted(self.order) != list(range(n)) or any(i == j for i, j in enumerate(self.order))):
            raise ValueError(f"order: must be a derangement of the {n} insights (a permutation without fixed points)")
        return self


Credit1 = Annotated[float, Field(ge=-1.0, le=1.0)]
CreditModule = Literal["planner", "tools", "memory"]


class CreditState(SavedState):
    """credit: the last bar's parts per module, the coalition values, running sums."""
    n: Count
    sums: dict[CreditModule, Annotated[float, Field(ge=-2**53, le=2**53)]]
    last: dict[CreditModule, dict[Literal["structural", "counterfactual", "shapley", "model", "combined"], Credit1]]
    last_values: Annotated[dict[Name, Credit1], Field(max_length=8)] = {}
    last_episode: Annotated[int, Field(ge=-1, le=2**53)] = -1
    source: Name | Literal[""] = ""
    fallbacks: Count = 0


class Skill(Strict):
    kind: Literal["playbook", "tool"]
    key: Name
    label: Name
    trust: Annotated[list[Name], Field(max_length=100)] = []
    shrink: Annotated[list[Name], Field(max_length=100)] = []
    text: Text
    created_at: Count
    refreshed_at: Count
    uses: Count = 0
    successes: Count = 0

    @model_validator(mode="after")
    def _successes_are_uses(self) -> "Skill":
        if self.successes > self.uses:
            raise ValueError(f"successes ({self.successes}) exceed uses ({self.uses})")
        return self


class PrunedSkill(Strict):
    key: Name
    episode: Count
    uses: Count
    successes: Count


class SkillsState(SavedState):
    """skills: the playbooks and tool skills, the tools' miss streaks, the last ones used, the pruned."""
    skills: Annotated[list[Skill], Field(max_length=30)] = []
    streaks: Annotated[dict[Name, Count], Field(max_length=100)] = {}
    applied: Annotated[list[Name], Field(max_length=30)] = []
    pruned: Annotated[list[PrunedSkill], Field(max_length=15)] = []
