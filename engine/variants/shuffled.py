"""shuffled-reflection: the faithfulness test of the reflection's insights (digest §7, §10).

If the insights help because of what they say, giving each window the insight
diagnosed for another window should hurt. Two passes:

1. at the start, the same session without this variant runs to its end
   offline (approvals automatic) and every reflection that carried an
   insight is kept: its episode, insight, regime label, confidence and
   evidence;
2. the session itself then runs as usual, with the same gate and timing:
   whenever its own reflection carries an insight, the content is replaced by
   that of pass-1 window σ(j), where j is the pass-1 insight window at (or
   last before) this episode and σ is a seeded derangement (no window keeps
   its own). With fewer than two pass-1 insights there is nothing to swap,
   and the insight is withheld (the reflection says so).

σ comes from a generator of its own, seeded by the session's seed and the
variant's `seed`, drawn once and saved: the session's generator is not
touched, so until the first swapped insight the run is the plain run draw for
draw. Policy proposals are left alone (timing and gate unchanged).
"""

from __future__ import annotations

import bisect
import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from ..deferred import Deferred
from ..errors import AELError
from ..options import OptionSpec
from . import Variant, register_variant

if TYPE_CHECKING:
    from ..reflection import Reflection
    from ..session import Session

PAYLOAD = ("insight", "regime_label", "confidence", "evidence")


def derangement(n: int, rng: np.random.Generator) -> list[int]:
    """A uniform permutation of range(n) without fixed points (n >= 2), by rejection."""
    if n < 2:
        raise ValueError("a derangement needs at least two items")
    while True:
        order = rng.permutation(n)
        if not np.any(order == np.arange(n)):
            return [int(i) for i in order]


def first_pass(session: "Session", without: str) -> list[dict[str, Any]]:
    """The insights the same session, without the variant `without`, produces by its end."""
    config = dataclasses.replace(session.config, approval="auto",
                                 variants=[v for v in session.config.variants if not v.startswith(without)])
    scenario = type(session.scenario)(config.seed, **config.scenario_options)  # a fresh world, same stream
    shadow = type(session)(config, scenario)  # the session's own class: no import of engine.session here
    shadow.run()
    return [{"episode": r.episode, **{k: getattr(r, k) for k in PAYLOAD}}
            for r in shadow.reflections if r.insight]


@register_variant
class ShuffledReflection(Variant):
    name = "shuffled-reflection"
    state_model = Deferred("engine.variants.states", "ShuffledReflectionState")  # its saved state, read only with a save
    summary = "each window's insight replaced by another window's (a seeded derangement): the faithfulness test"
    options = (OptionSpec("seed", int, 0, "which derangement (with the session's seed)", minimum=0),)
    # the only world whose agent reads the injected insight (support's and news's act on new arms only)
    scenarios = ("portfolio",)
    help = ("The faithfulness test. A first pass runs the same session without it and keeps "
            "every insight; in the run itself, when a reflection carries an insight, the agent gets instead the "
            "insight (label, confidence, evidence) of another window, chosen by a seeded derangement. When and "
            "whether an insight is injected is unchanged, so a drop against the plain run measures what the "
            "insights' content is worth.")

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.payloads: list[dict[str, Any]] = []
        self.order: list[int] = []
        self.swapped = 0

    def check(self, session: "Session") -> None:
        if not session.reflection_on:
            raise AELError(f"--variant {self.name}: needs a selector with +reflection (there are no insights "
                           f"to shuffle under {session.config.selector})")
        if session.llm.reflector is not None or session.llm.agent is not None:
            raise AELError(f"--variant {self.name}: its first pass is a whole second run, offline only: use the "
                           "offline agent and reflector")

    def start(self, session: "Session") -> None:
        self.payloads = first_pass(session, self.name)
        if len(self.payloads) >= 2:
            rng = np.random.default_rng([session.config.seed, self.settings["seed"], 0x5F1E])
            self.order = derangement(len(self.payloads), rng)

    def reflected(self, session: "Session", reflection: "Reflection") -> "Reflection | None":
        if not reflection.insight:
            return reflection
        if not self.order:
            reflection.insight = ""
            reflection.diagnosis += (" [shuffled-reflection: fewer than two insights in the first pass, "
                                     "so none to swap in: no insight is injected]")
            return reflection
        episodes = [p["episode"] for p in self.payloads]
        j = max(0, bisect.bisect_right(episodes, reflection.episode) - 1)
        source = self.payloads[self.order[j]]
        reflection.insight = source["insight"]
        reflection.regime_label = source["regime_label"]
        reflection.confidence = source["confidence"]
        reflection.evidence = {**source["evidence"], "shuffled_from": source["episode"]}
        reflection.diagnosis += (f" [shuffled-reflection: the insight injected is the one diagnosed for the "
                                 f"window ending at episode {source['episode']}]")
        self.swapped += 1
        return reflection

    def state_dict(self) -> dict[str, Any]:
        if not self.payloads:
            return {}
        return {"payloads": self.payloads, "order": self.order, "swapped": self.swapped}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.payloads = [dict(p) for p in state.get("payloads", [])]
        self.order = list(state.get("order", []))
        self.swapped = int(state.get("swapped", 0))
        if self.order and sorted(self.order) != list(range(len(self.payloads))):
            raise AELError("shuffled-reflection: the saved order is not a permutation of its insights")
