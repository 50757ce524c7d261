"""The variants' panels in the lab: the planners' LinUCB and the per-tool posteriors.

Shown only for a session that runs the variant (the row is hidden otherwise)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ael_lab.text import shown

from ael_tui.lab.view_panel import ViewPanel
from ael_tui.lab.variant_readouts import PlannerView, ToolRow


def _short(tool: str) -> str:
    for prefix in ("get_", "compute_", "score_", "run_"):
        tool = tool.removeprefix(prefix)
    return tool


def planner_table(view: PlannerView | None) -> Table | Text:
    """One row per planner: pulls, its estimate θ·x and uncertainty at the last context, the
    score LinUCB gave it, and θ per context feature; the last row is the context x itself."""
    if view is None:
        return Text("No planner chosen yet: the first step sets the planners up.", style="dim")
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold dim", expand=False)
    for col in ("planner", "pulls", "θ·x", "±", "ucb"):
        table.add_column(col, justify="left" if col == "planner" else "right", no_wrap=True)
    for feature in view.short:
        table.add_column(f"θ {feature}" if feature == view.short[0] else feature, justify="right", no_wrap=True)
    for r in view.rows:
        style = "bold reverse" if r.chosen else ("bold" if r.added_at else "")
        table.add_row(Text(shown(r.name) + (" +" if r.added_at else ""), style=style), str(r.pulls), f"{r.estimate:+.3f}",
                      f"{r.width:.3f}", "–" if r.score is None else f"{r.score:+.3f}",
                      *(f"{t:+.2f}" for t in r.theta))
    table.add_row(Text("x now", style="italic"), "", "", "", "", *(Text(f"{c:+.2f}", style="italic")
                                                                   for c in view.context))
    caption = Text(f"x: {', '.join(view.features)} · exploration α now {view.alpha:.2f}", style="dim")
    for r in (r for r in view.rows if r.added_at):
        caption.append(f"\n+ {r.name} at {r.added_at}: {r.reason}", style="italic")
    table.caption = caption
    table.caption_justify = "left"
    return table


def tool_table(rows: list[ToolRow]) -> Table | Text:
    if not rows:
        return Text("No tool posteriors yet: the first step sets them up.", style="dim")
    per_tool = any(r.alpha is not None for r in rows)
    cold = any(r.prior is not None for r in rows)
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold dim", expand=False)
    table.add_column("tool", no_wrap=True)
    if per_tool:
        for col in ("α", "β", "mean", "pulls", "last"):
            table.add_column(col, justify="right", no_wrap=True)
    if cold:
        table.add_column("rating", justify="right")
        table.add_column("prior", justify="right")
    for r in rows:
        cells: list = [Text(_short(shown(r.name)) + (" ●" if r.shown and per_tool else ""),
                            style="bold" if r.shown else "dim")]
        if per_tool:
            mean = r.alpha / (r.alpha + r.beta)
            cells += [f"{r.alpha:.1f}", f"{r.beta:.1f}", f"{mean:.3f}", str(r.pulls),
                      "–" if r.sample is None else f"{r.sample:.2f}"]
        if cold:
            cells += ["–" if r.rating is None else str(r.rating),
                      "–" if r.prior is None else f"+{r.prior[0]}/−{r.prior[1]}"]
        table.add_row(*cells)
    return table


class PlannerPanel(ViewPanel):
    draw = staticmethod(planner_table)


class ToolPanel(ViewPanel):
    draw = staticmethod(tool_table)
