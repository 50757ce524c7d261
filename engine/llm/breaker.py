"""A circuit breaker: stop calling an endpoint that keeps failing, then probe it.

Closed: calls go out (a call after a failed one makes a single attempt, no
retries: the endpoint has already shown it is in trouble). After `threshold`
failed calls in a row it opens: calls are not sent. Under the `fallback`
policy the cool-down is counted in calls (the next `cooldown_calls` are
answered offline), so a replayed cassette reproduces exactly which calls went
out; under `raise` it is `cooldown_s` seconds (a refused step is undone, so
timing changes nothing recorded, and a person stepping in the lab is not made
to press a key twenty times). Then one probe call goes out: success closes the
breaker, failure opens it again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class CircuitBreaker:
    threshold: int = 5
    cooldown_calls: int = 20
    cooldown_s: float = 30.0
    count_calls: bool = True       # True: cool-down in calls (fallback); False: in seconds (raise)
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    failures: int = 0              # failed calls in a row
    opened: bool = False
    skipped: int = 0               # calls not sent since it opened
    opened_at: float = 0.0
    trips: int = 0                 # how many times it opened
    last_reason: str = ""

    @property
    def state(self) -> str:
        if not self.opened:
            return "closed"
        return "half-open" if self._cooled() else "open"

    def _cooled(self) -> bool:
        if self.count_calls:
            return self.skipped >= self.cooldown_calls
        return self.clock() - self.opened_at >= self.cooldown_s

    def allow(self) -> bool:
        """Whether this call may go out; a call refused here counts towards the cool-down."""
        if not self.opened or self._cooled():
            return True
        self.skipped += 1
        return False

    def degraded(self) -> bool:
        """After a failed call, the next one is a single attempt (no retries)."""
        return self.failures > 0

    def succeeded(self) -> bool:
        """Record a call that worked; True when this closes an open breaker."""
        was_open = self.opened
        self.failures, self.opened, self.skipped = 0, False, 0
        return was_open

    def failed(self, reason: str) -> bool:
        """Record a failed call; True when this opens the breaker for the first time
        since it was last closed (a failed probe re-opens it quietly)."""
        self.failures += 1
        self.last_reason = reason
        if self.opened:  # a failed probe: another cool-down
            self.skipped, self.opened_at = 0, self.clock()
            return False
        if self.failures >= self.threshold:
            self.opened, self.skipped, self.opened_at = True, 0, self.clock()
            self.trips += 1
            return True
        return False

    def remaining(self) -> str:
        """The rest of the cool-down, for messages."""
        if self.count_calls:
            return f"{max(0, self.cooldown_calls - self.skipped)} more calls"
        return f"{max(0.0, self.cooldown_s - (self.clock() - self.opened_at)):.0f} s"

    def cooldown(self) -> str:
        return f"the next {self.cooldown_calls} calls" if self.count_calls else f"{self.cooldown_s:g} s"
