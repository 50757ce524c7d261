"""The retrieval policies of the stream world, the reflector's candidates (one per --meta
column), and the vote that turns retrieved rows and prototypes into a label.

| policy | what the vote sees |
|---|---|
| none | no row: the prior label |
| recent_window | the last 20 rows |
| compressed | the 10 rows most similar to the query among the last 1,000 |
| full_detailed | the last 200 rows |
| class_balanced | the 3 most similar rows of each label among the last 1,000 |
| all_history | the 10 rows most similar among every stored row (through the row index) |
| prototypes | the 5 nearest label prototypes (semantic tier): the nearest answers |
| prototypes_knn | the 5 nearest rows of all history and the 5 nearest prototypes, both voting |
| same_COLUMN (candidate) | the 10 most similar among the last 20 rows with the query's value of COLUMN |

Every row is stored in episodic memory with its true label and its --meta columns once
its episode is over, and added to its label's prototype in the semantic tier
(`prototypes.py`), so what a policy reads at t depends only on earlier rows. Memory keeps
every row (up to `spec.MEMORY_CAP`, the most rows a file may have). The bounded arms read a
window of the newest rows (what helps right after a drift); `all_history` and
`prototypes_knn` read every row through the row index (`index.py`), whose cost per read does
not grow with memory. (The engine's eviction keeps entries that proved useful over new ones,
so a capped memory on a drifting stream would freeze on its first regime: nothing is evicted.)
The vote (`predict`): the k = 5 retrieved rows nearest to the query (cosine, ties to the
newer) each vote for their label with their cosine; ties go to the label of the nearest
voter. Prototypes vote with their cosine too; beside rows, each side's votes count as
shares of that side's total. Without evidence (nothing retrieved, or every cosine 0) it
answers the prior: the label seen most often so far (ties to the first by name).
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

import numpy as np

from engine.decision import plurality
from engine.memory import Hit
from engine.policies import Filter, PolicySpec, voting_pool

K_NEIGHBOURS = 5
EPISODIC = ("episodic",)
CANDIDATE_K = 10
CANDIDATE_WINDOW = 20

WINDOW = 1000  # the newest rows the bounded similarity arms read (recent rows after a drift)
PROTOTYPE_KEY = "distilled"  # metadata key of the semantic tier's prototypes (value "prototype"); rows lack it
SEMANTIC = ("semantic",)

NONE, RECENT_WINDOW, COMPRESSED, FULL_DETAILED, CLASS_BALANCED = voting_pool(
    items="rows", nothing="No row: the prior label.", group="label", group_noun="label", window=WINDOW)

# Memory that is all there (issue 39): every stored row through the row index, the label
# prototypes of the semantic tier, and both side by side. Their names are stable: the
# reflector (and other branches) refer to them.
ALL_HISTORY = PolicySpec(
    "all_history", EPISODIC, 10, order="similarity",
    description="The 10 rows most similar to the query among every stored row (read through the row index); "
                "the 5 most similar vote.")
PROTOTYPES = PolicySpec(
    "prototypes", SEMANTIC, 5, order="similarity",
    description="The 5 label prototypes (TF-IDF centroids of every row of a label) nearest to the query; "
                "the nearest answers.")
PROTOTYPES_KNN = PolicySpec(
    "prototypes_knn", (*EPISODIC, *SEMANTIC), 5, order="similarity", per_group=PROTOTYPE_KEY,
    description="The 5 nearest rows of all history beside the 5 nearest label prototypes; a weighted vote "
                "of both (each side's cosines as shares, summed).")

MEMORY_ARMS: tuple[PolicySpec, ...] = (ALL_HISTORY, PROTOTYPES, PROTOTYPES_KNN)
INITIAL_POOL: tuple[PolicySpec, ...] = (NONE, RECENT_WINDOW, COMPRESSED, FULL_DETAILED, CLASS_BALANCED, *MEMORY_ARMS)


def policy_name(column: str, taken: set[str] = frozenset()) -> str:
    """`same_<column>` as a policy identifier (letters, digits, _ and - only), unique among `taken`."""
    slug = re.sub(r"[^0-9A-Za-z_-]+", "_", column).strip("_-") or "column"
    name, i = f"same_{slug}", 2
    while name in taken:
        name, i = f"same_{slug}_{i}", i + 1
    return name


def candidate(column: str, name: str | None = None) -> PolicySpec:
    """Retrieve among past rows with the query's value of `column`: the 10 most similar of
    the last 20 such rows."""
    return PolicySpec(
        name or policy_name(column), EPISODIC, CANDIDATE_K, order="similarity", filters=(Filter(column),),
        window=CANDIDATE_WINDOW,
        description=f"The {CANDIDATE_K} most similar among the last {CANDIDATE_WINDOW} rows with the query's "
                    f"{column!r}; the 5 most similar vote.")


def candidates(columns: Sequence[str]) -> list[PolicySpec]:
    """One candidate per --meta column, in the columns' order, with distinct names."""
    out: list[PolicySpec] = []
    taken = {p.name for p in INITIAL_POOL}
    for col in columns:
        name = policy_name(col, taken)
        taken.add(name)
        out.append(candidate(col, name))
    return out


