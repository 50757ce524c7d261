"""The method contract itself: the `Method` base class, the registry and the parser
of selector texts. The methods live elsewhere: the built-in ones in
engine/methods.py (the module everyone imports: importing it registers every
method), the prior methods in engine/prior/. A method's module imports this
one, never engine/methods.py, so registering stays free of import cycles.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Sequence

from .bandits import Selector
from .errors import AELError
from .options import OptionSpec, parse_settings, resolve
from .registry import Registry

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
    # the worlds a method offers itself to (a plugin's method cannot edit a world's spec): the lab's
    # selector lists show it there beside the spec's own, and a session elsewhere refuses it unless
    # that world's spec lists it; empty: offered only where a spec lists it, runnable anywhere
    worlds: ClassVar[tuple[str, ...]] = ()
    # the public checks it is known to fail, by name, with why (ael_lab.check_*: they report as xfail)
    expected_failures: ClassVar[dict[str, str]] = {}
    # the pydantic model of `state_dict()` in a save, as `Deferred("module", "Model")` (pydantic is
    # imported only when a save is read); None: the method keeps no state beyond its selector, or
    # checks it in its own `load_state_dict`
    state_model: ClassVar[Any] = None

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

    # The session's hooks for methods with a memory of their own (engine/prior): no-ops here.
    def bind(self, scenario, llm) -> None:
        """Once, when the session is built: the world and the LLM runtime."""

    def advise(self, query, t: int, rng, learning: bool = True) -> Any:
        """Before the agent acts: what the method shows it (AgentContext.prior), or None."""
        return None

    def observe(self, query, outcome, t: int, learning: bool) -> None:
        """After the outcome: the method's own update (nothing when not learning)."""


METHODS: Registry[type[Method]] = Registry("method")
register_method = METHODS.add  # the decorator of a method class: registered under its `name`


def method_names() -> list[str]:
    return METHODS.names()


def offers(spec, method: str) -> bool:
    """Whether the world `spec` describes offers `method` (a bare name): its spec lists it
    (selectors, prior methods) or the method names the world in its `worlds`."""
    cls = METHODS.get(method)
    listed = any(_TEXT.match(t) and _TEXT.match(t)["name"] == method for t in (*spec.selectors, *spec.prior_methods))
    return listed or (cls is not None and spec.name in cls.worlds)


def self_offered(spec) -> list[str]:
    """The registered methods that name this world in their `worlds` and its spec does not list,
    in registration order: what the lab's lists offer beside the spec's own."""
    listed = {_TEXT.match(t)["name"] for t in (*spec.selectors, *spec.prior_methods) if _TEXT.match(t)}
    return [n for n, c in METHODS.items() if spec.name in c.worlds and n not in listed]


def check_offered(method: "Method", spec) -> None:
    """A method that names its worlds runs only there (or where a spec lists it): one line."""
    worlds = type(method).worlds
    if worlds and not offers(spec, method.name):
        raise AELError(f"selector {method.name!r} is offered in {', '.join(worlds)}, not in {spec.name}")


def method_help() -> str:
    """One line: every method as typed, for `--help` and error messages."""
    shown = [f"{n}:{c.argument}" if c.argument else n for n, c in METHODS.items()]
    return ", ".join(shown) + f"; add {REFLECTION} for AEL's reflection"


def unknown_method(text: str, extra: Sequence[str] = ()) -> UnknownMethod:
    """The error for a selector no method is registered under: every name accepted (the
    registry's, and `extra`: a command's "all", a scenario's baselines), with the closest one
    when the text looks like a typo of it (the rest kept as typed: 'reflexon+reflection')."""
    m = _TEXT.match(text)
    if m:  # a well-formed text with an unknown name
        guess = METHODS.closest(m["name"], extra)
        guess = guess and guess + text[len(m["name"]):]
    else:  # 'ts+reflexion'
        guess = METHODS.closest(text, [*extra, *(n + REFLECTION for n, c in METHODS.items() if c.reflects)])
    accepted = ", ".join([*extra, method_help()])
    if guess is None:
        return UnknownMethod(f"unknown selector {text!r} (accepted: {accepted})")
    return UnknownMethod(f"unknown selector {text!r}: did you mean {guess!r}? (accepted: {accepted})")


def offered_help(selectors: list[str] | tuple[str, ...]) -> str:
    """What a scenario offers, as a person types it: its selectors, with the methods
    that take an argument written once with it ('... oracle or fixed:POLICY')."""
    plain = [s for s in selectors if parse_method(s).arg is None]
    general = [f"{n}:{c.argument}" for n, c in METHODS.items() if c.argument]
    return ", ".join(plain) + (" or " + ", ".join(general) if general else "")


_TEXT = re.compile(r"^(?P<name>[a-z0-9_-]+)(?::(?P<arg>[^()+]*))?(?:\((?P<opts>[^()]*)\))?(?P<refl>\+reflection)?$")


def split_methods(text: str) -> list[str]:
    """'ts,egreedy(epsilon=0.2,x=1)' -> ['ts', 'egreedy(epsilon=0.2,x=1)']: commas inside
    an option list do not separate methods. AELError naming the method for a parenthesis
    left open or closed without one (which would otherwise swallow the rest, or all)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            raise AELError(f"')' without '(' in {text[start:].split(',')[0].strip()!r}")
        if ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    if depth > 0:
        raise AELError(f"unclosed parenthesis in {text[start:].strip()!r}")
    return [s for s in out if s]


def parse_method(text: str) -> Method:
    """A method from its text; AELError saying what is accepted."""
    text = text.strip()
    m = _TEXT.match(text)
    cls = METHODS.get(m["name"]) if m else None
    if cls is None:
        raise unknown_method(text)
    arg = m["arg"]
    if cls.argument and not arg:
        raise AELError(f"selector '{cls.name}:' needs a {cls.argument.lower()} name, e.g. {cls.name}:none")
    if arg is not None and not cls.argument:
        raise AELError(f"selector {cls.name!r} takes no argument (got {text!r})")
    if m["refl"] and not cls.reflects:
        raise AELError(f"selector {cls.name!r} cannot run with reflection")
    options = parse_settings(cls.options, m["opts"], f"selector {cls.name}")
    return cls(arg or None, bool(m["refl"]), **options)
