"""Where a sweep's runs execute: worker processes on this machine (engine.executor.run_all),
or a Dask cluster (`--scheduler ADDRESS`). Both call `on_result(index, out)` in this
process as each run finishes, which is where the store is written; both run the
same `sweep_task`, so a run's result does not depend on the engine."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ael_lab import AELError
from ael_lab.llm import import_sdks
from ael_lab.runs import run_all

from ael_lab.batch import RunTask, affinity

from ael_lab.sweep_store import config_hash
from .task import sweep_task

OnResult = Callable[[int, dict[str, Any]], None]


def run_local(tasks: Sequence[RunTask], workers: int, on_result: OnResult) -> None:
    # the workers are forked from this process: a model SDK imported here once is in each of them
    import_sdks(t.config.llm for t in tasks)
    run_all(sweep_task, list(tasks), workers, on_done=on_result, group=affinity)


def dask_client(address: str):
    """A client of the scheduler at `address`; AELError (one line) when Dask is not
    installed or the scheduler does not answer."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise AELError("--scheduler needs Dask: pip install 'ael-lab[cluster]' (or make cluster)") from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as err:
        raise AELError(f"--scheduler {address}: no Dask scheduler answered there ({err})") from None


def dask_slots(client) -> int:
    """Threads the cluster's workers run tasks on (how many runs can be in flight)."""
    return max(1, sum(client.nthreads().values()))


def run_dask(client, tasks: Sequence[RunTask], on_result: OnResult) -> None:
    """Each run one Dask task, named by its configuration hash; results as they finish."""
    from dask.distributed import as_completed

    keys = [f"ael-run-{config_hash(t)}" for t in tasks]
    futures = client.map(sweep_task, list(tasks), key=keys, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    try:
        for future in as_completed(futures):
            try:
                out = future.result()
            except Exception as err:  # the worker died under the run (sweep_task itself never raises)
                out = {"error": f"the Dask worker failed: {type(err).__name__}: {err}"}
            on_result(index[future.key], out)
    finally:
        client.cancel(futures)  # a sweep stopped here stops its queued runs on the cluster
