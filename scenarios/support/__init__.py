"""The support-ticket routing stream (`../shared/specs/support-stream.md`).

Modules: `spec` (what the scenario declares), `bank` (the template bank,
Appendix A), `stream` (the generator, §4), `text` (tokens and Jaccard, §5),
`predictor` (the 5-NN router, §5), `policies` (the six retrieval policies as
PolicySpecs), `table` (the per-seed prediction table), `patterns`
(distillation and rules), `reflector` (§6), `scenario`.

The names below load on first use: the registry reads `spec` to list the
scenario, which must not build its tables or import the scenario.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {"SupportScenario": "scenario", "export_jsonl": "stream", "generate": "stream"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:  # PEP 562: a lazy export
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
