"""When a reflector looks: the one gate that every scenario's reflector configures.

At a slow-window boundary the session asks the reflector whether this window is
worth a reflection; the reflector asks its `ReflectionGate`, which answers with a
`Verdict`: open or not, and one sentence saying why. The open sentence is the one
a reflection's diagnosis quotes ("accuracy 0.512 over episodes 800–919 is below
0.58"), so what the gate measured and what the person reads are the same numbers.

The rules, in the order they are tried (a rule the reflector leaves out always passes):
1. cadence: only when (episode + 1) % cadence == 0;
2. pending: not while the reflector's last proposal waits (`proposed` marks it);
3. cool-down: not before `cooldown_until`, which `rejected` sets `cooldown` episodes
   after a rejection, so the next look is on evidence that came after it;
4. candidate: not once what it would propose is in the pool (the reflector says how
   it compares policies: by name, by fingerprint, by behaviour);
5. check day (the paper's portfolio rule): only on days d >= first with d % every == 0,
   d counting `cadence`-episode days after warm-up;
6. metric: only while the trailing metric is below `threshold`.

The gate's state is its two marks; a reflector saves them under its own keys
(`proposed_at`, `cooldown_until`), so sessions saved before the gate still load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar

import numpy as np

from .policies import PolicySpec
from .reflection import ReflectionContext, ReflectorBase

if TYPE_CHECKING:
    from .scenario_spec import ScenarioSpec


@dataclass(frozen=True)
class Reading:
    """One measurement of a gate's metric: the value over `n` items (None when there were none)."""
    value: float | None
    n: int
    below: bool
    why: str


@dataclass(frozen=True)
class Verdict:
    open: bool
    why: str                     # one sentence: what let the reflector look, or what held it back
    rule: str = ""               # the rule that closed the gate ("" when open)
    value: float | None = None   # the metric, once measured
    day: int | None = None       # the check day, under the check-day rule

    def __bool__(self) -> bool:
        return self.open


def is_correct(record: dict[str, Any]) -> bool:
    c = record.get("correct")
    return bool(c) if c is not None else float(record.get("reward", 0.0)) >= 0.5


def _trailing(ctx: ReflectionContext, window: int) -> list[dict[str, Any]]:
    """The records of episodes t−window+1..t (by episode number, not position)."""
    return [r for r in ctx.history if ctx.episode - window < r["episode"] <= ctx.episode]


@dataclass(frozen=True)
class TrailingAccuracy:
    """The share of correct episodes in the trailing window ("correct", else reward >= 0.5)."""

    def read(self, ctx: ReflectionContext, window: int, threshold: float) -> Reading:
        recs = _trailing(ctx, window)
        if not recs:
            return Reading(None, 0, False, "no episodes in the trailing window yet")
        acc = sum(is_correct(r) for r in recs) / len(recs)
        t = ctx.episode
        below = acc < threshold
        return Reading(acc, len(recs), below, f"accuracy {acc:.3f} over episodes {max(0, t - window + 1)}–{t} is "
                                              f"{'below' if below else 'not below'} {threshold:.2f}")


@dataclass(frozen=True)
class TrailingReward:
    """The mean reward of the trailing window."""

    def read(self, ctx: ReflectionContext, window: int, threshold: float) -> Reading:
        rewards = [r["reward"] for r in _trailing(ctx, window)]
        if not rewards:
            return Reading(None, 0, False, "no episodes in the trailing window yet")
        mean = sum(rewards) / len(rewards)
        below = mean < threshold
        return Reading(mean, len(rewards), below,
                       f"trailing-{len(rewards)} mean reward {mean:.3f} {'<' if below else '>='} {threshold}")


@dataclass(frozen=True)
class MeanPosterior:
    """The mean over the bandit's arms of each posterior mean alpha / (alpha + beta) (the paper's
    portfolio gate; the window does not apply)."""

    def read(self, ctx: ReflectionContext, window: int, threshold: float) -> Reading:
        if not ctx.posteriors:
            return Reading(None, 0, False, "no arms to read a posterior from")
        mean = float(np.mean([p["mean"] for p in ctx.posteriors]))
        below = mean < threshold
        return Reading(mean, len(ctx.posteriors), below, f"the mean posterior over {len(ctx.posteriors)} arms is "
                                                         f"{mean:.3f} {'<' if below else '>='} {threshold:.2f}")


