"""Extending AEL Lab: a world, a method, a variant registered (register.py) and checked
(checks.py: each check one pytest case a plugin's suite generates), and the lists every
front end reads of the registries (lists.py). No Textual, no Rich."""

from ael_lab.extend.checks import (Check, ConformanceError, check_method, check_scenario, check_variant,
                                   offering_scenarios, reflecting_selector)
from ael_lab.extend.lists import scenario_availability, selectors_of
from ael_lab.extend.register import register_method, register_scenario, register_variant
from ael_lab.side_by_side import MAX_SELECTORS, build_compare

# register_* and check_* are public as `ael_lab.NAME`; this module's own public names are the lists
# and runs every front end reads (the start screen, the compare view, `ael-lab chart`): docs/api.md
__all__ = ["scenario_availability", "selectors_of", "offering_scenarios", "reflecting_selector",
           "build_compare", "MAX_SELECTORS"]
