"""Every way of choosing and learning, registered by name: the method contract.

A method is one class registered with `@register_method`: a name, a one-line
summary, typed options (`OptionSpec`), whether it takes an argument (the policy
of `fixed:POLICY`) and whether AEL's reflection may run on top of it
(`NAME+reflection`). A session asks its method for the selector that picks an
arm each episode, and for the reflector when reflection is on; what the method
learns is in that selector's fields (saved with the session, restored by
`Selector.from_dict`) and, for methods that keep more (the prior methods' own
memories), in `state_dict` / `load_state_dict`, saved under the session's
"method" key when not empty.

The selector text a person types, and a session config stores, is
`NAME[:ARGUMENT][(option=value,...)][+reflection]`, e.g. `ts+reflection`,
`fixed:none`, `egreedy(epsilon=0.05)`. The CLI, the start screen and the compare
view list `method_names()` and `method_help()`; a scenario's spec says which of
them it offers.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from .bandits import EpsilonGreedy, FixedPolicy, Oracle, RoundRobin, Selector, ThompsonSampling, UCB1
from .errors import AELError
from .options import OptionSpec, resolve

REFLECTION = "+reflection"


class UnknownMethod(AELError):
    """A selector text that names no registered method (a caller may say what its scenario offers)."""


class Method:
    """Base of every method. Subclasses set the class attributes and `selector_class`;
    a method with learning state beyond its selector overrides `state_dict`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    selector_class: ClassVar[type[Selector]]
    options: ClassVar[tuple[OptionSpec, ...]] = ()
    argument: ClassVar[str] = ""        # e.g. "POLICY": the method needs `NAME:POLICY`
    reflects: ClassVar[bool] = True     # may run with `+reflection`
    hindsight: ClassVar[bool] = False   # chooses from the scenario's best arm of each episode (`oracle_arm`)
    injects_arms: ClassVar[bool] = True  # with reflection: may a proposed policy become a new arm?

    def __init__(self, argument: str | None = None, reflection: bool = False, **options: Any):
        self.arg = argument
        self.reflection = reflection
        self.settings = resolve(self.options, options, f"selector {self.name}")

    @property
    def text(self) -> str:
        """The method as typed: parse_method(m.text) gives the same method."""
        arg = f":{self.arg}" if self.arg else ""
        given = [f"{o.name}={self.settings[o.name]}" for o in self.options if self.settings[o.name] != o.default]
        return f"{self.name}{arg}{'(' + ','.join(given) + ')' if given else ''}{REFLECTION if self.reflection else ''}"

    def make_selector(self, arms: list[str], prior: tuple[float, float]) -> Selector:
        sel = self.selector_class(**self.settings)
        for arm in arms:
            sel.add_arm(arm, prior)
        return sel

    def make_reflector(self, scenario, reflector_options: dict[str, Any]):
        """AEL's slow loop: the scenario's reflector, when reflection is on."""
        return scenario.make_reflector(reflector_options) if self.reflection else None

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass


METHODS: dict[str, type[Method]] = {}


def register_method(cls: type[Method]) -> type[Method]:
    if cls.name in METHODS and METHODS[cls.name] is not cls:
        raise ValueError(f"a method named {cls.name!r} is already registered")
    METHODS[cls.name] = cls
    return cls


def method_names() -> list[str]:
    return list(METHODS)


def method_help() -> str:
    """One line: every method as typed, for `--help` and error messages."""
    shown = [f"{n}:{c.argument}" if c.argument else n for n, c in METHODS.items()]
    return ", ".join(shown) + f"; add {REFLECTION} for AEL's reflection"


def offered_help(selectors: list[str] | tuple[str, ...]) -> str:
    """What a scenario offers, as a person types it: its selectors, with the methods
    that take an argument written once with it ('... oracle or fixed:POLICY')."""
    plain = [s for s in selectors if parse_method(s).arg is None]
    general = [f"{n}:{c.argument}" for n, c in METHODS.items() if c.argument]
    return ", ".join(plain) + (" or " + ", ".join(general) if general else "")


_TEXT = re.compile(r"^(?P<name>[a-z0-9_-]+)(?::(?P<arg>[^()+]*))?(?:\((?P<opts>[^()]*)\))?(?P<refl>\+reflection)?$")


def split_methods(text: str) -> list[str]:
    """'ts,egreedy(epsilon=0.2,x=1)' -> ['ts', 'egreedy(epsilon=0.2,x=1)']: commas inside
    an option list do not separate methods."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    return [s for s in out if s]


def parse_method(text: str) -> Method:
    """A method from its text; AELError saying what is accepted."""
    text = text.strip()
    m = _TEXT.match(text)
    cls = METHODS.get(m["name"]) if m else None
    if cls is None:
        raise UnknownMethod(f"unknown selector {text!r} (expected {method_help()})")
    arg = m["arg"]
    if cls.argument and not arg:
        raise AELError(f"selector '{cls.name}:' needs a {cls.argument.lower()} name, e.g. {cls.name}:none")
    if arg is not None and not cls.argument:
        raise AELError(f"selector {cls.name!r} takes no argument (got {text!r})")
    if m["refl"] and not cls.reflects:
        raise AELError(f"selector {cls.name!r} cannot run with reflection")
    options: dict[str, Any] = {}
    for item in filter(None, (m["opts"] or "").split(",")):
        key, sep, value = item.partition("=")
        spec = next((o for o in cls.options if o.name == key.strip()), None)
        if not sep or spec is None:
            allowed = ", ".join(o.name for o in cls.options) or "none"
            raise AELError(f"selector {cls.name}: {item.strip()!r} is not option=value (options: {allowed})")
        options[spec.name] = spec.parse(value)
    return cls(arg or None, bool(m["refl"]), **options)


# ------------------------------------------------------------------ the built-in methods
@register_method
class TS(Method):
    name = "ts"
    summary = "Thompson sampling: one Beta draw per arm, the highest plays (the paper's bandit)"
    selector_class = ThompsonSampling


@register_method
class UCB(Method):
    name = "ucb1"
    summary = "UCB1: each arm once, then the best mean plus an exploration bonus"
    selector_class = UCB1


@register_method
class EGreedy(Method):
    name = "egreedy"
    summary = "epsilon-greedy: a random arm with probability epsilon, else the best mean"
    selector_class = EpsilonGreedy
    options = (OptionSpec("epsilon", float, 0.1, "the share of random choices", minimum=0.0, maximum=1.0),)


@register_method
class RR(Method):
    name = "rr"
    summary = "round-robin: every arm in turn"
    selector_class = RoundRobin


@register_method
class Fixed(Method):
    name = "fixed"
    summary = ("one policy every episode; with +reflection the insights are applied and no arm is injected "
               "(the paper's single fixed policy with reflection)")
    selector_class = FixedPolicy
    argument = "POLICY"
    # the bandit is bypassed, so a proposed arm could never play: reflection here is insights only
    injects_arms = False

    def make_selector(self, arms: list[str], prior: tuple[float, float]) -> Selector:
        sel = super().make_selector(arms, prior)
        sel.arm_name = self.arg or ""
        sel.index(sel.arm_name)  # refuses an unknown policy now, not mid-run
        return sel


@register_method
class OracleMethod(Method):
    name = "oracle"
    summary = "hindsight: the best arm of each episode, which the scenario names"
    selector_class = Oracle
    hindsight = True
