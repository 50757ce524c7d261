"""Session state -> what the skills and credit panels show (read under the host's lock)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.credit import MODULES
from engine.session import Session


@dataclass
class SkillRow:
    kind: str             # playbook | tool
    text: str
    uses: int
    success: float | None  # share of uses whose episode scored above 0 (None: never used)
    open: bool            # passes the gate (would be used on a match)
    used_now: bool        # shaped the last episode
    created_at: int


@dataclass
class SkillsView:
    rows: list[SkillRow]
    pruned: list[str]     # "key at episode (successes/uses)", newest last


def skills_view(session: Session) -> SkillsView | None:
    v = session.variants.get("skills")
    if v is None:
        return None
    rows = [SkillRow(s["kind"], s["text"], s["uses"], s["successes"] / s["uses"] if s["uses"] else None,
                     v._open(s), s["key"] in v.applied, s["created_at"]) for s in v.skills]
    pruned = [f"{p['key']} at {p['episode']} ({p['successes']}/{p['uses']})" for p in v.pruned]
    return SkillsView(rows, pruned)


@dataclass
class CreditView:
    mode: str
    episode: int                                   # the bar last credited (-1: none yet)
    source: str
    parts: dict[str, dict[str, float]]             # module -> part -> value, of that bar
    means: dict[str, float]                        # module -> mean combined credit so far
    values: dict[str, float] = field(default_factory=dict)   # coalition -> outcome score
    n: int = 0
    fallbacks: int = 0


def credit_view(session: Session) -> CreditView | None:
    v = session.variants.get("credit")
    if v is None:
        return None
    return CreditView(v.mode, v.last_episode, v.source, {m: dict(v.last.get(m, {})) for m in MODULES},
                      v.means(), dict(v.last_values), v.n, v.fallbacks)
