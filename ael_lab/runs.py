"""A run as the front ends drive it: the engine's session and its config (the one loop
`ael_lab.Session` wraps), where a run of several episodes stops, the runs of a command spread
over workers, a run's result as `ael-lab run --json` gives it, and the bounds every setting
is checked against (docs/api.md, "For the front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    # the engine's session, under `ael_lab.Session` (`Session.engine`)
    "Session": "engine.session:Session",
    "SessionConfig": "engine.session:SessionConfig",
    # where a run stops (engine/run_targets.py), and a copy to replay on beside it
    "StopOn": "engine.run_targets:StopOn",
    "run_target": "engine.run_targets:run_target",
    "proposed": "engine.run_targets:proposed",
    "reflected": "engine.run_targets:reflected",
    "detached": "engine.timetravel:detached",
    # several runs over the cores
    "run_all": "engine.executor:run_all",
    "default_workers": "engine.executor:default_workers",
    # a run's result (engine/results.py)
    "run_result": "engine.results:run_result",
    "run_outcome": "engine.results:run_outcome",
    "summarise": "engine.results:summarise",
    "waiting": "engine.results:waiting",
    "finite": "engine.results:finite",
    "KIND_NAMES": "engine.results:KIND_NAMES",
    # the bounds of a run's settings (engine/limits.py)
    "SEED_MAX": "engine.limits:SEED_MAX",
    "COUNT_MAX": "engine.limits:COUNT_MAX",
    "POSITIVE_MAX": "engine.limits:POSITIVE_MAX",
    "RETRIES_MAX": "engine.limits:RETRIES_MAX",
    "CONTEXT_MAX": "engine.limits:CONTEXT_MAX",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
