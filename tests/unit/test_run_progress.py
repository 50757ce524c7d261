"""`ael-lab run`'s progress bar starts no thread: a process with a thread cannot fork
its workers, and forkserver workers import numpy and the engine again, each."""

import argparse
import sys
import threading

from ael_cli import runner


def test_the_progress_bar_in_a_terminal_runs_no_thread(monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    before = threading.active_count()
    shown = []
    with runner._progress(argparse.Namespace(quiet=False), runner.PROGRESS_MIN_RUNS) as advance:
        shown.append(threading.active_count())
        advance(1, "ts seed 1")
    assert shown == [before]  # rich's auto-refresh thread would make it one more

