"""Typed options: what a scenario, a reflector or a method can be told, declared once.

An `OptionSpec` carries a name, a type, a default, a help line and, where the
value comes from a short list, its choices. The CLI builds its flags from these
declarations, the start screen its fields, and `resolve` checks a dict of given
values against them (unknown names, wrong types, out-of-range values are one
`AELError` naming the option), so no consumer keeps its own list of what a
scenario accepts.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .errors import AELError

KINDS = (str, int, float, bool, list)


def closest(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate `word` looks like a typo of ('reflexon' -> 'reflexion'), or None."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return close[0] if close else None  # list: a list of texts, "a,b,c" on the command line


@dataclass(frozen=True)
class Choice:
    """One offered value and how the start screen labels it."""

    value: str
    label: str


@dataclass(frozen=True)
class OptionSpec:
    """One option. `choices` lists the values offered; `other` (a label, e.g. "a
    folder in the D-full layout") means a typed value outside them is allowed too,
    which the start screen offers as a text field. `expose` puts the option on the
    command line (`--name`, `_` written `-`) and on the start screen; options that
    are not exposed are for code (tests, benchmarks). `label`, `other_label` and
    `example` are the start screen's words for the field, the text field and its
    placeholder."""

    name: str
    kind: type
    default: Any
    help: str
    choices: tuple[Choice, ...] = ()
    other: str = ""
    minimum: float | None = None
    maximum: float | None = None
    expose: bool = False
    label: str = ""
    other_label: str = ""
    example: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise TypeError(f"option {self.name}: kind must be one of {KINDS}, not {self.kind!r}")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(c.value for c in self.choices)

    def parse(self, text: str, label: str | None = None) -> Any:
        """A command-line or form text as a checked value (AELError names `label`, by
        default the flag: an option inside a selector or variant text names its owner)."""
        text, flag = text.strip(), label or self.flag
        if self.kind is list:
            return self.check([x.strip() for x in text.split(",") if x.strip()], flag)
        if self.kind is str:
            return self.check(text, flag)
        if self.kind is bool:
            lowered = text.lower()
            if lowered not in ("true", "false", "yes", "no", "1", "0"):
                raise AELError(f"{flag}: {text!r} is not yes or no")
            return lowered in ("true", "yes", "1")
        try:
            value = self.kind(text)
        except ValueError:
            what = "a whole number" if self.kind is int else "a number"
            raise AELError(f"{flag}: {text!r} is not {what}") from None
        return self.check(value, flag)

    def check(self, value: Any, label: str | None = None) -> Any:
        """`value` if it fits this option, else AELError naming `label` (the option's name)."""
        label = label or self.name
        if value is None:
            return None
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if self.kind is list and isinstance(value, tuple):
            value = list(value)
        if self.kind is list and not all(isinstance(x, str) for x in value if isinstance(value, list)):
            raise AELError(f"{label}: {value!r} is not a list of texts")
        if isinstance(value, bool) != (self.kind is bool) or not isinstance(value, self.kind):
            raise AELError(f"{label}: {value!r} is not {_kind_name(self.kind)}")
        if self.kind is float and not math.isfinite(value):
            raise AELError(f"{label}: {value!r} is not a finite number")
        if self.minimum is not None and value < self.minimum or self.maximum is not None and value > self.maximum:
            raise AELError(f"{label}: {value!r} is outside {_range(self.minimum, self.maximum)}")
        if self.choices and not self.other and value not in self.values:
            raise AELError(f"{label}: {value!r} is not one of {', '.join(self.values)}")
        return value


def _kind_name(kind: type) -> str:
    return {str: "a text", int: "a whole number", float: "a number", bool: "yes or no",
            list: "a list of texts"}[kind]


def _range(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo:g}..{hi:g}"
    return f"at least {lo:g}" if lo is not None else f"at most {hi:g}"


def resolve(specs: Sequence[OptionSpec], given: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """Every declared option with its value: the given one (checked) or the default.
    A name that is not declared is refused, naming `owner` and what it accepts."""
    known = {s.name: s for s in specs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise AELError(f"{owner}: unknown option {unknown[0]!r} (allowed: {allowed})")
    out: dict[str, Any] = {}
    for spec in specs:
        value = given.get(spec.name)
        out[spec.name] = spec.default if value is None else spec.check(value, f"{owner}: {spec.name}")
    return out


def parse_settings(specs: Sequence[OptionSpec], text: str | None, owner: str) -> dict[str, Any]:
    """'a=1,b=x' (the inside of a selector's or variant's parentheses) as checked values of
    `specs`; an error names `owner` ("selector egreedy", "variant credit") and the option."""
    out: dict[str, Any] = {}
    for item in filter(None, (text or "").split(",")):
        key, sep, value = item.partition("=")
        spec = next((o for o in specs if o.name == key.strip()), None)
        if not sep or spec is None:
            allowed = ", ".join(o.name for o in specs) or "none"
            raise AELError(f"{owner}: {item.strip()!r} is not option=value (options: {allowed})")
        out[spec.name] = spec.parse(value, f"{owner}: {spec.name}")
    return out


def defaults(specs: Sequence[OptionSpec]) -> dict[str, Any]:
    return {s.name: s.default for s in specs}
