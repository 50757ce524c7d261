"""Registering a world, a method or a variant from a script, a notebook or a plugin's own
module: the registries' one-line entries (engine/registry.py), named as the public face
names them. A package installed beside AEL Lab registers through entry points instead
(engine/plugins.py: `ael_lab.scenarios`, `ael_lab.methods`, `ael_lab.variants`, and
`ael_lab.panels` for a variant's panel, which only the lab reads)."""

from __future__ import annotations

from typing import TypeVar

import scenarios
from engine.method_base import METHODS, Method
from engine.registry import RegistryError
from engine.variants import VARIANTS, Variant

M = TypeVar("M", bound=type[Method])
V = TypeVar("V", bound=type[Variant])


def register_scenario(name: str, spec_module: str) -> None:
    """A world by its name and the module holding its `SPEC` (imported lazily, when first
    asked: listing worlds never imports a world's data libraries). RegistryError (one line)
    for a bad or taken name."""
    scenarios.register(name, spec_module)


def register_method(cls: M) -> M:
    """A `Method` subclass under its `name` (also a class decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, Method)):
        raise RegistryError(f"register_method takes a Method subclass, not {cls!r}")
    return METHODS.add(cls)


def register_variant(cls: V) -> V:
    """A `Variant` subclass under its `name` (also a class decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, Variant)):
        raise RegistryError(f"register_variant takes a Variant subclass, not {cls!r}")
    return VARIANTS.add(cls)
