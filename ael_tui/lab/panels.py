"""The lab's panels, core and extension alike: one entry per panel.

The lab screen composes every registered panel in its row (bandit, variants, progress,
memory), titles its box and gives it its part after every step; nothing in the screen
names a panel. A core panel (the posteriors, the densities, progress, reflection, memory,
the episodes) is always shown and takes its part of the screen's `LabView` (`show`; the
charts and the memory table are drawn on the screen's redraw throttle instead). A
variant or a method that wants a panel registers one here (or from its own module, with
`register_panel`): the widget class (a Textual widget built as `widget(id=name)` with a
`show(data)` method), the function that reads its data from a session (under the host's
lock, so it must only read), and the variants or methods it belongs to; it sits in the
variants' row and is shown for the sessions that run one of them. Its box is `#NAME-box`
(lab.tcss may size it). Another package's panel comes through the entry-point group
`ael_lab.panels` (engine/plugins.py), read here the first time the lab lists its panels:
only the lab imports a panel, so a plugin's panel never brings Textual into `ael-lab run`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from textual.widget import Widget

from ael_lab.registries import PANELS_GROUP, PluginKind, Registry, RegistryError

from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.lab.learning_panels import CreditPanel, SkillsPanel
from ael_tui.lab.posteriors import DensityPlot, PosteriorTable
from ael_tui.lab.progress_chart import ProgressPanel
from ael_tui.lab.reflection_panel import ReflectionPanel
from ael_tui.lab.variant_panels import PlannerPanel, ToolPanel
from ael_tui.lab.learning_readouts import credit_view, skills_view
from ael_tui.memory.memory_panel import MemoryPanel
from ael_tui.lab.variant_readouts import planner_view, tool_rows

if TYPE_CHECKING:
    from ael_tui.lab.lab_view import LabView

PLOT_EVERY = 0.25  # the charts and the memory table redraw at most this often while running
ROWS = ("bandit", "variants", "progress", "memory")  # the lab's rows of panels, top to bottom


@dataclass(frozen=True)
class LabPanel:
    name: str                          # the widget's id; its box is #NAME-box
    title: str                         # the box's border title
    widget: type                       # built as widget(id=name); `show(view(session))` after each step
    view: Callable[[Any], Any] | None = None  # its data from the session (read-only, under the host's lock)
    variants: tuple[str, ...] = ()     # shown for a session running any of these variants
    methods: tuple[str, ...] = ()      # or one of these methods
    scrolls_sideways: bool = False     # a wide table: its box scrolls both ways, else only down
    # a core panel: always shown, in `row`, given its part of each LabView by `show`
    core: bool = False
    row: str = "variants"
    box: str = "scroll"                # its box: "scroll" (down), "column" (none), "" (the widget is the box)
    make: Callable[[], Widget] | None = None  # builds the widget, if not widget(id=name)
    show: Callable[[Any, "LabView"], None] | None = None

    def shown(self, session: Any) -> bool:
        return self.core or (any(session.variants.get(v) is not None for v in self.variants)
                             or session.method.name in self.methods)

    @property
    def titled(self) -> str:
        """The selector of what carries its border title: its box, or the widget that is its own box."""
        return f"#{self.name}-box" if self.box else f"#{self.name}"

    def build(self) -> Widget:
        return self.make() if self.make is not None else self.widget(id=self.name)


def _names_what_it_shows(name: str, panel: LabPanel) -> None:
    if panel.name != name:
        raise RegistryError(f"lab panel {panel.name!r} registered as {name!r}: its name is its widget's id")
    if panel.row not in ROWS:
        raise RegistryError(f"lab panel {panel.name!r}: its row is one of {', '.join(ROWS)}")
    if not panel.core and not panel.variants and not panel.methods:
        raise RegistryError(f"lab panel {name!r}: name the variants or methods it shows")


PANELS: Registry[LabPanel] = Registry("lab panel", check=_names_what_it_shows)
register_panel = PANELS.add
unregister_panel = PANELS.unregister
PLUGINS = PluginKind(PANELS_GROUP, PANELS, "an ael_tui.lab.panels.LabPanel",
                       lambda loaded: isinstance(loaded, LabPanel) and not loaded.core)


def panels_for(session: Any) -> list[LabPanel]:
    """The panels of the extensions this session runs, in registration order."""
    return [p for p in extension_panels() if p.shown(session)]


def extension_panels() -> list[LabPanel]:
    """The panels variants and methods registered (the core ones are every session's)."""
    PLUGINS.read()
    return [p for p in PANELS.values() if not p.core]


def in_row(row: str) -> list[LabPanel]:
    PLUGINS.read()  # other packages' panels, read once, when the lab first lays out its rows
    return [p for p in PANELS.values() if p.row == row]


# the core panels, in their rows; the densities and the progress chart are drawn on the
# screen's throttle (they have no `show`), the memory table's rows too (here: its counts)
register_panel(LabPanel("posteriors", "Posteriors", PosteriorTable, core=True, row="bandit", box="column",
                        show=lambda w, v: w.show(v.arms)))
register_panel(LabPanel("density", "Beta densities", DensityPlot, core=True, row="bandit", box="",
                        make=lambda: DensityPlot(PLOT_EVERY, id="density", classes="panel")))
register_panel(LabPanel("progress-box", "Progress", ProgressPanel, core=True, row="progress", box="",
                        make=lambda: ProgressPanel(PLOT_EVERY, id="progress-box", classes="panel")))
register_panel(LabPanel("reflection", "Reflection", ReflectionPanel, core=True, row="progress",
                        show=lambda w, v: w.show(v.reflections, v.insight, v.notes, v.outlook)))
register_panel(LabPanel("memory", "Memory", MemoryPanel, core=True, row="memory", box="",
                        make=lambda: MemoryPanel(id="memory", classes="panel"),
                        show=lambda w, v: w.set_counts(v.memory_counts, v.memory_cap)))
register_panel(LabPanel("log", "Episodes", EpisodeLog, core=True, row="memory", box="",
                        make=lambda: EpisodeLog(id="log", classes="panel"),
                        show=lambda w, v: w.show(v.history)))


# the planner and tool tables keep their columns whole and scroll sideways when narrower
register_panel(LabPanel("planners", "Planners (LinUCB)", PlannerPanel, planner_view, variants=("planners",),
                        scrolls_sideways=True))
register_panel(LabPanel("tools", "Tools", ToolPanel, tool_rows, variants=("per-tool", "cold-start"),
                        scrolls_sideways=True))
register_panel(LabPanel("skills", "Skills", SkillsPanel, skills_view, variants=("skills",)))
register_panel(LabPanel("credit", "Credit per module", CreditPanel, credit_view, variants=("credit",)))
