"""What makes a picture a chart a person can take away: it can be focused (Tab, or a
click), and on it `S` writes it alone as SVG into the exports folder, `k` switches
what it shows where it shows several things (rolling, cumulative reward, regret).

A widget mixing this in says what it draws as SVG (`chart_svg`) and how to name it
(`chart_name`); the keys are the `chart` scope's named actions (ael_tui/actions.py)."""

from __future__ import annotations

from textual.widget import Widget

from ael_tui.actions import bindings_for
from ael_tui.widgets.charts.chart_files import write_chart
from ael_lab import AELError


class ExportableChart(Widget):
    """A widget base: `class MyChart(ExportableChart, LineChart)` (a Widget itself, so that
    Textual merges its BINDINGS)."""

    can_focus = True
    BINDINGS = bindings_for("chart")
    KINDS: tuple[str, ...] = ()     # what `k` cycles through (none: k does nothing here)
    kind = ""

    def chart_name(self) -> str:
        raise NotImplementedError

    def chart_svg(self) -> str | None:
        """The picture as SVG text, or None when there is nothing to draw yet."""
        raise NotImplementedError

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "chart_kind":
            return len(self.KINDS) > 1
        return True

    def action_chart_kind(self) -> None:
        if self.KINDS:
            self.kind = self.KINDS[(self.KINDS.index(self.kind) + 1) % len(self.KINDS)] \
                if self.kind in self.KINDS else self.KINDS[0]
            self.kind_changed()

    def kind_changed(self) -> None:
        """Redraw after `k` (a chart that has kinds says how)."""

    def action_export_chart(self) -> None:
        app = self.app
        svg = self.chart_svg()
        if svg is None:
            app.notify("Nothing to draw yet: run an episode first.", severity="warning", title="Chart")
            return
        named = getattr(self.screen, "screenshot_name", None)
        stem = f"{named() if named else 'ael-lab'}-{self.chart_name()}"
        try:
            path = write_chart(app.settings, stem, svg)
        except AELError as err:
            app.notify(str(err), severity="error", title="Chart")
            return
        app.notify(f"Saved the {self.chart_name()} chart as {path}", title="Chart saved")
