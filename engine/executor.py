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
from collections import deque
from typing import Callable, Hashable, Sequence, TypeVar

from engine.errors import AELError

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
    lanes = _Lanes([group(item) if group else None for item in items], workers)
    results: list = [None] * n
    with _Workers(task, workers) as pool:
        in_flight: list[deque[list[int]]] = [deque() for _ in range(workers)]

        def feed(slot: int) -> None:
            # a slot keeps AHEAD chunks queued at its worker, so a worker that finishes one
            # finds the next waiting instead of idling while this process records results;
            # it steals from another lane only when it has nothing left to do
            while len(in_flight[slot]) < AHEAD and (chunk := lanes.next(slot, steal=not in_flight[slot])):
                in_flight[slot].append(chunk)
                pool.send(slot, [items[i] for i in chunk])

        for slot in range(workers):
            feed(slot)
        while any(in_flight):
            slot, chunk_results = pool.receive()
            chunk = in_flight[slot].popleft()
            feed(slot)
            for i, result in zip(chunk, chunk_results):
                results[i] = result
                if on_done is not None:
                    on_done(i, result)
    return results


AHEAD = 2  # chunks queued per worker


class WorkerDied(AELError):
    """A worker process ended without answering (killed, out of memory): one line for
    the person, since the runs it held are lost (a sweep's store keeps the others)."""


class _Workers:
    """`n` worker processes, each with its own inbox of chunks and its own reply pipe.

    Not a ProcessPoolExecutor: its one shared queue hands a chunk to whichever
    worker asks first, which loses the lanes' grouping (a support seed's table
    built by both workers) once chunks are queued ahead; and each chunk there
    crosses three parent threads before a worker sees it. Here a chunk goes to
    its slot's worker and a reply is read by the caller's thread directly."""

    def __init__(self, task: Callable, n: int):
        ctx = _context()
        self.inboxes = [ctx.Queue() for _ in range(n)]
        pipes = [ctx.Pipe(duplex=False) for _ in range(n)]
        self.replies = [reader for reader, _ in pipes]
        # a forked worker inherits every pipe end made before it; it closes all but its own
        # writer, so that when the parent dies nobody else holds a reader its reply could
        # fill (two orphans blocked in send to each other held the store's lock for ever)
        self.procs = [ctx.Process(target=_serve, daemon=True, name=f"ael-worker-{s}",
                                  args=(task, self.inboxes[s], pipes[s][1],
                                        [end for j, pipe in enumerate(pipes) for end in pipe
                                         if end is not pipes[s][1]]))
                      for s in range(n)]
        for proc in self.procs:
            proc.start()
        for _, writer in pipes:
            writer.close()  # the worker's end: its reply pipe reads EOF when the worker is gone

    def send(self, slot: int, chunk: list) -> None:
        self.inboxes[slot].put(chunk)  # never blocks: the queue's feeder thread writes it

    def receive(self) -> tuple[int, list]:
        """The next reply of any worker: (slot, results); a task's exception is raised."""
        from multiprocessing.connection import wait

        while True:
            ready = wait(self.replies + [p.sentinel for p in self.procs])
            for slot, reader in enumerate(self.replies):
                if reader in ready:  # a reply first: a worker's last answer counts even if it died after
                    try:
                        status, payload = reader.recv()
                    except (EOFError, OSError):
                        self._died(self.procs[slot])
                    if status == "error":
                        raise payload
                    return slot, payload
            for proc in self.procs:
                if proc.sentinel in ready:
                    self._died(proc)

    @staticmethod
    def _died(proc) -> None:
        proc.join(timeout=5)  # reaped, so its exit code is known
        raise WorkerDied(f"worker process {proc.pid} died (exit code {proc.exitcode}) before finishing its runs")

    def __enter__(self) -> "_Workers":
        return self

    def __exit__(self, exc_type, *_) -> None:
        if exc_type is None:
            for inbox in self.inboxes:
                inbox.put(None)  # done: each worker exits after its queued chunks
            for proc in self.procs:
                proc.join(timeout=10)
        for proc in self.procs:
            if proc.is_alive():  # an error or an interrupt here: the queued runs are dropped
                proc.terminate()
                proc.join()
        for inbox in self.inboxes:
            if exc_type is not None:
                inbox.cancel_join_thread()  # nobody will read what is still queued
            inbox.close()
        for reader in self.replies:
            reader.close()


