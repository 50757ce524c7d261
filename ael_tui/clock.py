"""The time the interface decides by: `Clock`.

Three things in the lab depend on time passing: a throttled redraw (`Throttle`), the
run keys a longer run gets after `RUN_KEYS_AFTER`, and the delay between the episodes
of a run. Each asks the clock in `LabSettings.clock` instead of the system, so a test
hands the lab a clock it advances itself (tests/tui_helpers.py `FakeClock`) and never
sleeps to outwait one of them.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Protocol


class Stoppable(Protocol):
    def stop(self) -> object: ...


class Clock:
    """The system's time: monotonic seconds, a widget's timer, a wait a pause cuts short."""

    def __call__(self) -> float:
        return time.monotonic()

    def later(self, set_timer: Callable[..., Stoppable], delay: float, callback: Callable[[], object]) -> Stoppable:
        """Call `callback` in `delay` s; `set_timer` is the widget's whose thread runs it."""
        return set_timer(delay, callback)

    def wait(self, event: threading.Event, seconds: float) -> bool:
        """Block (a worker thread) for `seconds` or until `event` is set; True if it was."""
        return event.wait(seconds)


SYSTEM_CLOCK = Clock()


def clock_of(widget) -> Clock:
    """The running lab's clock, for a widget built in its compose (which is handed no
    settings); the system's outside a lab (another app, or no app at all)."""
    from textual.types import NoActiveAppError

    try:
        settings = getattr(widget.app, "settings", None)
    except NoActiveAppError:
        return SYSTEM_CLOCK
    return getattr(settings, "clock", SYSTEM_CLOCK)
