"""What this scenario's memory entries must carry in a save (checked on load).

The router indexes routes by a ticket's `route` and groups by `endpoint`;
rules answer with their `direction`, a route. A save with an unknown route
or other types loaded and then failed mid-run. Tier -> pydantic model of an
entry's metadata (extra fields allowed); see `Scenario.memory_metadata`.
"""

from __future__ import annotations

from typing import Literal

from engine.store.schema_types import Count, Episodes, Strict
from engine.store.session_schema import Name, Open

from .bank import ROUTES

Route = Literal[ROUTES]  # type: ignore[valid-type]


class Ticket(Open):
    endpoint: Name
    route: Route


class TicketPattern(Open):
    kind: Literal["endpoint", "token"]
    endpoint: Name | None = None
    token: Name | None = None
    direction: Route | None = None


MEMORY_METADATA = {"episodic": Ticket, "semantic": TicketPattern, "procedural": TicketPattern}


class RunState(Strict):
    """The support world's run state in a save (`SupportScenario.state_dict`; the world itself is stateless)."""
    seed: Count | None = None
    n_episodes: Episodes | None = None
    protocol: Literal["full", "cliapi-llm"] | None = None  # the paper's LLM protocol's subset (cliapi_protocol.py)
