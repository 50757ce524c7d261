"""The urns' run state in a save: imported only when a save is read or written."""
from typing import Annotated

from pydantic import Field

from engine.store.schema_types import Count, Strict


class UrnState(Strict):
    red: Annotated[list[Count], Field(min_length=3, max_length=3)]
    blue: Annotated[list[Count], Field(min_length=3, max_length=3)]
