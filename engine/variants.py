"""Extensions and ablations of the method, registered by name: the variant contract.

A variant changes one part of what AEL does (what the agent sees, how it weighs
tools, what reflection produces, the reward the bandit is credited) and composes
with any selector: `ael-lab run portfolio --selector ts+reflection --variant
planners,per-tool`. Like a method (engine/methods.py) it is one class registered
with `@register_variant`: a name, a one-line summary, typed options, and the
scenarios where it means something (elsewhere it is refused with one line).

Text as typed and stored in `SessionConfig.variants`: `NAME`, `NAME=VALUE` (the
variant's first option, e.g. `credit=fcc`) or `NAME(option=value,...)`.

The session calls its variants at five named hooks, in the order the variants
were given; a variant overrides only those it needs (the base does nothing).
Besides them, `check(session)` runs once when a session is built (new or loaded)
and refuses a setting the variant cannot run with (AELError, one line).

  start(session)                        a new session, before episode 0 (not after a load:
                                        the state it set up is restored instead)
  agent_context(session, query, ctx)    before the agent acts: may change what it sees
                                        (`ctx.view`: the tools shown, per-tool priors, the
                                        planner, notes; `ctx.rules`, `ctx.insight`)
  credit(session, query, outcome, ctx, reward) -> reward
                                        the reward the bandit is credited for this episode
  learn(session, query, outcome, ctx)   after the bandit's update: the variant's own learning
                                        (a variant checks `session.frozen` itself: test freezes it)
  reflected(session, reflection) -> reflection | None
                                        after a reflection, before its proposals are made: may
                                        change what it produces (None: it produced nothing)

What a variant learns is in `state_dict` / `load_state_dict` (JSON), saved under
the session's "variants" key by name and validated on load by the model its
name maps to in `engine.session_schema.VARIANT_STATES`. Draws come from the
session's generator (`session.rng`), so a run stays exact from its seed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from .errors import AELError
from .options import OptionSpec, resolve

if TYPE_CHECKING:
    from .reflection import Reflection
    from .scenario import AgentContext, Outcome, Query
    from .session import Session


@dataclass
class AgentView:
    """What variants say about the agent's inputs for one episode; a scenario that
    reads tools honours it (the portfolio's allocator), others never see one.

    tools:       the tools whose signals the agent sees, None = all of them; () = none.
    tool_prior:  per tool, extra (right, wrong) pseudo-counts of its reliability prior.
    planner:     the planner rule that turns tool signals into a view per ticker
                 (None: the agent's own, `sequential`).
    notes:       lines shown to the agent besides memory (skills, playbooks).
    """

    tools: tuple[str, ...] | None = None
    tool_prior: dict[str, tuple[float, float]] = field(default_factory=dict)
    planner: str | None = None
    notes: list[str] = field(default_factory=list)

    def shown(self, tools: tuple[str, ...] | list[str]) -> list[str]:
        return list(tools) if self.tools is None else [t for t in tools if t in self.tools]

    def record(self) -> dict[str, Any]:
        """What the episode's history keeps of the view: only what variants changed."""
        return {**({"tools": list(self.tools)} if self.tools is not None else {}),
                **({"planner": self.planner} if self.planner else {}),
                **({"notes": len(self.notes)} if self.notes else {})}


class ToolWorld(Protocol):
    """What a scenario whose agent reads tools offers the tool and planner variants
    (the portfolio implements it; the variants that need it declare only such scenarios)."""

    def tool_names(self) -> tuple[str, ...]: ...

    def tool_verdicts(self, t: int) -> tuple[Any, Any]:
        """(calls (n_tickers, n_tools) of +1/0/-1, realised (n_tickers,) next-bar directions) of bar t."""

    def tools_available(self, t: int) -> list[str]:
        """The tools with a reading for at least one ticker at bar t (static data may have none)."""

    def tool_ratings(self) -> dict[str, int]:
        """The offline cold-start rating (1-5) of every tool."""

    def planner_names(self) -> tuple[str, ...]: ...

    def planner_ratings(self, tool_ratings: dict[str, int]) -> dict[str, int]: ...

    def planner_context_size(self) -> int: ...

    def planner_context(self, t: int) -> list[float]:
        """The planners' LinUCB context at bar t, from what the agent knows before acting."""

    def counter_planner(self, misled: list[str], have: list[str]) -> str | None:
        """The library planner that counters tools that misled the agent (None: none fits)."""


class Variant:
    """Base of every variant: the hooks do nothing; subclasses override what they need."""

    name: ClassVar[str]
    summary: ClassVar[str]
    options: ClassVar[tuple[OptionSpec, ...]] = ()
    scenarios: ClassVar[tuple[str, ...]] = ()   # where it has a meaning; empty = everywhere
    help: ClassVar[str] = ""                     # a paragraph for the lab's help and the README

    def __init__(self, **options: Any):
        self.settings = resolve(self.options, options, f"variant {self.name}")

    @property
    def text(self) -> str:
        """The variant as typed: parse_variant(v.text) gives the same variant."""
        given = [f"{o.name}={self.settings[o.name]}" for o in self.options if self.settings[o.name] != o.default]
        if len(given) == 1 and given[0].startswith(self.options[0].name + "="):
            return f"{self.name}={self.settings[self.options[0].name]}"
        return self.name + (f"({','.join(given)})" if given else "")

    # ---------------------------------------------------------------- hooks
    def check(self, session: "Session") -> None:
        """When the session is built: raise AELError (one line) for a setting it cannot run with."""

    def start(self, session: "Session") -> None:
        pass

    def agent_context(self, session: "Session", query: "Query", ctx: "AgentContext") -> None:
        pass

    def credit(self, session: "Session", query: "Query", outcome: "Outcome", ctx: "AgentContext",
               reward: float) -> float:
        return reward

    def learn(self, session: "Session", query: "Query", outcome: "Outcome", ctx: "AgentContext") -> None:
        pass

    def reflected(self, session: "Session", reflection: "Reflection") -> "Reflection | None":
        return reflection

    # ---------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass


VARIANTS: dict[str, type[Variant]] = {}


def register_variant(cls: type[Variant]) -> type[Variant]:
    if cls.name in VARIANTS and VARIANTS[cls.name] is not cls:
        raise ValueError(f"a variant named {cls.name!r} is already registered")
    VARIANTS[cls.name] = cls
    return cls


def _load_builtins() -> None:
    """The variants shipped with the lab register themselves when imported."""
    from . import variants_builtin  # noqa: F401


def variant_names() -> list[str]:
    _load_builtins()
    return list(VARIANTS)


def variant_help() -> str:
    """One line: every variant as typed, for `--help` and error messages."""
    _load_builtins()
    shown = []
    for name, cls in VARIANTS.items():
        first = cls.options[0] if cls.options else None
        shown.append(f"{name}={'|'.join(first.values)}" if first is not None and first.choices else name)
    return ", ".join(shown)


_TEXT = re.compile(r"^(?P<name>[a-z0-9_-]+)(?:=(?P<value>[^()=,]+))?(?:\((?P<opts>[^()]*)\))?$")


def split_variants(text: str) -> list[str]:
    """'planners,per-tool(k=4,x=1)' -> ['planners', 'per-tool(k=4,x=1)']."""
    from .methods import split_methods

    return split_methods(text)


def parse_variant(text: str) -> Variant:
    """A variant from its text; AELError saying what is accepted."""
    _load_builtins()
    text = text.strip()
    m = _TEXT.match(text)
    cls = VARIANTS.get(m["name"]) if m else None
    if cls is None:
        raise AELError(f"unknown variant {text!r} (expected {variant_help()})")
    options: dict[str, Any] = {}
    if m["value"] is not None:
        if not cls.options:
            raise AELError(f"variant {cls.name!r} takes no value (got {text!r})")
        options[cls.options[0].name] = cls.options[0].parse(m["value"])
    for item in filter(None, (m["opts"] or "").split(",")):
        key, sep, value = item.partition("=")
        spec = next((o for o in cls.options if o.name == key.strip()), None)
        if not sep or spec is None:
            allowed = ", ".join(o.name for o in cls.options) or "none"
            raise AELError(f"variant {cls.name}: {item.strip()!r} is not option=value (options: {allowed})")
        options[spec.name] = spec.parse(value)
    return cls(**options)


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

    def check(self, session: "Session") -> None:
        for v in self.items:
            v.check(session)

    def start(self, session: "Session") -> None:
        for v in self.items:
            v.start(session)

    def agent_context(self, session: "Session", query: "Query", ctx: "AgentContext") -> None:
        for v in self.items:
            v.agent_context(session, query, ctx)

    def credit(self, session: "Session", query: "Query", outcome: "Outcome", ctx: "AgentContext") -> float:
        reward = outcome.reward
        for v in self.items:
            reward = float(v.credit(session, query, outcome, ctx, reward))
            if not 0.0 <= reward <= 1.0:
                raise AELError(f"variant {v.name}: credited a reward of {reward}, outside [0, 1]")
        return reward

    def learn(self, session: "Session", query: "Query", outcome: "Outcome", ctx: "AgentContext") -> None:
        for v in self.items:
            v.learn(session, query, outcome, ctx)

    def reflected(self, session: "Session", reflection: "Reflection") -> "Reflection | None":
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
