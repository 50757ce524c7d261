"""The session's own random generator, and how its state is saved.

There is exactly one generator per session (never numpy's global one); every
draw of a selector or a scenario comes from it, in a fixed order, so a run is
a pure function of its seed and a saved state resumes the same stream.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np


def make_rng(seed_material: int | list[int]) -> np.random.Generator:
    return np.random.default_rng(seed_material)


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """A JSON-safe copy of the generator's state (PCG64 integers are exact in JSON)."""
    return copy.deepcopy(rng.bit_generator.state)


def restore_rng(state: dict[str, Any]) -> np.random.Generator:
    name = state.get("bit_generator")
    if name != "PCG64":
        from .errors import AELError

        raise AELError(f"unsupported random generator {name!r} in session file (expected PCG64)")
    bitgen = np.random.PCG64()
    bitgen.state = state
    return np.random.Generator(bitgen)
