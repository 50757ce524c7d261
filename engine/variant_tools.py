"""Variants about the agent's tools: no-tools (the +Tools ablation), more to come."""

from __future__ import annotations

from .variants import Variant, register_variant


@register_variant
class NoTools(Variant):
    name = "no-tools"
    summary = "the agent sees no tool signals (the default then counts as +Tools)"
    scenarios = ("portfolio",)
    help = ("no-tools: the agent reads no tool's signal, so it cannot tilt the portfolio by them: the offline "
            "agent holds equal weights (scaled by an injected insight's exposure), a model's prompt has no "
            "Market Signals section. The paper's Stateless row showed the signals; this is the ablation it "
            "claimed, and the plain run is then the +Tools row.")

    def agent_context(self, session, query, ctx) -> None:
        ctx.view.tools = ()