Metric = TrailingAccuracy | TrailingReward | MeanPosterior


@dataclass(frozen=True)
class CheckDays:
    """The paper's portfolio rule: look only on days d >= first with d % every == 0."""
    first: int = 10
    every: int = 5

    def day(self, ctx: ReflectionContext, cadence: int) -> int:
        """Day d after warm-up that episode t ends (1 on the first post-warm-up day)."""
        return math.ceil(sum(1 for r in ctx.history if r["phase"] != "warmup") / cadence)

    def holds(self, d: int) -> bool:
        return d >= self.first and d % self.every == 0


@dataclass
class ReflectionGate:
    cadence: int = 1                    # look when (episode + 1) % cadence == 0
    cooldown: int = 0                   # episodes without a look after a rejection
    metric: Metric | None = None        # None: no bar on a trailing metric
    window: int = 1                     # the metric's trailing window, in episodes
    threshold: float = 0.0              # look only while the metric is below it
    check_days: CheckDays | None = None
    proposed_at: int | None = None      # the episode after the proposal that waits
    cooldown_until: int | None = None   # no look before this episode (a proposal was rejected)

    def due(self, episode: int) -> bool:
        return (episode + 1) % self.cadence == 0

    def next_due(self, episode: int) -> int:
        """The first episode from `episode` on at which the cadence lets the reflector look."""
        return episode + (-(episode + 1)) % self.cadence

    def cooling(self, episode: int) -> bool:
        return self.cooldown_until is not None and episode < self.cooldown_until

    def proposed(self, episode: int) -> None:
        """A proposal was made after `episode`: no look until it is decided."""
        self.proposed_at = episode + 1

    def rejected(self, episode: int, withdrawn: bool = True) -> None:
        """A proposal was rejected after `episode`: cool down, then look on fresh evidence.
        `withdrawn` False keeps the pending mark (the portfolio's rejected insight leaves its
        policy proposal standing)."""
        if withdrawn:
            self.proposed_at = None
        self.cooldown_until = episode + 1 + self.cooldown

    def read(self, ctx: ReflectionContext) -> Reading:
        if self.metric is None:
            raise ValueError("this gate has no metric to read")
        return self.metric.read(ctx, self.window, self.threshold)

    def check(self, ctx: ReflectionContext,
              holds_candidate: Callable[[list[PolicySpec]], bool] | None = None) -> Verdict:
        t = ctx.episode
        if not self.due(t):
            return Verdict(False, f"episode {t} does not end a {self.cadence}-episode window", "cadence")
        if self.proposed_at is not None:
            return Verdict(False, f"the proposal made after episode {self.proposed_at - 1} still waits", "pending")
        if self.cooling(t):
            return Verdict(False, f"a proposal was rejected: cool-down until episode {self.cooldown_until}",
                           "cool-down")
        if holds_candidate is not None and holds_candidate(ctx.pool):
            return Verdict(False, "what it would propose is already in the pool", "candidate")
        reading = self.read(ctx) if self.metric is not None else None
        value = reading.value if reading else None
        day = self.check_days.day(ctx, self.cadence) if self.check_days else None
        if self.check_days and not self.check_days.holds(day):
            return Verdict(False, f"day {day} is not a check day (d >= {self.check_days.first} and "
                                  f"d % {self.check_days.every} == 0)", "check day", value, day)
        if reading is None:
            return Verdict(True, f"episode {t} ends a {self.cadence}-episode window and nothing holds "
                                 "the reflector back", day=day)
        return Verdict(reading.below, reading.why, "" if reading.below else "metric", value, day)


