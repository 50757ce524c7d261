"""What the skills and credit panels show: each variant's own `panel_view` (engine/variants/
panel_views.py), read under the host's lock; the lab reads nothing else of a variant."""

from __future__ import annotations

from ael_lab.variant_views import CreditView, SkillRow, SkillsView, variant_view

__all__ = ["CreditView", "SkillRow", "SkillsView", "credit_view", "skills_view"]

skills_view = variant_view("skills")
credit_view = variant_view("credit")
