"""Ending a child process together with everything it started.

A child that may start helpers of its own (a browser, a server with its labs) is
started with `start_new_session=True`, so it leads a process group; `end_group`
asks the whole group to stop, waits `grace` seconds, then kills what is left.
"""

from __future__ import annotations

import os
import signal
import subprocess


def end_group(process: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM to the group `process` leads, then SIGKILL after `grace` seconds; reaps it."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:  # the whole group has ended already
        process.wait()
        return
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
