"""Extending AEL Lab: a world, a method, a variant registered (register.py) and checked
(checks.py: each check one pytest case a plugin's suite generates), and the lists every
front end reads of the registries (lists.py). No Textual, no Rich."""

from ael_lab.extend.checks import Check, ConformanceError, check_method, check_scenario, check_variant
from ael_lab.extend.register import register_method, register_scenario, register_variant

__all__ = ["Check", "ConformanceError", "check_method", "check_scenario", "check_variant",
           "register_method", "register_scenario", "register_variant"]
