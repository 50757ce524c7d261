"""The lab's panels for extensions, by the variant or method they show: one entry per panel.

A variant or a method that wants a panel in the lab registers one here (or from its
own module, with `register_panel`): the widget class (a Textual widget built as
`widget(id=name)` with a `show(data)` method), the function that reads its data from
a session (under the host's lock, so it must only read), and the variants or methods
it belongs to. The lab screen composes every registered panel in its variants' row,
shows those of the session's extensions and gives each its data after every step;
nothing in the screen names a panel. Its box is `#NAME-box` (lab.tcss may size it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from engine.registry import Registry, RegistryError

from ael_tui.lab.learning_panels import CreditPanel, SkillsPanel
from ael_tui.lab.variant_panels import PlannerPanel, ToolPanel
from ael_tui.learning_readouts import credit_view, skills_view
from ael_tui.variant_readouts import planner_view, tool_rows


@dataclass(frozen=True)
class LabPanel:
    name: str                          # the widget's id; its box is #NAME-box
    title: str                         # the box's border title
    widget: type                       # built as widget(id=name); `show(view(session))` after each step
    view: Callable[[Any], Any]         # its data from the session (read-only, under the host's lock)
    variants: tuple[str, ...] = ()     # shown for a session running any of these variants
    methods: tuple[str, ...] = ()      # or one of these methods
    scrolls_sideways: bool = False     # a wide table: its box scrolls both ways, else only down

    def shown(self, session: Any) -> bool:
        return (any(session.variants.get(v) is not None for v in self.variants)
                or session.method.name in self.methods)


def _names_what_it_shows(name: str, panel: LabPanel) -> None:
    if panel.name != name:
        raise RegistryError(f"lab panel {panel.name!r} registered as {name!r}: its name is its widget's id")
    if not panel.variants and not panel.methods:
        raise RegistryError(f"lab panel {name!r}: name the variants or methods it shows")


PANELS: Registry[LabPanel] = Registry("lab panel", check=_names_what_it_shows)
register_panel = PANELS.add
unregister_panel = PANELS.unregister


def panels_for(session: Any) -> list[LabPanel]:
    """The panels of the extensions this session runs, in registration order."""
    return [p for p in PANELS.values() if p.shown(session)]


# the planner and tool tables keep their columns whole and scroll sideways when narrower
register_panel(LabPanel("planners", "Planners (LinUCB)", PlannerPanel, planner_view, variants=("planners",),
                        scrolls_sideways=True))
register_panel(LabPanel("tools", "Tools", ToolPanel, tool_rows, variants=("per-tool", "cold-start"),
                        scrolls_sideways=True))
register_panel(LabPanel("skills", "Skills", SkillsPanel, skills_view, variants=("skills",)))
register_panel(LabPanel("credit", "Credit per module", CreditPanel, credit_view, variants=("credit",)))