def predict(hits: list[Hit], row_cosines: Callable[[np.ndarray], np.ndarray],
            prototype_cosines: Callable[[np.ndarray], np.ndarray], fallback: str, votes: list | None = None,
            policy: str = "") -> tuple[str, list[int]]:
    """(label, the voting rows' episodes best first). `row_cosines(episodes)` and
    `prototype_cosines(episodes)` give the query's cosine to those rows and to the prototypes
    whose entries carry those episodes. With `votes`, the vote taken is added to it as a person
    reads it (engine/decision.py), under `policy`: each voter with the weight it really had.

    Rows alone: the k = 5 nearest retrieved rows each vote their label with their cosine
    (ties to the label of the nearest voter). Prototypes alone: the nearest prototype's label.
    Both: each side's votes as shares of that side's total (the rows' cosines, the retrieved
    prototypes' cosines), summed, so neither side's scale decides; ties to the nearest row's
    label, then the nearest prototype's. No evidence (nothing retrieved, every cosine 0): the
    prior. With `votes`, the vote taken is added to it as a person reads it (engine/decision.py),
    under `policy`: the rows' vote, then the prototypes'."""
    rows = [h.entry for h in hits if h.entry.tier == "episodic" and "label" in h.entry.metadata]
    protos = [h.entry for h in hits if h.entry.tier == "semantic" and h.entry.metadata.get(PROTOTYPE_KEY)
              == "prototype" and "label" in h.entry.metadata]
    row_votes, voters, ranked, row_voters = _row_votes(rows, row_cosines)
    proto_votes, nearest_proto, proto_voters = _prototype_votes(protos, prototype_cosines)

    def said(answer: str, ranked_voters: list, note: str = "") -> None:
        if votes is not None:
            votes.append(plurality(policy, ranked_voters, answer, fallback, note))

    if not row_votes and not proto_votes:
        said(fallback, [], "nothing retrieved to vote" if not rows and not protos
             else "no retrieved item is similar at all")
        return fallback, []
    if not proto_votes:
        winner = _winner(row_votes, ranked)
        said(winner, row_voters)
        return winner, voters
    if not row_votes:
        said(nearest_proto, proto_voters, "the nearest label prototype")
        return nearest_proto, []
    total_r, total_p = sum(row_votes.values()), sum(proto_votes.values())
    weight = {lab: row_votes.get(lab, 0.0) / total_r + proto_votes.get(lab, 0.0) / total_p
              for lab in {*row_votes, *proto_votes}}
    winner = _winner(weight, [*ranked, nearest_proto])
    # each voter's weight as a share of its side's total: summed by label, they are `weight`
    said(winner, [(e, w / total_r) for e, w in row_voters] + [(e, w / total_p) for e, w in proto_voters])
    return winner, voters


def _row_votes(entries, row_cosines) -> tuple[dict[str, float], list[int], list[str], list[tuple]]:
    """The 5 nearest rows' cosines summed by label, their episodes and labels best first, and
    (entry, cosine) of each, best first (the vote as a person reads it)."""
    if not entries:
        return {}, [], [], []
    episodes = np.fromiter((e.episode for e in entries), dtype=np.int64, count=len(entries))
    s = np.asarray(row_cosines(episodes), dtype=float)
    top = np.lexsort((-episodes, -s))[:K_NEIGHBOURS]  # last key primary: cosine, then newest
    if s[top[0]] <= 0.0:
        return {}, [], [], []
    weight: dict[str, float] = {}
    for i in top:
        label = entries[i].metadata["label"]
        weight[label] = weight.get(label, 0.0) + float(s[i])
    return (weight, [int(episodes[i]) for i in top], [entries[i].metadata["label"] for i in top],
            [(entries[i], float(s[i])) for i in top])


def _prototype_votes(entries, prototype_cosines) -> tuple[dict[str, float], str, list[tuple]]:
    """Each retrieved prototype's cosine by label (positive ones), the nearest's label, and
    (entry, cosine) of each positive one, nearest first."""
    if not entries:
        return {}, "", []
    episodes = np.fromiter((e.episode for e in entries), dtype=np.int64, count=len(entries))
    s = np.asarray(prototype_cosines(episodes), dtype=float)
    order = np.lexsort((episodes, -s))  # nearest first; ties to the label seen first
    votes = {entries[i].metadata["label"]: float(s[i]) for i in order if s[i] > 0.0}
    return (votes, (entries[order[0]].metadata["label"] if votes else ""),
            [(entries[i], float(s[i])) for i in order if s[i] > 0.0])


def _winner(weight: dict[str, float], preferred: list[str]) -> str:
    """The heaviest label; among ties the first of `preferred` (the voters, nearest first) that is tied."""
    best = max(weight.values())
    tied = [lab for lab, w in weight.items() if w >= best - 1e-12]
    return next((lab for lab in preferred if lab in tied), min(tied))


# The reflector's candidates beyond the --meta columns, one set per trigger (signals.py).
RECENT_SIMILAR_WINDOW = 100
RECENT_SIMILAR = PolicySpec(
    "recent_similar", EPISODIC, CANDIDATE_K, order="similarity", window=RECENT_SIMILAR_WINDOW,
    description=f"The {CANDIDATE_K} most similar among the last {RECENT_SIMILAR_WINDOW} rows: labels new to "
                "memory, or whose share grew, are not outvoted by older rows; the 5 most similar vote.")
BALANCED_NEAREST = PolicySpec(
    "balanced_nearest", EPISODIC, 1, order="similarity", per_group="label", window=WINDOW,
    description="The most similar row of each label among the last 1,000: a starved label has one voice "
                "like every other; the 5 most similar vote.")


def trigger_candidates(kind: str) -> list[PolicySpec]:
    """The candidates a trigger of `kind` asks the reflector to replay (prototypes: the
    semantic tier's two policies; where the pool holds them already, the reflection says so)."""
    return {"recency": [RECENT_SIMILAR], "balance": [BALANCED_NEAREST],
            "prototypes": [PROTOTYPES, PROTOTYPES_KNN]}.get(kind, [])
