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
from typing import Callable, Hashable, Sequence, TypeVar

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
    in this process as items finish (progress). `task` and the items must pickle
    (a module-level function, plain data). The first exception raised by a task
    is raised here, after the runs still queued are cancelled.

    `group(item)` names what items share (say, a seed whose stream and caches a
    worker builds once); see `_Lanes` for how that keeps a group on one worker."""
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

    lanes = _Lanes([group(item) if group else None for item in items], workers)
    results: list = [None] * n
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_one_blas_thread) as pool:
        # one chunk in flight per worker slot, so the process that just finished takes its slot's next
        running = {}
        for slot in range(workers):
            chunk = lanes.next(slot)
            running[pool.submit(_run_chunk, task, [items[i] for i in chunk])] = (slot, chunk)
        try:
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    slot, chunk = running.pop(future)
                    for i, result in zip(chunk, future.result()):
                        results[i] = result
                        if on_done is not None:
                            on_done(i, result)
                    following = lanes.next(slot)
                    if following:
                        running[pool.submit(_run_chunk, task, [items[i] for i in following])] = (slot, following)
        except BaseException:
            for future in running:
                future.cancel()
            raise
    return results


def _one_blas_thread() -> None:
    """A worker's numpy uses one BLAS thread. Each worker is one of `workers`
    processes already sharing the cores: OpenBLAS's own threads (one per core)
    would oversubscribe them, and they spin while they wait for the next call,
    which took CPU from the other workers (five support similarity matrices:
    0.30 s of CPU instead of 0.16 s)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


def _run_chunk(task: Callable[[T], R], chunk: list[T]) -> list[R]:
    return [task(item) for item in chunk]


class _Lanes:
    """Which items a worker slot runs next, a chunk at a time.

    Items are put in group order (each group's items together, groups in order of
    first appearance) and cut into chunks, a round trip to the parent each: about
    32 per worker (a round trip costs about a millisecond; a finished lane's wait
    for the other's last chunk costs up to a chunk's work), at most 64 items. Each slot owns one contiguous lane of
    chunks and works along it, so a group is built by one worker; a slot whose
    lane is done takes the back half of the longest lane left (work stealing),
    so every core stays busy and at most the group at each cut is built twice."""

    def __init__(self, keys: list[Hashable], slots: int):
        first: dict[Hashable, int] = {}
        for i, k in enumerate(keys):
            first.setdefault(i if k is None else k, i)
        order = sorted(range(len(keys)), key=lambda i: (first[i if keys[i] is None else keys[i]], i))
        size = max(1, min(64, len(keys) // (slots * 32)))
        self.chunks = [order[i:i + size] for i in range(0, len(order), size)]
        # lanes of equal items, not of equal chunks (the last chunk may be short): 45 runs
        # on 2 workers in chunks of 2 made lanes of 24 and 21
        cuts = [min(len(self.chunks), round(j * len(keys) / slots / size)) for j in range(slots)] + [len(self.chunks)]
        self.lanes = [[cuts[j], cuts[j + 1]] for j in range(slots)]  # [next, end) per slot

    def next(self, slot: int) -> list[int]:
        """The next chunk (item indices) for `slot`; [] when nothing is left."""
        lane = self.lanes[slot]
        if lane[0] >= lane[1]:
            victim = max(self.lanes, key=lambda l: l[1] - l[0])
            if victim[1] - victim[0] < 1:
                return []
            # the back half (at least one chunk); the victim keeps the front, where it is at work
            middle = victim[1] - max(1, (victim[1] - victim[0]) // 2)
            lane[0], lane[1] = middle, victim[1]
            victim[1] = middle
        lane[0] += 1
        return self.chunks[lane[0] - 1]
