"""`ael-lab sweep`: run a grid into its store (resuming), or export the store."""

from __future__ import annotations

import argparse
import sys

from ael_lab import AELError
from ael_lab.runs import default_workers
from ael_lab.store import writer_lock

from .grid import from_sources
from ael_lab.sweep_store import Store, config_hash

LLM_SLOTS_PER_CORE = 4  # an LLM-backed run mostly waits on the network: more runs than cores


def sweep_command(args: argparse.Namespace) -> int:
    if not args.out:
        raise AELError("sweep: --out DIR is needed (the folder of the sweep's results store)")
    if args.export:
        if args.scenario or args.config:
            raise AELError("--export writes the store in --out and runs nothing: drop the scenarios and --config")
        from .export import export

        with Store(args.out, create=False) as store:
            export(store, args.export, sys.stdout)
        return 0
    check_slots(args)
    grid = from_sources(args)
    tasks = grid.tasks()
    client = None
    if args.scheduler:
        from .engines import dask_client

        client = dask_client(args.scheduler)  # before any work: a wrong address is one line
    try:
        with Store(args.out) as store, writer_lock(store.path):
            failed, ran, skipped = run_grid(store, tasks, args, client)
            rows = [] if args.quiet else store.runs({config_hash(t) for t in tasks})
    finally:
        if client is not None:
            client.close()
    if not args.quiet:
        from .summary import print_summary

        print_summary(rows, sys.stdout)  # what the grid asked for, runs already in the store included
        print(f"ael-lab: sweep: {ran} run(s) done, {skipped} already in the store, {failed} failed "
              f"({store.path})", file=sys.stderr)
    if failed:
        print(f"ael-lab: {failed} run(s) failed; their errors are in {store.path} "
              "(SELECT selector, seed, error FROM runs WHERE status = 'failed'); the next sweep retries them",
              file=sys.stderr)
        return 1
    return 0


def check_slots(args: argparse.Namespace) -> None:
    for flag in ("workers", "llm_concurrency"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise AELError(f"--{flag.replace('_', '-')}: must be 1 or more")


def run_grid(store: Store, tasks: list, args: argparse.Namespace, client=None) -> tuple[int, int, int]:
    """Run the tasks the store has not finished; (failed, ran, skipped)."""
    from .engines import dask_slots, run_dask, run_local
    from .progress import Tally, progress

    finished = store.finished()
    todo, seen = [], set(finished)
    for position, task in enumerate(tasks):
        h = config_hash(task)
        if h not in seen:
            seen.add(h)
            todo.append((position, task, h))
    redo = {h for _, _, h in todo}
    redo = [r for r in store.rejected if r["hash"] in redo]
    if redo:  # changed or unverifiable runs are never skipped as done
        print(f"ael-lab: sweep: {store.rejected_line(redo)}: running them again", file=sys.stderr)
    from ael_lab.text import scrub  # an --llm-url may carry credentials

    store.set_info("last_grid", {"runs": len(tasks), "argv": [scrub(a) for a in sys.argv[1:]]})
    offline = [item for item in todo if not item[1].config.llm]
    backed = [item for item in todo if item[1].config.llm]
    cores = args.workers or default_workers()
    llm_slots = args.llm_concurrency or LLM_SLOTS_PER_CORE * default_workers()
    if backed and backed[0][1].config.llm.get("record"):
        llm_slots = 1  # one cassette file, one writer
    tally = Tally(len(todo), dask_slots(client) if client else cores if offline else llm_slots)
    with progress(tally, not args.quiet, getattr(args, "progress_label", "sweep")) as update:
        for batch, slots in ((offline, cores), (backed, llm_slots)):
            if not batch:
                continue

            def on_result(i: int, out: dict, batch=batch) -> None:
                position, task, h = batch[i]
                store.record(position, task, out, h)
                tally.finished(out)
                update()

            tally.slots = dask_slots(client) if client else slots
            if client is not None:
                run_dask(client, [t for _, t, _ in batch], on_result)
            else:
                run_local([t for _, t, _ in batch], slots, on_result)
    return tally.failed, len(todo), len(tasks) - len(todo)
