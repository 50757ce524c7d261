"""Human-in-the-loop: proposals wait in a queue until a decision is made, and
every decision, automatic ones included, goes to an append-only audit log.

What is approved is the exact normalised object that will be used (an edited
policy is validated by `PolicySpec.from_dict` and stored as its normalised
dict), never the text before it was rewritten.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import AELError

# allocator: HyperAgent's code; planner: a planner the planners variant adds (engine/proposers.py)
KINDS = ("insight", "arm", "allocator", "planner")
DECISIONS = ("approve", "edit", "reject")
STANDING = ("approve", "reject")
KIND_NAMES = {"arm": "a new arm", "insight": "an insight", "allocator": "allocation code",
              "planner": "a new planner"}
RENEWS = "renews"  # a proposal's evidence key: it repeats the insight in use, word for word (session.py)


@dataclass
class Proposal:
    id: int
    kind: str                      # "insight" or "arm"
    episode: int                   # the last completed episode when it was made
    payload: dict[str, Any]        # insight: {insight, regime_label, confidence}; arm: a policy dict
    reflection: int                # index into the session's reflections; -1: a method's or variant's own
    rationale: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    status: str = "pending"        # pending, approved, edited, rejected
    code: bool = False             # a Python-code policy: never approved by a standing rule unless allowed
    source: str = "offline"        # who reflected: offline, llm, fallback (an LLM call answered offline)

    @property
    def kind_name(self) -> str:
        """What it proposes, in words: a renewal of the insight in use is not called a new one."""
        if self.kind == "insight" and RENEWS in self.evidence:
            return "a renewal of the insight in use"
        return KIND_NAMES.get(self.kind, self.kind)


@dataclass
class AuditEntry:
    seq: int
    episode: int
    proposal_id: int
    kind: str
    decision: str                  # approve, edit, reject, drop; admit, suspend (code arms)
    who: str                       # "human", "rule:auto-approve", "rule:always-approve-arm", "engine"
    proposed: dict[str, Any]
    accepted: dict[str, Any] | None
    reason: str = ""
    at: str = ""                   # wall-clock time (ISO, UTC); never part of results
    source: str = "offline"        # the proposal's source; "fallback" marks an LLM failure answered offline
    code_sha256: str = ""          # a code policy admitted, rejected or suspended: SHA-256 of its source


@dataclass
class StandingRule:
    """One "always approve/reject this kind" rule: who set it, when, and when it was revoked."""
    kind: str
    rule: str                      # approve or reject
    who: str                       # "human", or "older save" for a rule saved before this log
    episode: int                   # the last completed episode when it was set
    at: str = ""                   # wall-clock time (ISO, UTC); never part of results
    revoked_episode: int | None = None
    revoked_at: str = ""
    revoked_by: str = ""

    @property
    def active(self) -> bool:
        return self.revoked_episode is None


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


@dataclass
class ApprovalQueue:
    mode: str = "auto"                                   # auto, reject, manual
    standing: dict[str, str] = field(default_factory=dict)  # kind -> approve/reject
    allow_code_auto: bool = False
    proposals: list[Proposal] = field(default_factory=list)
    audit: list[AuditEntry] = field(default_factory=list)
    rules: list[StandingRule] = field(default_factory=list)  # every standing rule ever set, revoked ones too

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "reject", "manual"):
            raise AELError(f"unknown approval mode {self.mode!r} (expected auto, reject or manual)")
        for kind, rule in self.standing.items():  # a save from before the log: say so, keep the rule
            if not any(r.active and r.kind == kind for r in self.rules):
                self.rules.append(StandingRule(kind, rule, "older save", -1))

    @property
    def pending(self) -> list[Proposal]:
        return [p for p in self.proposals if p.status == "pending"]

    def get(self, pid: int) -> Proposal:
        for p in self.proposals:
            if p.id == pid:
                return p
        raise AELError(f"no proposal #{pid}")

    def automatic_decision(self, p: Proposal) -> tuple[str, str] | None:
        """(decision, who) if a rule decides this proposal, else None (a person must).
        A code policy is never approved by a rule unless `allow_code_auto` was set
        explicitly; in batch modes it is rejected, since nobody is there to look."""
        if p.code and not self.allow_code_auto:
            if self.mode == "manual":
                return None
            return "reject", "rule:code-needs-a-person"
        rule = self.standing.get(p.kind)
        if rule:
            return rule, f"rule:always-{rule}-{p.kind}"
        if self.mode == "auto":
            return "approve", "rule:auto-approve"
        if self.mode == "reject":
            return "reject", "rule:auto-reject"
        return None

    def record(self, p: Proposal, decision: str, who: str, accepted: dict[str, Any] | None,
               reason: str, episode: int) -> AuditEntry:
        entry = AuditEntry(
            seq=len(self.audit), episode=episode, proposal_id=p.id, kind=p.kind, decision=decision,
            who=who, proposed=p.payload, accepted=accepted, reason=reason, at=now_iso(), source=p.source,
        )
        self.audit.append(entry)
        return entry

    def record_arm(self, arm: dict[str, Any], decision: str, who: str, reason: str, episode: int,
                   sha256: str, kind: str = "arm") -> AuditEntry:
        """A decision about an arm already in the pool (no proposal behind it): a
        quarantined code arm admitted or rejected, a failing one suspended."""
        entry = AuditEntry(seq=len(self.audit), episode=episode, proposal_id=0, kind=kind, decision=decision,
                           who=who, proposed=arm, accepted=arm if decision == "admit" else None, reason=reason,
                           at=now_iso(), source="saved file" if decision != "suspend" else "engine",
                           code_sha256=sha256)
        self.audit.append(entry)
        return entry

    def set_standing(self, kind: str, rule: str | None, who: str = "human", episode: int = -1) -> None:
        """Set (or, with None, revoke) the standing rule for a kind; the rules log keeps both."""
        if kind not in KINDS:
            raise AELError(f"unknown proposal kind {kind!r} (expected {', '.join(KINDS)})")
        if rule is not None and rule not in STANDING:
            raise AELError(f"unknown standing rule {rule!r} (expected approve or reject)")
        for r in self.rules:
            if r.active and r.kind == kind:
                r.revoked_episode, r.revoked_at, r.revoked_by = episode, now_iso(), who
        if rule is None:
            self.standing.pop(kind, None)
        else:
            self.standing[kind] = rule
            self.rules.append(StandingRule(kind, rule, who, episode, now_iso()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "standing": dict(self.standing), "allow_code_auto": self.allow_code_auto,
            "proposals": [asdict(p) for p in self.proposals], "audit": [asdict(a) for a in self.audit],
            "rules": [asdict(r) for r in self.rules],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ApprovalQueue":
        return cls(
            mode=d["mode"], standing=dict(d["standing"]), allow_code_auto=bool(d["allow_code_auto"]),
            proposals=[Proposal(**p) for p in d["proposals"]], audit=[AuditEntry(**a) for a in d["audit"]],
            rules=[StandingRule(**r) for r in d.get("rules", [])],  # absent in saves before the log
        )
