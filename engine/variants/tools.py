"""Variants about the agent's tools: no-tools (the +Tools ablation), per-tool Thompson
sampling over which tools feed the agent, and cold-start priors for tools and planners.

They apply where the scenario is a `ToolWorld` (engine/variants/__init__.py): the portfolio.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..deferred import Deferred
from ..errors import AELError
from ..options import Choice, OptionSpec
from . import Variant, register_variant
from .panel_views import ToolPosterior, ToolPrior


@register_variant
class NoTools(Variant):
    name = "no-tools"
    summary = "the agent sees no tool signals (the default then counts as +Tools)"
    scenarios = ("portfolio",)
    help = ("The agent reads no tool's signal, so it cannot tilt the portfolio by them: the offline "
            "agent holds equal weights (scaled by an injected insight's exposure), a model's prompt has no "
            "Market Signals section. The paper's Stateless row showed the signals; this is the ablation it "
            "claimed, and the plain run is then the +Tools row.")

    def agent_context(self, session, query, ctx) -> None:
        ctx.view.tools = ()


@register_variant
class PerTool(Variant):
    """Thompson sampling over the tools: each episode a Beta draw per tool, the K highest
    feed the agent; after the outcome each shown tool that made a call learns whether its
    per-ticker directions matched the tickers' own next-bar returns (the share right)."""

    name = "per-tool"
    state_model = Deferred("engine.variants.states", "PerToolState")  # its saved state, read only with a save
    summary = "Thompson sampling over the 12 tools chooses which K feed the agent"
    scenarios = ("portfolio",)
    options = (OptionSpec("k", int, 6, "how many tools feed the agent each episode", minimum=1, maximum=100),)
    help = ("A Beta posterior per tool. After warm-up (where every tool is shown and learns), each "
            "episode draws one sample per tool from the session's generator and shows the agent the K highest "
            "among the tools that have a reading at that bar; the tools shown then learn from their per-ticker directions against each ticker's own "
            "next-bar return (alpha += share right, beta += share wrong, over the tickers where both the call "
            "and the return had a direction). Frozen in test like the bandit; the draws go on.")

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.arms: dict[str, list[float]] = {}
        self.pulls: dict[str, int] = {}
        self.last: list[str] = []
        self.last_samples: dict[str, float] = {}

    def ensure(self, session) -> None:
        if not self.arms:
            for tool in session.scenario.tool_names():
                self.arms[tool] = [1.0, 1.0]
                self.pulls[tool] = 0

    def seed_prior(self, session, prior: dict[str, tuple[float, float]]) -> None:
        """Informed priors (cold start): pseudo-counts added to each tool's Beta."""
        self.ensure(session)
        for tool, (hits, misses) in prior.items():
            if tool in self.arms:
                self.arms[tool][0] += hits
                self.arms[tool][1] += misses

    def agent_context(self, session, query, ctx) -> None:
        self.ensure(session)
        names = list(self.arms)
        if session.phase_of(query.episode) == "warmup":
            chosen, self.last_samples = names, {}
        else:
            draws = session.rng.beta([self.arms[n][0] for n in names], [self.arms[n][1] for n in names])
            self.last_samples = {n: round(float(x), 6) for n, x in zip(names, draws)}
            # a tool with no reading at this bar (static data before its snapshot) would fill a slot with nothing
            available = set(session.scenario.tools_available(query.episode))
            ranked = [i for i in np.argsort(-draws, kind="stable") if names[i] in available]
            chosen = [names[i] for i in sorted(ranked[: self.settings["k"]])]
        self.last = chosen
        ctx.view.tools = tuple(chosen) if ctx.view.tools is None else tuple(t for t in ctx.view.tools if t in chosen)

    def learn(self, session, query, outcome, ctx) -> None:
        if session.frozen:
            return
        calls, realised = session.scenario.tool_verdicts(query.episode)
        index = {n: i for i, n in enumerate(session.scenario.tool_names())}
        for tool in self.last:
            c = calls[:, index[tool]]
            decided = (c != 0) & (realised != 0)
            if decided.any():
                right = float((c[decided] == realised[decided]).mean())
                self.arms[tool][0] += right
                self.arms[tool][1] += 1.0 - right
                self.pulls[tool] += 1

    def panel_view(self, session) -> dict[str, ToolPosterior]:
        """Each tool's Beta, pulls, last draw and whether it fed the agent ({} before the first step)."""
        shown = set(self.last)
        return {n: ToolPosterior(a, b, self.pulls.get(n, 0), self.last_samples.get(n), n in shown)
                for n, (a, b) in self.arms.items()}

    def state_dict(self) -> dict[str, Any]:
        if not self.arms:
            return {}
        return {"arms": {n: list(ab) for n, ab in self.arms.items()}, "pulls": dict(self.pulls),
                "last": list(self.last), "last_samples": dict(self.last_samples)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.arms = {n: [float(a), float(b)] for n, (a, b) in (state.get("arms") or {}).items()}
        self.pulls = {n: int(state.get("pulls", {}).get(n, 0)) for n in self.arms}
        self.last = list(state.get("last", []))
        self.last_samples = dict(state.get("last_samples", {}))


def prior_counts(rating: int) -> tuple[int, int]:
    """The reference's cold-start formula: a 1-5 rating as (hits, misses) pseudo-counts."""
    hits = int(max(1.0, 0.8 * rating) - 1)
    misses = int(max(1.0, 0.8 * (6 - rating)) - 1)
    return hits, misses


RATING_SCHEMA_SCALE = {"type": "integer", "minimum": 1, "maximum": 5}


@register_variant
class ColdStart(Variant):
    """Informed priors before episode 0: ratings 1-5 per tool and per planner, from the
    offline rating table, or from the reflector model when one is named."""

    name = "cold-start"
    state_model = Deferred("engine.variants.states", "ColdStartState")  # its saved state, read only with a save
    summary = "informed priors for tools and planners before episode 0 (a rating table, or a model's ratings)"
    scenarios = ("portfolio",)
    options = (OptionSpec("source", str, "table", "where the 1-5 ratings come from: table (the offline "
                          "default), llm (the reflector's model rates; the table answers if it fails), uniform "
                          "(every rating 3: the reference's answer on failure)",
                          choices=(Choice("table", "table"), Choice("llm", "llm"), Choice("uniform", "uniform"))),)
    help = ("Before episode 0 each tool and planner gets a rating from 1 to 5: the offline table "
            "(price-derived compute_* 4, DCF and risk 3, raw get_* 2, composite 1; a planner gets the rounded "
            "mean rating of the tools it consults first), or the reflector model's answer (source=llm). A tool's "
            "rating becomes int(max(1, 0.8 r) - 1) right and int(max(1, 0.8 (6 - r)) - 1) wrong pseudo-calls "
            "in the agent's reliability prior (so a composite rated 1 starts distrusted) and in per-tool's Beta "
            "when that runs; a planner's becomes max(1, r - 2) LinUCB updates with context 0.5 and reward r / 5 "
            "when planners runs. The reference defined this and never called it in portfolio mode.")

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.applied_at = -1
        self.tool_ratings: dict[str, int] = {}
        self.planner_ratings: dict[str, int] = {}
        self.source = self.settings["source"]

    @property
    def tool_prior(self) -> dict[str, tuple[int, int]]:
        return {tool: prior_counts(r) for tool, r in self.tool_ratings.items()}

    def start(self, session) -> None:
        world = session.scenario
        tools = world.tool_ratings()
        planners = world.planner_ratings(tools)
        if self.settings["source"] == "uniform":
            tools, planners = {k: 3 for k in tools}, {k: 3 for k in planners}
        elif self.settings["source"] == "llm":
            tools, planners, self.source = self._ask_model(session, tools, planners)
        self.tool_ratings, self.planner_ratings = tools, planners
        self.applied_at = session.t
        per_tool = session.variants.get("per-tool")
        if per_tool is not None:
            per_tool.seed_prior(session, self.tool_prior)
        planner_variant = session.variants.get("planners")
        if planner_variant is not None:
            planner_variant.seed_prior(session, planners)

    def check(self, session) -> None:
        if self.settings["source"] == "llm" and session.llm.reflector is None:
            raise AELError("--variant cold-start=llm: the ratings come from the reflector's model; name one "
                           "(--reflector PROVIDER) or use cold-start=table")

    def _ask_model(self, session, tools: dict[str, int], planners: dict[str, int]):
        client = session.llm.reflector
        schema = {"type": "object", "required": ["tools", "planners"], "properties": {
            "tools": {"type": "object", "required": list(tools),
                      "properties": {k: RATING_SCHEMA_SCALE for k in tools}},
            "planners": {"type": "object", "required": list(planners),
                         "properties": {k: RATING_SCHEMA_SCALE for k in planners}}}}
        brief = session.scenario.spec.task_brief
        messages = [
            {"role": "system", "content": "You rate analysis tools and planning strategies before any trading. "
                                          "Answer with JSON only."},
            {"role": "user", "content": f"Task: {brief}\nRate from 1 (useless) to 5 (very useful) how reliable "
                                        f"each tool's directional signal is for hourly allocation, and how well "
                                        f"each planner suits it.\nTools: {', '.join(tools)}\n"
                                        f"Planners: {', '.join(planners)}"}]
        result = client.complete_json(messages, schema, purpose="variant.cold_start",
                                      fallback=lambda _m, _s: {"tools": tools, "planners": planners})
        if result.fallback:
            return tools, planners, "table (the model failed)"
        return ({k: int(result.data["tools"][k]) for k in tools},
                {k: int(result.data["planners"][k]) for k in planners}, "llm")

    def agent_context(self, session, query, ctx) -> None:
        if self.tool_ratings:
            prior = self.tool_prior
            for tool, (hits, misses) in ctx.view.tool_prior.items():  # another variant's, added to
                h, m = prior.get(tool, (0, 0))
                prior[tool] = (h + hits, m + misses)
            ctx.view.tool_prior = prior

    def panel_view(self, session) -> dict[str, ToolPrior]:
        """Each tool's rating and the pseudo-calls it became ({} before episode 0)."""
        return {tool: ToolPrior(r, prior_counts(r)) for tool, r in self.tool_ratings.items()}

    def state_dict(self) -> dict[str, Any]:
        if self.applied_at < 0:
            return {}
        return {"source": self.source, "applied_at": self.applied_at, "tool_ratings": dict(self.tool_ratings),
                "planner_ratings": dict(self.planner_ratings),
                "tool_prior": {k: list(v) for k, v in self.tool_prior.items()}}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.source = state.get("source", self.settings["source"])
        self.applied_at = int(state.get("applied_at", -1))
        self.tool_ratings = {k: int(v) for k, v in (state.get("tool_ratings") or {}).items()}
        self.planner_ratings = {k: int(v) for k, v in (state.get("planner_ratings") or {}).items()}
