"""The paper's bandit replay (`ael-lab replay`): the training trace of a saved session, the
selectors simulated on it, and the mean and sd of their per-seed results (docs/api.md, "For
the front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {name: f"engine.bandit_replay:{name}" for name in (
    "trace_of", "replay_trace", "check_selectors", "SeedResult", "mean_sd", "DEFAULT_RUNS", "ORACLE")}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
