"""A session read as pandas DataFrames, each with the columns docs/api.md lists.

Each frame is a copy of what the session holds now (changing it changes nothing of the
run), read from the same places the lab's panels read: the history the session appends
to, the selector's arms, the memory's tiers, the approval queue and its audit log. The
columns are fixed (an empty run gives an empty frame with the same columns); what only
some runs have (a variant's record, a model's info) comes as extra columns after them.
pandas is imported here, when a frame is asked for, not with `ael_lab`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from engine.session import Session

HISTORY = ("episode", "phase", "regime", "regime_name", "policy", "reward", "credited", "score", "correct",
           "action", "result", "hits", "insight")
HISTORY_EXTRA = ("info", "variant", "code_failure")  # present when any episode has them
POSTERIORS = ("arm", "alpha", "beta", "mean", "low", "high", "pulls", "reward_mean", "added_at", "injected",
              "proposal")
MEMORY = ("tier", "id", "episode", "content", "quality", "retrievals", "usefulness", "metadata")
AUDIT = ("seq", "episode", "proposal", "kind", "decision", "who", "reason", "source", "proposed", "accepted",
         "code_sha256", "at")
PROPOSALS = ("id", "kind", "episode", "status", "summary", "source", "reflection", "code", "rationale",
             "payload", "evidence")


def _frame(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> "pd.DataFrame":
    import pandas as pd

    extra = [c for c in dict.fromkeys(k for r in rows for k in r) if c not in columns]
    return pd.DataFrame(rows, columns=[*columns, *extra])


def history(s: "Session") -> "pd.DataFrame":
    """One row per episode played, in order."""
    names = list(getattr(s.scenario, "regime_names", None) or [])
    rows = []
    for h in s.history:
        regime = h["regime"]
        named = isinstance(regime, int) and not isinstance(regime, bool) and 0 <= regime < len(names)
        row = {k: h[k] for k in HISTORY if k in h}
        row["regime_name"] = names[regime] if named else None
        row["credited"] = h.get("credited", h["reward"])
        row.update({k: h[k] for k in HISTORY_EXTRA if k in h})
        rows.append(row)
    return _frame(rows, HISTORY)


def posteriors(s: "Session") -> "pd.DataFrame":
    """One row per arm of the selector, in pool order (the lab's posteriors table)."""
    injected = {i["arm"]: i["proposal"] for i in s.injections}
    rows = []
    for arm in s.selector.arms:
        low, high = arm.interval()
        rows.append({"arm": arm.name, "alpha": arm.alpha, "beta": arm.beta, "mean": arm.mean, "low": low,
                     "high": high, "pulls": arm.pulls, "reward_mean": arm.empirical_mean,
                     "added_at": arm.added_at, "injected": arm.name in injected,
                     "proposal": injected.get(arm.name)})
    frame = _frame(rows, POSTERIORS)
    frame["proposal"] = frame["proposal"].astype("Int64")  # a number, or <NA> for an arm nobody proposed
    return frame


def memory(s: "Session") -> "pd.DataFrame":
    """One row per memory entry, tier by tier, oldest first within a tier."""
    rows = []
    for name, tier in s.memory.tiers.items():
        for e in tier.entries:
            rows.append({"tier": name, "id": e.id, "episode": e.episode, "content": e.content,
                         "quality": e.quality, "retrievals": e.retrieval_count, "usefulness": e.avg_usefulness,
                         "metadata": dict(e.metadata)})
    return _frame(rows, MEMORY)


def audit(s: "Session") -> "pd.DataFrame":
    """One row per decision, automatic ones included, in the order they were made."""
    rows = [{"seq": a.seq, "episode": a.episode, "proposal": a.proposal_id, "kind": a.kind, "decision": a.decision,
             "who": a.who, "reason": a.reason, "source": a.source, "proposed": a.proposed, "accepted": a.accepted,
             "code_sha256": a.code_sha256, "at": a.at} for a in s.queue.audit]
    return _frame(rows, AUDIT)


def proposals(s: "Session", pending_only: bool = False) -> "pd.DataFrame":
    """One row per proposal (or per proposal waiting), by number."""
    rows = [{"id": p.id, "kind": p.kind, "episode": p.episode, "status": p.status, "summary": summary(p),
             "source": p.source, "reflection": p.reflection, "code": p.code, "rationale": p.rationale,
             "payload": p.payload, "evidence": p.evidence}
            for p in s.queue.proposals if not pending_only or p.status == "pending"]
    return _frame(rows, PROPOSALS)


def summary(p) -> str:
    """A proposal in a few words: an insight's text, an arm's name and description."""
    payload = p.payload or {}
    if p.kind == "insight":
        return str(payload.get("insight", ""))
    name = payload.get("name")
    if name:
        described = payload.get("description")
        return f"{name}: {described}" if described else str(name)
    return p.kind
