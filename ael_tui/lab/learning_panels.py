"""The skills and credit panels of the lab (shown only for a session running those variants)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ael_lab.text import shown

from ael_tui.lab.view_panel import ViewPanel
from ael_tui.lab.learning_readouts import CreditView, SkillsView

PARTS = ("structural", "counterfactual", "shapley", "model", "combined")
SHORT = {"structural": "struct", "counterfactual": "counter", "shapley": "Shapley", "model": "model",
         "combined": "g"}


def _table() -> Table:
    return Table(box=None, padding=(0, 1), show_edge=False, header_style="bold dim", expand=False)


def skills_table(view: SkillsView | None) -> Table | Text:
    if view is None or not (view.rows or view.pruned):
        return Text("No skill yet: one is distilled after a slow window with successful bars.", style="dim")
    table = _table()
    for col, justify in (("skill", "left"), ("uses", "right"), ("success", "right"), ("from", "right")):
        table.add_column(col, justify=justify, no_wrap=col != "skill")
    for r in view.rows:
        style = "bold reverse" if r.used_now else ("" if r.open else "dim")
        mark = "" if r.open else " (gated)"
        table.add_row(Text(shown(f"{r.kind}: {r.text}{mark}"), style=style), str(r.uses),  # a skill's words: shown
                      "–" if r.success is None else f"{r.success:.2f}", str(r.created_at))
    if view.pruned:
        table.caption = Text(shown("pruned: " + "; ".join(view.pruned[-3:])), style="dim italic")
        table.caption_justify = "left"
    return table


def credit_table(view: CreditView | None) -> Table | Text:
    if view is None or view.episode < 0:
        return Text("No bar credited yet (the test phase credits nothing: the bandit is frozen).", style="dim")
    parts = [p for p in PARTS if any(p in view.parts[m] for m in view.parts)]
    table = _table()
    table.add_column("module", no_wrap=True)
    for p in parts:
        table.add_column(SHORT[p], justify="right", no_wrap=True)
    table.add_column("mean g", justify="right", no_wrap=True)
    for module, cells in view.parts.items():
        table.add_row(Text(module, style="bold" if module == "memory" else ""),
                      *(f"{cells[p]:+.2f}" if p in cells else "–" for p in parts), f"{view.means[module]:+.3f}")
    caption = Text(f"credit={view.mode}, bar {view.episode} ({view.source}); the bandit's reward is (1 + g memory)/2",
                   style="dim")
    if view.values:
        caption.append("\nv(S): " + ", ".join(f"{k} {v:+.2f}" for k, v in view.values.items()), style="dim")
    if view.fallbacks:
        caption.append(f"\n{view.fallbacks} model calls fell back to the structural credit", style="italic")
    table.caption = caption
    table.caption_justify = "left"
    return table


class SkillsPanel(ViewPanel):
    draw = staticmethod(skills_table)


class CreditPanel(ViewPanel):
    draw = staticmethod(credit_table)
