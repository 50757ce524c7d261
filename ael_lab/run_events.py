"""What a session's step reports (`Session.step` returns a list of these): the events the
lab's run loop, its tour and the compare view react to (docs/api.md, "For the front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {name: f"engine.events:{name}" for name in (
    "Event", "EpisodeDone", "PhaseChanged", "Distilled", "Reflected", "ArmAdded", "InsightApplied",
    "CodeArmSuspended")}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
