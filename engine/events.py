"""Typed events a session emits, so a UI can follow a run without reaching
into engine internals. Every event carries the episode it belongs to."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Event:
    episode: int

    @property
    def kind(self) -> str:
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class EpisodeDone(Event):
    record: dict[str, Any] = field(default_factory=dict)


@dataclass
class PhaseChanged(Event):
    phase: str = ""
    frozen: bool = False


@dataclass
class Distilled(Event):
    patterns: int = 0
    new: int = 0


@dataclass
class RulePromoted(Event):
    rule_id: str = ""
    content: str = ""


@dataclass
class RulePruned(Event):
    rule_id: str = ""
    content: str = ""
    reason: str = ""


@dataclass
class Reflected(Event):
    index: int = 0
    trigger: str = ""
    diagnosis: str = ""


@dataclass
class ProposalQueued(Event):
    proposal_id: int = 0
    proposal_kind: str = ""


@dataclass
class Decided(Event):
    proposal_id: int = 0
    decision: str = ""
    who: str = ""


@dataclass
class ArmAdded(Event):
    arm: str = ""
    source: str = ""


@dataclass
class CodeArmSuspended(Event):
    """A code policy failed too many calls in a row: its arm is no longer sampled."""

    arm: str = ""
    reason: str = ""


@dataclass
class CodeArmReviewed(Event):
    """A person admitted (or rejected) a code arm that a loaded file had quarantined."""

    arm: str = ""
    decision: str = ""   # admit or reject
    sha256: str = ""
    who: str = ""


@dataclass
class InsightApplied(Event):
    insight: str = ""
    regime_label: str = ""
    confidence: float = 0.0


@dataclass
class RunFinished(Event):
    pass
