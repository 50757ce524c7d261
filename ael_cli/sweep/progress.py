"""The sweep's progress on stderr: runs done, running, failed, ETA and LLM cost so far.

A rich live display in a terminal; elsewhere (a pipe, a log, a CI job) a plain line
at every tenth of the runs and at least every LINE_EVERY_S seconds, so a long sweep
or `reproduce` shows it is alive without filling a log with redraws; --quiet: nothing."""

from __future__ import annotations

import math
import sys
import time
from contextlib import contextmanager
from typing import IO, Any, Callable, Iterator

LINE_EVERY_S = 30.0  # off a terminal: a progress line at least this often while runs finish
LINE_GAP_S = 2.0     # and at a tenth of the runs only this long after the last (fast runs: few lines)


class Tally:
    """What the display shows; `finished(out)` after each run."""

    def __init__(self, total: int, slots: int):
        self.total, self.slots = total, slots
        self.done = self.failed = 0
        self.cost_usd = 0.0

    def finished(self, out: dict[str, Any]) -> None:
        self.done += 1
        self.failed += "error" in out
        self.cost_usd += ((out.get("result") or {}).get("llm") or {}).get("cost_usd") or 0.0

    @property
    def running(self) -> int:
        return min(self.slots, self.total - self.done)


def clock_text(seconds: float) -> str:
    """0:42, 12:05, 1:02:03."""
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class LinePacer:
    """When a plain progress line is due (off a terminal): when the work done crosses a
    tenth of the total (if LINE_GAP_S has passed since the last line), when LINE_EVERY_S
    has, and at the end. The sweep's runs and `ael-lab run`'s rows are paced alike."""

    def __init__(self, now: float) -> None:
        self.last = now
        self.tenths = 0  # the tenths of the total a line has reported

    def due(self, done: int, total: int, now: float) -> bool:
        step = max(1, math.ceil(total / 10))
        since = now - self.last
        tenth = done // step > self.tenths and since >= LINE_GAP_S
        if not (done >= total or tenth or since >= LINE_EVERY_S):
            return False
        self.last, self.tenths = now, done // step
        return True


class ProgressLines:
    """Progress as plain lines (`update()` after each `tally.finished`), paced by `LinePacer`.
    `clock` is injectable: a test drives time instead of waiting for it."""

    def __init__(self, tally: Tally, label: str, out: IO[str], clock: Callable[[], float] = time.monotonic) -> None:
        self.tally, self.label, self.out, self.clock = tally, label, out, clock
        self.began = clock()
        self.pacer = LinePacer(self.began)

    def update(self) -> None:
        t, now = self.tally, self.clock()
        if not self.pacer.due(t.done, t.total, now):
            return
        elapsed = now - self.began
        line = f"ael-lab: {self.label}: {t.done}/{t.total} runs done, {t.failed} failed, {clock_text(elapsed)} elapsed"
        if 0 < t.done < t.total:
            line += f", about {clock_text(elapsed / t.done * (t.total - t.done))} to go"
        if t.cost_usd:
            line += f", LLM ${t.cost_usd:.4f}"
        print(line, file=self.out, flush=True)


@contextmanager
def progress(tally: Tally, show: bool, label: str = "sweep",
             clock: Callable[[], float] = time.monotonic) -> Iterator[Callable[[], None]]:
    """Yields `update()`, to call after each `tally.finished`."""
    if not show or not tally.total:
        yield lambda: None
        return
    if not sys.stderr.isatty():
        yield ProgressLines(tally, label, sys.stderr, clock).update
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    columns = (TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
               TextColumn("running {task.fields[running]} · failed {task.fields[failed]}"),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
               TextColumn("LLM ${task.fields[cost]:.4f}"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("sweep", total=tally.total, running=tally.running, failed=0, cost=0.0)

        def update() -> None:
            bar.update(task, completed=tally.done, running=tally.running, failed=tally.failed, cost=tally.cost_usd)

        yield update
