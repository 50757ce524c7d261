"""What every prior method shares: a `Method` whose own memory advises the agent.

The paper compares AEL with prior self-improving methods (Reflexion, ExpeL,
Meta-Reflexion, EvoTool, FactorMiner, HyperAgent). None of them chooses a
retrieval policy: each keeps its own memory (critiques, lessons, rules,
tool policies, skills, generations) and shows part of it to the agent.
Here each is a registered `Method` (contract 2) whose selector always plays
one base policy (`none` by default, as the reference's baseline harness has no
AEL memory), and whose memory reaches the agent through the session's three
hooks:

- `bind(scenario, llm)` once, when the session is built: the world's adapter
  (`scenario.prior_world()`: the deterministic critic and the agent channel of
  that world, `engine.prior.world.PriorWorld`) and the LLM reflector client,
  when `--reflector` names a model;
- `advise(query, t, rng)` before the agent acts: what the method shows now, as
  a `Shown` the world turns into the agent's channel (portfolio: tool-trust
  multipliers and sector tilts; support: extra weighted votes) and, for an LLM
  agent, prompt lines;
- `observe(query, outcome, t, learning)` after the outcome: the critic's
  record of the episode (the LLM's when a model critiques), and the method's
  own update, unless learning is frozen (the test phase).

Every prior method starts learning at episode 0 (the reference's baselines
had no warm-up) and stops in the test phase, like AEL's memory. Its state
is plain data (`state_dict`), validated on load by the model its class names
in `state_model` (engine/prior/saved_state.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..bandits import FixedPolicy, Selector
from ..errors import AELError
from ..method_base import Method
from ..options import Choice, OptionSpec

# What "success" of an episode means to a method that keeps a success flag:
# the digest's fixes (alpha > 0: the bar beat equal weight; return: r > 0, the
# reference's ExpeL) and the released code's degenerate label (always true).
LABELS = ("alpha", "return", "always")


def label_option(default: str) -> OptionSpec:
    return OptionSpec("label", str, default, "what counts as a success: alpha (beat equal weight; support: "
                      "the route was right), return (r > 0), or always (the released code's degenerate "
                      "always-true label)", choices=tuple(Choice(x, x) for x in LABELS))


BASE_POLICY = OptionSpec("policy", str, "none", "the retrieval policy of AEL's memory the agent also reads "
                         "(none: only the method's own memory, as the reference's baselines)")


@dataclass
class PriorSelector(FixedPolicy):
    """Plays the method's base policy every episode: a prior method does not choose arms."""

    kind: str = "prior"


@dataclass
class Shown:
    """What a method shows the agent for one episode.

    `records`: critic records (critiques, lessons, experiences), each a dict the
    world made (`PriorWorld.record`), in the order shown; `rules`: directives
    (tuples the world defined, e.g. ("trust", tool)); `weights`: a weight per
    record (1 when absent); `lines`: the prompt text an LLM agent reads, as
    {"rules": [...], "lessons": [...]} (the reference's "Learned Rules" and
    "Recent Allocation Lessons"); `extra`: anything a world-specific method adds
    (a policy subset, a skill's policy)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    rules: list[tuple] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    lines: dict[str, list[str]] = field(default_factory=lambda: {"rules": [], "lessons": []})
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Table:
    """One titled table of a method's memory for the lab (`memory_view`)."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""


class PriorMethod(Method):
    """Base of the prior methods. Subclasses implement `shown`, `learn`, `state_dict`,
    `load_state_dict` and `memory_view`; `help` is the lab's paragraph."""

    selector_class = PriorSelector
    reflects = False
    help: ClassVar[str] = ""
    endpoint_keyed: ClassVar[bool] = False   # support: its memory is keyed on the endpoint (the R3 confound)
    llm_purpose: ClassVar[str] = "prior.critique"

    def __init__(self, argument: str | None = None, reflection: bool = False, **options: Any):
        super().__init__(argument, reflection, **options)
        self.world = None
        self.critic = None                    # an LLMClient when a model critiques (--reflector)
        self.last_shown: Shown = Shown()      # display only, rebuilt by the next `advise`
        self.learning = True

    # ------------------------------------------------------------ hooks
    def make_selector(self, arms: list[str], prior: tuple[float, float]) -> Selector:
        sel = PriorSelector()  # the method's options are its own, not the selector's
        for arm in arms:
            sel.add_arm(arm, prior)
        sel.arm_name = self.settings.get("policy", "none")
        if sel.arm_name not in sel.names():  # refused now, not mid-run
            raise AELError(f"selector {self.name}: its base policy {sel.arm_name!r} is not in this world's pool "
                           f"({', '.join(sel.names())}); prior methods run only where a world offers them")
        return sel

    def bind(self, scenario, llm) -> None:
        world = scenario.prior_world()
        if world is None:
            raise AELError(f"selector {self.name}: the {scenario.name} world offers no prior methods")
        self.world = world
        self.critic = llm.reflector if llm is not None else None
        self.reset()

    def advise(self, query, t: int, rng: np.random.Generator, learning: bool = True) -> Shown:
        self.learning = learning  # a method may count uses only while learning (not in test)
        self.last_shown = self.shown(query, t, rng)
        return self.last_shown

    def observe(self, query, outcome, t: int, learning: bool) -> None:
        if not learning:
            return
        record = self.world.record(t, query, outcome, self.settings.get("label", "alpha"))
        record = self.critique(record)
        self.learn(record, query, outcome, t)

    def critique(self, record: dict[str, Any]) -> dict[str, Any]:
        """The record as the LLM critic writes it, when one is configured; the deterministic
        record answers when the model cannot (the client's fallback rule, as AEL's reflector)."""
        if self.critic is None:
            return record
        from .llm_critic import llm_record  # only with a model

        return llm_record(self.critic, self.world, record, self.llm_purpose, self.name)

    # --------------------------------------------------- the method's own
    def reset(self) -> None:
        """Empty memory (called by `bind`)."""

    def shown(self, query, t: int, rng: np.random.Generator) -> Shown:
        raise NotImplementedError

    def learn(self, record: dict[str, Any], query, outcome, t: int) -> None:
        raise NotImplementedError

    def memory_view(self) -> list[Table]:
        return []


def is_prior(method: Method) -> bool:
    return isinstance(method, PriorMethod)
