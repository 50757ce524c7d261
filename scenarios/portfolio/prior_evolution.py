"""EvoTool, FactorMiner and HyperAgent on the portfolio: what the world supplies them.

A mixin of the portfolio's prior-method adapter (`prior.PortfolioPriorWorld`),
read through `self.scenario`:

- EvoTool (digest §5, §10): the universe is the enabled tools; an initial
  policy has 4-12 of them, a mutant at least 3. The chosen policy masks the
  agent's tools (a tool factor of 0 for the others: only the members' signals
  count, as only their signal lines reached the released prompt). A failure blames the
  members whose calls on the overweighted names were mostly wrong
  (`tool_credit.blamed_tools`).
- FactorMiner (digest §3, §10): after a bar, the tools the allocation leaned
  on (at most 4, `tool_credit.relied_tools`) name a skill; a success creates
  it or moves it toward 1, a failure moves an existing one toward 0. Before a
  bar, the top 5 skills at or above the threshold are shown as rules, and each
  one's tools are trusted (the insight channel's multipliers); the last 5
  experiences are shown as lines.
- HyperAgent (digest §6, §10): the z-scored features, the next-bar returns and
  the number of train+val bars its search may score on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.prior.base import Shown
from engine.prior.skill_book import Experience, SkillBook

from .hyperagent_features import hyperagent_features
from .memory_records import short
from .tool_credit import blamed_tools, relied_tools

SKILLS_SHOWN = 5
EXPERIENCES_SHOWN = 5


class PortfolioEvolution:
    scenario: Any

    def _weights(self, outcome) -> np.ndarray:
        w = self.scenario.world
        return np.array([outcome.info["weights"][tk] for tk in w.tickers])

    # ------------------------------------------------------------------ EvoTool
    def evotool_space(self) -> dict[str, Any]:
        tools = list(self.scenario.world.tools)
        n = len(tools)
        return {"universe": tools, "init_size": (min(4, n), n), "min_size": min(3, n)}

    def evotool_blame(self, t: int, outcome, members: list[str]) -> list[str]:
        return blamed_tools(self.scenario.world, t, self._weights(outcome), members)

    def evotool_channel(self, members: list[str], t: int) -> dict[str, Any]:
        """The chosen policy as the agent's channel: a factor of 0 hides every other tool."""
        return {"tool_factor": {tool: 0.0 for tool in self.scenario.world.tools if tool not in members}}

    # -------------------------------------------------------------- FactorMiner
    def factorminer_shown(self, book: SkillBook, query, t: int) -> Shown:
        usable = [s for s in book.ranked() if s.success >= book.config.threshold][:SKILLS_SHOWN]
        rules = [("trust", tool) for s in usable for tool in s.value]
        lines = [f"Skill '{s.key}': tools=[{', '.join(short(x) for x in s.value)}], success_rate={s.success:.2f} "
                 f"(n={s.n})" for s in usable]
        lessons = [f"PORTFOLIO@{e.episode}: predicted {e.predicted}, actual {e.actual} "
                   f"({'correct' if e.correct else 'wrong'})" for e in book.recent(EXPERIENCES_SHOWN)]
        return Shown(rules=rules, lines={"rules": lines, "lessons": lessons}, extra={"skills": [s.key for s in usable]})

    def factorminer_learn(self, book: SkillBook, record: dict[str, Any], query, outcome, t: int, shown) -> None:
        weights = self._weights(outcome)
        tools = relied_tools(self.scenario.world, t, weights)
        key = "_".join(sorted(short(x) for x in tools))
        correct = bool(record["success"])
        if key in book.skills:
            book.reinforce(key, correct, t)
        elif correct and len(tools) >= 2:
            book.create(key, sorted(tools), t)
        r = float(outcome.info["port_return"])
        # the allocation-implied direction: bullish when more than half is invested
        book.remember(Experience(t, key, "up" if weights.sum() > 0.5 else "down", "up" if r > 0 else "down",
                                 correct))

    # --------------------------------------------------------------- HyperAgent
    def hyperagent_data(self) -> dict[str, Any]:
        w = self.scenario.world
        return {"features": hyperagent_features(w), "next_returns": w.next_returns, "tickers": list(w.tickers),
                "learning_bars": int((w.market.phases != "test").sum())}
