"""The machine a lab is served from: the variable that keeps every world off the network for
its data, and ending a process group a command started (docs/api.md, "For the front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    "NO_DOWNLOADS": "engine.network:NO_DOWNLOADS",
    "end_group": "engine.processes:end_group",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
