"""Whether each initial policy's vote was confident at each ticket (EvoTool's ordered policies).

EvoTool on support plays an ordered list of retrieval policies: the first
member whose vote is confident (a share of at least the policy's vote share)
answers, else the last member's (default) answer stands. The prediction table
keeps routes only, so the flags come from the same indexed votes (about 0.2 s
of CPU per seed), cached per seed.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .bank import N_EPISODES
from .indexed import indexed_predictions
from .policies import INITIAL_POOL


@lru_cache(maxsize=8)
def confidence_table(seed: int) -> np.ndarray:
    """(1200, 5) bool, columns in INITIAL_POOL order: the policy's vote was confident."""
    confident = np.zeros((N_EPISODES, len(INITIAL_POOL)), bool)
    indexed_predictions(int(seed), INITIAL_POOL, N_EPISODES, confident=confident)
    confident.setflags(write=False)
    return confident


def ordered_answer(routes: np.ndarray, confident: np.ndarray, columns: list[int]) -> tuple[int, int]:
    """(route, the member that answered) for one ticket: the first confident member, else the last."""
    for pos, col in enumerate(columns):
        if confident[col]:
            return int(routes[col]), pos
    return int(routes[columns[-1]]), len(columns) - 1
