"""What the variants' lab panels show, computed from a session without a terminal: each
variant's `panel_view`, and the rows of the credit, skills, planners and tools panels
(docs/api.md, "For the front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {name: f"engine.variants.panel_views:{name}" for name in (
    "variant_view", "CreditView", "SkillsView", "SkillRow", "PlannerView", "PlannerRow", "ToolRow", "tool_rows")}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
