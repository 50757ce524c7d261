"""At most one call every so often, and never a change left unshown: `Throttle`."""

from __future__ import annotations

from typing import Callable

from ael_tui.clock import SYSTEM_CLOCK, Clock, Stoppable


class Throttle:
    """Calls `draw` at once if it last ran at least `every` seconds ago, else once when
    the interval ends (however many calls came meanwhile): the last state is always
    drawn, a fast run never draws more often than that. `set_timer` is a widget's; the
    interval is told by `clock` (the lab's, which a test advances)."""

    def __init__(self, set_timer: Callable[..., Stoppable], every: float, draw: Callable[[], None],
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self._set_timer, self.every, self._draw, self.clock = set_timer, every, draw, clock
        self.last = float("-inf")
        self._due: Stoppable | None = None

    @property
    def waiting(self) -> bool:
        """A call waits for the interval to end."""
        return self._due is not None

    def __call__(self) -> None:
        wait = self.every - (self.clock() - self.last)
        if wait <= 0:
            self.now()
        elif self._due is None:
            self._due = self.clock.later(self._set_timer, wait, self.now)

    def now(self) -> None:
        """Draw at once, whatever the interval (a forced redraw, a resize)."""
        if self._due is not None:
            self._due.stop()
            self._due = None
        self.last = self.clock()
        self._draw()
