"""Session state -> what the variant panels show (read under the host's lock)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.session import Session


@dataclass
class PlannerRow:
    name: str
    rule: str             # the planner rule it plays (an evolved arm names its library rule)
    pulls: int
    theta: list[float]    # learned reward (centred) per context feature
    estimate: float       # theta . x at the last context
    width: float          # sqrt(x' A^-1 x): the uncertainty there
    score: float | None   # what LinUCB scored it at (None in warm-up)
    chosen: bool
    added_at: int
    reason: str


@dataclass
class PlannerView:
    features: tuple[str, ...]
    short: tuple[str, ...]    # the features' column headers
    context: list[float]
    alpha: float          # the exploration weight now (after its decay)
    rows: list[PlannerRow]


def planner_view(session: Session) -> PlannerView | None:
    v = session.variants.get("planners")
    if v is None or not v.arms:
        return None
    # the scenario names its features (through the variants' contract): the lab knows no world
    features = session.scenario.planner_features()
    x = v.last_context if v.last_context is not None else np.zeros(len(features))
    rows = []
    for name, arm in v.arms.items():
        theta = arm.theta()
        rows.append(PlannerRow(name, arm.rule, arm.pulls, [float(t) for t in theta], float(theta @ x),
                               arm.width(x), v.last_scores.get(name), name == v.last, arm.added_at, arm.reason))
    alpha = v.settings["alpha"] / np.sqrt(1.0 + v.n / 10.0)
    return PlannerView(tuple(name for name, _ in features), tuple(short for _, short in features),
                       [float(c) for c in x], float(alpha), rows)


@dataclass
class ToolRow:
    name: str
    alpha: float | None   # per-tool's Beta (None without per-tool)
    beta: float | None
    pulls: int
    sample: float | None  # the last draw
    shown: bool           # fed the agent in the last episode
    prior: tuple[int, int] | None   # cold-start's (right, wrong) pseudo-calls
    rating: int | None


def tool_rows(session: Session) -> list[ToolRow]:
    per_tool, cold = session.variants.get("per-tool"), session.variants.get("cold-start")
    if per_tool is None and cold is None:
        return []
    names = list(per_tool.arms) if per_tool is not None and per_tool.arms else \
        list(cold.tool_ratings) if cold is not None else []
    shown = set(per_tool.last) if per_tool is not None else set(names)
    prior = cold.tool_prior if cold is not None else {}
    rows = []
    for n in names:
        ab = per_tool.arms.get(n) if per_tool is not None else None
        rows.append(ToolRow(n, ab[0] if ab else None, ab[1] if ab else None,
                            per_tool.pulls.get(n, 0) if per_tool is not None else 0,
                            per_tool.last_samples.get(n) if per_tool is not None else None, n in shown,
                            prior.get(n), cold.tool_ratings.get(n) if cold is not None else None))
    return rows
