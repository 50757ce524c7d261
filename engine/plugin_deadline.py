"""A plugin's code run in our process, under a deadline and without `os._exit`.

The child probe (engine/plugin_probe.py) sees a plugin first, but a plugin can behave
otherwise here than there (it may look at its environment, its arguments, the time): one
that hangs or calls `os._exit` only in our process froze `ael-lab --help` or ended every
command with exit 0 and no output. So while a plugin's module runs here:

- a timer (SIGALRM, in the main thread only: no other thread can take a signal) raises
  `PluginOverran` once `limit` seconds have passed, which the caller's guard turns into
  one line naming the plugin; a sleep, a read or a Python loop is interrupted by it;
- `os._exit` raises `PluginExited` instead of ending the process (in this process only:
  a child the plugin forked still exits as it asked).

What neither stops: a loop in C that never returns to Python, or a plugin that looks for
these guards. Installed code is trusted that far; `--no-plugins` reads none.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Iterator


class PluginOverran(BaseException):
    """A plugin's code ran past its deadline in our process."""


class PluginExited(BaseException):
    """A plugin's code called os._exit in our process."""


@contextlib.contextmanager
def deadline(limit: float) -> Iterator[None]:
    """Run the body with os._exit refused and, in the main thread, a `limit`-second timer."""
    ours, real_exit = os.getpid(), os._exit

    def refused_exit(status: int) -> None:
        if os.getpid() != ours:  # a child the plugin forked: it leaves as it asked
            real_exit(status)
        raise PluginExited(f"it called os._exit({status})")

    timed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if timed and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        timed = False  # someone else's timer runs (a test's watchdog): leave it alone

    def overran(*_: object) -> None:
        raise PluginOverran(f"it ran for more than {limit:g} s in this process (AEL_PLUGIN_TIMEOUT)")

    previous = signal.signal(signal.SIGALRM, overran) if timed else None
    os._exit = refused_exit
    try:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, limit)
        yield
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        os._exit = real_exit
