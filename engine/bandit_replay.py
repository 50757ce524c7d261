"""The paper's counterfactual bandit replay (tab:bandit_replay) on a saved run's trace.

From a run's training phase (warm-up included, as the paper's 128 bars) it
takes, per policy of the initial pool, the bag of rewards that policy earned
on the episodes it played. Each alternative selector is then simulated for
the same horizon: it chooses an arm, draws a reward uniformly from that arm's
bag, learns from it; `runs` simulations per trace, each from its own
generator seeded by the trace's seed, the run's index and the selector's
name (so listing more selectors never changes another's numbers). Beside
them: the selector the run itself used, as realised (the paper's "TS" row is
the realised mean on initial-arm episodes, digest §7), each policy's bag mean
(a single fixed policy) and the oracle, the best bag mean of the trace (the
per-seed hindsight-best fixed policy).

The bags hold the outcome reward (the paper's (s + 1) / 2), also when a
credit variant gave the run's own bandit another one, so runs compare.
Only episodes on the initial pool count: an injected arm has no bag for the
alternatives to draw from. A policy that was never played has an empty bag,
so there is nothing to replay it from, and the replay refuses the trace.

What the replay can tell: on the portfolio the reward is (s + 1) / 2 with s
= clip(z / 2), z the bar's return z-scored against all of the run's returns
so far, so every bag's mean sits near 0.5 whatever its policy does, and so
does any selector that mixes the arms (round-robin, UCB1, the realised run).
Agreement with the paper in those rows says little; the rows that separate
methods are ε-greedy's exploitation and the oracle's best bag, where the
spread between the bags shows (README, the bandit replay).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import AELError
from .methods import parse_method

TRAIN_PHASES = ("warmup", "train")
DEFAULT_RUNS = 50
ORACLE = "oracle"


@dataclass
class Trace:
    """What the replay reads from one saved run."""

    seed: int
    selector: str
    arms: list[str]                       # the initial pool, in pool order
    bags: dict[str, list[float]]          # arm -> rewards it earned in the training phase
    realised: float                       # the run's own mean reward on initial-arm training episodes
    horizon: int                          # training-phase episodes (every arm, injected ones too)
    credited: bool = False                # the run's bandit learnt from a credited reward (credit=...)


@dataclass
class SeedResult:
    seed: int
    simulated: dict[str, list[float]] = field(default_factory=dict)  # selector -> per-run mean reward
    policy_means: dict[str, float] = field(default_factory=dict)
    realised: float = 0.0
    oracle: float = 0.0
    oracle_policy: str = ""


def trace_of(session: dict[str, Any], where: str) -> Trace:
    """The training trace of a validated session document (its "session" part)."""
    injected = {inj["arm"] for inj in session.get("injections", [])}
    arms = [p["name"] for p in session["pool"] if p["name"] not in injected]
    train = [r for r in session["history"] if r["phase"] in TRAIN_PHASES]
    if not train:
        raise AELError(f"{where}: the run has no training episodes yet, so there is nothing to replay")
    bags: dict[str, list[float]] = {a: [] for a in arms}
    for r in train:
        if r["policy"] in bags:
            bags[r["policy"]].append(float(r["reward"]))
    empty = [a for a, bag in bags.items() if not bag]
    if empty:
        raise AELError(f"{where}: policy {empty[0]!r} was never played in the training phase, so it has no "
                       f"rewards to replay from; use a save of a selector that played every initial policy "
                       f"(ts, ts+reflection)")
    played = [x for bag in bags.values() for x in bag]
    variants = session["config"].get("variants") or []
    selector = session["config"]["selector"] + (f" [{','.join(variants)}]" if variants else "")
    return Trace(seed=int(session["config"]["seed"]), selector=selector, arms=arms, bags=bags,
                 realised=float(np.mean(played)), horizon=len(train),
                 credited=any("credited" in r for r in train))


def check_selectors(names: list[str]) -> None:
    """Refuse, in one line, a selector the replay cannot simulate."""
    for name in names:
        if name == ORACLE:
            continue
        method = parse_method(name)
        if method.argument or method.hindsight or method.reflection:
            raise AELError(f"--selector: {name!r} cannot be replayed (a bandit without argument or reflection, "
                           "e.g. rr, egreedy, ucb1, ts, or oracle)")


def simulate(trace: Trace, selector: str, run: int) -> float:
    """One replay run of `selector` on the trace: its mean reward over the horizon."""
    rng = np.random.default_rng([trace.seed, run, zlib.crc32(selector.encode())])
    sel = parse_method(selector).make_selector(trace.arms, (1.0, 1.0))
    bags = [np.asarray(trace.bags[a]) for a in trace.arms]
    total = 0.0
    for _ in range(trace.horizon):
        i = sel.select(rng)
        bag = bags[i]
        reward = float(bag[int(rng.integers(len(bag)))])
        sel.update(i, reward)
        total += reward
    return total / trace.horizon


def replay_trace(trace: Trace, selectors: list[str], runs: int = DEFAULT_RUNS) -> SeedResult:
    out = SeedResult(seed=trace.seed, realised=trace.realised)
    out.policy_means = {a: float(np.mean(b)) for a, b in trace.bags.items()}
    out.oracle_policy = max(trace.arms, key=lambda a: out.policy_means[a])  # first among equals
    out.oracle = out.policy_means[out.oracle_policy]
    for name in selectors:
        if name != ORACLE:
            out.simulated[name] = [simulate(trace, name, k) for k in range(runs)]
    return out


def mean_sd(values: list[float]) -> tuple[float, float | None]:
    """Mean and sample sd (ddof 1, as the paper's table); no sd for a single value."""
    arr = np.asarray(values, dtype=float)
    return float(arr.mean()), (float(arr.std(ddof=1)) if len(arr) > 1 else None)
