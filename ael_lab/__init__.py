"""AEL Lab as a library: one public, Textual-free face for notebooks, scripts and extensions.

    import ael_lab
    s = ael_lab.new("support", seed=42, approval="manual")
    s.run()                        # stops at episode 920: two proposals wait
    s.pending()                    # a DataFrame
    s.approve(1, reason="...").reject(2, reason="...").run()
    s.history(), s.results(), s.chart("arms")

Every public name is in `__all__` and documented in docs/api.md (stable or provisional);
what is not there is internal and may change. Importing this package loads no Textual
and no Rich module (tests/process/test_library_imports.py), and pandas only when a frame
is asked for. A mistake a caller can make raises `AELError` with one line to act on.
"""

from __future__ import annotations

from engine.errors import AELError

from ael_lab import sweep
from ael_lab.extend import (Check, ConformanceError, check_method, check_scenario, check_variant, register_method,
                            register_scenario, register_variant)
from ael_lab.pictures import Chart
from ael_lab.sessions import Explanation, Session, new, open, scenario_names

__all__ = [
    # sessions, reading and pictures (docs/api.md)
    "new", "open", "Session", "Explanation", "Chart", "scenario_names", "sweep", "AELError",
    # extending (docs/api.md, "Extending"): registering, and the checks a plugin's suite generates
    "register_scenario", "register_method", "register_variant", "check_scenario", "check_method", "check_variant",
    "Check", "ConformanceError",
]
