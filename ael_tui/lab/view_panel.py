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
    _data: Any = None  # the data `shown` was drawn from

    def show(self, data: Any) -> None:
        """Draw `data`, unless it equals what is shown: every view gives each panel its data (a
        resize, a key, a run's end as well as a step), and an update re-lays the whole screen out
        (Static.update asks for a layout). The same object again is drawn again: it may have
        changed in place."""
        if self._data is not None and data is not self._data and _equal(data, self._data):
            return
        self._data = data
        self.shown = self.draw(data)
        self.update(self.shown)


def _equal(a: Any, b: Any) -> bool:
    """Equal data; False where equality says nothing plain (another package's panel may hold
    numpy arrays, whose `==` is an array)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
