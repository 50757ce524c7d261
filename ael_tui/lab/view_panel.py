"""The lab's extension panels' one shape: a panel drawn from its data by one function."""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from rich.table import Table
from rich.text import Text
from textual.widgets import Static


class ViewPanel(Static):
    """`show(data)` draws the data with the class's `draw` and keeps what it drew in `shown`
    (what the tests read); a subclass sets only `draw = staticmethod(its_table)`."""

    shown: Table | Text = Text()
    draw: ClassVar[Callable[[Any], Table | Text]]

    def show(self, data: Any) -> None:
        self.shown = self.draw(data)
        self.update(self.shown)
