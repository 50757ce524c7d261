"""Worlds, methods and variants from other packages, through entry points.

A package declares, in its pyproject.toml,

    [project.entry-points."ael_lab.scenarios"]
    my-world = "my_package.spec"            # a module holding SPEC (an engine ScenarioSpec)

    [project.entry-points."ael_lab.methods"]
    my-method = "my_package.methods:MyMethod"   # an engine.methods.Method subclass

    [project.entry-points."ael_lab.variants"]
    my-variant = "my_package.variants:MyVariant"  # an engine.variants.Variant subclass

and, once installed, appears in `--help`, the start screen and the compare view with
nothing edited here. Each group is read once, when its registry is first used
(`scenarios`' functions, the import of engine/methods.py, of engine/variants/session_variants.py). A
plugin that fails (raises on import, names the wrong thing, takes a built-in name) is left
out with one line in `NOTICES`, which the command line prints on stderr at start-up and
the lab shows as a notification: never a crash.
"""

from __future__ import annotations

from typing import Any, Callable

SCENARIOS = "ael_lab.scenarios"
METHODS = "ael_lab.methods"
VARIANTS = "ael_lab.variants"

NOTICES: list[str] = []  # one line per plugin left out, in the order they were met
_loaded: set[str] = set()


def _entry_points(group: str) -> list[Any]:
    from importlib.metadata import entry_points

    try:
        found = entry_points(group=group)
    except Exception as err:  # noqa: BLE001 - a broken installed distribution must not stop the lab
        NOTICES.append(f"plugins of {group} were not read ({type(err).__name__}: {_short(err)})")
        return []
    seen, out = set(), []
    for ep in sorted(found, key=lambda e: (e.name, e.value)):
        if ep.name in seen:  # the same distribution seen twice on the path
            continue
        seen.add(ep.name)
        out.append(ep)
    return out


def _short(err: BaseException) -> str:
    return " ".join(str(err).split())[:160] or type(err).__name__


def _where(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return f" from {dist.name}" if dist is not None and getattr(dist, "name", None) else ""


def load(group: str, admit: Callable[[Any], None]) -> None:
    """Read `group` once: `admit(entry_point)` registers one plugin, raising to refuse it
    (any exception: it becomes one notice line naming the plugin)."""
    if group in _loaded:
        return
    _loaded.add(group)
    for ep in _entry_points(group):
        try:
            admit(ep)
        except Exception as err:  # noqa: BLE001 - a plugin's own bug, reported, never a crash
            kind = "" if type(err).__name__ == "AELError" else f"{type(err).__name__}: "
            NOTICES.append(f"plugin {ep.name!r} ({group}{_where(ep)}, {ep.value}) was left out: {kind}{_short(err)}")
