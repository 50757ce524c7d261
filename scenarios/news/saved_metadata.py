"""What this scenario's memory entries must carry in a save (checked on load).

The predictor votes with an article's `label` and `regime_filtered` filters on
its `regime_label`; a save without them, or with other types, would load and
then fail mid-run. Tier -> pydantic model of an entry's metadata (extra fields
allowed); see `Scenario.memory_metadata`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from engine.session_schema import Name, Open


class Article(Open):
    label: Name
    regime_label: Name
    subject: Annotated[str, Field(max_length=200)] = ""


MEMORY_METADATA = {"episodic": Article}
