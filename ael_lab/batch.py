"""One run as a pure function of its configuration: what `engine.executor` runs in
its workers for `ael-lab run`, and, through `play`, what `ael-lab sweep` (and so
`reproduce`) runs in a local or a Dask worker: one way to run a configuration.

A task returns the run's result dict, never the session: a finished session
(its memory, history and reflections) is dropped as soon as its numbers are
taken, so a batch of thousands of runs holds only their results.

Below the command line (which runs batches) and `ael_lab.sweep` (which reads what they
recorded); public for those front ends (provisional: docs/api.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from engine.results import run_result
from engine.session import Session, SessionConfig
from scenarios import REGISTRY, make_scenario, register, spec_of

__all__ = ["RunTask", "play", "run_task", "affinity", "task_of"]

_SHARED_MAX = 8  # scenarios kept per process: enough for a seed's selectors to reuse one


@dataclass(frozen=True)
class RunTask:
    config: SessionConfig
    until: int | None = None  # stop at this episode (exclusive); None: the whole stream
    # the scenario's registry line: a worker started before a plugin (or a test) registered
    # its scenario knows it from the task itself
    registry_line: tuple[str, str] | None = None


@dataclass(frozen=True)
class Played:
    result: dict[str, Any]          # as run_result gives it (a baseline's own run dict)
    history: list[dict[str, Any]]   # the episode records ([] for a baseline: it has no session)


def play(task: RunTask, watch: Callable[..., Any] | None = None) -> Played:
    """Run one configuration to `task.until` (or its end) in this process; `watch(session,
    until)` gives the run its `should_stop` (`ael-lab run`'s progress follows its rows)."""
    config = task.config
    if task.registry_line is not None:
        register(*task.registry_line)
    if config.selector.startswith("baseline:"):
        # a baseline is not a bandit session: the scenario builds its run directly
        scenario = make_scenario(config.scenario, config.seed, config.scenario_options)
        return Played(scenario.baseline_run(config.selector.split(":", 1)[1]), [])
    session = Session(config, _scenario(config))
    session.timeline.keep = False  # a batch run never goes back: no checkpoints (engine/timetravel.py)
    try:
        session.run(until=task.until, should_stop=watch(session, task.until) if watch is not None else None)
        return Played(run_result(session), session.history)
    finally:
        session.llm.close()  # flushes a cassette this run recorded to


def run_task(task: RunTask, watch: Callable[..., Any] | None = None) -> dict[str, Any]:
    return play(task, watch).result


def affinity(task: RunTask) -> tuple:
    """Runs that can share a scenario (and its per-seed caches) in one worker."""
    c = task.config
    return (c.scenario, c.seed, repr(sorted(c.scenario_options.items())))


_shared: dict[tuple, Any] = {}


def _scenario(config: SessionConfig):
    """A new scenario, or, for one that declares itself `shareable` (no run state), the
    one this process built for the same seed and options, with its caches (sharing
    it changes no result: that is what shareable promises)."""
    if not spec_of(config.scenario).shareable:
        return make_scenario(config.scenario, config.seed, config.scenario_options)
    key = affinity(RunTask(config))
    scenario = _shared.get(key)
    if scenario is None:
        if len(_shared) >= _SHARED_MAX:
            _shared.pop(next(iter(_shared)))
        scenario = _shared[key] = make_scenario(config.scenario, config.seed, config.scenario_options)
    return scenario


def task_of(config: SessionConfig, until: int | None) -> RunTask:
    return RunTask(config, until, (config.scenario, REGISTRY[config.scenario]))
