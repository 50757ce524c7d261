"""The fast loop: selectors that pick an arm (a retrieval policy) per episode.

Arms are named and the pool grows at run time (`add_arm`). Every draw comes
from the generator passed in, which is the session's own; a selector's state
(counts, posteriors) is plain data saved with the session. `frozen` stops
learning, not choosing: a frozen Thompson sampler still samples its fixed
posteriors, as the paper's test phase does.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, ClassVar

import numpy as np

from .errors import AELError


@dataclass
class Arm:
    name: str
    alpha: float = 1.0
    beta: float = 1.0
    pulls: int = 0
    reward_sum: float = 0.0
    added_at: int = 0

    @property
    def mean(self) -> float:
        """Posterior mean α / (α + β)."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def empirical_mean(self) -> float:
        return self.reward_sum / self.pulls if self.pulls else 0.0

    def interval(self, mass: float = 0.9) -> tuple[float, float]:
        """Equal-tailed credible interval of Beta(α, β), by a normal approximation
        clipped to [0, 1] (exact enough for display; no scipy dependency)."""
        a, b = self.alpha, self.beta
        var = a * b / ((a + b) ** 2 * (a + b + 1))
        z = {0.9: 1.6449, 0.95: 1.96}.get(mass, 1.6449)
        half = z * math.sqrt(var)
        return max(0.0, self.mean - half), min(1.0, self.mean + half)


@dataclass
class Selector:
    """Base: a pool of arms, updates, freezing. Subclasses define `choose`."""

    arms: list[Arm] = field(default_factory=list)
    frozen: bool = False
    t: int = 0  # choices made so far
    kind: str = "base"
    # display only, never saved: the draw each arm got at the last choice (Thompson
    # sampling's samples). Reassigned, never mutated, so the class default stays empty.
    last_draws: ClassVar[dict[str, float]] = {}

    def names(self) -> list[str]:
        return [a.name for a in self.arms]

    def add_arm(self, name: str, prior: tuple[float, float] = (1.0, 1.0), episode: int = 0) -> Arm:
        if name in self.names():
            raise AELError(f"an arm named {name!r} is already in the pool")
        arm = Arm(name, float(prior[0]), float(prior[1]), added_at=episode)
        self.arms.append(arm)
        return arm

    def index(self, name: str) -> int:
        for i, a in enumerate(self.arms):
            if a.name == name:
                return i
        raise AELError(f"no arm named {name!r} in the pool ({', '.join(self.names())})")

    def select(self, rng: np.random.Generator, oracle: Callable[[], str] | None = None,
               skip: frozenset[str] = frozenset()) -> int:
        """Choose an arm; arms named in `skip` (quarantined or suspended code
        policies) are not chosen, unless nothing else is left."""
        self._skip = skip if any(a.name not in skip for a in self.arms) else frozenset()
        try:
            i = self.choose(rng, oracle)
        finally:
            self._skip = frozenset()
        self.t += 1
        return i

    def choose(self, rng: np.random.Generator, oracle: Callable[[], str] | None) -> int:
        raise NotImplementedError

    _skip: ClassVar[frozenset[str]] = frozenset()  # set for the length of one `select`; not a field, never saved

    def _open(self) -> list[int]:
        """Indices of the arms that may be chosen now."""
        return [i for i, a in enumerate(self.arms) if a.name not in self._skip]

    def update(self, i: int, reward: float) -> None:
        """Credit arm i with a reward in [0, 1]: α += r, β += 1 − r; no-op when frozen."""
        if self.frozen:
            return
        arm = self.arms[i]
        arm.alpha += reward
        arm.beta += 1.0 - reward
        arm.pulls += 1
        arm.reward_sum += reward

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k != "arms"}
        d["arms"] = [asdict(a) for a in self.arms]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Selector":
        """The selector saved by `to_dict`: the subclass whose `kind` the state names
        (every subclass is loadable, so a method's own selector needs no list here)."""
        kind = d["kind"]
        kinds = {k.kind: k for k in _subclasses(Selector)}
        if kind not in kinds:
            raise AELError(f"unknown selector kind {kind!r} in session file")
        sel = kinds[kind]()
        for k, v in d.items():
            if k != "arms":
                setattr(sel, k, v)
        # saves before the display state moved out of the arms carry `last_sample`: not learning state
        sel.arms = [Arm(**{k: v for k, v in a.items() if k != "last_sample"}) for a in d["arms"]]
        return sel


@dataclass
class ThompsonSampling(Selector):
    """One Beta(α, β) draw per arm in pool order; the first maximum wins."""

    kind: str = "ts"

    def choose(self, rng, oracle):
        # every arm is drawn, a skipped one too, so skipping never shifts the generator
        best, best_i = -1.0, self._open()[0]
        draws = {}
        for i, arm in enumerate(self.arms):
            x = draws[arm.name] = float(rng.beta(arm.alpha, arm.beta))
            if x > best and arm.name not in self._skip:
                best, best_i = x, i
        self.last_draws = draws
        return best_i


@dataclass
class UCB1(Selector):
    """Play each arm once in pool order, then argmax mean + sqrt(2 ln t / n),
    t = choices made so far (the 0-based episode when every episode chooses)."""

    kind: str = "ucb1"

    def choose(self, rng, oracle):
        open_ = self._open()
        for i in open_:
            if self.arms[i].pulls == 0:
                return i
        log_t = math.log(max(self.t, 1))
        scores = [self.arms[i].empirical_mean + math.sqrt(2 * log_t / self.arms[i].pulls) for i in open_]
        return open_[int(np.argmax(scores))]


@dataclass
class EpsilonGreedy(Selector):
    """With probability ε a uniform arm, else the best empirical mean (unplayed
    arms count as 0; ties to the lowest index). One `random()` draw per
    choice, plus one `integers()` draw when exploring."""

    kind: str = "egreedy"
    epsilon: float = 0.1

    def choose(self, rng, oracle):
        open_ = self._open()
        if rng.random() < self.epsilon:
            return open_[int(rng.integers(len(open_)))]
        return open_[int(np.argmax([self.arms[i].empirical_mean for i in open_]))]


@dataclass
class RoundRobin(Selector):
    """Arm t mod (pool size)."""

    kind: str = "rr"

    def choose(self, rng, oracle):
        n = len(self.arms)
        return next(i % n for i in range(self.t, self.t + n) if self.arms[i % n].name not in self._skip)


@dataclass
class FixedPolicy(Selector):
    """Always the named arm."""

    kind: str = "fixed"
    arm_name: str = ""

    def choose(self, rng, oracle):
        return self.index(self.arm_name)


@dataclass
class Oracle(Selector):
    """Hindsight: the arm the scenario names as best for this episode. The session
    puts it in the pool before choosing when it is new (the synthetic hidden arm)."""

    kind: str = "oracle"

    def choose(self, rng, oracle):
        if oracle is None:
            raise AELError("the oracle selector needs a scenario that knows the best arm")
        return self.index(oracle())


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found
