"""The worlds the method runs in, by name.

Each scenario is a class built from `(seed, **options)`; it is imported only
when asked for, so the CLI starts fast and the portfolio's data libraries
load only for the portfolio.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.errors import AELError

REGISTRY = {
    "synthetic": ("scenarios.synthetic", "SyntheticScenario"),
    "support": ("scenarios.support", "SupportScenario"),
    "portfolio": ("scenarios.portfolio", "PortfolioScenario"),
}


def scenario_class(name: str):
    if name not in REGISTRY:
        raise AELError(f"unknown scenario {name!r} (expected one of {', '.join(REGISTRY)})")
    module, cls = REGISTRY[name]
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as err:
        raise AELError(f"scenario {name!r} is not available in this build ({err})") from err


def make_scenario(name: str, seed: int, options: dict[str, Any] | None = None):
    return scenario_class(name)(seed, **(options or {}))
