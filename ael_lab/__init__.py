"""AEL Lab as a library: one public, Textual-free face for notebooks, scripts and extensions.

    import ael_lab
    s = ael_lab.new("support", seed=42, approval="manual")
    s.run()                        # stops at episode 920: two proposals wait
    s.pending()                    # a DataFrame
    s.approve(1, reason="...").reject(2, reason="...").run()
    s.history(), s.results(), s.chart("arms")

Every public name is in `__all__` (or a public module's) and documented in docs/api.md (stable or provisional);
what is not there is internal and may change. Importing this package loads no Textual
and no Rich module (tests/process/test_library_imports.py), and pandas only when a frame
is asked for. A mistake a caller can make raises `AELError` with one line to act on.
"""

from __future__ import annotations

from engine.errors import AELError

from ael_lab._reexport import lazy_names as _lazy_names

# each imported when first read: the front ends take `AELError` from here on every command,
# and `ael-lab --help` should not pay for a session's numpy (ael_lab/_reexport.py)
_NAMES = {
    "new": "ael_lab.sessions:new", "open": "ael_lab.sessions:open", "Session": "ael_lab.sessions:Session",
    "Explanation": "ael_lab.sessions:Explanation", "scenario_names": "ael_lab.sessions:scenario_names",
    "Chart": "ael_lab.pictures:Chart", "sweep": "ael_lab.sweep",
    **{name: f"ael_lab.extend:{name}" for name in (
        "register_scenario", "register_method", "register_variant", "check_scenario", "check_method",
        "check_variant", "Check", "ConformanceError")},
    # the public modules, so that `import ael_lab` then `ael_lab.store.write_text_atomic` reads as it looks
    **{module: f"ael_lab.{module}" for module in (
        "extend", "drawing", "batch", "sweep_store", "store", "text", "worlds", "llm", "selectors", "registries",
        "runs", "run_events", "review", "variant_views", "host", "replay")},
}
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)

__all__ = [
    # sessions, reading and pictures (docs/api.md)
    "new", "open", "Session", "Explanation", "Chart", "scenario_names", "sweep", "AELError",
    # extending (docs/api.md, "Extending"): registering, and the checks a plugin's suite generates
    "register_scenario", "register_method", "register_variant", "check_scenario", "check_method", "check_variant",
    "Check", "ConformanceError",
]
