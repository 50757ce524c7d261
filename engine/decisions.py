"""The decision half of a session: proposals in, decisions out, every one audited.

A reflection's insight or policy becomes a `Proposal`; a standing rule or the
approval mode may decide it at once, otherwise it waits (and stepping waits)
until a person approves, edits or rejects it. What is accepted is the exact
normalised object the engine will use; an arm that cannot be used (an invalid
spec, a name already in the pool, a policy the world cannot play, Python code
that fails its smoke test) is refused before anything is recorded. Code arms
also have decisions without a proposal: after a load each is quarantined until
a person admits or rejects it (`review_code_arm`), and one that keeps failing
is suspended by the engine; the audit log records both, with the code's hash.

`Decisions` is mixed into `Session` and uses its pool, selector, memory,
scenario, queue and event emitter.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from . import events as ev
from .approvals import ApprovalQueue, Proposal
from .errors import AELError
from .policies import PolicySpec
from .proposers import PROPOSER_KINDS, apply_owned, code_owner, owned_code

if TYPE_CHECKING:
    from .bandits import Selector
    from .memory import MemoryStore
    from .reflection import Reflection, Reflector
    from .scenario import Scenario


class Decisions:
    # what the mixin reads and writes of its Session (set in Session.__init__)
    config: Any  # the Session's SessionConfig (engine.session imports this module, not the reverse)
    scenario: "Scenario"
    queue: ApprovalQueue
    pool: dict[str, PolicySpec]
    selector: "Selector"
    memory: "MemoryStore"
    reflections: list["Reflection"]
    reflector: "Reflector | None"
    insight: dict[str, Any] | None
    injections: list[dict[str, Any]]
    t: int
    n_episodes: int

    def _emit(self, out: list[ev.Event], event: ev.Event) -> None:
        raise NotImplementedError  # Session's

    def _new_proposal(self, kind: str, payload: dict[str, Any], reflection: int, rationale: str,
                      evidence: dict[str, Any], source: str | None = None) -> Proposal:
        p = Proposal(id=len(self.queue.proposals) + 1, kind=kind, episode=self.t - 1, payload=payload,
                     reflection=reflection, rationale=rationale, evidence=evidence,
                     source=source or self.reflections[reflection].source, code=bool(payload.get("code")))
        self.queue.proposals.append(p)
        return p

    def _propose(self, kind: str, payload: dict[str, Any], reflection: int, rationale: str,
                 evidence: dict[str, Any], out: list[ev.Event], source: str | None = None) -> None:
        p = self._new_proposal(kind, payload, reflection, rationale, evidence, source)
        self._emit(out, ev.ProposalQueued(self.t - 1, p.id, kind))
        # a proposal a person decided in the run being replayed waits for that decision again,
        # even where a rule would decide it (engine/timetravel.py)
        auto = None if self.timeline.person_decided(p) else self.queue.automatic_decision(p)
        if auto is not None:
            decision, who = auto
            self._apply(p, decision, None, "standing rule" if who.startswith("rule:always") else
                        f"approval mode {self.queue.mode}", who, out)

    def decide(self, pid: int, decision: str, edited: dict[str, Any] | None = None, reason: str = "",
               who: str = "human", standing: bool = False) -> list[ev.Event]:
        """Approve, edit (with the edited object) or reject a pending proposal.

        An edit that changes nothing is recorded as what it is, an approval.
        `standing` (with approve) also sets the standing rule "always approve this
        kind" first, so later proposals of the kind are approved as they come."""
        p = self.queue.get(pid)
        if p.status != "pending":
            raise AELError(f"proposal #{pid} was already decided ({p.status})")
        if decision not in ("approve", "edit", "reject"):
            raise AELError(f"unknown decision {decision!r} (expected approve, edit or reject)")
        if decision == "edit" and edited == p.payload:
            decision, edited = "approve", None
        if standing and decision != "approve":
            raise AELError("a standing rule goes with an approval")
        if standing:
            reason = reason or f"always approve {p.kind} proposals (standing rule set here)"
        out: list[ev.Event] = []
        self._apply(p, decision, edited, reason, who, out)
        if standing:  # only once the approval went through: a refused arm sets no rule
            self.queue.set_standing(p.kind, "approve", who=who, episode=self.t - 1)
        return out

    def validate_edit(self, p: Proposal, edited: dict[str, Any]) -> dict[str, Any]:
        """The normalised object an edit would accept; AELError naming the bad field."""
        if p.kind in PROPOSER_KINDS:
            raise AELError(f"a {p.kind} proposal is approved or rejected as it stands, not edited")
        if p.kind == "arm":
            spec = PolicySpec.from_dict(edited, set(self.pool))
            if spec.name in self.pool:
                raise AELError(f"policy field 'name': {spec.name!r} is already in the pool")
            self.scenario.check_policy(spec)
            return spec.to_dict()
        text = edited.get("insight") if isinstance(edited, dict) else None
        if not isinstance(text, str) or not text.strip():
            raise AELError("insight field 'insight': must be a non-empty text")
        conf = edited.get("confidence", p.payload.get("confidence", 0.0))
        if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 <= conf <= 1:
            raise AELError("insight field 'confidence': must be a number between 0 and 1")
        label = edited.get("regime_label", p.payload.get("regime_label", ""))
        if not isinstance(label, str):
            raise AELError("insight field 'regime_label': must be a text")
        extra = set(edited) - {"insight", "confidence", "regime_label"}
        if extra:
            raise AELError(f"insight field {sorted(extra)[0]!r}: unknown field")
        return {"insight": text.strip(), "regime_label": label, "confidence": float(conf)}

    def _smoke_test(self, spec: PolicySpec) -> None:
        """Run a code policy in a sandboxed worker on a sample of this memory, scaled
        up to the memory cap of the tiers it reads, each call within the live
        deadline, before it may become an arm; AELError says why it was refused."""
        from .sandbox.codepolicy import smoke_test

        sample = [asdict(e) for name in spec.tiers for e in self.memory.tiers[name].entries[-40:]]
        query = self.scenario.query(min(self.t, self.n_episodes - 1)).metadata
        smoke_test(spec.code or "", sample, query, name=spec.name, deadline_s=self.code_arms.deadline_s,
                   scale_to=self.memory.cap_per_tier * max(1, len(spec.tiers)))

    # ------------------------------------------------- code arms after a load
    def quarantine_code_arms(self) -> None:
        """Every code arm in the pool waits for a person again (called on load), and a
        file cannot grant itself automatic admission of future code policies: that
        stays off unless `trust_saved_code` turns it back on."""
        from .sandbox.codepolicy import source_hash

        self.code_arms.quarantined = {name: source_hash(spec.code) for name, spec in self.pool.items()
                                      if spec.code and name not in self.code_arms.suspended}
        # code a method or variant runs (HyperAgent's allocators, code planners; engine/proposers.py) waits too
        self.code_arms.quarantined.update({name: source_hash(code) for name, code in owned_code(self).items()})
        self.code_arms.saved_auto_admission = self.queue.allow_code_auto
        self.queue.allow_code_auto = False

    def trust_saved_code(self, who: str) -> None:
        """Admit every quarantined code arm and restore the file's automatic admission
        of code policies (the CLI's --trust-code)."""
        for name in list(self.code_arms.quarantined):
            self.review_code_arm(name, "admit", who=who)
        self.queue.allow_code_auto = self.code_arms.saved_auto_admission

    def admit_saved_code(self, trusted: bool, who: str, where: str, trust: str, auto: str) -> None:
        """A save's code policies run only when a person says so (`trusted`: the CLI's
        --trust-code, the library's trust_code=True); otherwise a save holding any, or one
        that asks for automatic admission (which a file cannot grant), is refused in one line
        naming `where` it came from and the option (`trust`, `auto`) as the caller spells it."""
        names = sorted(self.code_arms.quarantined)
        if trusted:
            self.trust_saved_code(who=who)
        elif names:
            raise AELError(f"{where} holds Python-code policies ({', '.join(names)}): review them in the lab "
                           f"(ael-lab open {where}) or pass {trust} to run them unreviewed")
        elif self.code_arms.saved_auto_admission:
            raise AELError(f"{where} was saved with {auto}, which a file cannot grant: pass {trust} to keep it")

    def review_code_arm(self, name: str, decision: str, who: str = "human", reason: str = "") -> list[ev.Event]:
        """Admit a quarantined code arm (it may be sampled again) or reject it (it is
        suspended for good); the audit log records the decision and the source's hash."""
        sha = self.code_arms.quarantined.get(name)
        if sha is None:
            raise AELError(f"no quarantined code policy named {name!r}")
        if decision not in ("admit", "reject"):
            raise AELError(f"unknown decision {decision!r} (expected admit or reject)")
        t = self.t - 1
        del self.code_arms.quarantined[name]
        if name not in self.pool:   # a method's or variant's code (engine/proposers.py), not an arm
            owner = code_owner(self, name)
            self.queue.record_arm({"name": name, "code": owner.saved_code()[name]}, decision, who, reason,
                                  t, sha, kind="allocator" if owner is self.method else "planner")
            if decision == "reject":
                owner.forget_code(name)
            out: list[ev.Event] = []
            self._emit(out, ev.CodeArmReviewed(t, name, decision, sha, who))
            return out
        if decision == "reject":
            self.code_arms.suspended[name] = f"rejected after loading by {who}"
        self.queue.record_arm(self.pool[name].to_dict(), decision, who, reason, t, sha)
        out: list[ev.Event] = []
        self._emit(out, ev.CodeArmReviewed(t, name, decision, sha, who))
        return out

    def _suspend_failing_code_arms(self, t: int, out: list[ev.Event]) -> None:
        arms = self.code_arms
        due = arms.due_for_suspension()
        if not due:  # every step asks: no import (the code-policy filter) when no code arm failed
            return
        from .sandbox.codepolicy import source_hash

        for name in due:
            reason = arms.suspension_reason(name)  # failures in a row, or over its CPU budget
            arms.suspended[name] = reason
            self.queue.record_arm(self.pool[name].to_dict(), "suspend", "engine", reason, t,
                                  source_hash(self.pool[name].code or ""))
            self._emit(out, ev.CodeArmSuspended(t, name, reason))

    def _apply(self, p: Proposal, decision: str, edited: dict[str, Any] | None, reason: str, who: str,
               out: list[ev.Event]) -> None:
        if p.kind in PROPOSER_KINDS:  # a method's or a variant's proposal: its owner applies it
            return apply_owned(self, p, decision, edited, reason, who, out)
        t = self.t - 1
        if decision == "reject":
            p.status = "rejected"
            self.queue.record(p, "reject", who, None, reason, t)
            self._emit(out, ev.Decided(t, p.id, "reject", who))
            if self.reflector is not None:  # a reflector may wait, then propose again on fresh evidence
                self.reflector.rejected(p.kind, t)
            return
        if decision == "edit" and edited is None:
            raise AELError("an edit needs the edited object")
        accepted = self.validate_edit(p, edited) if decision == "edit" else p.payload
        spec = PolicySpec.from_dict(accepted, set(self.pool)) if p.kind == "arm" else None
        if spec is not None:
            self.scenario.check_policy(spec)
        if spec is not None and spec.code:
            self._smoke_test(spec)  # refused: the proposal stays pending, nothing is recorded
        p.status = "edited" if decision == "edit" else "approved"
        entry = self.queue.record(p, decision, who, accepted, reason, t)
        if spec is not None and spec.code:
            from .sandbox.codepolicy import source_hash

            entry.code_sha256 = source_hash(spec.code)
        self._emit(out, ev.Decided(t, p.id, decision, who))
        if spec is not None:
            self.pool[spec.name] = spec
            self.selector.add_arm(spec.name, self.config.prior, episode=self.t)
            self.injections.append({"episode": self.t, "arm": spec.name, "proposal": p.id})
            self._emit(out, ev.ArmAdded(t, spec.name, who))
        else:
            self.insight = {**accepted, "episode": self.t}
            self._emit(out, ev.InsightApplied(t, accepted["insight"], accepted["regime_label"],
                                              accepted["confidence"]))
