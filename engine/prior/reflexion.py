"""Reflexion: a window of verbal self-critiques, the last 20 shown to the agent.

Digest §1 (portfolio hook), §9 and §10. After every learning episode the
critic writes one critique (deterministic from the side information, or an
LLM's sentence with `--reflector`); the agent sees the newest `window` of them
(the window fills, then slides: the oldest falls out). Nothing is scored,
ranked or kept beyond the window. How it differs from AEL: no bandit over how
memory is read, no distillation into rules, no gate: every episode is
critiqued and the critiques are shown as they are.

Degeneracy option: `blind=true` reproduces the released portfolio critic,
which never saw a tool signal (its "Signals" block held only price-history row
counts), so its critiques carry no tool advice.
"""

from __future__ import annotations

from typing import Any

from ..deferred import Deferred
from ..method_base import register_method
from ..options import OptionSpec
from .base import BASE_POLICY, PriorMethod, Shown, Table, label_option


@register_method
class Reflexion(PriorMethod):
    name = "reflexion"
    state_model = Deferred("engine.prior.saved_state", "ReflexionState")  # its saved state, read only with a save
    summary = "Reflexion: a critique after every episode, the last 20 shown to the agent (a sliding window)"
    help = ("Reflexion keeps a sliding window of verbal self-critiques: after every episode the critic writes "
            "what went wrong or right and what to change, and the agent sees the last 20. Unlike AEL it never "
            "chooses how to read memory, never distils rules and never waits for evidence before advising.")
    options = (
        OptionSpec("window", int, 20, "critiques shown (the window's length)", minimum=1, maximum=1000),
        label_option("alpha"),
        OptionSpec("blind", bool, False, "as the released portfolio code: the critic sees no tool signal, so "
                   "critiques carry no tool advice"),
        BASE_POLICY,
    )
    llm_purpose = "prior.reflexion"

    def reset(self) -> None:
        self.critiques: list[dict[str, Any]] = []

    def shown(self, query, t, rng) -> Shown:
        recs = list(self.critiques)
        return Shown(records=recs, weights=[1.0] * len(recs),
                     lines={"rules": [], "lessons": [self.world.record_line(r) for r in recs]})

    def learn(self, record, query, outcome, t) -> None:
        if self.settings["blind"]:
            record = {**record, "blind": True}
        self.critiques.append(record)
        del self.critiques[:-self.settings["window"]]   # the window slides

    def state_dict(self) -> dict[str, Any]:
        return {"critiques": self.critiques}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.critiques = list(state.get("critiques", []))[-self.settings["window"]:]

    def memory_view(self) -> list[Table]:
        rows = [[str(r["episode"]), "✓" if r["success"] else "✗", r["text"]] for r in reversed(self.critiques)]
        return [Table(f"Critique window ({len(self.critiques)}/{self.settings['window']}, newest first)",
                      ["episode", "ok", "critique"], rows)]
