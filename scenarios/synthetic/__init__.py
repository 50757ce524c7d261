"""The synthetic regime bandit (`../shared/specs/synthetic-regimes.md`).

`SyntheticScenario` loads on first use: the registry reads `spec` to build the
command line, which must not import the scenario (a support resume paid for it).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["SyntheticScenario"]


def __getattr__(name: str) -> Any:  # PEP 562: a lazy export
    if name != "SyntheticScenario":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(f"{__name__}.scenario").SyntheticScenario
