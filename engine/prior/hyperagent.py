"""HyperAgent as a registered prior method (portfolio only): a generation search, then frozen.

The mechanism is `generation_search.py` (world-independent, digest §6, §10);
the world supplies the features, the next-bar returns and how many bars are
train+val (`hyperagent_data`). While learning, the agent plays the incumbent
allocator (equal weight until the first generation is accepted); in test, the
best one frozen (`Shown.extra["weights"]` replaces the agent's allocation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..method_base import register_method
from ..options import Choice, OptionSpec
from .base import PriorMethod, Shown, Table
from .generation_search import (COORDS, SIGMA_BOUNDS, HyperAgentConfig, Search, portfolio_returns, sharpe_ddof1,
                                weights)

SCHEDULES = ("end", "spread")


@register_method
class HyperAgent(PriorMethod):
    name = "hyperagent"
    summary = "HyperAgent: an allocator's parameters searched over 20 generations on train+val, frozen at test"
    help = ("HyperAgent rewrites its own allocation code generation by generation: a candidate that fails "
            "validation is logged and dropped, a valid one is scored by its train+val Sharpe and kept when "
            "within 0.05 of the best so far, and every third generation the search adapts its step; at test the "
            "best version runs frozen. Offline the code is a parametric allocator (seven features, a softmax "
            "mixed with equal weight, a cash share) and a seeded Gaussian move stands in for the model's "
            "rewrite. Unlike AEL it keeps no memory of episodes and no tools' reliability: it searches a "
            "policy once and stops. Portfolio only (the paper omits it in support).")
    options = (
        OptionSpec("generations", int, 20, "generations of the search", minimum=1, maximum=1000),
        OptionSpec("epsilon", float, 0.05, "accept a candidate scoring at least the best minus this",
                   minimum=0.0, maximum=10.0),
        OptionSpec("sigma", float, 0.1, "initial step, as a share of each parameter's range",
                   minimum=SIGMA_BOUNDS[0], maximum=SIGMA_BOUNDS[1]),
        OptionSpec("schedule", str, "end", "when generations run: end (all at the last train+val bar, scored on "
                   "train+val, as the paper) or spread (evenly over train+val, each scored on the bars so far)",
                   choices=tuple(Choice(x, x) for x in SCHEDULES)),
        OptionSpec("score_ew_first", bool, False, "score equal weight before the first candidate (the released "
                   "code starts from -inf, so its first valid candidate is always accepted)"),
        OptionSpec("key_mismatch", bool, False, "as the released code: at test, an allocator reading the "
                   "history features (ret4, ret8, vol30) fails every bar and falls back to equal weight"),
    )

    def reset(self) -> None:
        s = self.settings
        self.data = self.world.hyperagent_data()   # {"features", "next_returns", "learning_bars"}
        self.config = HyperAgentConfig(s["generations"], s["epsilon"], s["sigma"],
                                       score_ew_first=s["score_ew_first"], key_mismatch=s["key_mismatch"])
        self.search = Search.start(self.config)
        self.fallbacks = 0          # test bars that fell back to equal weight (key mismatch)
        self._rng: np.random.Generator | None = None

    def due(self, t: int) -> int:
        """How many generations should have run once episode t is learned."""
        n, g = self.data["learning_bars"], self.config.generations
        if self.settings["schedule"] == "end":
            return g if t >= n - 1 else 0
        return min(g, (t + 1) * g // n)

    def score(self, theta: np.ndarray, upto: int) -> float:
        """Train+val Sharpe of theta held over bars [0, upto] (ddof 1, x sqrt(1008))."""
        z, r = self.data["features"][:upto + 1], self.data["next_returns"][:upto + 1]
        return sharpe_ddof1(portfolio_returns(theta, z, r))

    def shown(self, query, t, rng) -> Shown:
        self._rng = rng
        z = self.data["features"][t]
        if self.learning:
            w, fell = weights(self.search.incumbent, z), False
        else:
            w, fell = self.search.frozen_weights(z, test=True)
            self.fallbacks += fell
        theta = self.search.incumbent if self.learning else self.search.best
        parts = ", ".join(f"{c}={x:+.2f}" for c, x in zip(COORDS, theta) if x)
        line = f"allocate(theta): {parts}" if parts else "allocate: equal weight"
        return Shown(lines={"rules": [line], "lessons": []},
                     extra={"weights": dict(zip(self.data["tickers"], (float(x) for x in w))), "fallback": fell})

    def learn(self, record, query, outcome, t) -> None:
        while len(self.search.generations) < self.due(t):
            self.search.generation(t, self._rng, lambda th: self.score(th, t))

    def state_dict(self) -> dict[str, Any]:
        return {"search": self.search.state_dict(), "fallbacks": self.fallbacks}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.search = Search.from_state_dict(self.config, state["search"]) if state.get("search") else \
            Search.start(self.config)
        self.fallbacks = int(state.get("fallbacks", 0))

    def memory_view(self) -> list[Table]:
        s = self.search
        fmt = lambda x: "–" if x is None else f"{x:+.3f}"  # noqa: E731
        rows = [[str(g.number), str(g.episode), ", ".join(g.moved) or "(given)",
                 "valid" if g.valid else f"invalid: {g.failure}", fmt(g.score), fmt(g.best_before),
                 "improved" if g.improved else "accepted" if g.accepted else "rejected" if g.valid else "–",
                 f"{g.sigma:.3f}" + (f"→{g.adapted_to:.3f}" if g.adapted_to is not None else "")]
                for g in reversed(s.generations)]
        best = ", ".join(f"{c}={x:+.2f}" for c, x in zip(COORDS, s.best) if x) or "equal weight"
        invalid = sum(not g.valid for g in s.generations)
        return [Table(f"Generations ({len(s.generations)}/{self.config.generations}, {invalid} failed validation; "
                      f"best {fmt(s.best_score)}: {best}; {self.fallbacks} test bars fell back)",
                      ["gen", "episode", "moved", "validation", "score", "best before", "verdict", "sigma"], rows)]
