"""The slow loop's contract: a window of experience in, a diagnosis and at most
one prescription out.

A `Reflector` reads a `ReflectionContext` (the window's episodes, per-policy
statistics, memory patterns, side information the agent never sees, the last
three reflections) and returns a `Reflection`: first a diagnosis (what went
wrong and why, a regime label, a confidence), then optionally an insight for
the agent's prompt and a new retrieval policy. The session turns those into
`Proposal`s that wait in the approval queue; nothing a reflector says takes
effect until it is approved (by a person or a standing rule). When a reflector
looks at all (cadence, a pending proposal, the cool-down after a rejection, a
trailing metric below a threshold) is the one gate of `reflection_gate.py`, which
each scenario's reflector configures.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from .memory import MemoryStore
from .policies import PolicySpec


# The evidence key of a reflection that tried candidates and proposed none: {"tried": {name:
# count}, "why": one sentence, ...}. A reflector says it once, and again only when what it
# tried changes; `run --json` lists these under the run's "nothing_proposed" (engine/results.py).
NOTHING_PROPOSED = "nothing_proposed"


@dataclass
class ReflectionContext:
    episode: int                      # the last completed episode
    window: list[dict[str, Any]]      # history records of the slow window just completed
    trailing: list[dict[str, Any]]    # a longer trailing window (the gate's), newest last
    history: list[dict[str, Any]]     # every record so far (read-only)
    pool: list[PolicySpec]
    posteriors: list[dict[str, Any]]  # arm, alpha, beta, mean, pulls
    memory: MemoryStore
    side_info: dict[str, Any]
    previous: list["Reflection"]      # the last three reflections, oldest first
    scenario: Any                     # the Scenario, for counterfactual replay


@dataclass
class Reflection:
    episode: int
    trigger: str                  # which rule fired ("paper gate", "diagnose", "llm")
    diagnosis: str                # what went wrong and why
    insight: str = ""             # what the agent should be told ("" = nothing to inject)
    regime_label: str = ""
    confidence: float = 0.0
    evidence: dict[str, Any] = field(default_factory=dict)
    policy: dict[str, Any] | None = None   # a proposed PolicySpec as a dict
    rationale: str = ""           # why that policy, citing the evidence
    source: str = "offline"       # backend that produced it; "fallback" marks an LLM failure

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Reflection":
        return cls(**d)


class Reflector(Protocol):
    name: str
    trigger: str  # which gate it uses (e.g. diagnose or paper), shown with each reflection

    def should_reflect(self, ctx: ReflectionContext) -> bool:
        """Whether this slow window is worth a reflection at all (the gate: `reflection_gate.GatedReflector`)."""

    def reflect(self, ctx: ReflectionContext) -> Reflection | None: ...

    def rejected(self, kind: str, episode: int) -> None:
        """A person (or a rule) rejected what was proposed after `episode`: wait, then look again."""

    def outlook(self, episode: int) -> str:
        """When this reflector will next consider a proposal ("" when nothing holds it back)."""

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


class ReflectorBase:
    """Defaults for what a reflector may leave out (as ScenarioBase for a scenario)."""

    trigger: str = "gate"

    def rejected(self, kind: str, episode: int) -> None:
        pass  # nothing to wait for: the gate decides again at the next window

    def outlook(self, episode: int) -> str:
        return ""

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass
