"""At most one call every so often, and never a change left unshown: `Throttle`."""

from __future__ import annotations

import time
from typing import Callable

from textual.timer import Timer


class Throttle:
    """Calls `draw` at once if it last ran at least `every` seconds ago, else once when
    the interval ends (however many calls came meanwhile): the last state is always
    drawn, a fast run never draws more often than that. `set_timer` is a widget's."""

    def __init__(self, set_timer: Callable[..., Timer], every: float, draw: Callable[[], None]) -> None:
        self._set_timer, self.every, self._draw = set_timer, every, draw
        self.last = float("-inf")
        self._due: Timer | None = None

    @property
    def waiting(self) -> bool:
        """A call waits for the interval to end."""
        return self._due is not None

    def __call__(self) -> None:
        wait = self.every - (time.monotonic() - self.last)
        if wait <= 0:
            self.now()
        elif self._due is None:
            self._due = self._set_timer(wait, self.now)

    def now(self) -> None:
        """Draw at once, whatever the interval (a forced redraw, a resize)."""
        if self._due is not None:
            self._due.stop()
            self._due = None
        self.last = time.monotonic()
        self._draw()