class GatedReflector(ReflectorBase):
    """`should_reflect`, `rejected` and the two saved marks of a reflector whose `gate` decides.
    A reflector with a fixed candidate says how to find it in the pool (`holds_candidate`)."""

    gate: ReflectionGate

    def holds_candidate(self, pool: list[PolicySpec]) -> bool:
        return False

    def should_reflect(self, ctx: ReflectionContext) -> bool:
        return self.gate.check(ctx, self.holds_candidate).open

    def rejected(self, kind: str, episode: int) -> None:
        self.gate.rejected(episode)

    def _configure(self, gate: ReflectionGate) -> None:
        """Set a gate built from (possibly changed) settings, keeping the marks of the one before."""
        old = self.__dict__.get("gate")
        if old is not None:
            gate.proposed_at, gate.cooldown_until = old.proposed_at, old.cooldown_until
        self.gate = gate

    @property
    def proposed_at(self) -> int | None:
        return self.gate.proposed_at

    @proposed_at.setter
    def proposed_at(self, value: int | None) -> None:
        self.gate.proposed_at = value

    @property
    def cooldown_until(self) -> int | None:
        return self.gate.cooldown_until

    @cooldown_until.setter
    def cooldown_until(self, value: int | None) -> None:
        self.gate.cooldown_until = value


@dataclass
class DeclaredReflector(GatedReflector):
    """A gated reflector whose settings are the reflector options its world's spec declares.

    The subclass names its `SPEC`; every option the spec declares (trigger, cadence, window,
    threshold: `scenario_spec.reflection_options`) is a field here, defaulted and checked by
    its `OptionSpec` (a bad value is one AELError naming it), so a world states its defaults
    once, in its spec. The gate is the trailing accuracy with a cool-down of three cadences
    unless the subclass builds another (`make_gate`). The saved state is the settings, the
    gate's two marks and the subclass's `SAVED` fields; loading sets what the state holds
    and settles again, so a save made before a setting existed still loads.
    """

    SPEC: ClassVar["ScenarioSpec"]
    SAVED: ClassVar[tuple[str, ...]] = ()   # the subclass's own fields kept in the save
    COOLDOWN_CADENCES: ClassVar[int] = 3    # a rejection: look again after three slow windows
    # each option's long name (the session's key, the flag without its dashes), in errors and accepted
    # by from_options beside the short one
    LONG_NAMES: ClassVar[dict[str, str]] = {"trigger": "reflect_trigger", "cadence": "reflect_every",
                                            "window": "reflect_window", "threshold": "reflect_threshold"}

    trigger: str | None = None
    cadence: int | None = None
    window: int | None = None
    threshold: float | None = None
    gate: ReflectionGate = field(init=False, repr=False)  # with the marks proposed_at and cooldown_until

    def __post_init__(self) -> None:
        for option in self.SPEC.reflector:
            value = getattr(self, option.name, None)
            setattr(self, option.name, option.check(option.default if value is None else value,
                                                    self.LONG_NAMES.get(option.name, option.name)))
        self._configure(self.make_gate())

    def make_gate(self) -> ReflectionGate:
        return ReflectionGate(cadence=self.cadence, cooldown=self.COOLDOWN_CADENCES * self.cadence,
                              metric=TrailingAccuracy(), window=self.window, threshold=self.threshold)

    def slow_window_failures(self, ctx: ReflectionContext) -> tuple[int, list[int]]:
        """The slow window just completed (its first episode) and its failed episodes, in order:
        what a diagnosis replays its candidates on."""
        t = ctx.episode
        start = t - self.cadence + 1
        return start, sorted(r["episode"] for r in ctx.history if start <= r["episode"] <= t and not is_correct(r))

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> "DeclaredReflector":
        """The options the spec declares, by their short or long names (missing or None: the
        default); other keys belong to the session and are ignored."""
        given = {short: options[long] for short, long in cls.LONG_NAMES.items() if options.get(long) is not None}
        given.update({k: v for k, v in options.items() if v is not None})
        return cls(**cls.SPEC.reflector_settings(given))

    def state_dict(self) -> dict[str, Any]:
        state = {option.name: getattr(self, option.name) for option in self.SPEC.reflector}
        for key in self.SAVED:
            value = getattr(self, key)
            state[key] = list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
        state.update(proposed_at=self.proposed_at, cooldown_until=self.cooldown_until)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        known = self.state_dict()
        for key, value in state.items():
            if key in known:
                setattr(self, key, list(value) if isinstance(value, list) else value)
        self.__post_init__()
