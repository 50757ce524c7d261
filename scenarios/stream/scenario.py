"""The stream world: predict each row's label of a researcher's file by k-NN over TF-IDF.

Everything the world holds is a pure function of its options and the file (no run state,
nothing to save beyond the options): the rows in order, their TF-IDF vectors, the
candidates (one per --meta column). The file's SHA-256 is pinned into the session's
options (`pinned_options`, `data_sha256`), so a save names the content it was made on and
a resume on a changed file is one line.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np

from engine.decision import chain
from engine.deferred import Deferred
from engine.errors import AELError
from engine.memory import MemoryStore
from engine.options import resolve
from engine.policies import PolicySpec
from engine.scenario import AgentContext, Outcome, Query, ScenarioBase

from . import llm_agent
from . import table as tables
from .index import RowIndex
from .policies import INITIAL_POOL, PROTOTYPE_KEY, candidates, predict
from .prototypes import Prototypes
from .reflector import StreamReflector
from .signals import first_seen
from .spec import MEMORY_CAP, REPLAY_ROWS, SPEC

SNIPPET = 160  # characters of the text in a memory entry
SIMS_KEPT = 64  # rows whose similarities to every row are kept (the replay of a slow window asks ~25)
AS_OF_BACK = 1_000  # prototypes asked about this many rows back or more are rebuilt, not taken apart


def _priors(labels: tuple[str, ...]) -> list[str]:
    """The vote's answer without evidence before each row t (and after the last): the label
    seen most often among rows < t, ties to the first by name; before any row, the first
    label by name. One pass over the rows, not a recount at every episode, and the first
    of the tied leaders kept as it changes: the minimum of the set of leaders, taken at
    every row, was quadratic when every label is unique (161 s before the first episode
    at 100,000 rows)."""
    counts: dict[str, int] = {}
    best, leader = 0, min(labels)
    out = []
    for label in labels:
        out.append(leader)
        c = counts[label] = counts.get(label, 0) + 1
        if c > best:  # a label alone in front
            best, leader = c, label
        elif c == best and label < leader:  # one more tied leader: the first by name leads
            leader = label
    out.append(leader)
    return out


def rows_dot(x, rows: np.ndarray, v: np.ndarray) -> np.ndarray:
    """x[rows] @ v for a CSR matrix, without building the sub-matrix (scipy's fancy row
    indexing costs a millisecond whatever the rows; this is a gather and a bincount)."""
    if not len(rows):
        return np.zeros(0)
    starts, ends = x.indptr[rows], x.indptr[rows + 1]
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(len(rows))
    owner = np.repeat(np.arange(len(rows)), lengths)
    pos = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths) + np.repeat(starts, lengths)
    return np.bincount(owner, weights=x.data[pos] * v[x.indices[pos]], minlength=len(rows))


class StreamSimilarity:
    """The stream world's similarity for the memory (engine/memory.py's contract): TF-IDF cosine
    to the rows of the episodic tier, to the label prototypes of the semantic tier, and a
    shortlist from the row index for a read of every stored row."""

    def __init__(self, world: "StreamScenario"):
        self.world = world

    def __call__(self, query: dict[str, Any], tier: str, episodes: np.ndarray) -> np.ndarray:
        t = int(query["_episode"])
        if tier == "episodic":
            return self.world.sims(t, episodes)
        if tier == "semantic":
            return self.world.prototype_sims(t, episodes)
        return np.zeros(len(episodes))

    def shortlist(self, query: dict[str, Any], tier: str, episodes: np.ndarray, k: int) -> np.ndarray | None:
        """The rows the index finds for row t when the tier holds rows 0..n-1, one per episode
        in order (the session's memory of a stream); None otherwise (a replay's window of rows,
        scored in full)."""
        n = len(episodes)
        if tier != "episodic" or n == 0 or episodes[0] != 0 or episodes[n - 1] != n - 1:
            return None
        index = self.world.row_index
        index.sync(n)
        terms, weights = self.world.query_terms(int(query["_episode"]))
        return index.shortlist(terms, weights, k)


class StreamScenario(ScenarioBase):
    """One row per episode of a labelled file; the bandit picks how the vote reads memory."""
    state_model = Deferred("scenarios.stream.saved_state", "RunState")  # what state_dict saves

    spec = SPEC
    name = SPEC.name

    def __init__(self, seed: int, **options: Any):
        o = resolve(SPEC.options, options, "stream scenario")
        if not o["data"]:
            raise AELError("stream: --data FILE is required (a labelled CSV, JSONL or Parquet file)")
        self.seed = int(seed)
        self.options = o
        if o["data_sha256"]:  # a saved session: its file first, before a changed file fails in another way
            # a regular file within the size cap before it is hashed (AELError otherwise: a save
            # naming /dev/zero or a FIFO would never finish hashing), and missing is one line too
            now = tables.file_sha256(o["data"])
            if now != o["data_sha256"]:
                raise AELError(f"--data {o['data']}: the file changed since this session was saved (its SHA-256 "
                               f"was {o['data_sha256'][:12]}…, now {now[:12]}…); put the saved file back")
        self.table = tables.load(o["data"], o["text"], o["label"], tuple(o["meta"]), o["regime"], o["order"])
        if o["data_sha256"] and o["data_sha256"] != self.table.sha256:  # changed while it was read
            raise AELError(f"--data {o['data']}: the file changed since this session was saved; put the saved "
                           "file back")
        self.meta_columns: tuple[str, ...] = tuple(o["meta"])
        self.labels = self.table.labels
        self.n_episodes = len(self.table)
        self.initial_pool: list[PolicySpec] = list(INITIAL_POOL)
        self.candidates: list[PolicySpec] = candidates(self.meta_columns)
        self.regime_names = list(self.table.regime_names)
        self.defaults = SPEC.session_defaults(phases={"train": self.n_episodes, "val": 0, "test": 0},
                                              memory_cap=min(self.n_episodes, MEMORY_CAP))
        self._priors = _priors(self.labels)
        self.first_seen = first_seen(self.labels)  # each label's first row: when it became new to memory
        self._x = self.table.x
        self._sims: dict[int, np.ndarray] = {}  # row t -> its cosine to every row (a few kept)
        self._seen: tuple[list[str], np.ndarray] | None = None  # a model agent's labels seen so far (seen_labels)
        self._query: tuple[int, np.ndarray] | None = None  # row t and its dense TF-IDF vector
        # caches of what memory holds, each a pure function of how many rows it holds (rebuilt, not saved)
        self.row_index = RowIndex(self._x)
        self.prototypes = Prototypes(self._x, self.labels)
        self._proto_rows: dict[str, int] = {}  # label -> its prototype's row in the semantic tier (a hint)
        self.similarity = StreamSimilarity(self)  # the memory's similarity, with the row index's shortlist

    @property
    def pinned_options(self) -> dict[str, Any]:
        """What the session's saved options must carry besides what was given: the file's hash."""
        return {"data_sha256": self.table.sha256}

    # ---------------------------------------------------------------- stream
    def query(self, t: int) -> Query:
        meta = {m: self.table.meta[m][t] for m in self.meta_columns}
        return Query(episode=t, text=self.table.texts[t], metadata=meta,
                     truth={"label": self.labels[t], "regime": self.regime(t)})

    def regime(self, t: int) -> int | None:
        return None if self.table.regimes is None else self.table.regimes[t]

    def row_sims(self, t: int) -> np.ndarray:
        """TF-IDF cosine of row t to every row (rows are L2-normalised): one sparse
        matrix-vector product, kept for the last few rows asked (an episode asks several times)."""
        found = self._sims.get(t)
        if found is None:
            x = self._x
            lo, hi = x.indptr[t], x.indptr[t + 1]
            v = np.zeros(x.shape[1])
            v[x.indices[lo:hi]] = x.data[lo:hi]
            found = x @ v
            found.setflags(write=False)
            if len(self._sims) >= SIMS_KEPT:
                self._sims.pop(next(iter(self._sims)))
            self._sims[t] = found
        return found

    def _dense(self, t: int) -> np.ndarray:
        if self._query is None or self._query[0] != t:
            x = self._x
            lo, hi = x.indptr[t], x.indptr[t + 1]
            v = np.zeros(x.shape[1])
            v[x.indices[lo:hi]] = x.data[lo:hi]
            self._query = (t, v)
        return self._query[1]

    def sims(self, t: int, episodes) -> np.ndarray:
        """TF-IDF cosine of row t to the rows at `episodes`: from the whole row's cosines when
        many rows are asked, else only those rows' products (what keeps a read through the row
        index flat on a long stream)."""
        episodes = np.asarray(episodes, dtype=np.int64)
        if 8 * len(episodes) >= self.n_episodes:  # by the sizes only, never by what is cached: a resumed run reads the same floats
            return self.row_sims(t)[episodes]
        return rows_dot(self._x, episodes, self._dense(t))

    def query_terms(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Row t's sparse TF-IDF: its terms and their weights."""
        x = self._x
        lo, hi = x.indptr[t], x.indptr[t + 1]
        return x.indices[lo:hi], x.data[lo:hi]

    def prototype_sims(self, t: int, episodes) -> np.ndarray:
        """Cosine of row t to the prototypes whose entries carry `episodes` (each label's first
        row), as they stood before row t: built from rows 0..t-1 (the rows added since are taken
        back out when a replay asks about an earlier row)."""
        episodes = np.asarray(episodes, dtype=np.int64)
        protos = self.prototypes
        if protos.n < t or protos.n - t >= AS_OF_BACK:
            protos.sync(t)
        slots = protos.slot_of_row[episodes]
        out = np.zeros(len(episodes))
        known = (slots >= 0) & (episodes < t)
        if known.any():
            terms, weights = self.query_terms(t)
            out[known] = protos.cosines_as_of(t, slots[known], terms, weights)
        return out

    # ------------------------------------------------------------------- act
    def _predict(self, hits, t: int, votes: list | None = None, policy: str = "") -> tuple[str, list[int]]:
        return predict(hits, lambda eps: self.sims(t, eps), lambda eps: self.prototype_sims(t, eps),
                       self._priors[t], votes, policy)

    def act(self, query: Query, ctx: AgentContext) -> Outcome:
        t = query.episode
        votes: list | None = [] if ctx.explain else None  # watched: the vote, as taken
        label, voters = self._predict(ctx.hits, t, votes, ctx.hits_from or ctx.policy.name)
        if not ctx.memory.frozen:
            self.distil(ctx.memory, t)
        decided = chain(ctx.policy.name, votes) if votes else None
        info: dict[str, Any] = {}
        if ctx.llm is not None:  # a model plays (llm_agent.py); the offline vote is its fallback
            answer = llm_agent.ask(ctx.llm, query.text, query.metadata, self.shown_rows(ctx.hits, t),
                                   self.seen_labels(t), offline=label)
            decided = decided and replace(decided, answer=str(answer.label), notes=(
                *decided.notes, f"then the model answered {answer.label} (the vote's answer, {label}, was its "
                                "offline answer; its reply is under the model calls)"))
            label, info = answer.label, {"agent": answer.agent}
        gold = query.truth["label"]
        ok = label == gold
        text = " ".join(query.text.split())
        said = label if label is not None else "(no label offered)"
        return Outcome(score=1.0 if ok else -1.0, reward=1.0 if ok else 0.0, correct=ok,
                       action=f"«{text[:60]}» → {said}", result=f"true {gold} {'✓' if ok else '✗'}",
                       info={"predicted": label or "", "label": gold, "voters": voters, **info},
                       decided=decided)

    def seen_labels(self, t: int) -> list[str]:
        """The distinct labels of the rows before t, in order of first appearance (what a model
        agent may answer). Found in one pass the first time a model asks."""
        if self._seen is None:
            firsts: dict[str, None] = {}
            counts = np.empty(self.n_episodes + 1, dtype=np.int64)
            for i, label in enumerate(self.labels):
                counts[i] = len(firsts)
                firsts.setdefault(label)
            counts[self.n_episodes] = len(firsts)
            self._seen = (list(firsts), counts)
        firsts, counts = self._seen
        return firsts[:int(counts[t])]

    def shown_rows(self, hits, t: int) -> list[llm_agent.ShownRow]:
        """The retrieved rows a model agent reads, most similar first (then newest, as the vote)."""
        episodes = np.fromiter((h.entry.episode for h in hits if h.entry.tier == "episodic"
                                and "label" in h.entry.metadata), dtype=np.int64)
        if not len(episodes):
            return []
        s = self.sims(t, episodes)
        best = episodes[np.lexsort((-episodes, -s))[:llm_agent.MAX_SHOWN]]
        return [llm_agent.ShownRow(self.table.texts[e], self.labels[e],
                                   {m: self.table.meta[m][e] for m in self.meta_columns}) for e in best]

    def _entry(self, t: int) -> tuple[str, dict[str, Any], float]:
        text = " ".join(self.table.texts[t].split())[:SNIPPET]
        meta = {m: self.table.meta[m][t] for m in self.meta_columns}
        return f"[{self.labels[t]}] {text}", {**meta, "label": self.labels[t]}, 1.0

    def episodic_entry(self, query: Query, outcome: Outcome, policy: str) -> tuple[str, dict[str, Any], float]:
        return self._entry(query.episode)

    def distil(self, memory: MemoryStore, t: int) -> None:
        """Row t's episode is over: add it to its label's prototype, and show the prototypes
        it changed in the memory's semantic tier (one entry per label, rewritten in place)."""
        changed = self.prototypes.sync(t + 1)
        tier = memory.tiers["semantic"]
        for s in changed:
            protos = self.prototypes
            label, count = protos.labels[s], int(protos.counts[s])
            meta = {PROTOTYPE_KEY: "prototype", "label": label, "rows": count}
            row = self._proto_rows.get(label, -1)
            entries = tier.entries
            if not (0 <= row < len(entries) and entries[row].metadata.get("label") == label
                    and entries[row].metadata.get(PROTOTYPE_KEY) == "prototype"):
                row = next((i for i, e in enumerate(entries) if e.metadata.get(PROTOTYPE_KEY) == "prototype"
                            and e.metadata.get("label") == label), -1)
            if row >= 0 and count & (count - 1) and count % 256:  # the terms shown at 1, 2, 4, 8... and every 256
                had = entries[row]
                tail = had.content[len(f"[{label}] prototype of {had.metadata.get('rows', 0):,} rows"):]
                memory.rewrite("semantic", row, f"[{label}] prototype of {count:,} rows{tail}", meta)
            else:
                terms = ", ".join(protos.top_terms(s, self.table.terms))
                content = f"[{label}] prototype of {count:,} rows" + (f": {terms}" if terms else "")
                if row >= 0:
                    memory.rewrite("semantic", row, content, meta)
                else:
                    memory.write("semantic", content, meta, 1.0, episode=protos.first[s])
                    row = len(tier.entries) - 1
            self._proto_rows[label] = row

    # ------------------------------------------------------------ hindsight
    def _correct_now(self, spec: PolicySpec, memory: MemoryStore, t: int) -> bool:
        hits = memory.retrieve(spec, {**self.query(t).metadata, "_episode": t}, self.similarity, count=False)
        return self._predict(hits, t)[0] == self.labels[t]

    def oracle_arm(self, t: int, pool: list[PolicySpec], memory: MemoryStore) -> PolicySpec:
        """The first of the pool, then the candidates, right at t on the session's memory; else the first arm."""
        names = {p.name for p in pool}
        for spec in [*pool, *(c for c in self.candidates if c.name not in names)]:
            if self._correct_now(spec, memory, t):
                return spec
        return pool[0]

    def counterfactual(self, spec: PolicySpec, episodes: list[int]) -> np.ndarray:
        """Whether `spec` would have labelled each of `episodes` right on a memory holding the
        `REPLAY_ROWS` rows before it and the label prototypes as they stood then (replayed here;
        the session's memory is untouched): every window a bounded policy reads, though a
        same-value candidate over a rare value, and the arms that read all history, may reach
        further back in the session's memory than the replay does."""
        return self.counterfactuals([spec], episodes)[0]

    def counterfactuals(self, specs: list[PolicySpec], episodes: list[int]) -> list[np.ndarray]:
        """`counterfactual` of several policies on one replay (what is in memory at an
        episode does not depend on the policy that reads it)."""
        out = [np.zeros(len(episodes), dtype=bool) for _ in specs]
        if not len(episodes) or not specs:
            return out
        order = sorted(range(len(episodes)), key=lambda i: episodes[i])
        memory = MemoryStore(cap_per_tier=REPLAY_ROWS)
        written = max(0, episodes[order[0]] - REPLAY_ROWS)
        protos = self.prototypes
        if protos.n < episodes[order[-1]]:
            protos.sync(episodes[order[-1]])
        shown = 0  # labels whose prototype the replay's semantic tier holds, in order of first row
        for i in order:
            u = episodes[i]
            written = max(written, u - REPLAY_ROWS)  # rows older than that would be gone anyway
            while written < u:
                memory.episode = written
                content, meta, quality = self._entry(written)
                memory.write("episodic", content, meta, quality)
                written += 1
            while shown < len(protos.labels) and protos.first[shown] < u:  # the prototypes as of u (their
                label = protos.labels[shown]                              # cosines are taken as of u too)
                memory.write("semantic", f"[{label}] prototype", {PROTOTYPE_KEY: "prototype", "label": label}, 1.0,
                             episode=protos.first[shown])
                shown += 1
            memory.episode = u
            for ok, spec in zip(out, specs):
                ok[i] = self._correct_now(spec, memory, u)
        return out

    def check_policy(self, spec: PolicySpec) -> None:
        if spec.order == "relevance" and not spec.code and not spec.retrieves_nothing:
            raise AELError(f"policy {spec.name!r}: the stream world orders rows by similarity or recency "
                           "(relevance needs match keys it does not have)")
        # a key no row carries retrieves nothing: refused, so a model's guess is sent back, not played
        keys = {*self.meta_columns, "label", PROTOTYPE_KEY}  # the prototypes' mark (policies.py)
        shown = ", ".join(sorted(keys))
        for f in spec.filters:
            if f.key not in keys:
                raise AELError(f"policy {spec.name!r}: filter key {f.key!r} is not in memory (its rows carry {shown})")
            if f.key == "label" and f.equals == "query":
                raise AELError(f"policy {spec.name!r}: a row's label is what the vote predicts; the query has none "
                               "to filter by")
        if spec.per_group is not None and spec.per_group not in keys:
            raise AELError(f"policy {spec.name!r}: per_group {spec.per_group!r} is not in memory (its rows carry "
                           f"{shown})")

    def side_info(self, start: int, end: int) -> dict[str, Any]:
        """For a reflection on rows [start, end) (the agent never sees it): the keys memory's rows
        carry (what a policy may filter or group by), the window's label counts (the 10 commonest)
        and the labels first seen in it; bounded whatever the stream's labels."""
        labels = self.labels[max(0, start):min(end, self.n_episodes)]
        if not labels:
            return {}
        counts = Counter(labels)
        new = sorted(lab for lab in counts if self.first_seen[lab] >= start)
        return {"episodes": [max(0, start), min(end, self.n_episodes) - 1],
                "memory_keys": ["label", *self.meta_columns],
                "label_counts": dict(counts.most_common(10)), "labels": len(counts),
                "labels_first_seen_here": new[:10], "labels_first_seen_here_count": len(new)}

    # ----------------------------------------------------------- reflection
    def make_reflector(self, options: dict[str, Any]) -> StreamReflector:
        return StreamReflector.from_options(options)

    # ---------------------------------------------------------- persistence
    def state_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "n_episodes": self.n_episodes}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if state.get("n_episodes", self.n_episodes) != self.n_episodes:
            raise AELError(f"stream: the save was made on {state['n_episodes']} rows; {self.table.path} now has "
                           f"{self.n_episodes}")

    def summary(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        out = {"data": self.table.path, "rows": self.n_episodes, "sha256": self.table.sha256,
               "meta": list(self.meta_columns)}
        agents = [h.get("info", {}).get("agent") for h in history]
        if any(agents):  # a model played: the rows it answered outside the labels offered (wrong answers)
            out["agent_rejected"] = agents.count("rejected")
        return out

    @staticmethod
    def export_stream(seed: int) -> list[dict[str, Any]]:
        """The demo stream of `seed` (scenarios/stream/demo.py), to write as a file to run."""
        from .demo import make_demo_stream

        return make_demo_stream(seed)
