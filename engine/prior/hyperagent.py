"""HyperAgent as a registered prior method (portfolio only): a generation search, then frozen.

The mechanism is `generation_search.py` (world-independent, digest §6, §10);
the world supplies the features, the next-bar returns and how many bars are
train+val (`hyperagent_data`). While learning, the agent plays the incumbent
allocator (equal weight until the first generation is accepted); in test, the
best one frozen (`Shown.extra["weights"]` replaces the agent's allocation).
With a model (`--reflector`), each generation's candidate is the model's code,
approved by a person and run only in the sandbox (`hyperagent_code.py`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..deferred import Deferred
from ..sandbox.rules import CodePolicyError
from ..errors import AELError
from ..method_base import register_method
from ..options import Choice, OptionSpec
from .base import PriorMethod, Shown, Table
from ..sandbox.codepolicy import source_hash
from .generation_search import (COORDS, EQUAL_WEIGHT, SIGMA_BOUNDS, HyperAgentConfig, Search, portfolio_returns,
                                sharpe_ddof1, weights)
from .hyperagent_code import ask, code_returns, code_weights, vet

SCHEDULES = ("end", "spread")


@register_method
class HyperAgent(PriorMethod):
    name = "hyperagent"
    state_model = Deferred("engine.prior.saved_state", "HyperAgentState")  # its saved state, read only with a save
    sandbox = None   # the session's CodeArms (set by the session): where approved model code runs
    summary = "HyperAgent: an allocator's parameters searched over 20 generations on train+val, frozen at test"
    help = ("HyperAgent rewrites its own allocation code generation by generation: a candidate that fails "
            "validation is logged and dropped, a valid one is scored by its train+val Sharpe and kept when "
            "within 0.05 of the best so far, and every third generation the search adapts its step; at test the "
            "best version runs frozen. Offline the code is a parametric allocator (seven features, a softmax "
            "mixed with equal weight, a cash share) and a seeded Gaussian move stands in for the model's "
            "rewrite. With a model (--reflector), each generation asks it for a new allocate(features) function: "
            "the code is vetted and smoke-tested, waits for a person's approval (the code review shows its source "
            "and SHA-256; the CLI rejects it unless --allow-code-auto), and runs only in the sandbox; refused, "
            "rejected or failing code is that generation's validation failure. Unlike AEL it keeps no memory of episodes and no tools' reliability: it searches a "
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
        self.fallbacks = 0          # test bars that fell back to equal weight (key mismatch, failed code)
        self._rng: np.random.Generator | None = None
        self.pending: dict[str, Any] | None = None   # model code waiting for a person: {generation, episode, code}
        self.outbox: list[dict[str, Any]] = []        # proposals for the session's queue (engine/proposers.py)

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
        code = self.search.incumbent_code if self.learning else self.search.best_code
        if code:   # approved model code: only ever run in the sandbox; a failed call is equal weight
            try:
                w, fell = code_weights(self.sandbox, code, z), False
            except CodePolicyError:
                w, fell = weights(EQUAL_WEIGHT, z), True
            self.fallbacks += fell and not self.learning
        elif self.learning:
            w, fell = weights(self.search.incumbent, z), False
        else:
            w, fell = self.search.frozen_weights(z, test=True)
            self.fallbacks += fell
        theta = self.search.incumbent if self.learning else self.search.best
        parts = ", ".join(f"{c}={x:+.2f}" for c, x in zip(COORDS, theta) if x)
        line = f"allocate(theta): {parts}" if parts else "allocate: equal weight"
        if code:
            line = f"allocate(features): approved model code, SHA-256 {source_hash(code)[:12]}"
        return Shown(lines={"rules": [line], "lessons": []},
                     extra={"weights": dict(zip(self.data["tickers"], (float(x) for x in w))), "fallback": fell})

    def critique(self, record: dict[str, Any]) -> dict[str, Any]:
        """No critic call: HyperAgent learns from scores, never from an episode's record, so
        with a model its only calls are the generations' code requests."""
        return record

    def learn(self, record, query, outcome, t) -> None:
        self._generations(t, self._rng)

    def _generations(self, t: int, rng: np.random.Generator) -> None:
        """Run the generations due by episode t; with a model, stop at code waiting for a person."""
        while len(self.search.generations) < self.due(t) and self.pending is None:
            if self.critic is None:
                self.search.generation(t, rng, lambda th: self.score(th, t))
            else:
                self._model_generation(t, rng)

    def _model_generation(self, t: int, rng: np.random.Generator) -> None:
        s = self.search
        recent = [{"generation": g.number, "valid": g.valid, "score": g.score, "accepted": g.accepted,
                   **({"failure": g.failure[:200]} if g.failure else {})} for g in s.generations[-5:]]
        best_theta = ", ".join(f"{c}={x:+.2f}" for c, x in zip(COORDS, s.best) if x)
        answer = ask(self.critic, s.best_code, best_theta, recent)
        number = len(s.generations)
        if answer is None:   # the model did not answer: the offline move stands in, and says so
            s.generation(t, rng, lambda th: self.score(th, t))
            s.generations[-1].source = "fallback"
            return
        code, rationale = answer
        refused = vet(code, f"generation {number}")
        if refused:
            s.code_generation(t, code[:4096], None, refused)
            return
        self.pending = {"generation": number, "episode": t, "code": code}
        self.outbox.append({"kind": "allocator", "source": "llm", "rationale": rationale,
                            "payload": {"name": f"hyperagent generation {number}", "contract": "allocate",
                                        "generation": number, "code": code},
                            "evidence": {"best_score": s.best_score, "generations": len(s.generations)}})

    # ------------------------------------------- decisions (engine/proposers.py)
    def check_proposal(self, session, payload: dict[str, Any]) -> None:
        p = self.pending
        if p is None or payload.get("generation") != p["generation"] or payload.get("code") != p["code"]:
            raise AELError("this allocation code is not the generation HyperAgent is waiting for")

    def decided(self, session, payload: dict[str, Any], approved: bool, who: str, reason: str) -> None:
        """Score approved code in the sandbox on train+val so far; a rejection (or a failed
        call) is that generation's validation failure. Then the next generations run."""
        p, self.pending = self.pending, None
        if p is None or payload.get("generation") != p["generation"]:
            return   # a stale proposal (its generation was already decided)
        t, code = p["episode"], p["code"]
        if not approved:
            self.search.code_generation(t, code, None, f"rejected by {who}" + (f": {reason}" if reason else ""))
        else:
            data = self.data
            try:
                returns = code_returns(self.sandbox, code, data["features"][:t + 1], data["next_returns"][:t + 1])
                self.search.code_generation(t, code, sharpe_ddof1(returns))
            except CodePolicyError as err:
                self.search.code_generation(t, code, None, f"failed in the sandbox: {err}")
        self._generations(t, session.rng)

    def saved_code(self) -> dict[str, str]:
        """Approved code this state would run: quarantined after a load until a person admits it."""
        s = self.search
        return {name: code for name, code in (("hyperagent best", s.best_code),
                                              ("hyperagent incumbent", s.incumbent_code)) if code}

    def forget_code(self, name: str) -> None:
        """A person rejected loaded code: the parametric allocator plays instead."""
        if name == "hyperagent best":
            self.search.best_code = ""
        elif name == "hyperagent incumbent":
            self.search.incumbent_code = ""

    def state_dict(self) -> dict[str, Any]:
        return {"search": self.search.state_dict(), "fallbacks": self.fallbacks,
                **({"pending": dict(self.pending)} if self.pending else {})}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.search = Search.from_state_dict(self.config, state["search"]) if state.get("search") else \
            Search.start(self.config)
        self.fallbacks = int(state.get("fallbacks", 0))
        self.pending = dict(state["pending"]) if state.get("pending") else None
        self.outbox = []

    def memory_view(self) -> list[Table]:
        s = self.search
        fmt = lambda x: "–" if x is None else f"{x:+.3f}"  # noqa: E731
        rows = [[str(g.number), str(g.episode), (", ".join(g.moved) or "(given)")
                 + {"llm": " (model)", "fallback": " (model failed: offline move)"}.get(g.source, ""),
                 "valid" if g.valid else f"invalid: {g.failure}", fmt(g.score), fmt(g.best_before),
                 "improved" if g.improved else "accepted" if g.accepted else "rejected" if g.valid else "–",
                 f"{g.sigma:.3f}" + (f"→{g.adapted_to:.3f}" if g.adapted_to is not None else "")]
                for g in reversed(s.generations)]
        best = ", ".join(f"{c}={x:+.2f}" for c, x in zip(COORDS, s.best) if x) or "equal weight"
        invalid = sum(not g.valid for g in s.generations)
        return [Table(f"Generations ({len(s.generations)}/{self.config.generations}, {invalid} failed validation; "
                      f"best {fmt(s.best_score)}: {best}; {self.fallbacks} test bars fell back)",
                      ["gen", "episode", "moved", "validation", "score", "best before", "verdict", "sigma"], rows)]
