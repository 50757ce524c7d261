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
from typing import Callable, Sequence, TypeVar

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
            on_done: Callable[[int, R], None] | None = None) -> list[R]:
    """`task(item)` for every item, in worker processes when there are several
    items and workers; results in item order. `on_done(index, result)` is called
    in this process as each finishes (progress). `task` and the items must pickle
    (a module-level function, plain data). The first exception raised by a task
    is raised here, after the runs still queued are cancelled."""
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

    results: list = [None] * n
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        index = {pool.submit(task, item): i for i, item in enumerate(items)}
        pending = set(index)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=index.__getitem__):
                    results[index[future]] = future.result()
                    if on_done is not None:
                        on_done(index[future], results[index[future]])
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    return results
