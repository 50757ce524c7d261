"""The numbers behind the pictures, from plain lists (no session, no widget): which arm
played in each column of an arm-over-time strip, cumulative reward and regret, mean
reward or accuracy per regime. `reads.py` gets these lists from a session; the widgets
and the SVG writer draw what these functions return, so the tests check them by hand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class StripCell:
    """One column of the strip: episodes [start, end) and the arm played most among those
    played (None: none played yet); `share` is that arm's fraction of them."""

    column: int
    start: int
    end: int
    arm: str | None
    share: float


def column_span(column: int, columns: int, n: int) -> tuple[int, int]:
    """The episodes [start, end) column `column` of `columns` stands for on an x axis of
    `n` episodes: a bucket of about n/columns of them, or one episode (repeated over
    neighbouring columns) when the run is shorter than the width."""
    start = column * n // columns
    end = max(start + 1, (column + 1) * n // columns)
    return start, min(end, max(n, 1))


def strip_cells(policies: Sequence[str], n: int, columns: int) -> list[StripCell]:
    """The strip of a run of `n` episodes (of which `policies` were played, in order) over
    `columns` cells. A bucket's arm is its most played one, a tie going to the arm that
    played first in the run. Counted in numpy: a strip is redrawn as the run goes."""
    n = max(n, len(policies))
    if columns <= 0 or n == 0:
        return []
    code = {a: i for i, a in enumerate(dict.fromkeys(policies))}  # arms in order of first play
    names = list(code)
    codes = np.fromiter(map(code.__getitem__, policies), dtype=np.int64, count=len(policies))
    spans = [column_span(c, columns, n) for c in range(columns)]
    counts = np.zeros((columns, max(len(names), 1)), dtype=np.int64)
    if len(policies):
        if n >= columns:  # buckets partition the episodes: each played one counts in its column
            col = ((np.arange(len(policies)) + 1) * columns - 1) // n
            np.add.at(counts, (col, codes), 1)
        else:             # one episode a column
            for c, (start, _) in enumerate(spans):
                if start < len(policies):
                    counts[c, codes[start]] = 1
    totals, best = counts.sum(axis=1), counts.argmax(axis=1)
    return [StripCell(c, start, end, names[best[c]] if totals[c] else None,
                      float(counts[c, best[c]] / totals[c]) if totals[c] else 0.0)
            for c, (start, end) in enumerate(spans)]


def column_of(episode: int, n: int, columns: int) -> int:
    """The strip column holding `episode` (its first one when an episode spans several):
    the inverse of `column_span`."""
    if n <= 0 or columns <= 0:
        return 0
    if n < columns:
        c = (episode * columns + n - 1) // n            # the first c with c*n//columns == episode
    else:
        c = ((episode + 1) * columns - 1) // n          # the last c with c*n//columns <= episode
    return min(columns - 1, max(0, c))


def cumulative(values: Sequence[float]) -> np.ndarray:
    """The running sum: element t is the sum of values[0..t]."""
    return np.cumsum(np.asarray(values, dtype=float))


@dataclass(frozen=True)
class Reference:
    """What regret is measured against, and how to say so: the oracle's reward episode by
    episode, or one constant (the best arm's observed mean, when no oracle ran)."""

    label: str                              # in full (an SVG's title)
    short: str                              # where room is short (the terminal chart's title)
    per_episode: np.ndarray | None = None
    constant: float | None = None
    # each arm's mean over the run as known now: an episode's regret is the best mean minus the
    # played arm's (never below 0), so a lucky draw is no negative regret and going back moves nothing
    arm_means: dict[str, float] | None = None


def best_arm_in_hindsight(policies: Sequence[str], rewards: Sequence[float],
                          min_pulls: int = 5) -> tuple[str, float, int] | None:
    """(arm, its mean reward, its plays) of the arm with the best observed mean among those
    played at least `min_pulls` times (all played arms if none was): a one-lucky-pull arm
    is no yardstick. Ties go to the arm played first. None before any episode."""
    sums: dict[str, list[float]] = {}
    for arm, r in zip(policies, rewards):
        sums.setdefault(arm, []).append(float(r))
    if not sums:
        return None
    enough = {a: v for a, v in sums.items() if len(v) >= min_pulls} or sums
    arm = max(enough, key=lambda a: (float(np.mean(enough[a])), -list(sums).index(a)))
    return arm, float(np.mean(enough[arm])), len(enough[arm])


def hindsight_reference(policies: Sequence[str], rewards: Sequence[float]) -> Reference | None:
    """The best arm in hindsight among those that played at least one episode in 20 (and 5):
    an arm admitted late with a handful of lucky plays would make every earlier episode
    look like a loss against a yardstick nobody could have played."""
    best = best_arm_in_hindsight(policies, rewards, min_pulls=max(5, len(policies) // 20))
    if best is None:
        return None
    arm, mean, plays = best
    sums: dict[str, list[float]] = {}
    for a, r in zip(policies, rewards):
        sums.setdefault(a, []).append(float(r))
    means = {a: float(np.mean(v)) for a, v in sums.items()}
    return Reference(f"vs the best arm in hindsight: {arm}'s observed mean {mean:.2f} over its {plays} plays, "
                     "each episode the played arm's mean short of it (no oracle run)",
                     f"vs best arm ({arm} {mean:.2f}; no oracle)", constant=mean, arm_means=means)


def regret(rewards: Sequence[float], reference: Reference, policies: Sequence[str] | None = None) -> np.ndarray:
    """Cumulative regret: the running sum of (reference's reward − played reward), over the
    episodes both have (an oracle run may be behind or ahead). Against the best arm in
    hindsight (`arm_means`, and the arms `policies` played), the running sum of how far the
    played arm's mean falls short of the best one's: never negative, a draw's luck aside."""
    r = np.asarray(rewards, dtype=float)
    if reference.per_episode is not None:
        k = min(len(r), len(reference.per_episode))
        return np.cumsum(np.asarray(reference.per_episode[:k], dtype=float) - r[:k])
    best = reference.constant or 0.0
    if reference.arm_means is not None and policies is not None:
        # an arm the yardstick's run never played (none, when it is the run as known now): no gap known
        return np.cumsum([max(0.0, best - reference.arm_means.get(p, best)) for p in policies[:len(r)]])
    return np.cumsum(best - r)


@dataclass(frozen=True)
class RegimeMean:
    regime: str
    mean: float
    episodes: int


def regime_means(values: Sequence[float], regimes: Sequence[object], names: Sequence[str]) -> list[RegimeMean]:
    """Mean of `values` per true regime: the scenario's regimes in its order (those seen),
    then any other label in order of first appearance; episodes without a regime are
    left out. A regime index the scenario does not name is shown as its number."""
    groups: dict[object, list[float]] = {}
    for v, g in zip(values, regimes):
        if g is not None:
            groups.setdefault(g, []).append(float(v))

    def named(g: object) -> bool:
        return isinstance(g, int) and 0 <= g < len(names)

    order = sorted((g for g in groups if named(g)), key=int) + [g for g in groups if not named(g)]  # type: ignore[arg-type]
    return [RegimeMean(names[g] if named(g) else str(g), float(np.mean(groups[g])), len(groups[g]))  # type: ignore[index]
            for g in order]
