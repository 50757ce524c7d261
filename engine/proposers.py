"""Proposals a method or a variant makes, decided in the session's queue like reflection's.

Besides reflection, two parts of a session propose things a person decides:
HyperAgent's allocation code (kind `allocator`, written by a model each
generation) and the planners variant's new planners (kind `planner`: a library
rule countering a diagnosed failure, or, with a model, a planner as code). Each
such part (a *proposer*: the session's method, or one of its variants) keeps
an `outbox` of proposals it wants decided and a `decided(session, payload,
approved, who, reason)` that applies the decision; nothing it proposes is in
use before then. Code in a payload (`payload["code"]`) marks the proposal as
code: the queue never approves it by a standing rule or the approval mode
unless `--allow-code-auto`, and without a person (the CLI's batch modes) it is
rejected. Approved code runs only in the session's sandboxed worker
(`engine.sandbox.codearms.run_function`), under its contract (engine/sandbox/contracts.py).

A payload names its owner (`"owner": "method"` or `"variant:NAME"`) so a
decision reaches the part that asked, also after a save and a load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import events as ev
from .errors import AELError

if TYPE_CHECKING:
    from .approvals import Proposal

PROPOSER_KINDS = ("allocator", "planner")


def owner_of(session, owner: str):
    """The method or variant a payload's `owner` names; AELError when the session has none."""
    if owner == "method":
        return session.method
    if owner.startswith("variant:"):
        variant = session.variants.get(owner.split(":", 1)[1])
        if variant is not None:
            return variant
    raise AELError(f"no part of this session is called {owner!r} to take the decision")


def proposers(session) -> list[tuple[str, Any]]:
    return [("method", session.method)] + [(f"variant:{v.name}", v) for v in session.variants.items]


def queue_outboxes(session, out: list[ev.Event]) -> None:
    """Every proposal the method and variants made this step, into the queue (in order).
    A rule may decide one at once, and its owner may then propose again: loop until quiet."""
    for owner, part in proposers(session):
        box = getattr(part, "outbox", None)
        while box:
            item = box.pop(0)
            session._propose(item["kind"], {**item["payload"], "owner": owner}, -1, item.get("rationale", ""),
                             item.get("evidence", {}), out, source=item.get("source", "offline"))


def apply_owned(session, p: "Proposal", decision: str, edited: dict[str, Any] | None, reason: str, who: str,
                out: list[ev.Event]) -> None:
    """Approve or reject a method's or variant's proposal (no edits: a person approves the
    exact code whose SHA-256 the review showed); the owner applies it, the log records it."""
    if decision == "edit":
        raise AELError(f"a {p.kind} proposal is approved or rejected as it stands, not edited")
    t = session.t - 1
    owner = owner_of(session, str(p.payload.get("owner", "")))
    approved = decision == "approve"
    if approved and hasattr(owner, "check_proposal"):
        owner.check_proposal(session, p.payload)   # refused: stays pending, nothing recorded
    p.status = "approved" if approved else "rejected"
    entry = session.queue.record(p, decision, who, p.payload if approved else None, reason, t)
    if p.payload.get("code"):
        from .sandbox.codepolicy import source_hash

        entry.code_sha256 = source_hash(p.payload["code"])
    session._emit(out, ev.Decided(t, p.id, decision, who))
    owner.decided(session, p.payload, approved, who, reason)
    queue_outboxes(session, out)


def owned_code(session) -> dict[str, str]:
    """Approved code the method and variants would run, by name (quarantined after a load)."""
    out: dict[str, str] = {}
    for _, part in proposers(session):
        saved = getattr(part, "saved_code", None)
        out.update(saved() if saved else {})
    return out


def code_owner(session, name: str):
    """The method or variant holding the code `name`."""
    for _, part in proposers(session):
        saved = getattr(part, "saved_code", None)
        if saved and name in saved():
            return part
    raise AELError(f"no quarantined code named {name!r}")
