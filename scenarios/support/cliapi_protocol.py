"""The paper's LLM-agent protocol on the support stream (`tab:cliapi_llm_text`).

The paper ran its support table with a model twice over: the deterministic
stream of 1,200 tickets per seed (`tab:cliapi_stream`, what `ael-lab run
support` plays) and, with Gemini 3.1 Flash-Lite as the agent, "a stratified
160-episode subset per seed (40 per regime), for 800 episodes per method ...
batch size 8, temperature 0, and default error policy raise" (paper, appendix
"Support-Ticket Routing Stream LLM-Agent Details"). Its prior-method rows exist
only in the second protocol, so they are compared with runs of it only
(`--protocol cliapi-llm`, `ael-lab reproduce support-llm --agent ...`).

What this module fixes where the paper is silent (README, "The support LLM protocol"):
- which 160: the paper does not publish them. Here, per seed, 40 tickets drawn
  without replacement from each regime's 300 by `default_rng([seed, 160])`,
  played in stream order (`stratified_indices`);
- memory and hindsight are the subset's: a ticket's memory holds the earlier
  tickets *of the subset*, the policies' answers and the replay that the
  reflector and EvoTool/FactorMiner read are computed on the subset
  (`subset_table`), so nothing the agent sees comes from tickets it never played;
- reflection keeps the spec's settings (every 40 tickets, the trailing 120,
  below 0.58), counted in subset episodes: the paper gives no others;
- one ticket per call, not batches of 8: a batch would make the tickets of one
  call share the memory and the bandit's arm of its first, which the engine's
  episode-by-episode loop does not do. 160 agent calls a run, not 20.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from engine.memory import MemoryStore
from engine.policies import PolicySpec

from . import patterns
from .bank import N_EPISODES, REGIME_STARTS, ROUTES
from .policies import ALL_POLICIES, INITIAL_POOL, behaviour_key, episodic_record, route_live
from .scenario import SupportScenario
from .spec import LLM_PROTOCOL, SPEC
from .stream import tickets
from .table import EPISODIC_QUALITY, PredictionTable, table_keys
from .text import stream_similarity

PER_REGIME = 40
N_SUBSET = PER_REGIME * len(REGIME_STARTS)  # 160
LLM_SETTINGS = dict(SPEC.llm_settings_for({"protocol": LLM_PROTOCOL}))  # the paper's (declared on the spec)


def stratified_indices(seed: int) -> tuple[int, ...]:
    """The stream episodes of `seed`'s subset: 40 of each regime, drawn by default_rng([seed, 160]), in order."""
    rng = np.random.default_rng([int(seed), N_SUBSET])
    bounds = (*REGIME_STARTS, N_EPISODES)
    out: list[int] = []
    for start, end in zip(bounds, bounds[1:]):
        out += sorted(int(i) for i in rng.choice(np.arange(start, end), PER_REGIME, replace=False))
    return tuple(out)


@lru_cache(maxsize=8)
def subset_stream(seed: int) -> tuple[tuple[dict[str, Any], ...], np.ndarray]:
    """The subset's tickets, numbered 0..159 in play order (their regime and text as in the
    stream, `stream_episode` where they come from), and their Jaccard similarities."""
    index = stratified_indices(seed)
    full = tickets(seed)
    subset = tuple({**full[i], "episode": k, "stream_episode": i} for k, i in enumerate(index))
    sim = stream_similarity(seed)[np.ix_(index, index)]
    sim.setflags(write=False)
    return subset, sim


def _similarity(sim: np.ndarray):
    def similarity(query: dict[str, Any], tier: str, episodes: np.ndarray) -> np.ndarray:
        if tier != "episodic":
            return np.zeros(len(episodes))
        return sim[int(query["_episode"])][np.asarray(episodes, dtype=np.int64)]
    return similarity


