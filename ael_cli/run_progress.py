"""`ael-lab run`'s progress on stderr: rows done, rows per second and about how long is left.

In a terminal, once rows have been played for SHOW_AFTER_S (building the world, reading a
file, is not counted), one line rewritten in place at most every REDRAW_S and wiped at the
end, as the sweep's live display; elsewhere, once they have for SHOW_LINES_AFTER_S, plain
lines paced as the sweep's (`LinePacer`: a tenth of the rows, or LINE_EVERY_S) and one at
the end: a log gets lines only from a run long enough to wonder about. Standard output is never touched (`--json -` stays the document alone);
`--quiet`: nothing. No thread (a process with one cannot fork the executor's workers).

A run played in this process is followed row by row (`watch` gives `Session.run` its
`should_stop`); runs in worker processes are counted as each finishes, with their rows.
The clock is injectable: a test drives time instead of waiting for it.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any, Callable

from ael_cli.sweep.progress import LinePacer, clock_text

SHOW_AFTER_S = 3.0         # in a terminal, rows played for less than this say nothing
SHOW_LINES_AFTER_S = 10.0  # off one (a log, a pipe, a test's capture): only a run this long writes lines
REDRAW_S = 0.5             # a terminal's line is rewritten at most this often


class RowProgress:
    """The rows of `runs` runs; `watch(session, until)` before each run played here,
    `run_done(rows)` after each run (rows None: those the watched session played)."""

    def __init__(self, runs: int, out: IO[str], live: bool, clock: Callable[[], float] = time.monotonic) -> None:
        self.runs, self.out, self.live, self.clock = runs, out, live, clock
        self.began = clock()
        self.pacer = LinePacer(self.began)
        self.drawn_at: float | None = None  # when the terminal's line was last drawn (None: never)
        self.printed = False                # off a terminal: whether a line was printed yet
        self.runs_done = 0
        self.rows_before = 0                # rows of the runs done
        self.session: Any = None            # the run being watched, its first row and its last (exclusive)
        self.start = self.end = 0
        self.label = ""
        # (time, rows done) when the first row was played: the speed is counted from there, not
        # from the start, which building a world (reading a file, TF-IDF) may take seconds of
        self.paced_from: tuple[float, int] | None = None

    # --------------------------------------------------------------- input
    def watch(self, session: Any, until: int | None = None) -> Callable[[], bool]:
        """`should_stop` for `session.run(until)`: it never stops the run, it notes its row."""
        self.session, self.start = session, session.t
        self.end = session.n_episodes if until is None else max(session.t, min(until, session.n_episodes))
        self.label = f"{session.config.selector} seed {session.config.seed}"

        def tick() -> bool:
            if self.paced_from is None:
                self.paced_from = (self.clock(), self.rows_done())
            self.update()
            return False

        return tick

    def run_done(self, rows: int | None = None) -> None:
        if rows is None:
            rows = self.session.t - self.start if self.session is not None else 0
        self.runs_done += 1
        self.rows_before += rows
        self.session = None
        self.update()

    # ------------------------------------------------------------ numbers
    def rows_done(self) -> int:
        return self.rows_before + (self.session.t - self.start if self.session is not None else 0)

    def rows_total(self) -> int | None:
        """The rows of every run: those known, the runs not started taken as long as the
        one watched (or the mean of those done); None before anything says."""
        if self.session is not None:
            per_run = self.end - self.start
            return self.rows_before + per_run * (self.runs - self.runs_done)
        if not self.runs_done:
            return None
        return round(self.rows_before / self.runs_done * self.runs)

    def speed(self, now: float) -> float:
        """Rows per second since the first row played here (else since the start)."""
        since, rows = self.paced_from or (self.began, 0)
        return (self.rows_done() - rows) / max(now - since, 1e-9)

    def line(self, now: float) -> str:
        elapsed = now - self.began
        done, total, speed = self.rows_done(), self.rows_total(), self.speed(now)
        text = f"ael-lab: run: {done:,}" + (f"/{total:,}" if total else "") + " rows"
        if self.runs > 1:
            text += f" · run {min(self.runs_done + 1, self.runs)}/{self.runs}"
            if self.session is not None:
                text += f" ({self.label})"
        if speed > 0:
            text += f" · {speed:,.0f} rows/s"
        text += f" · {clock_text(elapsed)} elapsed"
        if speed > 0 and total and done < total:
            text += f" · about {clock_text((total - done) / speed)} to go"
        return text

    # ------------------------------------------------------------ drawing
    def update(self) -> None:
        now = self.clock()
        finished = self.runs_done >= self.runs
        since = (self.paced_from or (self.began, 0))[0]  # the first row played here, else the start
        if not (self.printed or self.drawn_at is not None) and \
                now - since < (SHOW_AFTER_S if self.live else SHOW_LINES_AFTER_S):
            return
        if self.live:
            if finished:
                self.close()
            elif self.drawn_at is None or now - self.drawn_at >= REDRAW_S:
                self.drawn_at = now
                self.out.write("\r" + self.line(now) + "\x1b[K")
                self.out.flush()
            return
        # the first line as soon as the run has lasted SHOW_AFTER_S, then as the sweep's are paced
        due = self.pacer.due(self.rows_done(), self.rows_total() or 0, now)
        if finished or due or not self.printed:
            self.printed, self.pacer.last = True, now
            print(self.line(now), file=self.out, flush=True)

    def close(self) -> None:
        """Wipe the terminal's line (the results table comes next); idempotent."""
        if self.live and self.drawn_at is not None:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self.drawn_at = None


class NoProgress:
    """`--quiet`: the same calls, nothing shown."""

    def watch(self, session: Any, until: int | None = None) -> None:
        return None

    def run_done(self, rows: int | None = None) -> None:
        return None

    def close(self) -> None:
        return None


def run_progress(quiet: bool, runs: int, clock: Callable[[], float] = time.monotonic) -> RowProgress | NoProgress:
    """The progress of a command of `runs` runs, on stderr (nothing with --quiet)."""
    if quiet or not runs:
        return NoProgress()
    return RowProgress(runs, sys.stderr, live=sys.stderr.isatty(), clock=clock)
