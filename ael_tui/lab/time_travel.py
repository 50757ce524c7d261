"""Time travel in the lab, UI-free: go back to an episode, undo the last decision, and
keep the run as it was so that a branch can be compared with it.

The engine does the travelling (engine/timetravel.py: checkpoints, an exact replay, the
run ahead kept as a tape that stepping on follows). What the lab adds:

- `host.original`: the run as it stood before it went back, frozen (a copy of its
  save, `Session.to_dict`, kept on the session's timeline, so a save holds it). A
  rewind keeps the tape only until the run departs from it (another decision, an
  undo), and the compare view needs both runs after that. It is
  taken when the session goes back from its furthest point, and kept while the
  session is still on its path; once the session has branched, going back again
  within the branch keeps the original it branched from.
- `undo`: the last decided proposal reopened (the engine's `reopen`: back to the
  boundary where it waited, the proposal pending again); the host notes it, and the
  next decision on that proposal says in its reason (so in the audit log) that it is
  a decision made again after an undo.

Every function here takes the host's lock: the engine's thread never steps meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ael_lab import AELError

if TYPE_CHECKING:
    from ael_lab.review import AuditEntry
    from ael_lab.runs import Session

    from ael_tui.lab.session_host import SessionHost

DECIDED = ("approve", "edit", "reject")  # what a person (or a rule for one) decides; an undo reopens these
PAST = {"approve": "approved", "edit": "approved as edited", "reject": "rejected"}


def parse_episode(text: str, reach: int) -> int:
    """An episode to go to, typed: "300" or "#300", within 0..reach (one line if not)."""
    word = text.strip().lstrip("#")
    if not word.isdigit():
        raise AELError(f"{text.strip()!r} is not an episode number: type one from 0 to {reach}")
    n = int(word)
    if n > reach:
        raise AELError(f"episode {n} is beyond this run: it has been to episode {reach} (type 0 to {reach})")
    return n


def last_decision(s: "Session") -> "AuditEntry | None":
    """The last proposal decided (by a person or a rule): what an undo reopens."""
    return next((a for a in reversed(s.queue.audit) if a.proposal_id > 0 and a.decision in DECIDED), None)


def decided_ahead(s: "Session", p) -> str:
    """How proposal `p` (pending now) was decided on the run ahead, in words for the decision
    dialog ("" when the session is not replaying a run that decided it): deciding the same keeps
    that run, deciding otherwise starts a branch. Call with the lock held."""
    tape = s.timeline.tape
    entry = next((a for a in reversed(tape.audit if tape is not None else [])
                  if a.proposal_id == p.id and a.kind == p.kind and a.proposed == p.payload), None)
    if entry is None or entry.decision not in DECIDED:
        return ""
    why = f" ({entry.reason})" if entry.reason else ""
    return (f"On the run ahead this proposal was {PAST[entry.decision]} by {entry.who} after episode "
            f"{entry.episode}{why}: deciding the same keeps that run; deciding otherwise starts a branch.")


def keep_original(host: "SessionHost") -> None:
    """Before going back: freeze the run as it stands, unless it is a branch of the one kept
    (then that one stays, the run the branch is compared with). Call with the lock held."""
    host.session.timeline.keep_original(host.session)


def rewind(host: "SessionHost", n: int) -> None:
    """The session as it stood at the start of episode n (the run ahead kept: stepping on
    gives it again). Refused, the session unchanged, as the engine refuses it."""
    with host.lock:
        s = host.session
        if n == s.t:
            return
        kept = host.original
        keep_original(host)
        try:
            s.rewind_to(n)
        except AELError:
            host.original = kept
            raise
        host.version += 1


def undo(host: "SessionHost") -> "AuditEntry":
    """Reopen the last decided proposal: the session goes back to the boundary where it
    waited, the proposal pending again. Returns the decision undone."""
    with host.lock:
        s = host.session
        entry = last_decision(s)
        if entry is None:
            raise AELError("No decision to undo: nothing has been approved or rejected yet.")
        kept = host.original
        keep_original(host)
        try:
            s.reopen(entry.proposal_id)
        except AELError:
            host.original = kept
            raise
        host.undone[entry.proposal_id] = (f"decided again after an undo of its {PAST[entry.decision]} "
                                          f"by {entry.who} after episode {entry.episode}")
        host.version += 1
        return entry


# ---------------------------------------------------------------- a branch and its original
@dataclass
class Divergence:
    """Where a branch departs from the run it came from."""
    decision: str | None       # the first decision taken otherwise, in words, or None
    decided_at: int | None     # the episode after which it was taken
    first_episode: int | None  # the first episode whose record differs (None: none yet)
    shared: int                # episodes both runs have played


def _decisions(audit: list) -> list[tuple]:
    out = []
    for a in audit:
        get = a.get if isinstance(a, dict) else lambda k, a=a: getattr(a, k)
        if get("proposal_id") > 0 and get("decision") in DECIDED:
            out.append((get("proposal_id"), get("episode"), get("decision"), get("who")))
    return out


def divergence(original: dict[str, Any], branch: dict[str, Any]) -> Divergence:
    """The first decision taken otherwise and the first episode played otherwise (two saves).
    A decision one run made and the other has not come to yet is no difference."""
    a, b = original["history"], branch["history"]
    shared = min(len(a), len(b))
    first = next((i for i in range(shared) if a[i] != b[i]), None)
    mine, theirs = _decisions(original["queue"]["audit"]), _decisions(branch["queue"]["audit"])
    for i in range(max(len(mine), len(theirs))):
        was, now = (mine[i] if i < len(mine) else None), (theirs[i] if i < len(theirs) else None)
        if was is not None and now is not None:
            if was[:3] == now[:3]:
                continue
            if was[0] == now[0]:
                return Divergence(f"#{now[0]} {PAST[now[2]]} (the original {PAST[was[2]]} it)", now[1], first, shared)
            return Divergence(f"#{now[0]} {PAST[now[2]]} (the original decided #{was[0]} here)", now[1], first,
                              shared)
        if now is not None and len(a) > now[1] + 1:  # the original went past that boundary undecided so
            return Divergence(f"#{now[0]} {PAST[now[2]]} (not so in the original)", now[1], first, shared)
        if was is not None and len(b) > was[1] + 1:
            return Divergence(f"#{was[0]} not {PAST[was[2]]} in the branch (the original {PAST[was[2]]} it)",
                              was[1], first, shared)
        break
    return Divergence(None, None, first, shared)