def subset_predictions(seed: int, specs: tuple[PolicySpec, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(routes, confident), each (160, len(specs)): what each policy answers at each subset
    ticket with the subset's earlier tickets in memory, through the real retrieval path."""
    subset, sim = subset_stream(seed)
    similarity = _similarity(sim)
    store = MemoryStore(cap_per_tier=N_SUBSET)
    routes = np.zeros((len(subset), len(specs)), dtype=np.int8)
    confident = np.zeros((len(subset), len(specs)), dtype=bool)
    for t, ticket in enumerate(subset):
        store.episode = t
        query = {"endpoint": ticket["endpoint"], "_episode": t}
        for j, spec in enumerate(specs):
            vote = route_live(spec, store, query, similarity, sim[t])
            routes[t, j], confident[t, j] = vote.route, vote.confident
        content, meta = episodic_record(ticket)
        store.write("episodic", content, meta, EPISODIC_QUALITY, episode=t)
    return routes, confident


@lru_cache(maxsize=8)
def subset_table(seed: int) -> tuple[PredictionTable, np.ndarray]:
    """The subset's prediction table of the six built-in policies, and the initial pool's
    confident flags (EvoTool's ordered answer), both read-only."""
    routes, confident = subset_predictions(seed, ALL_POLICIES)
    subset, _ = subset_stream(seed)
    gold = np.array([ROUTES.index(t["gold_route"]) for t in subset], dtype=np.int8)
    correct = routes == gold[:, None]
    pool = confident[:, [ALL_POLICIES.index(p) for p in INITIAL_POOL]]
    for arr in (routes, gold, correct, pool):
        arr.setflags(write=False)
    return PredictionTable(seed=int(seed), columns=tuple(p.name for p in ALL_POLICIES), keys=table_keys(),
                           routes=routes, gold=gold, correct=correct), pool


class CliapiSubsetScenario(SupportScenario):
    """The support world on the paper's LLM-protocol subset: 160 tickets, 40 per regime."""

    protocol = LLM_PROTOCOL
    # the lab's results view sets the paper's rows beside a run: tab:cliapi_stream's are another
    # protocol's, and tab:cliapi_llm_text's an LLM agent's (the reproduce report compares those)
    paper_table: dict[str, Any] = {}

    def __init__(self, seed: int, **options: Any):
        super().__init__(seed, **options)
        self._tickets, sim = subset_stream(self.seed)
        self.n_episodes = min(self.n_episodes, N_SUBSET)
        self.defaults = SPEC.session_defaults(phases={"train": self.n_episodes, "val": 0, "test": 0})
        self._sim = sim  # rows by subset episode, as SimilarityRows gives the stream's
        self._similarity = _similarity(sim)
        self._extra_subset: dict[str, np.ndarray] = {}

    @property
    def table(self) -> PredictionTable:
        return subset_table(self.seed)[0]

    def prepare(self) -> None:
        subset_table(self.seed)

    def _routes_at(self, t: int) -> np.ndarray:
        return self.table.routes[t]

    def confident_at(self, t: int) -> np.ndarray:
        return subset_table(self.seed)[1][t]

    def regime(self, t: int) -> int:
        return int(self._tickets[t]["regime"])

    def correct_column(self, spec: PolicySpec) -> np.ndarray:
        col = self.table.column(spec)
        if col is not None:
            return self.table.correct[:, col]
        key = behaviour_key(spec)
        if key not in self._extra_subset:
            self._extra_subset[key] = subset_predictions(self.seed, (spec,))[0][:, 0]
        return self._extra_subset[key] == self.table.gold

    def distill(self, memory: MemoryStore, episode: int):
        # the stream's shared patterns are keyed by stream episodes: the subset distils its own memory
        return patterns.distill(memory)

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "protocol": self.protocol}

    def summary(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        """Also which protocol, and which stream tickets were played: the paper's rows for the
        full stream do not apply (`paper_comparable` false), its LLM table is the reproduce report's."""
        return {**super().summary(history), "protocol": self.protocol, "paper_comparable": False,
                "stream_episodes": [t["stream_episode"] for t in self._tickets[:self.n_episodes]]}
