"""The registered worlds as the front ends reach them: by name through the registry and
each world's `ScenarioSpec`, never by importing a world's package (docs/api.md, "For the
front ends"). `ael_lab.scenario_names()` lists them; `ael_lab.register_scenario` adds one."""

from __future__ import annotations

import importlib
from typing import Callable

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    "spec_of": "scenarios:spec_of",
    "all_specs": "scenarios:all_specs",
    "make_scenario": "scenarios:make_scenario",
    "scenario_class": "scenarios:scenario_class",
    "ScenarioSpec": "engine.scenario_spec:ScenarioSpec",
    "OptionSpec": "engine.options:OptionSpec",
}
__all__ = [*_NAMES, "data_preview", "check_local_copy"]
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)


def data_preview(scenario: str) -> Callable[[str], str] | None:
    """The world's `preview(path) -> str` of a data file, when its spec module has one (the
    stream world's shows the rows, the columns and their types); None otherwise."""
    from scenarios import REGISTRY

    module = REGISTRY.get(scenario)
    hook = getattr(importlib.import_module(module), "preview", None) if module else None
    return hook if callable(hook) else None


def check_local_copy(scenario: str, path: str, flag: str) -> str:
    """`path`, once the world's `local_copy` check has read it (AELError naming `flag` for a bad
    copy, or for a world that declares none): what `ael-lab serve --NAME-data` does at start."""
    from engine.errors import AELError
    from scenarios import spec_of

    copy = spec_of(scenario).local_copy
    if copy is None:
        raise AELError(f"{flag}: {scenario} reads no local copy of its data")
    module, _, function = copy.check.partition(":")
    getattr(importlib.import_module(module), function)(path, flag=flag)
    return path
