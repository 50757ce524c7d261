"""The synthetic world: ten Bernoulli arms whose best arm moves every 52
episodes, and a hidden eleventh arm that is best in the last regime and can
only enter the pool through reflection. Numbers from the paper's table
`tab:synth_regimes`."""

from __future__ import annotations

import numpy as np

N_EPISODES = 208
REGIME_LEN = 52
REGIMES = ["R0", "R1", "R2", "R3"]
HIDDEN_ARM = "a10"
ARMS = [f"a{i}" for i in range(11)]  # a0..a9 in the initial pool, a10 hidden

# success probability [regime, arm]
P = np.array([
    [.30, .35, .65, .40, .45, .30, .25, .30, .35, .40, .30],
    [.25, .30, .35, .30, .35, .40, .30, .65, .35, .30, .30],
    [.65, .30, .35, .30, .30, .35, .30, .30, .40, .35, .30],
    [.30, .35, .30, .30, .35, .65, .30, .30, .35, .40, .70],
])


def regime_of(t: int) -> int:
    return min(t // REGIME_LEN, len(REGIMES) - 1)


def best_arm(regime: int) -> str:
    """The best arm of a regime, the hidden arm included (ties: lowest index)."""
    return ARMS[int(np.argmax(P[regime]))]
