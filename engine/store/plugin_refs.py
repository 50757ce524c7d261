"""`"plugins"` in a save: the distributions whose plugins ran in the engine that wrote it
(engine/plugins.py, `loaded()`), by name and version. A save from before this field has
none and reads as an empty list; what it names is shown, never imported."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, TypeAdapter

from .schema_types import Strict

Short = Annotated[str, Field(min_length=1, max_length=200)]


class PluginRef(Strict):
    distribution: Short
    version: Short


PLUGIN_REFS: TypeAdapter = TypeAdapter(Annotated[list[PluginRef], Field(max_length=100)])
