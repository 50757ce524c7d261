"""Keeping the class's processes honest: the fork server restarted when it dies, and
the labs and the fork server ending with the server.

- `process_ended`: awaits a child's exit without a thread (a pidfd the event loop
  watches; a thread where Linux has none).
- `RestartBudget`: how often the fork server may be started again (a fork server
  that dies at once, every time, must not be restarted forever); the clock is
  injectable.
- `die_with_parent`: prctl(PR_SET_PDEATHSIG) through ctypes, so a child hears of
  its parent's death, kill -9 included (Linux; elsewhere it does nothing).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import time
from collections import deque
from typing import Callable

RESTARTS, RESTART_WINDOW = 3, 600.0  # at most 3 new fork servers in 10 minutes
_PR_SET_PDEATHSIG = 1


async def process_ended(process: subprocess.Popen) -> int:
    """The exit status of `process` once it has ended (and is reaped)."""
    loop = asyncio.get_running_loop()
    try:
        fd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # no pidfd here (not Linux, an old kernel)
        return await loop.run_in_executor(None, process.wait)
    ended = loop.create_future()
    loop.add_reader(fd, lambda: ended.done() or ended.set_result(None))
    try:
        await ended
    finally:
        loop.remove_reader(fd)
        os.close(fd)
    return process.wait()


def how_it_ended(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class RestartBudget:
    """At most `limit` restarts within `window` seconds."""

    def __init__(self, limit: int = RESTARTS, window: float = RESTART_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.times: deque[float] = deque()

    def take(self) -> bool:
        """True (and the restart counted) if one more is allowed now."""
        now = self.clock()
        while self.times and now - self.times[0] > self.window:
            self.times.popleft()
        if len(self.times) >= self.limit:
            return False
        self.times.append(now)
        return True


def die_with_parent(sig: int = signal.SIGTERM) -> bool:
    """Ask the kernel to send `sig` to this process when its parent dies (True if it will).
    The parent is the thread that started us: the server starts its children from its
    event loop's thread, which lives as long as the server does."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
