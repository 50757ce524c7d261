"""The stream world's run state in a save (`StreamScenario.state_dict`): its seed and the
number of rows it was made on, so a save resumes on the same table only (the file's hash
is in the saved options and is checked before the file is read)."""

from __future__ import annotations

from engine.store.schema_types import Count, Strict


class RunState(Strict):
    seed: Count | None = None
    n_episodes: Count | None = None
