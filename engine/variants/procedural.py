"""task-procedural: procedural rules conditioned on the task and the regime, injected only on a match.

The paper's task-conditioned procedural memory (digest §7, §10): each rule
carries its task type, its regime label (or * for any) and its sector (or *
for all), taken from the evidence it was distilled from, and reaches the
agent only when all three match the bar: the same task, the regime label the
agent sees now, and a sector the agent held last bar. "Held" is read as
positioned in: the sector's weight was above its equal share of what was
invested (a long-only book holds a little of everything, so "weight above 0"
would match every sector every bar).

Without this variant the portfolio already filters its rules by regime label
only. `task-procedural=global` is the paper's other arm: every rule to every
bar, whatever its task, label and sector; the paired comparison of the two is
the ablation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..options import Choice, OptionSpec
from . import Variant, register_variant

if TYPE_CHECKING:
    from ..memory import MemoryEntry
    from ..session import Session

MATCHES = ("task", "global")


class HoldingWorld(Protocol):
    """What the variant reads of a world (the portfolio implements it)."""

    def holdings(self) -> np.ndarray: ...

    def ticker_sectors(self) -> tuple[str, ...]: ...


def held_sectors(weights: np.ndarray, sectors: tuple[str, ...]) -> set[str]:
    """Sectors whose weight is above their equal share of the invested total."""
    invested = float(weights.sum())
    if invested <= 0:
        return set()
    names = sorted(set(sectors))
    out = set()
    for s in names:
        mask = np.array([x == s for x in sectors])
        if weights[mask].sum() > invested * mask.sum() / len(sectors) + 1e-12:
            out.add(s)
    return out


def matches(rule: "MemoryEntry", task: str | None, label: str | None, held: set[str]) -> bool:
    m = rule.metadata
    return (m.get("task_type") in (None, "*", task) and m.get("regime") in (None, "*", label)
            and (m.get("sector") in (None, "*") or m.get("sector") in held))


@register_variant
class TaskProcedural(Variant):
    name = "task-procedural"
    summary = "procedural rules injected only when their task, regime label and sector match the bar"
    options = (OptionSpec("match", str, "task", "task: only matching rules; global: every rule everywhere "
                          "(the comparison arm)", choices=tuple(Choice(m, m) for m in MATCHES)),)
    scenarios = ("portfolio",)
    help = ("A procedural rule carries its task, regime label and sector and reaches the agent "
            "only when all three match: the same task, the label it sees now, a sector it was positioned in last "
            "bar. task-procedural=global gives every rule to every bar instead: run both for the paired "
            "comparison. The default portfolio matches the label only.")

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.last: dict[str, int] = {}

    def agent_context(self, session: "Session", query, ctx) -> None:
        if session.phase_of(query.episode) == "warmup":
            return  # the agent reads no memory in warm-up
        rules = [e for e in ctx.memory.tiers["procedural"].entries if "tool" in e.metadata]
        if self.settings["match"] == "global":
            chosen = rules
        else:
            held = held_sectors(session.scenario.holdings(), session.scenario.ticker_sectors())
            chosen = [r for r in rules if matches(r, query.metadata.get("task_type"),
                                                  query.metadata.get("regime"), held)]
        self.last = {"episode": query.episode, "rules": len(rules), "injected": len(chosen),
                     "default": len(ctx.rules)}
        ctx.rules = chosen