def _serve(task: Callable, inbox, outbox, not_mine: list) -> None:
    """A worker: run each chunk from `inbox` and send its results (or the first
    exception) to `outbox`, until None, or until its parent is gone. `not_mine`: the
    other pipe ends this process inherited, closed first."""
    import queue
    import signal

    for end in not_mine:
        end.close()

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends the workers
    _quiet_collector()
    _one_blas_thread()
    parent = os.getppid()
    while True:
        try:
            chunk = inbox.get(timeout=1.0)
        except queue.Empty:
            if os.getppid() != parent:
                return  # orphaned (the parent was killed): nobody reads the results
            continue
        if chunk is None:
            return
        try:
            reply = ("ok", [task(item) for item in chunk])
        except Exception as err:
            reply = ("error", _portable(err))
        try:
            outbox.send(reply)
        except (BrokenPipeError, OSError):
            return
        except Exception as err:  # a result that does not pickle
            outbox.send(("error", RuntimeError(f"a worker's result could not be sent back: {err}")))


def _portable(err: BaseException) -> BaseException:
    """`err`, if it survives pickling both ways (an exception class with its own
    constructor arguments may not); otherwise a RuntimeError that says what it was."""
    import pickle
    import traceback

    try:
        pickle.loads(pickle.dumps(err))
        return err
    except Exception:
        text = "".join(traceback.format_exception(err))[-4000:]
        return RuntimeError(f"{type(err).__name__}: {err}\n{text}")


def _quiet_collector() -> None:
    """A forked worker leaves what it inherited to the parent: everything the parent had
    imported moves to the collector's permanent generation, so the worker's full collections
    never walk it (nor, by touching each object's header, copy its pages from the parent),
    and full collections run a tenth as often, as the test process does (tests/conftest.py).
    Runs are pure functions of their configuration: the collector's pace changes no result."""
    import gc

    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)


def _one_blas_thread() -> None:
    """A worker's numpy uses one BLAS thread. Each worker is one of `workers`
    processes already sharing the cores: OpenBLAS's own threads (one per core)
    would oversubscribe them, and they spin while they wait for the next call,
    which took CPU from the other workers (five support similarity matrices:
    0.30 s of CPU instead of 0.16 s)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


class _Lanes:
    """Which items a worker slot runs next, a chunk at a time.

    Items are put in group order (each group's items together, groups in order of
    first appearance) and cut into chunks, a message each way: about 32 per worker,
    at most 64 items (each costs the parent about a millisecond; a finished lane's
    wait for the other's last chunk costs up to a chunk's work). Each slot owns one
    contiguous lane of chunks and works along it, so a group is built by one worker;
    a slot whose lane is done takes the back half of the longest lane left (work
    stealing), so every core stays busy and at most the group at each cut is built
    twice. `next(slot, steal=False)` is for queueing ahead: it never steals, since a
    slot with work queued is not idle."""

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

    def next(self, slot: int, steal: bool = True) -> list[int]:
        """The next chunk (item indices) for `slot`; [] when nothing is left (in its own
        lane, without `steal`)."""
        lane = self.lanes[slot]
        if lane[0] >= lane[1]:
            if not steal:
                return []
            victim = max(self.lanes, key=lambda l: l[1] - l[0])
            if victim[1] - victim[0] < 1:
                return []
            # the back half (at least one chunk); the victim keeps the front, where it is at work
            middle = victim[1] - max(1, (victim[1] - victim[0]) // 2)
            lane[0], lane[1] = middle, victim[1]
            victim[1] = middle
        lane[0] += 1
        return self.chunks[lane[0] - 1]
