"""What the planner and tool panels show: each variant's own `panel_view` (engine/variants/
panel_views.py), read under the host's lock; the lab reads nothing else of a variant."""

from __future__ import annotations

from ael_lab.runs import Session
from ael_lab.variant_views import PlannerRow, PlannerView, ToolRow, tool_rows as tool_table_rows, variant_view

__all__ = ["PlannerRow", "PlannerView", "ToolRow", "planner_view", "tool_rows"]

planner_view = variant_view("planners")
_per_tool, _cold_start = variant_view("per-tool"), variant_view("cold-start")


def tool_rows(session: Session) -> list[ToolRow]:
    """Per-tool's posteriors and cold start's priors, one row per tool (the panel shows both)."""
    return tool_table_rows(_per_tool(session), _cold_start(session))
