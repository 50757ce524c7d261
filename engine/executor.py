"""Independent runs on every core: the executor `ael-lab run` and `ael-lab sweep` share.

`run_all(task, items)` is `[task(item) for item in items]`, spread over worker
processes. It may be, because a run is a pure function of its configuration:
each session seeds its own generator from its scenario and seed, so a result
does not depend on which process computed it, in what order, or beside what.
Results come back in the order of `items` whatever the worker count; a
`Session` never crosses a process boundary, only the plain result dict.

Workers are forked where the platform allows (Linux): they start with the
parent's imports and caches instead of importing numpy and the scenarios
again. A parent that runs threads gets forkserver instead, since forking a
threaded process is unsafe.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Hashable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _context():
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return mp.get_context("fork")
    return mp.get_context("forkserver" if "forkserver" in methods else "spawn")


def run_all(task: Callable[[T], R], items: Sequence[T], workers: int | None = None,
            on_done: Callable[[int, R], None] | None = None,
            group: Callable[[T], Hashable] | None = None) -> list[R]:
    """`task(item)` for every item, in worker processes when there are several
    items and workers; results in item order. `on_done(index, result)` is called
    in this process as each finishes (progress). `task` and the items must pickle
    (a module-level function, plain data). The first exception raised by a task
    is raised here, after the runs still queued are cancelled.

    `group(item)` names what items share (say, a seed whose stream and caches a
    worker builds once): a worker that finishes an item is given the next item of
    the same group while there is one, so each group is mostly built by one
    worker, and only the last groups are shared out to keep every core busy."""
    n = len(items)
    workers = min(default_workers() if workers is None else workers, n)
    if workers <= 1:
        results = []
        for i, item in enumerate(items):
            results.append(task(item))
            if on_done is not None:
                on_done(i, results[-1])
        return results
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait  # not needed for one worker

    queue = _Queue(items, group)
    results: list = [None] * n
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        # one item in flight per worker, so the worker that just finished takes the next one
        running = {}
        for _ in range(workers):
            i = queue.next(None)
            running[pool.submit(task, items[i])] = i
        try:
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=running.__getitem__):
                    i = running.pop(future)
                    results[i] = future.result()
                    if on_done is not None:
                        on_done(i, results[i])
                    following = queue.next(i)
                    if following is not None:
                        running[pool.submit(task, items[following])] = following
        except BaseException:
            for future in running:
                future.cancel()
            raise
    return results


class _Queue:
    """Items not yet started, handed out group by group (in item order without groups)."""

    def __init__(self, items: Sequence, group: Callable[[Any], Hashable] | None):
        self.key = [group(item) if group else i for i, item in enumerate(items)]
        self.pending: dict[Hashable, list[int]] = {}
        for i, k in enumerate(self.key):
            self.pending.setdefault(k, []).append(i)
        self.started: set[Hashable] = set()

    def next(self, finished: int | None) -> int | None:
        """The next item for the worker that just finished `finished` (None: a new worker)."""
        if finished is not None and self.pending.get(self.key[finished]):
            return self._take(self.key[finished])
        fresh = next((k for k, left in self.pending.items() if left and k not in self.started), None)
        if fresh is None:  # every group is under way: help the one with the most left
            fresh = max(self.pending, key=lambda k: len(self.pending[k]), default=None)
            if fresh is None or not self.pending[fresh]:
                return None
        self.started.add(fresh)
        return self._take(fresh)

    def _take(self, key: Hashable) -> int:
        i = self.pending[key].pop(0)
        if not self.pending[key]:
            del self.pending[key]
        return i
