"""What this scenario's memory entries must carry in a save (checked on load).

The distiller sums each pull's `reward` per `arm`: a save without them, or
with other types, loaded and then failed mid-run. Tier -> pydantic model of
an entry's metadata (extra fields allowed); see `Scenario.memory_metadata`.
"""

from __future__ import annotations

from typing import Literal

from engine.store.session_schema import Name, Open


class Pull(Open):
    arm: Name
    reward: Literal[0, 1]


class ArmPattern(Open):
    arm: Name


MEMORY_METADATA = {"episodic": Pull, "semantic": ArmPattern, "procedural": ArmPattern}
