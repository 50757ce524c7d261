"""What a scenario supplies to the engine: the contract between the method and a world.

A scenario is built from a seed (and scenario options) and is deterministic
from it. The session owns all learning state (bandit, memory, pool, history);
the scenario owns the world: the stream, the agent that acts on an episode,
the outcome score, what is written to memory, what distillation finds, what
the reflector may propose. A scenario's own mutable state (a portfolio's
weights, say) goes through `state_dict` / `load_state_dict` so a session
resumes exactly.

Draw order matters for exact reproduction: the session draws the selector's
samples from its generator first, then calls `act`, which may draw from the
same generator (the synthetic scenario draws its Bernoulli reward there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

from .errors import AELError
from .memory import Hit, MemoryEntry, MemoryStore, Pattern
from .policies import PolicySpec
from .scenario_spec import ScenarioSpec
from .variants import AgentView

if TYPE_CHECKING:
    from .reflection import Reflector


@dataclass
class Query:
    """What the agent (and memory) sees of an episode. `metadata` is what
    retrieval matches and filters on; `truth` holds what only scoring, the
    oracle and analysis may read (the regime, a gold label)."""

    episode: int
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    truth: dict[str, Any] = field(default_factory=dict)


@dataclass
class AgentContext:
    """Everything the agent is given besides the query. `hits_from` names the
    policy whose retrieval produced `hits`: the chosen one, or its fallback
    when the chosen one retrieved nothing."""

    policy: PolicySpec
    hits: list[Hit]
    rules: list[MemoryEntry]
    insight: dict[str, Any] | None
    memory: MemoryStore
    rng: np.random.Generator
    hits_from: str = ""
    llm: Any = None  # an engine.llm.LLMClient when a model plays the agent; None offline
    prior: Any = None  # what a prior method shows the agent (engine.prior.Shown); None for AEL's methods
    view: AgentView = field(default_factory=AgentView)  # what the session's variants shape (engine/variants/__init__.py)
    # an explanation watches this episode: the agent reports how it decided in `Outcome.decided`
    # (engine/decision.py), even where it would otherwise look its answer up
    explain: bool = False


@dataclass
class Outcome:
    """The result of one episode.

    `score` is the outcome score s in [-1, 1]; `reward` the bandit reward in
    [0, 1] (by default (s + 1) / 2). `action` and `result` are one-line texts
    for the episode log. `correct` is set where the task has a right answer.
    `info` carries scenario-specific numbers (portfolio return, weights...).
    """

    score: float
    reward: float
    action: str
    result: str
    correct: bool | None = None
    info: dict[str, Any] = field(default_factory=dict)
    decided: Any = None  # an engine.decision.Decision when `AgentContext.explain` asked for it; never saved


class Scenario(Protocol):
    """A world. What it is (selectors, options, baselines, paper tables, defaults...)
    is declared in `spec`, a class attribute read without building one; the rest is
    what an instance does, episode by episode."""

    spec: ClassVar[ScenarioSpec]
    name: str
    seed: int
    n_episodes: int
    regime_names: list[str]          # e.g. ["R0", "R1", "R2", "R3"]; [] if the scenario has none
    initial_pool: list[PolicySpec]   # the arms at episode 0, in arm order
    match_bonuses: dict[str, float]  # metadata key -> relevance bonus
    defaults: dict[str, Any]         # spec.session_defaults(), plus what depends on the instance (phases)
    memory_metadata: dict[str, Any]  # tier -> pydantic model of an entry's metadata, checked when a save loads

    def session_seed(self) -> int | list[int]:
        """Seed material of the session's generator."""

    def query(self, t: int) -> Query: ...

    def prepare(self) -> None:
        """Compute now what the first episode would otherwise compute (a table, a cache);
        it may run in another thread while episodes step, so it must be safe beside them."""

    def regime(self, t: int) -> int | None:
        """The true regime index of episode t (analysis and display only)."""

    def act(self, query: Query, ctx: AgentContext) -> Outcome: ...

    def episodic_entry(self, query: Query, outcome: Outcome, policy: str) -> (
            tuple[str, dict[str, Any], float] | list[tuple[str, dict[str, Any], float]] | None):
        """(content, metadata, quality) to write after the episode, a list of them
        (a portfolio bar writes one per ticker), or None."""

    def distill(self, memory: MemoryStore, episode: int) -> list[Pattern]:
        """Readable patterns found in the episodic tier now."""

    def applicable_rules(self, query: Query, memory: MemoryStore) -> list[MemoryEntry]:
        """Procedural rules that bear on this query (given to the agent)."""

    def rule_held(self, rule: MemoryEntry, query: Query, outcome: Outcome) -> bool | None:
        """Whether an applicable rule's advice was right this time (None: cannot tell)."""

    def similarity(self, query: dict[str, Any], tier: str, episodes: np.ndarray) -> np.ndarray:
        """Similarity to the query, in [0, 1], of the entries of `tier` written at
        `episodes`, for policies ordered by similarity."""

    def oracle_arm(self, t: int, pool: list[PolicySpec], memory: MemoryStore) -> PolicySpec:
        """The best arm for episode t with hindsight (may be outside the pool),
        given the session's memory as it stands before the episode."""

    def check_policy(self, spec: PolicySpec) -> None:
        """Raise AELError if this world cannot play `spec` as an arm (before it is admitted)."""

    def make_reflector(self, options: dict[str, Any]) -> "Reflector | None": ...

    def prior_world(self) -> Any:
        """The prior methods' adapter to this world (engine.prior.world.PriorWorld; a new one per
        session), or None where the world offers no prior method."""

    def side_info(self, start: int, end: int) -> dict[str, Any]:
        """Information about episodes [start, end) the agent never sees (for reflection)."""

    def input_seen(self, query: Query) -> dict[str, Any]:
        """The episode's input as the agent saw it, for a person (`ael-lab explain`, the
        inspector): named fields of plain JSON values, nothing from `query.truth`."""

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...

    def summary(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        """Scenario-specific results of a finished run (added to the CLI JSON)."""

    def baseline_run(self, name: str) -> dict[str, Any]:
        """One of `spec.baselines` on this world, as one run of the results (`baseline:NAME`)."""

    @staticmethod
    def export_stream(seed: int) -> list[dict[str, Any]]:
        """The stream of `seed` as JSON rows, when `spec.exports_stream`."""


class ScenarioBase:
    """Sensible defaults so a scenario implements only what it has."""

    regime_names: list[str] = []
    match_bonuses: dict[str, float] = {}
    defaults: dict[str, Any] = {}
    memory_metadata: dict[str, Any] = {}  # tier -> pydantic model of an entry's metadata in a save
    # the pydantic model of `state_dict()` in a save ("scenario_state"), as `Deferred("module", "Model")`
    # (imported only when a save is read); None: the world keeps no run state, so a save holds `{}`
    state_model: Any = None
    # the public checks it is known to fail, by name, with why (ael_lab.check_scenario: they report as xfail)
    expected_failures: dict[str, str] = {}

    def session_seed(self) -> int | list[int]:
        return self.seed  # type: ignore[attr-defined]

    def regime(self, t: int) -> int | None:
        return None

    def prepare(self) -> None:
        """Compute now what the first episode would otherwise compute (a table, a cache), so
        an interface can do it off its own thread before the first key press. It may run
        while episodes step (the lab does not wait for it), so it must be safe beside them."""

    def episodic_entry(self, query, outcome, policy):
        return None

    def distill(self, memory, episode):
        return []

    def applicable_rules(self, query, memory):
        return []

    def rule_held(self, rule, query, outcome):
        return outcome.reward >= 0.5

    def similarity(self, query, tier, episodes):
        return np.zeros(len(episodes))

    def check_policy(self, spec):
        pass

    def make_reflector(self, options):
        return None

    def prior_world(self):
        return None

    def side_info(self, start, end):
        return {}

    def input_seen(self, query):
        """Generic: the query's text and the metadata retrieval matches on (never its truth)."""
        return {"text": query.text, **{k: v for k, v in query.metadata.items() if not k.startswith("_")}}

    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass

    def summary(self, history):
        return {}

    def baseline_run(self, name):
        raise AELError(f"the {self.spec.name} scenario has no baseline {name!r}")  # type: ignore[attr-defined]

    @staticmethod
    def export_stream(seed):
        raise AELError("this scenario has no stream to export")
