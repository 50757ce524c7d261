"""The compare view's pictures row: which policy each selector played when (a strip
per selector) beside each selector's mean per regime (bars). A small screen shows it
in place of the posterior bars (i switches); a large one shows both."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal

from ael_tui.charts.arm_strip import ArmStrip
from ael_tui.charts.reads import PictureData
from ael_tui.charts.regime_bars import RegimeBars, regime_groups


class ComparePictures(Horizontal):
    DEFAULT_CSS = """
    ComparePictures { height: auto; }
    ComparePictures > ArmStrip { width: 3fr; padding: 0 1 0 0; }
    ComparePictures > RegimeBars { width: 2fr; padding: 0 0 0 1; border-left: vkey $primary 30%; }
    """

    def compose(self) -> ComposeResult:
        yield ArmStrip(id="compare-strip")
        yield RegimeBars(id="regime-bars")

    def show(self, runs: list[PictureData], colours: dict[str, str]) -> None:
        """`runs` in the compare view's order; `colours`: selector -> its colour."""
        self.query_one(ArmStrip).show(runs)
        groups, metric = regime_groups([(d, colours.get(d.name, "white")) for d in runs])
        self.query_one(RegimeBars).show(groups, metric)
        title = f"Which policy played when · mean {metric} per regime"
        if self.border_title != title:
            self.border_title = title
