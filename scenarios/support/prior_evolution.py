"""EvoTool and FactorMiner on support routing: what the world supplies them (digest §9).

A mixin of the support world's prior-method adapter, read through
`self.scenario` (its prediction table: C[t, p] and every initial policy's
answer) and `self.query_keys` (the lagged window label, never the regime):

- EvoTool: the universe is the 5 initial retrieval policies; a policy is an
  ordered list of 2-5 of them, and the first member whose vote is confident
  answers (`policy_confidence.ordered_answer`; the channel's `policy`). A failure blames the members that were wrong
  themselves (C[t, p] = 0).
- FactorMiner: a skill is keyed "endpoint@label" and holds the policy that
  solved such a ticket (the one played if it was right, else the first
  initial policy that would have been, from C); the decision plays a skill's
  policy when its success is at least the threshold, else `compressed`, and
  the last 5 experiences of the same endpoint vote beside it (their critic
  records, through the world's extra-vote channel). A skill that falls below
  the threshold while another policy solves its tickets is re-pointed at that
  policy, fresh at 1.0.

Keying on the endpoint lets FactorMiner (and ExpeL) learn part of the regime-3
endpoint rule without reflection: the confound the report flags.
"""

from __future__ import annotations

from typing import Any

from engine.errors import AELError
from engine.prior.base import Shown
from engine.prior.skill_book import Experience, SkillBook

from .policies import COMPRESSED, INITIAL_POOL
from .policy_confidence import ordered_answer

EXPERIENCE_VOTES = 5


class SupportEvolution:
    """Mixed into the support world's adapter, which provides `scenario`, `query_keys` and `record_line`."""

    scenario: Any

    # ------------------------------------------------------------------ EvoTool
    def evotool_space(self) -> dict[str, Any]:
        return {"universe": [p.name for p in INITIAL_POOL], "init_size": (2, len(INITIAL_POOL)), "min_size": 2}

    def evotool_blame(self, t: int, outcome, members: list[str]) -> list[str]:
        table = self.scenario.table
        return [m for m in members if not table.correct[t, table.column_of(m)]]

    def evotool_channel(self, members: list[str], t: int) -> dict[str, Any]:
        """The member that answers: the first whose vote is confident, else the last (whose
        neighbours then vote, as the channel's router does)."""
        table = self.scenario.table
        cols = [table.column_of(m) for m in members]
        _, pos = ordered_answer(table.routes[t], self.scenario.confident_at(t), cols)
        return {"policy": members[pos], "answered": pos}

    # -------------------------------------------------------------- FactorMiner
    def skill_key(self, query) -> str:
        return f"{query.metadata['endpoint']}@{self.query_keys(query).get('label') or 'none'}"

    def factorminer_shown(self, book: SkillBook, query, t: int) -> Shown:
        key = self.skill_key(query)
        skill = book.usable(key)
        policy = skill.value[0] if skill else COMPRESSED.name
        same = [e for e in book.experiences if e.key.split("@")[0] == query.metadata["endpoint"]]
        recs = [e.record for e in same[-EXPERIENCE_VOTES:] if e.record]
        line = (f"Skill '{key}': policy={policy}, success_rate={skill.success:.2f} (n={skill.n})" if skill
                else f"No usable skill for {key}: compressed")
        return Shown(records=recs, weights=[1.0] * len(recs),
                     lines={"rules": [line], "lessons": [self.record_line(r) for r in recs]},
                     extra={"policy": policy, "key": key, "skills": [key] if skill else []})

    def factorminer_learn(self, book: SkillBook, record: dict[str, Any], query, outcome, t: int, shown) -> None:
        key, played = shown.extra["key"], shown.extra["policy"]
        correct = bool(record["success"])
        fixers = [p.name for p in INITIAL_POOL if self.scenario.table.correct[t, self.scenario.table.column_of(p.name)]]
        solver = played if correct else (fixers[0] if fixers else None)
        skill = book.skills.get(key)
        if skill is not None and skill.value == [played]:
            book.reinforce(key, correct, t)
        if skill is None:
            if solver is not None:
                book.create(key, [solver], t)
        elif skill.success < book.config.threshold and solver is not None and skill.value != [solver]:
            book.create(key, [solver], t)   # re-pointed at what solves these tickets now
        book.remember(Experience(t, key, outcome.info["route"], outcome.info["gold_route"], correct, record))

    # --------------------------------------------------------------- HyperAgent
    def hyperagent_data(self) -> dict[str, Any]:
        raise AELError("selector hyperagent: HyperAgent searches a portfolio allocator; it is not a memory "
                       "method and the paper omits it on support (portfolio only)")
