"""What distillation finds in the support memory, and which rules bear on a ticket.

Two kinds of readable pattern, each with a stable key (the condition) and a
direction (the route it points to), so the engine can corroborate a pattern
across slow windows and promote it to a procedural rule:

- endpoint patterns, key `endpoint:<endpoint>`: "endpoint /v1/batches →
  queue_backpressure in 11 of 12 recent tickets". Before regime 3 endpoints
  carry no information, so these appear only once the endpoint decides the route.
- token patterns, key `token:<token>`: "token 429 → queue_backpressure
  (0.93 of 40 recent tickets)": a token that nearly always comes with one route.

A rule applies to a ticket with that endpoint or that token, and it held when
the ticket's gold route is the rule's direction.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import lru_cache
from itertools import chain, repeat
from typing import Any, Iterable, Sequence

from engine.memory import MemoryEntry, MemoryStore, Pattern

from .text import tokens

ENDPOINT_RECENT = 12       # an endpoint's pattern reads its last 12 tickets
ENDPOINT_MIN_TICKETS = 6
ENDPOINT_MIN_SHARE = 0.75
TOKEN_RECENT = 200         # token patterns read the last 200 tickets
TOKEN_MIN_TICKETS = 8
TOKEN_MIN_PRECISION = 0.9
MAX_TOKEN_PATTERNS = 12    # keep the semantic tier readable: the best-supported only


@lru_cache(maxsize=16384)  # distillation re-reads the same 200 entries every 10 episodes
def entry_tokens(content: str) -> frozenset[str]:
    """The token set of the ticket text in an episodic entry's content."""
    return tokens(content.rsplit(" -> ", 1)[0])


def distill(memory: MemoryStore) -> list[Pattern]:
    """Endpoint patterns first (endpoint order of first appearance), then token
    patterns by support, descending (ties by token), so the output is deterministic."""
    entries = [e for e in memory.entries("episodic") if "route" in e.metadata]
    return endpoint_patterns(entries) + token_patterns(entries[-TOKEN_RECENT:])


def endpoint_patterns(entries: list[MemoryEntry]) -> list[Pattern]:
    return endpoint_patterns_of([e.metadata["endpoint"] for e in entries], [e.metadata["route"] for e in entries])


def endpoint_patterns_of(endpoints: Sequence[str], routes: Sequence[str]) -> list[Pattern]:
    """Endpoint patterns of tickets given as parallel lists (endpoint, gold route), oldest first."""
    by_endpoint: dict[str, list[str]] = defaultdict(list)
    for endpoint, route in zip(endpoints, routes):
        by_endpoint[endpoint].append(route)
    out = []
    for endpoint, routes in by_endpoint.items():
        recent = routes[-ENDPOINT_RECENT:]
        if len(recent) < ENDPOINT_MIN_TICKETS:
            continue
        route, count = _majority(recent)
        share = count / len(recent)
        if share < ENDPOINT_MIN_SHARE:
            continue
        out.append(Pattern(
            key=f"endpoint:{endpoint}",
            content=f"endpoint {endpoint} → {route} in {count} of {len(recent)} recent tickets",
            direction=route, support=len(recent), strength=share,
            rule=f"RULE: endpoint {endpoint} → route {route}",
            metadata={"kind": "endpoint", "endpoint": endpoint},
        ))
    return out


def token_patterns(entries: list[MemoryEntry]) -> list[Pattern]:
    # (token, route) pairs counted in C (Counter over one chained iterable): this runs
    # every 10 episodes over 200 tickets
    pairs = Counter(chain.from_iterable(zip(entry_tokens(e.content), repeat(e.metadata["route"])) for e in entries))
    totals: Counter[str] = Counter()
    for (tok, _), count in pairs.items():
        totals[tok] += count
    return token_patterns_of((tok, route, count, totals[tok]) for (tok, route), count in pairs.items())


def token_patterns_of(counts: Iterable[tuple[str, str, int, int]]) -> list[Pattern]:
    """Token patterns from (token, route, tickets with both, tickets with the token)."""
    found = []
    for tok, route, count, n in counts:
        # A precision of 0.9 leaves one route a strict majority, so at most one pair of a token passes.
        if n < TOKEN_MIN_TICKETS or count < TOKEN_MIN_PRECISION * n:
            continue
        found.append((n, tok, route, count))
    found.sort(key=lambda x: (-x[0], x[1]))
    return [
        Pattern(
            key=f"token:{tok}",
            content=f"token {tok} → {route} ({count / n:.2f} of {n} recent tickets)",
            direction=route, support=n, strength=count / n,
            rule=f"RULE: token {tok} → route {route}",
            metadata={"kind": "token", "token": tok},
        )
        for n, tok, route, count in found[:MAX_TOKEN_PATTERNS]
    ]


def _majority(routes: list[str]) -> tuple[str, int]:
    """The most frequent route; among equals, the one seen most recently."""
    counts = Counter(routes)
    best = max(counts.values())
    route = next(r for r in reversed(routes) if counts[r] == best)
    return route, best


def rule_applies(rule: MemoryEntry, endpoint: str, text: str) -> bool:
    kind = rule.metadata.get("kind")
    if kind == "endpoint":
        return rule.metadata.get("endpoint") == endpoint
    if kind == "token":
        return rule.metadata.get("token") in tokens(text)
    return False


def applicable_rules(memory: MemoryStore, endpoint: str, text: str) -> list[MemoryEntry]:
    return [r for r in memory.entries("procedural") if rule_applies(r, endpoint, text)]


def endpoint_concentration(tickets: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per endpoint: its tickets in the span, its most frequent gold route and that route's share.
    Uses gold routes of the whole span, so it is side information, never shown to the agent."""
    by_endpoint: dict[str, list[str]] = defaultdict(list)
    for t in tickets:
        by_endpoint[t["endpoint"]].append(t["gold_route"])
    out = {}
    for endpoint in sorted(by_endpoint):
        routes = by_endpoint[endpoint]
        route, count = _majority(routes)
        out[endpoint] = {"tickets": len(routes), "top_route": route, "share": round(count / len(routes), 3)}
    return out
