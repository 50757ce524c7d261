"""The one registry type (worlds, methods, variants, the lab's panels) and the plugins other
packages add to them through entry points: the lab's own group of panels, the switch that
turns plugins off, and what was loaded or left out (docs/api.md, "For the front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    "Registry": "engine.registry:Registry",
    "RegistryError": "engine.registry:RegistryError",
    "PluginKind": "engine.plugins:Kind",
    "PANELS_GROUP": "engine.plugins:PANELS",
    "PLUGINS_OFF": "engine.plugins:OFF",
    "PLUGIN_NOTICES": "engine.plugins:NOTICES",
    "loaded_plugins": "engine.plugins:loaded",
    "loaded_plugins_line": "engine.plugins:loaded_line",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
