"""The support-ticket routing scenario (spec `support-stream.md`) behind the engine's
`Scenario` protocol.

What the agent sees of ticket t is its text and endpoint (`Query.metadata`
holds the endpoint, which filters match on); the regime, gold route and
has_route_signal are in `Query.truth`, for scoring, the oracle and analysis
only. After each episode the ticket is written to episodic memory with its
gold route, whatever policy was played (spec §5).

`act` is a table lookup: every policy sees the same memory, so its answer is
a pure function of (seed, policy, t), computed once per seed through the real
retrieval path (`table.py`). It falls back to live retrieval on the session's
memory for a policy the table does not hold (an edited one), and whenever the
session's memory is not the spec's (fewer than t episodic entries, e.g. a
smaller memory cap), so the answer is always what that memory gives.
"""

from __future__ import annotations

import importlib

from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np

from engine.decision import chain
from engine.deferred import Deferred
from engine.errors import AELError
from engine.memory import MemoryEntry, MemoryStore, Pattern
from engine.options import resolve
from engine.policies import PolicySpec
from engine.scenario import AgentContext, Outcome, Query, ScenarioBase

from . import patterns
from .bank import REGIME_NAMES, ROUTES
from .llm_router import llm_route
from .policies import INITIAL_POOL, ROUTE_AWARE, behaviour_key, episodic_record, route_live
from .prior import SupportPriorWorld, prior_route
from .reflector import SupportReflector
from .spec import SPEC
from .stream import generate, regime_of, tickets
from .stream_patterns import StreamPatterns
from .table import (EPISODIC_QUALITY, PredictionTable, build_gently, compute_predictions, prediction_table,
                    prediction_table_now, predictions_at, similarity_for, table_keys)
from .text import SimilarityRows

PROTOCOLS = {"cliapi-llm": "scenarios.support.cliapi_protocol:CliapiSubsetScenario"}


