"""The sweep's progress on stderr: runs done, running, failed, ETA and LLM cost so far.

A rich live display in a terminal; elsewhere (a pipe, a log, --quiet) nothing
until the closing line, so logs do not fill with redraws."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator


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


@contextmanager
def progress(tally: Tally, show: bool) -> Iterator[Callable[[], None]]:
    """Yields `update()`, to call after each `tally.finished`."""
    if not show or not sys.stderr.isatty():
        yield lambda: None
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
