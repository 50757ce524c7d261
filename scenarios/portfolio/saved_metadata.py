"""What this scenario's memory entries must carry in a save (checked on load).

The allocator and the distiller walk a bar's tool `calls` against what was
`realised`, per `sector` and `regime`; tool rules name their `tool`. A save
without them, or with other types, loaded and then failed mid-run. Tier ->
pydantic model of an entry's metadata (extra fields allowed); see
`Scenario.memory_metadata`.
"""

from __future__ import annotations

from typing import Literal

from engine.session_schema import Count, Name, Open

Direction = Literal[-1, 0, 1]


class Bar(Open):
    kind: Literal["bar"]
    ticker: Name
    sector: Name
    regime: Name
    bar: Count
    calls: dict[Name, Direction]
    realised: Direction


class ToolPattern(Open):
    kind: Literal["tool_reliability"]
    tool: Name
    sector: Name | None
    regime: Name
    right: Count
    calls: Count


MEMORY_METADATA = {"episodic": Bar, "semantic": ToolPattern, "procedural": ToolPattern}
