"""A SelectionList whose boxes say ticked or not by their shape, not only their colour:
`▐✓▌` ticked, `▐ ▌` not (Textual draws `▐X▌` for both, which a projector shows alike)."""

from __future__ import annotations

from typing import Generic

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import SelectionType

from ael_tui.compat import ToggleButton, selected_values

TICKED, UNTICKED = "✓", " "


class TickList(Generic[SelectionType], SelectionList[SelectionType]):
    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if len(segments) < 3 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip
        try:
            selection = self.get_option_at_index(round(self.scroll_offset.y) + y)
        except OptionDoesNotExist:
            return strip
        segments[1] = Segment(TICKED if selection.value in selected_values(self) else UNTICKED, segments[1].style)
        return Strip(segments, strip.cell_length)
