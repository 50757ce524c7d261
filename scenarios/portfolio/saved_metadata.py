"""What this scenario's memory entries and run state must carry in a save (checked on load).

The allocator and the distiller walk a bar's tool `calls` against what was
`realised`, per `sector` and `regime`; tool rules name their `tool`. A save
without them, or with other types, loaded and then failed mid-run. Tier ->
pydantic model of an entry's metadata (extra fields allowed); see
`Scenario.memory_metadata`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from engine.store.schema_types import Finite, Items, Positive, Strict, Text
from engine.store.session_schema import Count, Name, Open

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


# ------------------------------------------------------------------ the run state ("scenario_state")
class MarketData(Strict):
    source: Text
    tickers: Annotated[list[Name], Field(max_length=1000)]
    n_bars: Count


class Portfolio(Strict):
    tickers: Annotated[list[Name], Field(max_length=1000)]
    weights: Annotated[list[Annotated[float, Field(ge=0.0, le=1.0)]], Field(max_length=1000)]
    value: Positive
    peak: Positive
    returns: Annotated[list[Finite], Items]
    turnovers: Annotated[list[Annotated[float, Field(ge=0.0, le=1e6)]], Items]

    @model_validator(mode="after")
    def _one_weight_per_ticker(self) -> "Portfolio":
        if len(self.weights) != len(self.tickers):
            raise ValueError(f"{len(self.weights)} weights for {len(self.tickers)} tickers")
        if sum(self.weights) > 1 + 1e-6:
            raise ValueError(f"the weights sum to {sum(self.weights):.4f}, more than 1")
        return self


class RunState(Strict):
    """The portfolio's run state in a save (`PortfolioScenario.state_dict`): the data it ran on,
    the portfolio now and the shadow returns by bar."""
    data: MarketData | None = None
    portfolio: Portfolio | None = None
    shadow: Annotated[list[Annotated[list[Finite], Field(min_length=3, max_length=3)]], Items] | None = None

    @field_validator("shadow")
    @classmethod
    def _bars_are_counts(cls, v: list[list[float]] | None) -> list[list[float]] | None:
        for i, (bar, _, _) in enumerate(v or []):
            if not float(bar).is_integer() or bar < 0:
                raise ValueError(f"shadow[{i}][0] should be a bar number (0 or more), got {bar!r}")
        return v
