"""What the news agent answers without evidence (`none` always; any policy whose
retrieval holds nothing similar): the world's `none_fallback` option.

The paper's 20NG section gives no fallback, and its original code has no 20NG part;
"none" there means "retrieve nothing". Each answer below reads no article, only the
groups revealed before episode t, and for the two guesses a topic cluster and a draw:

| name | the answer |
|---|---|
| most_seen (default) | the group seen most often so far |
| last5 | the commonest group of the last 5 revealed (ties: the latest) |
| label_cluster | a uniform guess among the groups of the reflector's regime label's cluster |
| regime_cluster | a uniform guess among the groups of the true regime's cluster |

`regime_cluster` is the paper's most likely reading: its `none` row (0.177) is what a
guess within the current regime's topic cluster scores (0.8 of a regime's articles
are in its cluster, of 4 to 6 groups), and every answer from the revealed groups
alone scores less. It is told the true regime, which no other answer here is (the
stream's design, not the article): `label_cluster` is the same guess on the
reflector's label (the commonest cluster of the last 20 revealed groups), which lags
at each regime change. The guess for episode t is drawn once per stream from its own generator
(`default_rng([seed, 2])`), so every selector on a seed sees the same guesses, the
session's generator is untouched, and the oracle and `none` agree on what `none` says.
Numbers: `ael-lab run news --data ../shared/data/news/20news-bydate.tar.gz --option
none_fallback=NAME --selector fixed:none,oracle --seeds 42,123,456,789,1024`.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # the spec imports this module and stays light: numpy only when a guess is drawn
    import numpy as np

from .corpus import cluster_of

MOST_SEEN, LAST5, LABEL_CLUSTER, REGIME_CLUSTER = "most_seen", "last5", "label_cluster", "regime_cluster"
FALLBACKS = {
    MOST_SEEN: "the group seen most often so far (ours)",
    LAST5: "the commonest of the last 5 revealed groups",
    LABEL_CLUSTER: "a guess within the regime label's topic cluster",
    REGIME_CLUSTER: "a guess within the true regime's topic cluster (the paper's most likely reading)",
}
PAPERS_READING = REGIME_CLUSTER
RECENT = 5


def most_seen(labels: Sequence[str], t: int, default: str) -> str:
    """The class seen most often among the first t articles (ties: the first by name);
    `default` before any."""
    counts = Counter(labels[:t])
    if not counts:
        return default
    best = max(counts.values())
    return min(g for g, n in counts.items() if n == best)


def commonest_recent(labels: Sequence[str], t: int, default: str, window: int = RECENT) -> str:
    """The commonest class of the last `window` revealed (ties: the latest); `default` before any."""
    recent = labels[max(0, t - window):t]
    if not recent:
        return default
    counts = Counter(recent)
    best = max(counts.values())
    return next(g for g in reversed(recent) if counts[g] == best)


@lru_cache(maxsize=64)
def guesses(seed: int, n: int) -> np.ndarray:
    """The stream's uniform draws in [0, 1), one per episode, from its own generator."""
    import numpy as np

    out = np.random.default_rng([int(seed), 2]).random(n)
    out.setflags(write=False)
    return out


def cluster_guess(groups: Sequence[str], label: str, draw: float) -> str:
    """A group of the cluster `label` picked by `draw` in [0, 1) (all groups when the
    label names no cluster, as the reflector's label before any article is revealed)."""
    members = sorted(g for g in groups if cluster_of(g) == label) or sorted(groups)
    return members[min(int(draw * len(members)), len(members) - 1)]
