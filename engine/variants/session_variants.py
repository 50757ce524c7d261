"""A session's variants: parsing the texts a person types, refusing one that has no
meaning for the scenario, and calling the variants at the session's hooks.

The registry and the `Variant` base are in engine/variants/__init__.py; this module
imports the built-in variants (engine/variants/builtin.py), so every name is
registered before a text is parsed.
"""

from __future__ import annotations

import re
from typing import Any

from .. import plugins as _plugins
from . import builtin as variants_builtin  # noqa: F401  registers the built-in variants
from ..errors import AELError
from ..methods import split_methods
from ..options import parse_settings
from . import VARIANTS, Variant


# an `ael_lab.variants` entry point: NAME = "module:Class", a Variant subclass named NAME
PLUGINS = _plugins.Kind(_plugins.VARIANTS, VARIANTS, "an engine.variants.Variant subclass",
                        _plugins.subclass_of(Variant))
_admit_plugin = PLUGINS.admit
PLUGINS.read()  # variants from other packages, once


def variant_names() -> list[str]:
    return VARIANTS.names()


def variant_help() -> str:
    """One line: every variant as typed, for `--help` and error messages."""
    shown = []
    for name, cls in VARIANTS.items():
        first = cls.options[0] if cls.options else None
        shown.append(f"{name}={'|'.join(first.values)}" if first is not None and first.choices else name)
    return ", ".join(shown)


_TEXT = re.compile(r"^(?P<name>[a-z0-9_-]+)(?:=(?P<value>[^()=,]+))?(?:\((?P<opts>[^()]*)\))?$")


def split_variants(text: str) -> list[str]:
    """'planners,per-tool(k=4,x=1)' -> ['planners', 'per-tool(k=4,x=1)']; AELError for
    unbalanced parentheses (which would otherwise swallow the rest of the text)."""
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth != 0:
        raise AELError(f"--variant: unbalanced parentheses in {text.strip()!r}")
    return split_methods(text)


def parse_variant(text: str) -> Variant:
    """A variant from its text; AELError saying what is accepted."""
    text = text.strip()
    m = _TEXT.match(text)
    cls = VARIANTS.get(m["name"]) if m else None
    if cls is None:
        guess = VARIANTS.closest(m["name"] if m else text)
        rest = text[len(m["name"]):] if m and guess else ""
        hint = f": did you mean {guess + rest!r}? " if guess else " "
        raise AELError(f"unknown variant {text!r}{hint}(accepted: {variant_help()})")
    options: dict[str, Any] = {}
    if m["value"] is not None:
        if not cls.options:
            raise AELError(f"variant {cls.name!r} takes no value (got {text!r})")
        options[cls.options[0].name] = _parse_option(cls, cls.options[0], m["value"])
    options.update(parse_settings(cls.options, m["opts"], f"variant {cls.name}"))
    return cls(**options)


def _parse_option(cls: type[Variant], spec, text: str) -> Any:
    """An option's value; the error names the variant and the option, not a `--flag`
    (a variant's options are not flags of their own)."""
    return spec.parse(text, f"variant {cls.name}: {spec.name}")


def check_variants(texts: list[str] | tuple[str, ...], scenario: str) -> list[Variant]:
    """The variants of `texts` for `scenario`, in order; AELError (one line) for an unknown
    one, one given twice, or one that has no meaning for this scenario."""
    out: list[Variant] = []
    for text in texts:
        v = parse_variant(text)
        if any(o.name == v.name for o in out):
            raise AELError(f"--variant: {v.name} is given twice")
        if v.scenarios and scenario not in v.scenarios:
            where = " and ".join(v.scenarios)
            raise AELError(f"--variant {v.name}: has no meaning for the {scenario} scenario "
                           f"(it applies to {where})")
        out.append(v)
    return out


class Variants:
    """A session's variants, called at the hooks in the order they were given."""

    def __init__(self, texts: list[str] | tuple[str, ...], scenario: str):
        self.items = check_variants(texts, scenario)

    def __bool__(self) -> bool:
        return bool(self.items)

    def get(self, name: str) -> Variant | None:
        return next((v for v in self.items if v.name == name), None)

    @property
    def text(self) -> str:
        return ",".join(v.text for v in self.items)

    def check(self, session: Any) -> None:
        for v in self.items:
            v.check(session)

    def start(self, session: Any) -> None:
        for v in self.items:
            v.start(session)

    def agent_context(self, session: Any, query: Any, ctx: Any) -> None:
        for v in self.items:
            v.agent_context(session, query, ctx)

    def credit(self, session: Any, query: Any, outcome: Any, ctx: Any) -> float:
        reward = outcome.reward
        for v in self.items:
            reward = float(v.credit(session, query, outcome, ctx, reward))
            if not 0.0 <= reward <= 1.0:
                raise AELError(f"variant {v.name}: credited a reward of {reward}, outside [0, 1]")
        return reward

    def learn(self, session: Any, query: Any, outcome: Any, ctx: Any) -> None:
        for v in self.items:
            v.learn(session, query, outcome, ctx)

    def reflected(self, session: Any, reflection: Any) -> Any:
        for v in self.items:
            if reflection is None:
                break
            reflection = v.reflected(session, reflection)
        return reflection

    def state_dict(self) -> dict[str, dict[str, Any]]:
        return {v.name: s for v in self.items if (s := v.state_dict())}

    def load_state_dict(self, state: dict[str, dict[str, Any]] | None) -> None:
        state = state or {}
        unknown = set(state) - {v.name for v in self.items}
        if unknown:
            raise AELError(f"variants: state for {sorted(unknown)[0]!r}, which this session does not run")
        for v in self.items:
            v.load_state_dict(state.get(v.name) or {})
