"""The worlds the method runs in, by name: one registry line per scenario.

A line names the module holding the scenario's `SPEC` (an
`engine.scenario_spec.ScenarioSpec`): light, so the CLI's flags, `--help` and
the start screen are built without loading any scenario's data libraries. The
scenario class itself (`SPEC.factory`) is imported only when one is built.
How to add a scenario: `scenarios/README.md`. Another package adds one with an
entry point in the group `ael_lab.scenarios` (engine/plugins.py), read the first time
the registry is asked.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.errors import AELError
from engine.scenario_spec import ScenarioSpec

REGISTRY: dict[str, str] = {
    "synthetic": "scenarios.synthetic.spec",
    "support": "scenarios.support.spec",
    "portfolio": "scenarios.portfolio.spec",
    "news": "scenarios.news.spec",
    "stream": "scenarios.stream.spec",
}


def _admit_plugin(ep) -> None:
    """One `ael_lab.scenarios` entry point: NAME = "module" (or "module:SPEC") holding a ScenarioSpec."""
    if ep.name in REGISTRY:
        raise AELError(f"the scenario name {ep.name!r} is taken")
    module = ep.value.partition(":")[0].strip()
    spec = getattr(importlib.import_module(module), "SPEC", None)
    if not isinstance(spec, ScenarioSpec):
        raise AELError(f"{module} has no SPEC (an engine.scenario_spec.ScenarioSpec)")
    if spec.name != ep.name:
        raise AELError(f"{module} describes {spec.name!r}, not {ep.name!r}")
    REGISTRY[ep.name] = module


def _plugins() -> None:
    """Worlds from other packages (entry points in `ael_lab.scenarios`), read once, lazily."""
    from engine import plugins

    plugins.load(plugins.SCENARIOS, _admit_plugin)


def register(name: str, spec_module: str) -> None:
    """Add a scenario from outside this package (a plugin, or a test's own scenario)."""
    REGISTRY[name] = spec_module


def unregister(name: str) -> None:
    REGISTRY.pop(name, None)


def scenario_names() -> list[str]:
    _plugins()
    return list(REGISTRY)


def spec_of(name: str) -> ScenarioSpec:
    """The scenario's typed description; AELError for a name that is not registered."""
    _plugins()
    if name not in REGISTRY:
        raise AELError(f"unknown scenario {name!r} (expected one of {', '.join(REGISTRY)})")
    spec = importlib.import_module(REGISTRY[name]).SPEC
    if spec.name != name:
        raise AELError(f"scenario {name!r}: its module describes {spec.name!r}")
    return spec


def all_specs() -> list[ScenarioSpec]:
    _plugins()
    return [spec_of(name) for name in list(REGISTRY)]


def scenario_class(name: str):
    module, _, cls = spec_of(name).factory.partition(":")
    if REGISTRY[name].startswith("scenarios."):
        return _import_class(name, module, cls)
    from engine.plugins import plugin_code  # a plugin's world: its prints to stderr, its exit one line

    with plugin_code(f"scenario {name!r} (a plugin) could not be built"):
        return _import_class(name, module, cls)


def _import_class(name: str, module: str, cls: str):
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as err:
        raise AELError(f"scenario {name!r} is not available in this build ({err})") from err


def make_scenario(name: str, seed: int, options: dict[str, Any] | None = None):
    return scenario_class(name)(seed, **(options or {}))
