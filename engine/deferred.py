"""A class attribute whose value lives in a module imported on first read.

A scenario's `memory_metadata` (pydantic models of what a save's memory must
carry) is read only when a save is loaded; importing it with the scenario would
put pydantic and the whole save schema (about 0.2 s) on the path of every run.
"""

from __future__ import annotations

import importlib
from typing import Any


class Deferred:
    """`attr = Deferred("package.module", "NAME")` in a class body: reading `attr`
    imports the module then (once; Python caches it) and gives `module.NAME`."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return getattr(importlib.import_module(self.module), self.name)
