"""FactorMiner as a registered prior method: skills whose success rates move both ways, and experiences.

The mechanism is `skill_book.py` (world-independent, digest §3, §9, §10); the
world decides what a skill is keyed on, what it advises and how an episode
updates it (`factorminer_shown`, `factorminer_learn`): the portfolio keys a
skill on the tools the allocation leaned on and trusts the best skills'
tools; support keys it on endpoint@label and plays its policy (else
compressed), with the last same-endpoint experiences as extra votes.
"""

from __future__ import annotations

from typing import Any

from ..deferred import Deferred
from ..method_base import register_method
from ..options import OptionSpec
from .base import BASE_POLICY, PriorMethod, Shown, Table, label_option
from .skill_book import FactorMinerConfig, SkillBook

@register_method
class FactorMiner(PriorMethod):
    name = "factorminer"
    state_model = Deferred("engine.prior.saved_state", "FactorMinerState")  # its saved state, read only with a save
    summary = "FactorMiner: up to 15 skills whose success rates move both ways, 200 experiences"
    help = ("FactorMiner keeps skills and experiences. A skill is what worked together (portfolio: the up to 4 "
            "tools the allocation leaned on; support: the retrieval policy that solved tickets of an endpoint "
            "under the last window's label) with a success rate that rises after a success and falls after a "
            "failure; at most 15, the worst evicted. Skills at 50% or better advise the agent (portfolio: "
            "trust their tools; support: play the skill's policy, else compressed), and the last experiences "
            "are shown too. Unlike AEL nothing chooses between ways of reading memory, and a skill's key is "
            "fixed by the world, not proposed by a reflection.")
    endpoint_keyed = True
    options = (
        OptionSpec("max_skills", int, 15, "skills kept", minimum=1, maximum=1000),
        OptionSpec("max_experiences", int, 200, "experiences kept (first in, first out)", minimum=1,
                   maximum=100_000),
        OptionSpec("threshold", float, 0.5, "success rate a skill needs to be used", minimum=0.0, maximum=1.0),
        label_option("alpha"),
        OptionSpec("as_code", bool, False, "as the released code: every episode counts as correct, so success "
                   "rates never fall"),
        BASE_POLICY,
    )

    def reset(self) -> None:
        s = self.settings
        self.config = FactorMinerConfig(s["max_skills"], s["max_experiences"], s["threshold"],
                                        s["as_code"] or s["label"] == "always")
        self.book = SkillBook(self.config)

    def shown(self, query, t, rng) -> Shown:
        return self.world.factorminer_shown(self.book, query, t)

    def learn(self, record, query, outcome, t) -> None:
        self.world.factorminer_learn(self.book, record, query, outcome, t, self.last_shown)

    def state_dict(self) -> dict[str, Any]:
        return {"book": self.book.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.book = SkillBook.from_state_dict(self.config, state["book"]) if state.get("book") else \
            SkillBook(self.config)

    def memory_view(self) -> list[Table]:
        b, used = self.book, self.last_shown.extra.get("skills", [])
        rows = [["▶" if s.key in used else "", s.key, ", ".join(s.value), f"{s.success:.2f}", str(s.n),
                 f"{s.wins}/{s.losses}", str(s.created)] for s in b.ranked()]
        exps = [[str(e.episode), e.key, e.predicted, e.actual, "✓" if e.correct else "✗"]
                for e in reversed(b.recent(20))]
        return [Table(f"Skills ({len(b.skills)}/{b.config.max_skills}, {b.evicted} evicted; best first, ▶ used "
                      f"now; used at success ≥ {b.config.threshold:.2f})",
                      ["", "key", "value", "success", "n", "up/down", "born"], rows),
                Table(f"Experiences (last 20 of {len(b.experiences)}/{b.config.max_experiences}, newest first)",
                      ["episode", "key", "predicted", "actual", "ok"], exps)]
