"""The portfolio allocator as an LLM call: the reference's prompt (facts §5
step 4, with its JSON template fixed), the tools' signals as of the bar, what
the chosen policy retrieved (rules under "Learned Rules", episodic and
semantic entries under "Recent Allocation Lessons"), the approved insight;
one JSON object of weights out, read by the robust parser (step 6).

The offline allocator's weights are the fallback, so a failed call under
the `fallback` policy allocates exactly as the offline lab would, marked.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np

from engine.memory import Hit, MemoryEntry
from engine.scenario import AgentContext

from .agent import insight_seen
from .prompt import PromptContext, build_prompt, parse_weights
from .variant_view import shown_signals

MAX_LESSONS = 8
SYSTEM = "You are a careful portfolio manager. Follow the answer format exactly."


def schema(tickers: list[str]) -> dict[str, Any]:
    props = {t: {"type": "number", "minimum": 0, "maximum": 1} for t in tickers}
    props["cash"] = {"type": "number", "minimum": 0, "maximum": 1}
    return {"type": "object", "required": [*tickers, "cash"], "properties": props}


def prompt_context(scenario, t: int, ctx: AgentContext, hits: list[Hit], rules: list[MemoryEntry]) -> PromptContext:
    w, state = scenario.world, scenario.state
    tickers = list(w.tickers)
    # the offline allocator's rule: only a fresh, confident insight is shown (not the last one forever)
    insight = ctx.insight if insight_seen(ctx.insight, t, scenario.config) else {}
    lessons = [h.entry.content for h in hits if h.entry.tier != "procedural"][:MAX_LESSONS]
    rule_texts = [r.content for r in rules] + [h.entry.content for h in hits if h.entry.tier == "procedural"]
    return PromptContext(
        tickers=tickers, sectors=dict(zip(tickers, w.sectors)), bar_time=w.when[t], bar=t, n_bars=w.n_bars,
        weights={tk: float(x) for tk, x in zip(tickers, state.weights)}, cash=float(state.cash),
        value=float(state.value), drawdown=float(state.drawdown), recent_returns=list(state.returns[-4:]),
        regime=scenario.agent_regime(t), signals=shown_signals(w.toolbox.signals(t), ctx.view),
        strategy=ctx.view.planner or "",
        insight={"key_insight": insight.get("insight"), "market_regime": insight.get("regime_label"),
                 "confidence": insight.get("confidence", 0.0)} if insight else None,
        rules=list(dict.fromkeys(rule_texts)), lessons=[*ctx.view.notes, *lessons],
    )


def llm_weights(scenario, t: int, ctx: AgentContext, hits: list[Hit], rules: list[MemoryEntry],
                offline: np.ndarray) -> tuple[np.ndarray, str, list[str]]:
    """(weights over the tickers, "llm" or "fallback", the parser's notes)."""
    tickers = list(scenario.world.tickers)
    offline_answer = {**{tk: float(x) for tk, x in zip(tickers, offline)}, "cash": float(max(0.0, 1 - offline.sum()))}
    full = prompt_context(scenario, t, ctx, hits, rules)

    def build(n: dict[str, int]) -> list[dict[str, str]]:  # lessons and rules cut, the best kept, to fit
        cut = replace(full, lessons=full.lessons[:n["lessons"]], rules=full.rules[:n["rules"]])
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": build_prompt(cut)}]

    messages, trimmed = ctx.llm.fit(build, {"lessons": len(full.lessons), "rules": len(full.rules)},
                                    schema(tickers))
    result = ctx.llm.complete_json(messages, schema(tickers), purpose="agent.allocate", trimmed=trimmed,
                                   fallback=lambda _m, _s: offline_answer)
    if result.fallback:
        return offline, "fallback", []
    parsed = parse_weights(json.dumps(result.data), tickers)
    notes = list(parsed.notes) + ([parsed.fallback] if parsed.fallback else [])
    return np.array([parsed.weights[tk] for tk in tickers]), "llm", notes
