"""The 20 Newsgroups stream behind the engine's `Scenario` protocol.

What the agent sees of episode t: the article's stripped body, and as metadata
the reflector's regime label (from classes already revealed); the true class
and regime are in `Query.truth`. After each episode the article is written to
episodic memory with its true class, whatever policy played, so a policy's
prediction at t is a function of (seed, policy, t) on the session's memory.

The world holds no run state (the stream is fixed by corpus and seed), so a
save resumes exactly from the session's own state; `state_dict` records the
seed and the corpus's size so a save is not resumed on other data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.decision import chain
from engine.deferred import Deferred
from engine.errors import AELError
from engine.memory import MemoryStore
from engine.options import resolve
from engine.policies import PolicySpec
from engine.scenario import AgentContext, Outcome, Query, ScenarioBase

from .corpus import CLUSTERS, load
from .policies import ALL_POLICIES, INITIAL_POOL, predict, prior, regime_label
from .reflector import NewsReflector
from .spec import SPEC
from .stream import N_EPISODES, regime_of, stream

EPISODIC_QUALITY = 1.0
SNIPPET = 160  # characters of the body in a memory entry (the panel shows the rest of the subject)


class NewsScenario(ScenarioBase):
    """Classify 200 newsgroup articles with a retrieval-policy bandit."""

    spec = SPEC
    name = SPEC.name
    regime_names = [f"R{g}" for g in range(len(CLUSTERS))]
    memory_metadata = Deferred("scenarios.news.saved_metadata", "MEMORY_METADATA")
    state_model = Deferred("scenarios.news.saved_metadata", "RunState")

    def __init__(self, seed: int, **options: Any):
        self.data = resolve(SPEC.options, options, "news scenario")["data"]
        self.seed = int(seed)
        self.n_episodes = N_EPISODES
        self.initial_pool: list[PolicySpec] = list(INITIAL_POOL)
        self.defaults = SPEC.session_defaults(phases={"train": N_EPISODES, "val": 0, "test": 0})
        self.corpus = load(self.data)
        self.stream = stream(self.data, self.seed)
        self.labels = self.stream.labels
        self._default = min(set(self.corpus.groups))

    def session_seed(self) -> list[int]:
        return [self.seed, 1]  # the stream is drawn from [seed, 0]

    # ---------------------------------------------------------------- stream
    def subject(self, t: int) -> str:
        return self.corpus.subjects[int(self.stream.docs[t])] or "(no subject)"

    def query(self, t: int) -> Query:
        doc = int(self.stream.docs[t])
        return Query(episode=t, text=self.corpus.texts[doc],
                     metadata={"regime_label": regime_label(self.labels, t), "subject": self.subject(t)},
                     truth={"regime": regime_of(t), "label": self.labels[t], "doc": doc})

    def input_seen(self, query: Query) -> dict[str, Any]:
        """The article as the agent read it: subject and body (headers, quotes and signature stripped)."""
        return {"subject": query.metadata["subject"], "body": query.text}

    def regime(self, t: int) -> int:
        return regime_of(t)

    def similarity(self, query: dict[str, Any], tier: str, episodes: np.ndarray) -> np.ndarray:
        """Cosine of the query article (`query["_episode"]`) to the articles written at `episodes`."""
        if tier != "episodic":
            return np.zeros(len(episodes))
        return self.stream.sim[int(query["_episode"]), np.asarray(episodes, dtype=np.int64)]

    # ------------------------------------------------------------------- act
    def _predict(self, hits, t: int, votes: list | None = None, policy: str = "") -> tuple[str, list[int]]:
        return predict(hits, self.stream.sim[t], prior(self.labels, t, self._default), votes, policy)

    def act(self, query: Query, ctx: AgentContext) -> Outcome:
        t = query.episode
        votes: list | None = [] if ctx.explain else None  # watched: the vote, as taken
        label, voters = self._predict(ctx.hits, t, votes, ctx.hits_from or ctx.policy.name)
        decided = chain(ctx.policy.name, votes) if votes else None
        gold = query.truth["label"]
        ok = label == gold
        subject = query.metadata["subject"]
        return Outcome(
            score=1.0 if ok else -1.0, reward=1.0 if ok else 0.0, correct=ok,
            action=f"«{subject[:60]}» → {label}", result=f"true {gold} {'✓' if ok else '✗'}",
            info={"predicted": label, "label": gold, "voters": voters}, decided=decided,
        )

    def episodic_entry(self, query: Query, outcome: Outcome, policy: str) -> tuple[str, dict[str, Any], float]:
        t = query.episode
        body = " ".join(query.text.split())[:SNIPPET]
        content = f"[{self.labels[t]}] {query.metadata['subject']} — {body}"
        meta = {"label": self.labels[t], "regime_label": query.metadata["regime_label"],
                "subject": query.metadata["subject"][:200]}
        return content, meta, EPISODIC_QUALITY

    # ------------------------------------------------------------ hindsight
    def _correct_now(self, spec: PolicySpec, memory: MemoryStore, t: int) -> bool:
        hits = memory.retrieve(spec, {**self.query(t).metadata, "_episode": t}, self.similarity, count=False)
        return self._predict(hits, t)[0] == self.labels[t]

    def oracle_arm(self, t: int, pool: list[PolicySpec], memory: MemoryStore) -> PolicySpec:
        """The paper's oracle: the first of P0..P5 (the pool, then regime_filtered)
        right at t on the session's memory; the first arm when none is."""
        names = {p.name for p in pool}
        for spec in [*pool, *(p for p in ALL_POLICIES if p.name not in names)]:
            if self._correct_now(spec, memory, t):
                return spec
        return pool[0]

    def counterfactual(self, spec: PolicySpec, episodes: list[int]) -> np.ndarray:
        """Whether `spec` would have classified each of `episodes` right, on a memory
        holding exactly the earlier articles (replayed here, the session's untouched)."""
        out = np.zeros(len(episodes), dtype=bool)
        if not episodes:
            return out
        memory = MemoryStore(cap_per_tier=N_EPISODES)
        wanted = {u: i for i, u in enumerate(episodes)}
        for t in range(max(episodes) + 1):
            memory.episode = t
            if t in wanted:
                out[wanted[t]] = self._correct_now(spec, memory, t)
            q = self.query(t)
            content, meta, quality = self.episodic_entry(q, Outcome(0.0, 0.0, "", ""), spec.name)
            memory.write("episodic", content, meta, quality)
        return out

    def check_policy(self, spec: PolicySpec) -> None:
        if spec.order == "relevance" and not spec.code and not spec.retrieves_nothing:
            raise AELError(f"policy {spec.name!r}: the news scenario orders articles by similarity or "
                           "recency (relevance needs match keys it does not have)")

    # ----------------------------------------------------------- reflection
    def make_reflector(self, options: dict[str, Any]) -> NewsReflector:
        return NewsReflector.from_options(options)

    def side_info(self, start: int, end: int) -> dict[str, Any]:
        """The true class mix of episodes [start, end), which the agent sees only one by one."""
        span = self.labels[max(0, start):min(end, self.n_episodes)]
        counts: dict[str, int] = {}
        for g in span:
            counts[g] = counts.get(g, 0) + 1
        return {"episodes": [start, min(end, self.n_episodes) - 1], "class_mix": counts} if span else {}

    # ---------------------------------------------------------- persistence
    def state_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "articles": len(self.corpus)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("seed", self.seed) != self.seed:
            raise AELError(f"news scenario: the saved session is for seed {state['seed']}, not {self.seed}")
        if state.get("articles", len(self.corpus)) != len(self.corpus):
            raise AELError(f"news scenario: the save was made on a corpus of {state['articles']} articles; "
                           f"this one ({self.corpus.source}) has {len(self.corpus)}")

    def summary(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        return {"data": self.corpus.source, "articles": len(self.corpus),
                "paper_comparable": self.corpus.is_standard}
