"""The planners variant: LinUCB over planners that really change how the agent weighs
its tools, and new planners proposed by reflection.

The scenario (a `ToolWorld`, engine/variants/__init__.py) owns the planner rules and the
context; this module owns the choice. Each episode after warm-up the context x_t
(the scenario's `planner_context`: a bias, the agent's trailing return and
volatility, how much the tools agree and how dispersed their views are this bar,
the drawdown, the trend tools' market view) scores every planner a by
theta_a . x + alpha_t sqrt(x' A_a^-1 x), alpha_t = alpha / sqrt(1 + N / 10) (the
reference's decay), and the highest plays (the first among equals); in test the
choice is greedy (theta_a . x). The reward is the episode's bandit reward, centred
(r - 0.5): the ridge prior theta = 0 then means "an average planner", so a new
arm's width is a real chance to be tried rather than a certain loss against arms
whose theta has grown towards a mean reward near 0.5.
During warm-up `sequential` plays and learns, as in the reference.

Evolution: after a reflection that finds a bad window (mean outcome score < 0)
and names tools that misled the agent, the planner that played most in that
window has its failure streak raised (a good window resets it). At `patience`
failures in a row, the scenario's library rule that counters the misled tools
(`counter_planner`) is proposed as a new arm (A = I, b = 0): a declarative
planner, no code, decided in the session's queue like reflection's proposals
(approve, reject or a standing rule, audited; engine/proposers.py). Only an
approved planner joins. With a model (`--reflector`), the model may write the
planner as code instead (`plan(scores, weights, tools)`,
engine/variants/planner_code.py): vetted, smoke-tested, approved by a person and
run only in the sandbox. The reflection's diagnosis says what was proposed.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from ..deferred import Deferred
from ..options import OptionSpec
from . import Variant, register_variant
from .panel_views import PlannerRow, PlannerView

DEFAULT = "sequential"
MAX_ARMS = 10              # the reference's pool cap
CENTRE = 0.5               # rewards are learned as r - 0.5


class LinArm:
    """One planner's ridge regression: A = I + sum x x', b = sum r x."""

    def __init__(self, d: int, rule: str, added_at: int = 0, reason: str = ""):
        self.A, self.b = np.eye(d), np.zeros(d)
        self.pulls, self.added_at, self.rule, self.reason = 0, added_at, rule, reason
        self.code = ""   # a model's plan() code, approved by a person; run only in the sandbox

    def theta(self) -> np.ndarray:
        return np.linalg.solve(self.A, self.b)

    def width(self, x: np.ndarray) -> float:
        return float(np.sqrt(max(0.0, x @ np.linalg.solve(self.A, x))))

    def update(self, x: np.ndarray, reward: float) -> None:
        self.A += np.outer(x, x)
        self.b += reward * x
        self.pulls += 1

    def to_dict(self, name: str) -> dict[str, Any]:
        return {"A": self.A.tolist(), "b": self.b.tolist(), "pulls": self.pulls, "added_at": self.added_at,
                **({"rule": self.rule} if self.rule != name else {}), "reason": self.reason,
                **({"code": self.code} if self.code else {})}

    @classmethod
    def from_dict(cls, name: str, d: dict[str, Any]) -> "LinArm":
        b = np.asarray(d["b"], float)
        arm = cls(len(b), d.get("rule") or name, int(d.get("added_at", 0)), d.get("reason", ""))
        arm.A, arm.b, arm.pulls = np.asarray(d["A"], float), b, int(d.get("pulls", 0))
        arm.code = str(d.get("code", ""))
        if arm.A.shape != (len(b), len(b)):
            from ..errors import AELError

            raise AELError(f"planners: arm {name!r} has A of shape {arm.A.shape} for {len(b)} features")
        return arm


@register_variant
class Planners(Variant):
    name = "planners"
    state_model = Deferred("engine.variants.states", "PlannersState")  # its saved state, read only with a save
    summary = "LinUCB over six planners that change how the agent weighs tools; reflection proposes new planners"
    scenarios = ("portfolio",)
    options = (
        OptionSpec("alpha", float, 1.0, "LinUCB's exploration weight before its decay", minimum=0.0, maximum=100.0),
        OptionSpec("patience", int, 3, "bad reflections in a row of one planner before a counter-planner "
                   "is added", minimum=1, maximum=1000),
    )
    help = ("Six planners turn the tools' weighted signals into a view per ticker in different ways "
            "(sequential: all tools; decompose: the mean of trend, valuation, sentiment and risk views; adaptive: "
            "quick tools unless ambiguous; cot_reasoning: trend then valuation, risk breaks ties; reflexion: the "
            "composite, expanded when unsure; hypothesis_test: bull minus bear votes). LinUCB picks one per "
            "episode from a context that changes bar to bar (trailing return and volatility, tool agreement, "
            "signal dispersion, drawdown, market trend): theta is what each planner's reward is learned to be "
            "per feature, the width its uncertainty here. A planner that keeps failing in reflections gets a "
            "library counter-planner proposed as a new arm (reversal, valuation_anchor, risk_first), a decision in "
            "the queue; with a model, a planner written as plan() code, which only a person admits and which "
            "runs only in the sandbox.")

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.arms: dict[str, LinArm] = {}
        self.n = 0
        self.last: str | None = None
        self.last_context: np.ndarray | None = None
        self.last_scores: dict[str, float] = {}
        self.streaks: dict[str, int] = {}
        self.window: list[str] = []   # planners played since the last reflection (at most a slow window)
        self.outbox: list[dict[str, Any]] = []   # proposals for the session's queue (engine/proposers.py)

    def ensure(self, session) -> None:
        if not self.arms:
            d = len(session.scenario.planner_features())
            self.arms = {name: LinArm(d, name) for name in session.scenario.planner_names()}

    def seed_prior(self, session, ratings: dict[str, int]) -> None:
        """Cold start: max(1, r - 2) synthetic updates with context 0.5 and reward r / 5 (centred)."""
        self.ensure(session)
        for name, r in ratings.items():
            arm = self.arms.get(name)
            if arm is None:
                continue
            x = np.full(arm.b.shape, 0.5)
            for _ in range(max(1, r - 2)):
                arm.update(x, r / 5.0 - CENTRE)
                self.n += 1

    def scores(self, x: np.ndarray, greedy: bool) -> dict[str, float]:
        alpha = self.settings["alpha"] / np.sqrt(1.0 + self.n / 10.0)
        return {name: float(arm.theta() @ x + (0.0 if greedy else alpha * arm.width(x)))
                for name, arm in self.arms.items()}

    def agent_context(self, session, query, ctx) -> None:
        self.ensure(session)
        t = query.episode
        x = np.asarray(session.scenario.planner_context(t), float)
        if session.phase_of(t) == "warmup":
            chosen, self.last_scores = DEFAULT, {}
        else:
            self.last_scores = {k: round(v, 6) for k, v in self.scores(x, greedy=session.frozen).items()}
            chosen = max(self.last_scores, key=lambda k: self.last_scores[k])  # first among equals
        self.last, self.last_context = chosen, x
        ctx.view.planner = self.arms[chosen].rule
        if self.arms[chosen].code:   # a model's planner: each call in the sandbox (engine/variants/planner_code.py)
            from .planner_code import sandbox_rule

            ctx.view.planner_rule = sandbox_rule(session.code_arms, self.arms[chosen].code)

    def learn(self, session, query, outcome, ctx) -> None:
        if self.last is not None:
            self.window = [*self.window, self.last][-session.slow_window:]
        if session.frozen or self.last is None or self.last_context is None:
            return
        self.arms[self.last].update(self.last_context, outcome.reward - CENTRE)
        self.n += 1

    def reflected(self, session, reflection):
        played = Counter(self.window).most_common(1)
        self.window = []
        evidence = reflection.evidence or {}
        if not played or "mean_score" not in evidence:
            return reflection
        planner = played[0][0]
        if evidence["mean_score"] >= 0:
            self.streaks[planner] = 0
            return reflection
        self.streaks[planner] = self.streaks.get(planner, 0) + 1
        if self.streaks[planner] < self.settings["patience"] or len(self.arms) >= MAX_ARMS:
            return reflection
        waiting = [p.payload.get("name") for p in session.queue.pending if p.kind == "planner"]
        if waiting:   # one planner proposal at a time
            return reflection
        misled = ", ".join(evidence.get("misled") or [])
        reason = (f"{planner} failed {self.streaks[planner]} reflections in a row; {misled} misled the agent")
        proposal = self._code_planner(session, reason, evidence) or self._library_planner(session, reason, evidence)
        if proposal is None:
            return reflection
        self.streaks[planner] = 0
        self.outbox.append(proposal)
        reflection.diagnosis += (f" Planner evolution: {reason}, so the planner {proposal['payload']['name']} "
                                 "is proposed.")
        return reflection

    def _library_planner(self, session, reason: str, evidence: dict[str, Any]) -> dict[str, Any] | None:
        have = [a.rule for a in self.arms.values()]
        rule = session.scenario.counter_planner(evidence.get("misled") or [], have)
        if rule is None:
            return None
        return {"kind": "planner", "rationale": reason, "evidence": {"misled": list(evidence.get("misled") or [])},
                "payload": {"name": rule, "rule": rule, "reason": reason}}

    def _code_planner(self, session, reason: str, evidence: dict[str, Any]) -> dict[str, Any] | None:
        """With a model: its planner as code, vetted and smoke-tested (None: no model, or
        its answer was refused or missing, and the library planner is proposed instead)."""
        client = getattr(session.llm, "reflector", None)
        if client is None:
            return None
        from .planner_code import propose_code_planner

        return propose_code_planner(client, session, self, reason, evidence)

    # ------------------------------------------- decisions (engine/proposers.py)
    def check_proposal(self, session, payload: dict[str, Any]) -> None:
        from ..errors import AELError

        if payload.get("name") in self.arms:
            raise AELError(f"planner {payload.get('name')!r} is already among the planners")
        if len(self.arms) >= MAX_ARMS:
            raise AELError(f"the planners are full ({MAX_ARMS})")

    def decided(self, session, payload: dict[str, Any], approved: bool, who: str, reason: str) -> None:
        """An approved planner joins as a new arm (A = I, b = 0); a rejected one does not."""
        if not approved:
            return
        self.ensure(session)
        d = len(next(iter(self.arms.values())).b)
        name = str(payload["name"])
        arm = LinArm(d, str(payload.get("rule") or name), added_at=session.t, reason=str(payload.get("reason", "")))
        arm.code = str(payload.get("code", ""))
        self.arms[name] = arm

    def saved_code(self) -> dict[str, str]:
        """Code planners this state would run: quarantined after a load until a person admits them."""
        return {f"planner {name}": arm.code for name, arm in self.arms.items() if arm.code}

    def forget_code(self, name: str) -> None:
        """A person rejected a loaded code planner: it leaves the planners."""
        self.arms.pop(name.removeprefix("planner "), None)

    def panel_view(self, session) -> PlannerView | None:
        """Each planner's pulls, theta, estimate and width at the last context, LinUCB's score;
        the features as the scenario names them (the lab knows no world). None before the first step."""
        if not self.arms:
            return None
        features = session.scenario.planner_features()
        x = self.last_context if self.last_context is not None else np.zeros(len(features))
        rows = []
        for name, arm in self.arms.items():
            theta = arm.theta()
            rows.append(PlannerRow(name, arm.rule, arm.pulls, [float(t) for t in theta], float(theta @ x),
                                   arm.width(x), self.last_scores.get(name), name == self.last, arm.added_at,
                                   arm.reason))
        alpha = self.settings["alpha"] / np.sqrt(1.0 + self.n / 10.0)
        return PlannerView(tuple(name for name, _ in features), tuple(short for _, short in features),
                           [float(c) for c in x], float(alpha), rows)

    def state_dict(self) -> dict[str, Any]:
        if not self.arms:
            return {}
        return {"arms": {name: arm.to_dict(name) for name, arm in self.arms.items()}, "n": self.n,
                "last": self.last,
                "last_context": [] if self.last_context is None else self.last_context.tolist(),
                "last_scores": dict(self.last_scores), "streaks": dict(self.streaks),
                "window": list(self.window)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.arms = {name: LinArm.from_dict(name, d) for name, d in (state.get("arms") or {}).items()}
        self.n = int(state.get("n", 0))
        self.last = state.get("last")
        ctx = state.get("last_context") or []
        self.last_context = np.asarray(ctx, float) if ctx else None
        self.last_scores = dict(state.get("last_scores", {}))
        self.streaks = {k: int(v) for k, v in (state.get("streaks") or {}).items()}
        self.window = list(state.get("window", []))
        self.outbox = []   # proposals are made and queued within one step: none survive a rollback or load
