"""The runs behind the chosen tables, through the sweep machinery (one store, resumable),
and each row's outcome."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from ael_lab import AELError
from ael_lab.batch import RunTask
from ael_cli.sweep.sweep_command import run_grid
from ael_cli.sweep.grid import AXES, Grid
from ael_lab.sweep_store import Store, config_hash

from .evaluate import NOT_HERE, Outcome, outcome
from .model import PaperTable, Row
from .tables import DFULL, NEWS

NEWS_ARCHIVE = os.path.join("news", "20news-bydate.tar.gz")  # under ../shared/data
NEWS_ENV = "AEL_NEWS_DATA"


def table_seeds(table: PaperTable, seeds: int | None) -> list[int]:
    """The seeds a table's rows run on: the paper's five, and with `--seeds N` (N > 5) on a
    cheap table the next ones (1, 2, 3, ... skipping the paper's) up to N."""
    if not seeds or not table.cheap or seeds <= len(table.seeds):
        return list(table.seeds)
    extra = (s for s in range(1, 10 ** 9) if s not in table.seeds)
    return [*table.seeds, *(next(extra) for _ in range(seeds - len(table.seeds)))]


def _llm(table: PaperTable, args: argparse.Namespace) -> dict[str, Any]:
    from ael_cli.flags.llm_flags import llm_config
    from ael_lab.worlds import spec_of

    if args.agent == "offline" and args.reflector == "offline":
        return {}
    if not spec_of(table.scenario).uses_llm:
        return {}
    config = llm_config(argparse.Namespace(**{**vars(args), "scenario": table.scenario}))
    return {**config, **table.llm_settings} if config else config


def _options(table: PaperTable, args: argparse.Namespace) -> tuple[dict[str, Any], str | None]:
    """The table's scenario options, and why its data is not here (or None)."""
    options = dict(table.options)
    if options.get("data") == NEWS:
        found = news_data(args)
        if found is None:
            return options, ("needs the corpus: the 20 Newsgroups archive is not at ../shared/data/"
                             f"{NEWS_ARCHIVE} nor in scikit-learn's data home (pass --news PATH, the archive or "
                             f"the folder it unpacks to, or set {NEWS_ENV}; docs/worlds.md's news section says where "
                             "it comes from)")
        options["data"] = found
    if options.get("data") == DFULL:
        options["data"] = args.dfull or _find_dfull()
        if not os.path.isdir(options["data"]):
            return options, (f"the paper's D-full data is not at {options['data']} "
                             "(pass --dfull DIR; docs/worlds.md's portfolio section says where it comes from)")
    return options, None


def _find_dfull() -> str:
    """../shared/data/dfull from here, else from the nearest folder above that has it (a
    worktree sits deeper than the main clone), else the default as given."""
    return _find_shared("dfull", os.path.isdir) or DFULL


def _find_shared(name: str, exists) -> str | None:
    here = Path.cwd().resolve()
    for folder in (here.parent, *here.parents):
        candidate = folder / "shared" / "data" / name
        if exists(candidate):
            return os.path.relpath(candidate)
    return None


def news_data(args: argparse.Namespace) -> str | None:
    """The 20 Newsgroups data the news table runs on: `--news`, else $AEL_NEWS_DATA, else
    ../shared/data/news/20news-bydate.tar.gz (from here or the nearest folder above that has
    it), else scikit-learn's data home if the corpus was fetched there; None when none is."""
    given = getattr(args, "news", None) or os.environ.get(NEWS_ENV)
    if given:
        return given
    found = _find_shared(NEWS_ARCHIVE, os.path.isfile)
    if found:
        return found
    home = os.environ.get("SCIKIT_LEARN_DATA") or os.path.join("~", "scikit_learn_data")
    if os.path.isfile(os.path.join(os.path.expanduser(home), "20news-bydate_py3.pkz")):
        return "sklearn"
    return None


def row_tasks(table: PaperTable, row: Row, options: dict[str, Any], llm: dict[str, Any],
              seeds: list[int] | None = None) -> list[RunTask]:
    setting = dict(row.setting)
    axes = {axis: [setting[axis]] for axis in AXES if axis in setting}
    grid = Grid([table.scenario], row.selector, seeds or list(table.seeds), axes,
                {k: [v] for k, v in {**options, **setting.get("options", {})}.items()},
                {"warmup": setting.get("warmup"), "until": setting.get("until")}, [llm if row.llm else {}])
    return grid.tasks()


def run_tables(tables: list[PaperTable], args: argparse.Namespace
               ) -> tuple[dict[str, list[Outcome]], str, int, list[str]]:
    """Every row's outcome, by table key; the store's path; how many runs ran now (the
    others were in the store); and the failed runs, one line each (table, row, seed, error)."""
    # table key -> (row, what this build lacks to run it, its runs, why its data is not here)
    plans: dict[str, list[tuple[Row, str | None, list[RunTask], str | None]]] = {}
    for table in tables:
        if table.unavailable(args.agent):
            plans[table.key] = []
            continue
        options, absent = _options(table, args)
        llm = _llm(table, args)
        seeds = table_seeds(table, getattr(args, "seeds", None))
        plans[table.key] = []
        for row in table.rows:
            missing = row_missing(table, row)
            plans[table.key].append((row, missing, [] if missing or absent else
                                     row_tasks(table, row, options, llm, seeds), absent))
    sweep_args = argparse.Namespace(workers=args.workers, llm_concurrency=args.llm_concurrency, quiet=args.quiet,
                                    progress_label="reproduce")
    with Store(args.out) as store:
        from ael_lab.store import writer_lock

        with writer_lock(store.path):
            failed_groups, probed = _probe(store, plans, sweep_args)
            everything = {config_hash(t): t for rows in plans.values() for _, _, tasks, _ in rows
                          for t in tasks if _group(t) not in failed_groups}
            ran = run_grid(store, _copies(everything.values()), sweep_args)[1] + probed
        stored = {r["hash"]: r for r in store.runs()}
    outcomes: dict[str, list[Outcome]] = {}
    failures: list[str] = []
    llm_on = args.agent != "offline" or args.reflector != "offline"
    for table in tables:
        outcomes[table.key] = []
        for row, missing, tasks, absent in plans[table.key]:
            runs = [stored[h] for h in map(config_hash, tasks) if h in stored]
            failures += [f"{table.label} {row.label} seed {r['config'].get('seed')}: "
                         f"{(r['error'] or 'failed').splitlines()[0][:200]}" for r in runs if r["status"] == "failed"]
            unavailable = absent or (failed_groups.get(_group(tasks[0])) if tasks else None)
            if unavailable and not missing:
                outcomes[table.key].append(Outcome(row, NOT_HERE, unavailable))
                continue
            results = [r["result"] for r in runs if r["status"] == "ok"]
            errors = [r["error"] for r in runs if r["status"] == "failed"]
            outcomes[table.key].append(outcome(table, row, missing, results, errors, llm_on))
    return outcomes, str(store.path), ran, list(dict.fromkeys(failures))


def _copies(tasks) -> list[RunTask]:
    """The tasks to run, copied: a session run in this process (an LLM-backed one) pins its
    models into its config, which would change the planned task's hash, so the probe's run
    would be run again and the runs' results not found by their hash."""
    import copy

    return [copy.deepcopy(t) for t in tasks]


def _group(task: RunTask) -> str:
    """Runs that need the same data: one scenario with one set of options."""
    return json.dumps([task.config.scenario, task.config.scenario_options], sort_keys=True, default=str)


def _probe(store: Store, plans, sweep_args) -> tuple[dict[str, str], int]:
    """One run of each data group first: a group whose data is missing (a corpus that cannot be
    downloaded here) fails once, not once per run. Returns (group -> its error, runs run)."""
    firsts: dict[str, RunTask] = {}
    for rows in plans.values():
        for _, _, tasks, _ in rows:
            if tasks:
                firsts.setdefault(_group(tasks[0]), tasks[0])
    if not firsts:
        return {}, 0
    ran = run_grid(store, _copies(firsts.values()), sweep_args)[1]
    errors = {r["hash"]: r["error"] for r in store.runs() if r["status"] == "failed"}
    return {g: errors[config_hash(t)].split("\n")[0] for g, t in firsts.items() if config_hash(t) in errors}, ran


def row_missing(table: PaperTable, row: Row) -> str | None:
    """What this build lacks to run the row (its method, its variant), or None."""
    from ael_lab.selectors import UnknownMethod, parse_method
    from ael_lab.worlds import spec_of

    if row.selector is None:
        return row.note or "no method here runs it"
    if row.selector.startswith("baseline:"):
        if row.selector.split(":", 1)[1] not in spec_of(table.scenario).baselines:
            return f"the baseline {row.selector} is not in this build"
    else:
        try:
            parse_method(row.selector)
        except UnknownMethod:
            return f"the method {row.selector!r} is not in this build"
        except AELError as err:
            return f"{row.selector}: {err}"
    if "variant" in row.setting:
        from ael_cli.sweep.grid import variant_set

        try:
            variant_set(row.setting["variant"], table.scenario)
        except AELError as err:
            return f"the variant {row.setting['variant']!r}: {err}"
    return None
