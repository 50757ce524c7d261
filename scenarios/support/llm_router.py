"""The support router as an LLM call: the ticket, its endpoint, what the
chosen policy retrieved, the procedural rules that apply and the current
insight in; one route out, as JSON. The offline router's answer is the
fallback, so a failed call under the `fallback` policy routes exactly as the
offline lab would (and says so in the episode's info)."""

from __future__ import annotations

import json
from typing import Any

from engine.scenario import AgentContext, Query

from .bank import DEFAULT_ROUTE, ROUTES

MAX_MEMORIES = 12

SYSTEM = (
    "You route API support tickets to the team that can fix them. Routes: "
    + ", ".join(ROUTES)
    + f". Answer {DEFAULT_ROUTE} when nothing points elsewhere. Past tickets are shown as "
    "'text -> route' with the route they turned out to need."
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["route"],
    # the reason is only shown, never used: a short cap bounds an untrusted reply and a
    # small local model's time (each token costs tens of milliseconds on one CPU thread)
    "properties": {"route": {"type": "string", "enum": list(ROUTES)}, "reason": {"type": "string", "maxLength": 80}},
}


def messages(query: Query, ctx: AgentContext, limits: dict[str, int] | None = None) -> list[dict[str, str]]:
    """The routing prompt; `limits` cuts the memories (kept in retrieval order, the best
    first) and rules to fit a small context."""
    n = limits or {}
    memories = [f"[{h.entry.metadata.get('endpoint', '?')}] {h.entry.content}" for h in ctx.hits[:MAX_MEMORIES]]
    rules = [r.content for r in ctx.rules]
    if ctx.prior is not None:  # a prior method's own memory: its rules, and its records as memories
        rules += ctx.prior.lines["rules"]
        memories = ctx.prior.lines["lessons"][:MAX_MEMORIES] + memories
    body: dict[str, Any] = {
        "ticket": query.text,
        "endpoint": query.metadata["endpoint"],
        "retrieved_memories": memories[:n.get("retrieved_memories", len(memories))]
        or ["(the retrieval policy showed no memories)"],
        "rules": rules[:n.get("rules", len(rules))],
    }
    if ctx.insight:
        body["insight"] = {k: ctx.insight[k] for k in ("insight", "regime_label", "confidence")}
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Route this ticket.\n" + json.dumps(body)}]


def llm_route(query: Query, ctx: AgentContext, offline_route: str) -> tuple[str, str]:
    """(route, "llm" or "fallback")."""
    own = ctx.prior.lines if ctx.prior is not None else {"rules": [], "lessons": []}  # a prior method's memory
    sizes = {"retrieved_memories": min(len(ctx.hits), MAX_MEMORIES) + min(len(own["lessons"]), MAX_MEMORIES),
             "rules": len(ctx.rules) + len(own["rules"])}
    prompt, trimmed = ctx.llm.fit(lambda n: messages(query, ctx, n), sizes, SCHEMA)
    result = ctx.llm.complete_json(
        prompt, SCHEMA, purpose="agent.route", trimmed=trimmed,
        fallback=lambda _m, _s: {"route": offline_route, "reason": "offline router"},
    )
    return result.data["route"], "fallback" if result.fallback else "llm"
