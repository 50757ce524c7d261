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

Parsing texts and calling a session's variants at the hooks is engine/variants/session_variants.py
(`parse_variant`, `check_variants`, `Variants`), which imports the built-in variants
(engine/variants/builtin.py) so every name is registered first.

What a variant learns is in `state_dict` / `load_state_dict` (JSON), saved under
the session's "variants" key by name and validated on load by the model its
class names in `state_model` (built from `engine.store.schema_types`). Draws come from the
session's generator (`session.rng`), so a run stays exact from its seed. What the lab's
panel of a variant shows is what its `panel_view(session)` returns (engine/variants/panel_views.py):
the lab reads nothing else of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ..options import OptionSpec, resolve
from ..registry import Registry

# The hooks' arguments are the engine's Session, Query, AgentContext, Outcome and Reflection;
# they are named in the signatures only, not imported: those modules import this one.
Session = Query = AgentContext = Outcome = Reflection = Any


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
    planner_rule: Any = None   # a code planner's rule, run in the sandbox (never recorded: `planner` names it)

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

    def planner_features(self) -> tuple[tuple[str, str], ...]:
        """The planners' context features in order, each (name, short column header): the
        context's size, and what the lab's planner table calls its columns."""

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
    # the public checks it is known to fail, by name, with why (ael_lab.check_*: they report as xfail)
    expected_failures: ClassVar[dict[str, str]] = {}
    # the pydantic model of `state_dict()` in a save, as `Deferred("module", "Model")` (pydantic is
    # imported only when a save is read); None: it keeps no state, and a save holding some is refused
    state_model: ClassVar[Any] = None

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
    def check(self, session: Session) -> None:
        """When the session is built: raise AELError (one line) for a setting it cannot run with."""

    def start(self, session: Session) -> None:
        pass

    def agent_context(self, session: Session, query: Query, ctx: AgentContext) -> None:
        pass

    def credit(self, session: Session, query: Query, outcome: Outcome, ctx: AgentContext,
               reward: float) -> float:
        return reward

    def learn(self, session: Session, query: Query, outcome: Outcome, ctx: AgentContext) -> None:
        pass

    def reflected(self, session: Session, reflection: Reflection) -> Reflection | None:
        return reflection

    # ---------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        pass

    # ---------------------------------------------------------------- the lab
    def panel_view(self, session: Session) -> Any:
        """What the lab's panel of this variant shows, as plain data (engine/variants/panel_views.py,
        as a prior method's `memory_view()`); read under the lab's lock, so it only reads. None: no panel."""
        return None


VARIANTS: Registry[type[Variant]] = Registry("variant")
register_variant = VARIANTS.add  # the decorator of a variant class: registered under its `name`
