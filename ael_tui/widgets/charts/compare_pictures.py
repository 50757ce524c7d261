"""The compare view's pictures row: which policy each selector played when (a strip
per selector) beside each selector's mean per regime (bars). A small screen shows it
in place of the posterior bars (i switches); a large one shows both."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal

from ael_tui.widgets.charts.arm_strip import ArmStrip
from ael_lab.drawing import PictureSource
from ael_tui.widgets.charts.regime_bars import RegimeBars, regime_groups
from ael_tui.widgets.throttle import Throttle


class ComparePictures(Horizontal):
    DEFAULT_CSS = """
    ComparePictures { height: auto; }
    ComparePictures > ArmStrip { width: 3fr; padding: 0 1 0 0; }
    ComparePictures > RegimeBars { width: 2fr; padding: 0 0 0 1; border-left: vkey $primary 30%; }
    """

    def __init__(self, every: float = 0.25, **kw) -> None:
        super().__init__(**kw)
        self._shown: tuple[list[PictureSource], dict[str, str]] | None = None
        self.throttle = Throttle(self.set_timer, every, self._paint)

    def compose(self) -> ComposeResult:
        yield ArmStrip(id="compare-strip")
        yield RegimeBars(id="regime-bars")

    def show(self, runs: list[PictureSource], colours: dict[str, str], now: bool = False) -> None:
        """`runs` in the compare view's order; `colours`: selector -> its colour. The means
        are computed when painted, at most every `every` seconds."""
        self._shown = (runs, colours)
        self.query_one(ArmStrip).show(runs, now=now)
        self.throttle.now() if now else self.throttle()

    def _paint(self) -> None:
        if self._shown is None:
            return
        runs, colours = self._shown
        groups, metric = regime_groups([(d.data(), colours.get(d.name, "white")) for d in runs])
        self.query_one(RegimeBars).show(groups, metric)
        title = f"Which policy played when · mean {metric} per regime"
        if self.border_title != title:
            self.border_title = title
