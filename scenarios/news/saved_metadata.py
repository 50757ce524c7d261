"""What this scenario's memory entries must carry in a save (checked on load).

The predictor votes with an article's `label` and `regime_filtered` filters on
its `regime_label`; a save without them, or with other types, would load and
then fail mid-run. Tier -> pydantic model of an entry's metadata (extra fields
allowed); see `Scenario.memory_metadata`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from engine.store.schema_types import Count, Strict
from engine.store.session_schema import Name, Open


class Article(Open):
    label: Name
    regime_label: Name
    subject: Annotated[str, Field(max_length=200)] = ""


MEMORY_METADATA = {"episodic": Article}


class RunState(Strict):
    """The news world's run state in a save (`NewsScenario.state_dict`): its seed and the corpus's
    size, so a save resumes on the same articles only."""
    seed: Count | None = None
    articles: Count | None = None
