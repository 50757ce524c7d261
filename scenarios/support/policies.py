"""The six retrieval policies of spec §5, as engine `PolicySpec`s, and the router
that turns what a policy retrieves into a route.

All policies read only the episodic tier, where every ticket is stored with its
gold route (spec §5: whatever policy was used), so a policy's prediction at
episode t is a pure function of (seed, spec, t). Parameters follow the paper's
20NG section:

| policy | support set |
|---|---|
| none | nothing: always the default route |
| recent_window | the last 20 tickets |
| compressed | the 10 most similar tickets |
| full_detailed | the last 200 tickets |
| class_balanced | the 3 most similar tickets of each route seen so far |
| route_aware | the last 10 tickets of the same endpoint with similarity ≥ 0.2, all voting, with share 0.67; if that vote is not confident, exactly `compressed` |

The router then votes with the 5 nearest of the support set (see `predictor`).
One exception, from the spec's wording for route_aware ("if any remain, vote
over them"): its vote weighs everything it retrieved (`vote_k=10`), not the
5 nearest.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from engine.errors import AELError
from engine.memory import Hit, MemoryStore
from engine.policies import Filter, PolicySpec, voting_pool

from engine import decision

from .bank import DEFAULT_ROUTE, ROUTES
from .predictor import K_NEIGHBOURS, Vote, vote

EPISODIC = ("episodic",)

# Arm order of the initial pool (spec §6: UCB1 plays arms 0..4 in this order).
INITIAL_POOL: tuple[PolicySpec, ...] = voting_pool(
    items="tickets", nothing="No retrieval: always answer backend_error.", group="route", group_noun="route")
NONE, RECENT_WINDOW, COMPRESSED, FULL_DETAILED, CLASS_BALANCED = INITIAL_POOL
ROUTE_AWARE = PolicySpec(
    "route_aware", EPISODIC, 10, order="similarity", filters=(Filter("endpoint"),), window=10,
    min_score=0.2, vote_share=0.67, vote_k=10, fallback="compressed",
    description="The last 10 tickets on the same endpoint with similarity >= 0.2, all voting with "
                "share 0.67; when that vote is not confident, exactly compressed.",
)

# Every built-in policy, candidate last: the columns of the prediction table.
ALL_POLICIES: tuple[PolicySpec, ...] = (*INITIAL_POOL, ROUTE_AWARE)
BY_NAME: dict[str, PolicySpec] = {p.name: p for p in ALL_POLICIES}

_ROUTE_INDEX = {r: i for i, r in enumerate(ROUTES)}

Similarity = Callable[[dict[str, Any], str, np.ndarray], np.ndarray]


def behaviour_key(spec: PolicySpec) -> str:
    """What a policy does: every field but its name and description (a renamed
    copy of route_aware predicts alike), i.e. the engine's cached fingerprint."""
    return spec.fingerprint


def vote_size(spec: PolicySpec, n_hits: int) -> int:
    """How many of the retrieved tickets vote: the policy's `vote_k` (route_aware's
    gated vote weighs all of its up to 10), else the router's k = 5 nearest."""
    return spec.vote_k if spec.vote_k is not None else K_NEIGHBOURS


def vote_on_hits(hits: list[Hit], sim_row: np.ndarray, vote_share: float, k: int = K_NEIGHBOURS) -> Vote:
    """Vote with the k nearest episodic tickets among `hits` (other tiers hold no
    tickets). `sim_row[j]` is the query's similarity to ticket j."""
    tickets = [h.entry for h in hits if h.entry.tier == "episodic" and "route" in h.entry.metadata]
    episodes = np.array([e.episode for e in tickets], dtype=np.int64)
    routes = np.array([_ROUTE_INDEX[e.metadata["route"]] for e in tickets], dtype=np.int64)
    return vote(episodes, sim_row[episodes], routes, vote_share, k)


def route_live(spec: PolicySpec, memory: MemoryStore, query: dict[str, Any], similarity: Similarity,
               sim_row: np.ndarray, hits: list[Hit] | None = None, _depth: int = 0,
               votes: list[decision.Vote] | None = None, count: bool = True) -> Vote:
    """Route one ticket by retrieving from `memory` under `spec` (or using the
    `hits` the session already retrieved with it), falling back as the spec says.
    With `votes`, each vote taken is added to it as a person reads it (engine/decision.py);
    `count=False` reads as the prediction table did, using nothing up (the explanation sees it)."""
    if hits is None:
        hits = memory.retrieve(spec, query, similarity, count=count, shown=True)
    v = vote_on_hits(hits, sim_row, spec.vote_share, vote_size(spec, len(hits)))
    if votes is not None:
        votes.append(vote_record(spec, hits, sim_row, v))
    if v.confident or spec.fallback is None:
        return v
    fallback = BY_NAME.get(spec.fallback)
    if fallback is None:
        raise AELError(f"policy {spec.name!r}: fallback {spec.fallback!r} is not a support policy "
                       f"(known: {', '.join(BY_NAME)})")
    if _depth >= len(BY_NAME):
        raise AELError(f"policy {spec.name!r}: its fallbacks form a cycle")
    return route_live(fallback, memory, query, similarity, sim_row, None, _depth + 1, votes, count)


def vote_record(spec: PolicySpec, hits: list[Hit], sim_row: np.ndarray, v: Vote) -> decision.Vote:
    """The router's vote `v` on `hits` as the explanation shows it: the neighbours that voted,
    best first, each with its route, its similarity (its weight) and its endpoint."""
    by_episode = {h.entry.episode: h.entry for h in hits if h.entry.tier == "episodic"}
    voters = tuple(decision.Voter(e.id, e.episode, e.metadata["route"], float(sim_row[e.episode]),
                                  {"endpoint": e.metadata.get("endpoint")})
                   for e in (by_episode[ep] for ep in v.neighbours))
    note = ("nothing retrieved to vote" if not by_episode else
            "" if voters else "no retrieved ticket is similar at all (best similarity 0)")
    return decision.Vote(spec.name, voters, ROUTES[v.route], v.confident, DEFAULT_ROUTE,
                         threshold=spec.vote_share, note=note, fallback=spec.fallback)


def episodic_record(ticket: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(content, metadata) of a ticket's episodic memory entry. The metadata holds
    what retrieval filters and groups on, the endpoint and the gold route, and
    nothing the agent may not read (no regime, no has_route_signal)."""
    content = f"{ticket['text']} -> {ticket['gold_route']}"
    return content, {"endpoint": ticket["endpoint"], "route": ticket["gold_route"]}
