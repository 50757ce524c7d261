"""Public names that are the engine's own objects, each imported when it is first read.

A module of `ael_lab` that gives the front ends a name for something of the engine or the
worlds declares `_NAMES = {"public_name": "engine.module:attr", ...}` ("package.module" alone:
that module itself) and takes its `__getattr__` and `__dir__` from `lazy_names`. Then
`from ael_lab.store import write_text_atomic` imports `engine.store.atomic` alone, as
`from engine.store.atomic import write_text_atomic` did. Eager imports would put every
neighbour's cost on each name (the saves' pydantic schema on `ael-lab run --quiet`, numpy on
`ael-lab --help`): tests/process/test_cli_imports.py holds the CLI to what it uses. The object
is the engine's, re-exported and never copied: `ael_lab.store.load_session is
engine.store.persistence.load_session`.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Mapping


def lazy_names(module: str, names: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `module` for `names` (public name -> where it lives)."""

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        source, _, attr = where.partition(":")
        found = importlib.import_module(source)
        # read from the engine's module every time, never kept here: a name the engine rebinds (a
        # test's monkeypatch of engine.store.persistence.load_session) is what the front ends get
        return getattr(found, attr) if attr else found

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[module]), *names})

    return __getattr__, __dir__