class SupportScenario(ScenarioBase):
    """Route 1,200 support tickets to one of 8 routes with a retrieval-policy bandit."""

    spec = SPEC
    name = SPEC.name
    protocol = "full"  # `--protocol cliapi-llm` builds the paper's 160-ticket subset instead (cliapi_protocol.py)
    regime_names = list(REGIME_NAMES)
    match_bonuses = {"endpoint": 1.0}  # what `relevance`-ordered (edited) policies match on
    # what a save's memory must carry, checked on load (imported then: it needs pydantic)
    memory_metadata = Deferred("scenarios.support.saved_metadata", "MEMORY_METADATA")
    state_model = Deferred("scenarios.support.saved_metadata", "RunState")

    def __new__(cls, seed: int | None = None, **options: Any):  # (a copy calls it with no arguments)
        if cls is SupportScenario and options.get("protocol", "full") != "full":
            resolve(SPEC.options, options, "support scenario")  # an unknown protocol is one line, here
            # named as the registry names a factory: the subset world subclasses this one,
            # so an import here would be a cycle
            module, _, name = PROTOCOLS[options["protocol"]].partition(":")
            return super().__new__(getattr(importlib.import_module(module), name))
        return super().__new__(cls)

    def __init__(self, seed: int, **options: Any):
        n = resolve(SPEC.options, options, "support scenario")["n_episodes"]
        self.seed = int(seed)
        self.n_episodes = n
        self.initial_pool: list[PolicySpec] = list(INITIAL_POOL)
        # The spec evaluates every episode online; it has no train/val/test split,
        # so every episode is a (learning) train episode.
        self.defaults = SPEC.session_defaults(phases={"train": n, "val": 0, "test": 0})
        self._tickets = tickets(self.seed)
        self._sim = SimilarityRows(self.seed)  # rows of S as episodes need them
        self._similarity = similarity_for(self.seed, self._sim)
        self._extra: dict[str, np.ndarray] = {}  # behaviour key -> route column of an untabled policy
        self._distilled: dict[tuple[int, int], list[Pattern]] = {}  # (first, last) episode -> patterns
        self._stream_patterns: StreamPatterns | None = None  # built by the first distillation

    @property
    def table(self) -> PredictionTable:
        """The seed's prediction table (computed on first use, then shared by all sessions)."""
        return prediction_table(self.seed)

    def prepare(self) -> None:
        """Build the prediction table in the background, gently (safe beside steps: a step that
        finds it being built computes its own row instead of waiting, so the lab's first step
        is quick)."""
        build_gently(self.seed)

    def _routes_at(self, t: int) -> np.ndarray:
        """Row t of the table: every built-in policy's route index at episode t."""
        table = prediction_table_now(self.seed)
        return table.routes[t] if table is not None else predictions_at(self.seed, t)

    @staticmethod
    def export_stream(seed: int) -> list[dict[str, Any]]:
        """The tickets of `seed` in canonical key order (`ael-lab export-stream support`)."""
        return generate(seed)

    def session_seed(self) -> list[int]:
        return [self.seed, 1]  # spec §6: the selectors' generator is default_rng([seed, 1])

    # ---------------------------------------------------------------- stream
    def ticket(self, t: int) -> dict[str, Any]:
        return dict(self._tickets[t])

    def query(self, t: int) -> Query:
        tk = self._tickets[t]
        return Query(
            episode=t, text=tk["text"], metadata={"endpoint": tk["endpoint"]},
            truth={"regime": tk["regime"], "gold_route": tk["gold_route"],
                   "has_route_signal": tk["has_route_signal"]},
        )

    def input_seen(self, query: Query) -> dict[str, Any]:
        """The ticket as the agent read it: its text and endpoint (as `export-stream` gives them)."""
        return {"text": query.text, "endpoint": query.metadata["endpoint"]}

    def regime(self, t: int) -> int:
        return regime_of(t)

    # ------------------------------------------------------------------- act
    def act(self, query: Query, ctx: AgentContext) -> Outcome:
        t = query.episode
        col = table_keys().get(behaviour_key(ctx.policy))
        votes: list | None = [] if ctx.explain else None  # watched: every vote taken, as taken
        # The table assumes the spec's memory: exactly the t earlier tickets.
        tabled = col is not None and ctx.memory.counts()["episodic"] == t
        if tabled and votes is None:
            route, source = ROUTES[int(self._routes_at(t)[col])], "table"
        else:
            # A gated vote must see its own (possibly empty) hits, not the fallback's
            # that the session substitutes when the policy retrieved nothing.
            hits = ctx.hits if ctx.hits_from == ctx.policy.name else None
            # watched where the table answers: the same vote, read as the table read it (no use counted)
            vote = route_live(ctx.policy, ctx.memory, self.query_dict(query), self._similarity,
                              self._sim[t], hits=hits, votes=votes, count=not tabled)
            route, source = ROUTES[vote.route], "table" if tabled else "live"
        decided = None if votes is None else chain(ctx.policy.name, votes)
        if ctx.prior is not None:  # a prior method's memory votes too (prior.py)
            route, source = prior_route(self, ctx.policy, query, ctx, route), "prior"
            decided = decided and replace(decided, answer=route, notes=(
                *decided.notes, f"then the prior method's memory voted too: {route}"))
        agent = "offline"
        if ctx.llm is not None:
            offline = route
            route, agent = llm_route(query, ctx, offline_route=route)
            decided = decided and replace(decided, answer=route, notes=(
                *decided.notes, f"then the model answered {route} (the vote's answer, {offline}, "
                                f"was its offline route; its reply is under the model calls)"))
        gold = query.truth["gold_route"]
        ok = route == gold
        return Outcome(
            score=1.0 if ok else -1.0, reward=1.0 if ok else 0.0,
            action=f"route → {route}", result=f"gold {gold} {'✓' if ok else '✗'}", correct=ok,
            info={"route": route, "gold_route": gold, "source": source, "agent": agent}, decided=decided,
        )

    def confident_at(self, t: int) -> np.ndarray:
        """Whether each initial policy's vote at t was confident (EvoTool's ordered answer)."""
        from .policy_confidence import confidence_table

        return confidence_table(self.seed)[t]

    def sim_row(self, t: int) -> np.ndarray:
        """Jaccard similarity of ticket t to every ticket of the stream (read-only)."""
        return self._sim[t]

    def live_route(self, spec: PolicySpec, memory: MemoryStore, t: int) -> str:
        """The route `spec` gives ticket t by retrieving from `memory` now (no table)."""
        vote = route_live(spec, memory, self.query_dict(self.query(t)), self._similarity, self._sim[t])
        return ROUTES[vote.route]

    @staticmethod
    def query_dict(query: Query) -> dict[str, Any]:
        """What retrieval matches on: the query's metadata plus its episode as `_episode`."""
        return {**query.metadata, "_episode": query.episode}

    def similarity(self, query: dict[str, Any], tier: str, episodes: np.ndarray) -> np.ndarray:
        """Jaccard similarity of the query ticket (`query["_episode"]`) to the tickets
        written at `episodes`; 0 for the semantic and procedural tiers."""
        if "_episode" not in query:
            raise ValueError("support similarity needs the query's episode under '_episode'")
        return self._similarity(query, tier, episodes)

    def episodic_entry(self, query: Query, outcome: Outcome, policy: str) -> tuple[str, dict[str, Any], float]:
        content, meta = episodic_record(self._tickets[query.episode])
        return content, meta, EPISODIC_QUALITY

    # ------------------------------------------------------------ hindsight
    def correct_column(self, spec: PolicySpec) -> np.ndarray:
        """C[:, spec]: whether `spec` routes each ticket right, with the spec's memory."""
        col = self.table.column(spec)
        if col is not None:
            return self.table.correct[:, col]
        key = behaviour_key(spec)
        if key not in self._extra:
            self._extra[key] = compute_predictions(self.seed, (spec,))[:, 0]
        return self._extra[key] == self.table.gold

    def counterfactual(self, spec: PolicySpec, episodes: list[int]) -> np.ndarray:
        """Whether `spec` would have routed each of `episodes` right (replay on the spec's memory)."""
        return self.correct_column(spec)[np.asarray(episodes, dtype=np.int64)]

    def oracle_arm(self, t: int, pool: list[PolicySpec], memory: MemoryStore) -> PolicySpec:
        """The first pool arm correct at t, else route_aware if it is (spec §6: the oracle
        is right when any of the 6 policies is), else the first arm."""
        keys = table_keys()
        row = self._routes_at(t) == ROUTES.index(self._tickets[t]["gold_route"])
        for spec in pool:
            col = keys.get(behaviour_key(spec))
            if col is not None and row[col]:
                return spec
        if row[keys[behaviour_key(ROUTE_AWARE)]]:
            return ROUTE_AWARE
        return pool[0]

    # ------------------------------------------------------ memory learning
    def distill(self, memory: MemoryStore, episode: int) -> list[Pattern]:
        """Patterns in the episodic tier. When the tier is one unbroken run of this
        stream's tickets (the usual case: one ticket written per episode, none
        evicted), its content is fixed by (first, last) episode, so the result is
        shared by every session on this seed instead of recomputed by each, and read
        from the stream's arrays (`stream_patterns.py`) instead of the entries."""
        entries = memory.tiers["episodic"].entries
        if not entries:
            return []
        first, last = entries[0].episode, entries[-1].episode
        if len(entries) != last - first + 1 or any(
                e.content != episodic_record(self._tickets[e.episode])[0] for e in (entries[0], entries[-1])):
            return patterns.distill(memory)
        key = (first, last)
        found = self._distilled.get(key)
        if found is None:
            if self._stream_patterns is None:
                self._stream_patterns = StreamPatterns(self.seed)
            found = self._distilled[key] = self._stream_patterns.distill(first, last)
        return found

    def applicable_rules(self, query: Query, memory: MemoryStore) -> list[MemoryEntry]:
        return patterns.applicable_rules(memory, query.metadata["endpoint"], query.text)

    def rule_held(self, rule: MemoryEntry, query: Query, outcome: Outcome) -> bool | None:
        direction = rule.metadata.get("direction")
        return None if direction is None else direction == query.truth["gold_route"]

    # ----------------------------------------------------------- reflection
    def make_reflector(self, options: dict[str, Any]) -> SupportReflector:
        return SupportReflector.from_options(options)

    def prior_world(self) -> SupportPriorWorld:
        return SupportPriorWorld(self)

    def side_info(self, start: int, end: int) -> dict[str, Any]:
        """Facts about episodes [start, end) the agent never sees: how strongly each
        endpoint decides its route, the gold route mix, the share of tickets whose
        text carries a route signal, and every built-in policy's accuracy there."""
        span = self._tickets[max(0, start):min(end, self.n_episodes)]
        if not span:
            return {}
        correct = self.table.correct[span[0]["episode"]:span[-1]["episode"] + 1]
        return {
            "episodes": [span[0]["episode"], span[-1]["episode"]],
            "endpoint_routes": patterns.endpoint_concentration(list(span)),
            "route_mix": dict(Counter(t["gold_route"] for t in span).most_common()),
            "route_signal_share": round(sum(t["has_route_signal"] for t in span) / len(span), 3),
            "policy_accuracy": {name: round(float(correct[:, j].mean()), 3)
                                for j, name in enumerate(self.table.columns)},
        }

    # ---------------------------------------------------------- persistence
    def state_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "n_episodes": self.n_episodes}  # the world itself is stateless

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("seed", self.seed) != self.seed:
            raise AELError(f"support scenario: the saved session is for seed {state['seed']}, not {self.seed}")
        if state.get("protocol", "full") != self.protocol:
            raise AELError(f"support scenario: the save was made on the {state.get('protocol', 'full')} protocol, "
                           f"not {self.protocol}")

    def summary(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        """The first episode that played route_aware (None if it never did). Accuracy per
        regime and overall needs nothing here: the reward is 1 exactly when the route is
        right, so the engine's mean reward by regime (`regimes`, `overall`) is the accuracy."""
        first = next((r["episode"] for r in history if r.get("policy") == ROUTE_AWARE.name), None)
        return {"first_route_aware_episode": first}
