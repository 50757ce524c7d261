"""credit=uniform|fcc|llm-fcc: the bandit credited with the memory's share of each outcome.

The formulas are in engine/credit.py. The world replays a bar over the 8
coalitions of planner, tools and memory and gives each module's structural
evidence (`CreditWorld`, which the portfolio implements: its allocator is
deterministic, so the counterfactuals are exact). LLM-FCC asks the session's
model (the reflector's, else the agent's) through the LLM layer; offline, or
when the call fails, the digest's offline formula answers.

Learning only: in the test phase the bandit is frozen, so nothing is computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..deferred import Deferred
from .. import credit as cr
from ..errors import AELError
from ..options import Choice, OptionSpec
from . import Variant, register_variant
from .panel_views import CreditView

if TYPE_CHECKING:
    from ..scenario import AgentContext
    from ..session import Session

MODES = ("uniform", "fcc", "llm-fcc")
LLM_SCHEMA: dict[str, Any] = {
    "type": "object", "required": list(cr.MODULES), "additionalProperties": False,
    "properties": {m: {"type": "number", "minimum": -1, "maximum": 1} for m in cr.MODULES},
}
LLM_SYSTEM = ("You assign the credit for one trading bar's outcome to the three modules of an agent: its planner "
              "(how it combined the signals), its tools (the signals) and its memory (what it retrieved). Reply "
              'only with {"planner": x, "tools": x, "memory": x}, each in [-1, 1]: positive when the module '
              "helped the outcome, negative when it hurt, 0 when it made no difference.")


class CreditWorld(Protocol):
    """What a world offers credit assignment (the portfolio: scenarios/portfolio/credit_replay.py)."""

    def holdings(self) -> np.ndarray: ...

    def credit_inputs(self, t: int, ctx: "AgentContext", held: np.ndarray) -> dict[str, Any]:
        """{"values": {frozenset: v(S)} over the 8 coalitions, "structural": {module: [-1, 1]},
        "prompt": [lines for a model]}."""


@register_variant
class Credit(Variant):
    name = "credit"
    state_model = Deferred("engine.variants.states", "CreditState")  # its saved state, read only with a save
    summary = "the bandit credited with the memory's share of the outcome: uniform, FCC (Shapley) or LLM-FCC"
    options = (OptionSpec("mode", str, "fcc", "how the outcome is shared: uniform, fcc or llm-fcc",
                          choices=tuple(Choice(m, m) for m in MODES)),)
    scenarios = ("portfolio",)
    help = ("The retrieval-policy bandit is credited with memory's share of each bar, not the whole "
            "outcome. uniform gives each of planner, tools and memory a third; fcc combines each module's own "
            "evidence (0.2), what replacing it by its baseline costs (0.3) and its exact Shapley value over the 8 "
            "coalitions (0.5), all replayed by the deterministic allocator (baselines: the sequential planner, "
            "the core tools, no memory); llm-fcc asks the model for the credits (0.8, beside 0.2 evidence), "
            "offline the Shapley value rounded to 0.05. The memory's credit g becomes the reward (1 + g) / 2.")

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.mode = self.settings["mode"]
        self.n = 0
        self.sums = {m: 0.0 for m in cr.MODULES}
        self.last: dict[str, dict[str, float]] = {}
        self.last_values: dict[str, float] = {}
        self.last_episode = -1
        self.source = ""
        self.fallbacks = 0
        self._held: np.ndarray | None = None

    def check(self, session: "Session") -> None:
        if self.mode != "uniform" and session.llm.agent is not None:
            raise AELError(f"--variant credit={self.mode}: its counterfactuals replay the offline allocator, which "
                           "a model agent is not (each bar would need 7 more model calls); use the offline agent "
                           "(a model may still be the reflector), or credit=uniform")

    def agent_context(self, session: "Session", query, ctx) -> None:
        # the holdings before the bar: the replay in `credit` runs after the bar was played
        self._held = None if session.frozen or self.mode == "uniform" else session.scenario.holdings()

    def credit(self, session: "Session", query, outcome, ctx, reward: float) -> float:
        if session.frozen:
            return reward
        if self.mode == "uniform":
            parts = {m: {"combined": c} for m, c in cr.uniform_credit(reward).items()}
            self.last_values, self.source = {}, "uniform"
        else:
            inputs = session.scenario.credit_inputs(query.episode, ctx, self._held)
            parts = cr.fcc_credit(inputs["structural"], inputs["values"])
            self.last_values = {cr.label(s): float(v) for s, v in inputs["values"].items()}
            self.source = "replay"
            if self.mode == "llm-fcc":
                model = self._model_credit(session, inputs)
                for m, c in cr.llm_fcc_credit(inputs["structural"], model).items():
                    parts[m] = {**parts[m], "model": model[m], "combined": c}
        self.last = {m: {k: float(v) for k, v in p.items()} for m, p in parts.items()}
        self.last_episode = query.episode
        self.n += 1
        for m in cr.MODULES:
            self.sums[m] += parts[m]["combined"]
        return cr.memory_reward({m: p["combined"] for m, p in parts.items()})

    def _model_credit(self, session: "Session", inputs: dict[str, Any]) -> dict[str, float]:
        client = session.llm.reflector or session.llm.agent
        if client is None:
            self.source = "offline formula"
            return cr.offline_llm_credit(inputs["values"])
        messages = [{"role": "system", "content": LLM_SYSTEM},
                    {"role": "user", "content": "\n".join(inputs["prompt"])}]
        result = client.complete_json(messages, LLM_SCHEMA, purpose="credit.llm-fcc",
                                      fallback=lambda _m, _s: dict(inputs["structural"]))
        if result.fallback:
            self.fallbacks += 1
        self.source = "fallback: structural" if result.fallback else "llm"
        return {m: cr.clip1(result.data[m]) for m in cr.MODULES}

    def means(self) -> dict[str, float]:
        """Each module's mean credit over the episodes credited so far."""
        return {m: (s / self.n if self.n else 0.0) for m, s in self.sums.items()}

    def panel_view(self, session: "Session") -> CreditView:
        """The last credited bar's parts per module, each module's mean so far, the coalitions' values."""
        return CreditView(self.mode, self.last_episode, self.source,
                          {m: dict(self.last.get(m, {})) for m in cr.MODULES}, self.means(),
                          dict(self.last_values), self.n, self.fallbacks)

    # ---------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        if not self.n:
            return {}
        return {"n": self.n, "sums": dict(self.sums), "last": self.last, "last_values": self.last_values,
                "last_episode": self.last_episode, "source": self.source, "fallbacks": self.fallbacks}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.n = int(state.get("n", 0))
        self.sums = {m: float(state.get("sums", {}).get(m, 0.0)) for m in cr.MODULES}
        self.last = {m: dict(p) for m, p in state.get("last", {}).items()}
        self.last_values = dict(state.get("last_values", {}))
        self.last_episode = int(state.get("last_episode", -1))
        self.source = str(state.get("source", ""))
        self.fallbacks = int(state.get("fallbacks", 0))
