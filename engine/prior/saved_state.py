"""The saved state of each prior method (`method` in a save), checked on load.

Each method names its model with `state_model = Deferred("engine.prior.saved_state",
"NameState")` on its class (engine/prior/*.py), so pydantic is imported only when
a save is read or written; the save schema (engine/store/session_schema.py) asks the
method registry for it. A model's `record_episodes()` names the episodes its records
were made at (none may lie beyond the episodes run).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from ..store.schema_types import (
    MAX_PRIOR_ITEMS, Count, Episodes, Finite, Open, Positive, SavedState, SourceText, Strict, Text, Unit, Word,
)


class PriorRecord(Open):
    """A critic record (engine/prior/world.py); a world adds its own fields (advice, salient...)."""
    episode: Count
    text: Text
    success: bool
    label: Word
    keys: dict[str, Any] = {}
    source: Literal["llm", "fallback"] | None = None


class ReflexionState(SavedState):
    critiques: Annotated[list[PriorRecord], Field(max_length=MAX_PRIOR_ITEMS)]

    def record_episodes(self):
        return [r.episode for r in self.critiques]


class ExpelLesson(Strict):
    record: PriorRecord
    uses: Count
    added: Count


class ExpelState(SavedState):
    lessons: Annotated[list[ExpelLesson], Field(max_length=MAX_PRIOR_ITEMS)]
    evicted: Count = 0

    def record_episodes(self):
        return [x.added for x in self.lessons]


class MetaRule(Strict):
    directive: Annotated[list[Word], Field(min_length=1, max_length=4)]
    text: Text
    born: Count
    applications: Count
    successes: Count

    @model_validator(mode="after")
    def _successes_fit(self) -> "MetaRule":
        if self.successes > self.applications:
            raise ValueError(f"{self.successes} successes in {self.applications} applications")
        return self


class MetaReflexionState(SavedState):
    raw: Annotated[list[PriorRecord], Field(max_length=MAX_PRIOR_ITEMS)]
    rules: Annotated[list[MetaRule], Field(max_length=MAX_PRIOR_ITEMS)]
    episodes: Count
    distillations: Count
    pruned: Annotated[list[MetaRule], Field(max_length=MAX_PRIOR_ITEMS)] = []

    def record_episodes(self):
        return [r.episode for r in self.raw]


class ToolPolicyState(Strict):
    members: Annotated[list[Word], Field(min_length=1, max_length=100)]
    fitness: Unit
    n_evals: Count
    born: Annotated[int, Field(ge=-1, le=2**53)]


class MutationState(Strict):
    episode: Count
    slot: Count
    parent: Count
    dropped: Annotated[list[Word], Field(max_length=100)]
    added: Annotated[list[Word], Field(max_length=100)]
    swapped: Annotated[list[Word], Field(max_length=2)]
    members: Annotated[list[Word], Field(min_length=1, max_length=100)]
    fitness: Unit
    replaced: Annotated[list[Word], Field(max_length=100)]
    replaced_fitness: Unit


class PopulationState(Strict):
    policies: Annotated[list[ToolPolicyState], Field(min_length=1, max_length=100)]
    mutations: Annotated[list[MutationState], Field(max_length=MAX_PRIOR_ITEMS)]
    n_mutations: Count
    n_blames: Count
    chosen: Count | None = None
    last_blamed: Annotated[list[Word], Field(max_length=100)] = []


class EvoToolState(SavedState):
    population: PopulationState | None = None   # drawn at the first episode

    def record_episodes(self):
        return [m.episode for m in self.population.mutations] if self.population else []


class SkillState(Strict):
    key: Word
    value: Annotated[list[Word], Field(min_length=1, max_length=100)]
    success: Unit
    n: Episodes
    created: Count
    last: Count
    wins: Count
    losses: Count


class ExperienceState(Strict):
    episode: Count
    key: Word
    predicted: Word
    actual: Word
    correct: bool
    record: PriorRecord | None = None


class SkillBookState(Strict):
    skills: Annotated[list[SkillState], Field(max_length=MAX_PRIOR_ITEMS)]
    experiences: Annotated[list[ExperienceState], Field(max_length=100_000)]
    evicted: Count = 0


class FactorMinerState(SavedState):
    book: SkillBookState

    def record_episodes(self):
        return [s.last for s in self.book.skills] + [e.episode for e in self.book.experiences]


Theta = Annotated[list[Finite], Field(min_length=1, max_length=100)]


class GenerationState(Strict):
    number: Count
    episode: Count
    theta: Annotated[list[Finite | None], Field(max_length=100)]
    moved: Annotated[list[Word], Field(max_length=100)]
    valid: bool
    failure: Text = ""
    score: Finite | None = None
    best_before: Finite | None = None
    accepted: bool = False
    improved: bool = False
    sigma: Positive
    adapted_to: Positive | None = None
    code: SourceText = ""                       # a model's allocation code (engine/prior/hyperagent_code.py)
    source: Literal["offline", "llm", "fallback"] = "offline"


class SearchState(Strict):
    incumbent: Theta
    best: Theta
    best_score: Finite | None = None
    sigma: Positive
    generations: Annotated[list[GenerationState], Field(max_length=MAX_PRIOR_ITEMS)]
    since_adapt: Annotated[list[bool], Field(max_length=MAX_PRIOR_ITEMS)]
    incumbent_code: SourceText = ""              # approved code: quarantined again after every load
    best_code: SourceText = ""


class PendingCode(Strict):
    """A model's allocation code waiting in the queue for a person (engine/prior/hyperagent.py)."""
    generation: Count
    episode: Count
    code: SourceText


class HyperAgentState(SavedState):
    search: SearchState
    fallbacks: Count = 0
    pending: PendingCode | None = None

    def record_episodes(self):
        return [g.episode for g in self.search.generations]
