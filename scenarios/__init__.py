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

from engine import plugins
from engine.errors import AELError
from engine.registry import Registry
from engine.scenario_spec import ScenarioSpec

# a world's entry is the name of its spec module (a lazy entry: `load` imports it for its SPEC)
REGISTRY: Registry[str] = Registry("scenario", [
    ("synthetic", "scenarios.synthetic.spec"),
    ("support", "scenarios.support.spec"),
    ("portfolio", "scenarios.portfolio.spec"),
    ("news", "scenarios.news.spec"),
    ("stream", "scenarios.stream.spec"),
], attr="SPEC")


def _module_of(ep: Any) -> str:
    return ep.value.partition(":")[0].strip()


def _spec_in(ep: Any) -> Any:
    return getattr(importlib.import_module(_module_of(ep)), "SPEC", None)


# an `ael_lab.scenarios` entry point: NAME = "module" (or "module:SPEC") holding a ScenarioSpec named NAME
PLUGINS = plugins.Kind(plugins.SCENARIOS, REGISTRY, "a module holding SPEC (an engine.scenario_spec.ScenarioSpec)",
                       lambda spec: isinstance(spec, ScenarioSpec), imported=_spec_in,
                       entry=lambda ep, spec: _module_of(ep))
_admit_plugin = PLUGINS.admit


def register(name: str, spec_module: str) -> None:
    """Add a scenario from outside this package (a plugin, or a test's own scenario)."""
    REGISTRY.register(name, spec_module)


def unregister(name: str) -> None:
    REGISTRY.unregister(name)


def scenario_names() -> list[str]:
    PLUGINS.read()  # worlds from other packages, read once, lazily
    return REGISTRY.names()


def spec_of(name: str) -> ScenarioSpec:
    """The scenario's typed description; AELError for a name that is not registered."""
    PLUGINS.read()
    spec = REGISTRY.load(name)
    if spec.name != name:
        raise AELError(f"scenario {name!r}: its module describes {spec.name!r}")
    return spec


def all_specs() -> list[ScenarioSpec]:
    PLUGINS.read()
    return [spec_of(name) for name in REGISTRY.names()]


def scenario_class(name: str):
    module, _, cls = spec_of(name).factory.partition(":")
    if REGISTRY[name].startswith("scenarios."):
        return _import_class(name, module, cls)
    # a plugin's world: its prints to stderr, its exit one line
    with plugins.plugin_code(f"scenario {name!r} (a plugin) could not be built"):
        return _import_class(name, module, cls)


def _import_class(name: str, module: str, cls: str):
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as err:
        raise AELError(f"scenario {name!r} is not available in this build ({err})") from err


def make_scenario(name: str, seed: int, options: dict[str, Any] | None = None):
    return scenario_class(name)(seed, **(options or {}))
