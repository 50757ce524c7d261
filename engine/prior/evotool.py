"""EvoTool as a registered prior method: a population of tool policies evolved by blame and mutation.

The mechanism is `tool_population.py` (world-independent, digest §5, §9, §10);
the world supplies the universe of members, the blame of a failure and how
the chosen policy reaches the agent (`evotool_space`, `evotool_blame`;
`Shown.extra["members"]`: the portfolio masks the tools the agent reads,
support answers with the first confident policy of the ordered list). One
policy is chosen per episode, in test too (the released code kept sampling);
learning stops in test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..deferred import Deferred
from ..method_base import register_method
from ..options import OptionSpec
from .base import BASE_POLICY, PriorMethod, Shown, Table, label_option
from .tool_population import EvoToolConfig, Population

@register_method
class EvoTool(PriorMethod):
    name = "evotool"
    state_model = Deferred("engine.prior.saved_state", "EvoToolState")  # its saved state, read only with a save
    summary = "EvoTool: 5 tool policies evolved by fitness, blame and mutation; one chosen per episode"
    help = ("EvoTool keeps a population of 5 tool policies (portfolio: which of the 12 tools' signals the agent "
            "reads; support: an ordered list of retrieval policies, the first confident one answering). Each "
            "episode one is chosen in proportion to its fitness (an average of its successes); on a failure the "
            "members that were wrong themselves are blamed, and once the worst policy has been tried 3 times it "
            "is replaced by a mutant of the best without the blamed members. Unlike AEL it evolves which tools "
            "or policies answer, not how memory is read, and keeps no memory of episodes at all.")
    options = (
        OptionSpec("population", int, 5, "tool policies in the population", minimum=2, maximum=50),
        OptionSpec("min_evals", int, 3, "evaluations before the worst policy may be replaced", minimum=1),
        OptionSpec("p_add", float, 0.5, "probability that a mutant gains a member", minimum=0.0, maximum=1.0),
        OptionSpec("p_swap", float, 0.3, "probability that a mutant swaps two members", minimum=0.0, maximum=1.0),
        label_option("alpha"),
        OptionSpec("as_code", bool, False, "as the released code: every episode counts as correct (nothing is "
                   "blamed, fitness only rises) and an unevaluated worst policy blocks replacement"),
        BASE_POLICY,
    )

    def reset(self) -> None:
        self.space = self.world.evotool_space()
        s = self.settings
        self.config = EvoToolConfig(tuple(self.space["universe"]), s["population"], tuple(self.space["init_size"]),
                                    self.space["min_size"], s["p_add"], s["p_swap"], min_evals=s["min_evals"],
                                    as_code=s["as_code"] or s["label"] == "always")
        self.population: Population | None = None   # drawn at the first episode (from the session's generator)
        self._rng: np.random.Generator | None = None

    def shown(self, query, t, rng) -> Shown:
        self._rng = rng   # the session's generator: mutations in `learn` draw from it too
        if self.population is None:
            self.population = Population.initial(self.config, rng)
        slot = self.population.choose(rng)
        pol = self.population.policies[slot]
        line = f"Active tool policy (fitness={pol.fitness:.2f}): {', '.join(pol.members)}"
        return Shown(lines={"rules": [line], "lessons": []},
                     extra={**self.world.evotool_channel(pol.members, t), "members": list(pol.members), "slot": slot})

    def learn(self, record, query, outcome, t) -> None:
        pop = self.population
        slot = pop.chosen
        members = pop.policies[slot].members
        blamed = [] if record["success"] else self.world.evotool_blame(t, outcome, members)
        pop.update(slot, bool(record["success"]), blamed, t, self._rng)

    def state_dict(self) -> dict[str, Any]:
        return {"population": self.population.state_dict()} if self.population is not None else {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        saved = state.get("population")
        self.population = Population.from_state_dict(self.config, saved) if saved else None

    def memory_view(self) -> list[Table]:
        pop = self.population
        if pop is None:
            return [Table("Tool policies (drawn at the first episode)", ["", "slot", "fitness", "evals", "born",
                                                                       "members"], [])]
        rows = [["▶" if i == pop.chosen else "", str(i), f"{p.fitness:.2f}", str(p.n_evals),
                 "initial" if p.born < 0 else str(p.born), ", ".join(p.members)] for i, p in enumerate(pop.policies)]
        muts = [[str(m.episode), f"{m.slot}←{m.parent}", ", ".join(m.dropped) or "–", ", ".join(m.added) or "–",
                 " ↔ ".join(m.swapped) or "–", f"{m.replaced_fitness:.2f}→{m.fitness:.2f}", ", ".join(m.members)]
                for m in reversed(pop.mutations)]
        blamed = f"; blamed last: {', '.join(pop.last_blamed)}" if pop.last_blamed else ""
        return [Table(f"Tool policies ({pop.n_blames} failures blamed members{blamed}; ▶ chosen now)",
                      ["", "slot", "fitness", "evals", "born", "members"], rows),
                Table(f"Mutations ({pop.n_mutations}, newest first)",
                      ["episode", "slot←parent", "dropped", "added", "swapped", "fitness", "members"], muts)]
