"""The row index of the stream world (issue 39): which index, and flat to 500,000 rows.

- choice: time per query of four ways to find a row's nearest stored rows by TF-IDF
  cosine, with 4,000 and with 499,000 rows stored (the demo stream of 500,000 rows):
  brute force over every stored row (a sparse product: what scikit-learn's
  `NearestNeighbors(metric="cosine")` does on sparse input, which has no tree for it),
  scikit-learn's `NearestNeighbors` itself (refitted on the rows stored, then
  `kneighbors`), an inverted index with whole posting lists (exact), and ours, posting
  lists capped at 32 rows by impact (`scenarios/stream/index.py`). Beside it, on the real
  20 Newsgroups stream (shuffled, 18,846 rows) when ../shared has it: how many of brute
  force's 5 nearest the capped index's shortlist holds (recall), and the accuracy of the
  5-NN vote through each.
- flat: `Session.step` of `fixed:all_history` on the 500,000-row demo stream: CPU ms per
  episode over rows 2,000–4,000 and over the last 2,000 rows, memory holding 498,000
  (filled in between as the session writes it: see `flat`); target: the last block no
  slower than 1.5 times the first.

`python -m bench stream_index` runs both; `python -m bench.stream_index --flat` the flat part
alone; `--every-episode` runs every one of the half million episodes (about an hour on a
busy two-core machine).
"""

from __future__ import annotations

import time
from pathlib import Path
import tempfile

import numpy as np

N_ROWS = 500_000
BLOCK = 2_000
QUERIES = 200
WARM = 200  # real episodes run between the filled memory and the timed last block


def _demo(folder: str) -> Path:
    from scenarios.stream.demo import write_demo

    return write_demo(Path(folder) / "stream500k.csv", 1, N_ROWS)


def _per_query(fn, queries) -> float:
    t0 = time.perf_counter()
    for q in queries:
        fn(q)
    return (time.perf_counter() - t0) / len(queries) * 1e3


def choice(x, stored: int) -> dict[str, float]:
    """ms per query of each way, with `stored` rows in memory; queries are the rows after them."""
    from sklearn.neighbors import NearestNeighbors

    from scenarios.stream.index import RowIndex

    queries = range(stored, stored + QUERIES)
    past = x[:stored]
    csc = past.tocsc()
    capped = RowIndex(x)
    capped.sync(stored)
    nn = NearestNeighbors(n_neighbors=10, metric="cosine", algorithm="brute")

    def brute(t):
        s = (past @ x[t].T).toarray().ravel()
        return np.argpartition(-s, 10)[:10]

    def sklearn_nn(t):
        nn.fit(past)  # a stream's memory changes every row: refitted, as it would be
        return nn.kneighbors(x[t], return_distance=False)

    def inverted(t):
        lo, hi = x.indptr[t], x.indptr[t + 1]
        acc = np.zeros(stored)
        for j, w in zip(x.indices[lo:hi], x.data[lo:hi]):
            a, b = csc.indptr[j], csc.indptr[j + 1]
            acc[csc.indices[a:b]] += w * csc.data[a:b]
        return np.argpartition(-acc, 10)[:10]

    def ours(t):
        lo, hi = x.indptr[t], x.indptr[t + 1]
        return capped.shortlist(x.indices[lo:hi], x.data[lo:hi], 10)

    return {"brute force": _per_query(brute, queries), "sklearn NearestNeighbors": _per_query(sklearn_nn, queries),
            "inverted index, whole lists": _per_query(inverted, queries),
            "inverted index, capped (ours)": _per_query(ours, queries)}


def recall(path: Path, rows: int = 18_846) -> dict[str, float]:
    """On a real stream: the capped index's recall of brute force's 5 nearest, and the 5-NN
    vote's progressive accuracy through each."""
    import json

    from sklearn.feature_extraction.text import TfidfVectorizer

    from scenarios.stream.index import RowIndex

    data = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:rows]]
    x = TfidfVectorizer(sublinear_tf=True).fit_transform([d["text"][:20_000] for d in data]).tocsr()
    labels = [d["label"] for d in data]
    index = RowIndex(x)
    found = right_b = right_i = 0
    asked = 0
    for t in range(1, len(data), 7):  # every 7th row: a sample through the whole stream
        index.sync(t)
        s = (x[:t] @ x[t].T).toarray().ravel()
        best = np.lexsort((-np.arange(t), -s))[:5]
        lo, hi = x.indptr[t], x.indptr[t + 1]
        short = index.shortlist(x.indices[lo:hi], x.data[lo:hi], 10)
        mine = short[np.lexsort((-short, -s[short]))][:5] if len(short) else short
        found += len(set(best.tolist()) & set(mine.tolist()))
        asked += 1
        right_b += _vote(best, s, labels) == labels[t]
        right_i += _vote(mine, s, labels) == labels[t]
    return {"recall of the 5 nearest": found / (5 * asked), "5-NN accuracy, brute force": right_b / asked,
            "5-NN accuracy, capped index": right_i / asked}


def _vote(rows, s, labels) -> str:
    weight: dict[str, float] = {}
    for r in rows:
        weight[labels[r]] = weight.get(labels[r], 0.0) + float(s[r])
    return max(weight, key=weight.get) if weight else ""


def flat(path: Path, every_episode: bool = False) -> tuple[float, float]:
    """CPU ms per episode of fixed:all_history over rows 2,000–4,000 and over the last 2,000
    (CPU time: on a machine shared with other work, wall time measures their load too).

    Between the two blocks memory is filled with rows 4,000 to 497,799 as the session writes
    them (each row's episodic entry, its prototype, the row index), without running their
    episodes, then 200 episodes run before the timed block:
    what memory holds does not depend on the arm that read it, and running half a million
    episodes on a shared two-core machine takes an hour. `every_episode=True` runs them all."""
    import scenarios
    from engine.session import Session, SessionConfig

    opts = {"data": str(path), "text": "text", "label": "label"}
    world = scenarios.make_scenario("stream", 1, opts)
    s = Session(SessionConfig("stream", 1, "fixed:all_history", scenario_options=dict(opts)), world)
    s.run(until=BLOCK)
    t0 = time.process_time()
    s.run(until=2 * BLOCK)
    first = (time.process_time() - t0) / BLOCK * 1e3
    if every_episode:
        s.run(until=N_ROWS - BLOCK)
    else:
        for t in range(2 * BLOCK, N_ROWS - BLOCK - WARM):
            s.memory.episode = t
            content, meta, quality = world._entry(t)
            s.memory.write("episodic", content, meta, quality)
            world.distil(s.memory, t)
            world.row_index.sync(t + 1)  # as the read of the next episode would
        s.t = N_ROWS - BLOCK - WARM
        s.run(until=N_ROWS - BLOCK)  # real episodes before the timed block: the first checkpoint of a
    t0 = time.process_time()           # memory this size is taken here, as a run takes them all along
    before = len(s.timeline.checkpoints)
    s.run()
    last = (time.process_time() - t0) / BLOCK * 1e3
    print(f"checkpoints taken in the last block: {len(s.timeline.checkpoints) - before} (a checkpoint of a "
          "500,000-row memory is a pickle of it; the timeline spaces them by their cost)", flush=True)
    assert len(s.memory.tiers["episodic"]) == N_ROWS
    return first, last


def run(every_episode: bool = False, say=lambda row: None, flat_only: bool = False) -> list[dict]:
    import scenarios

    rows = []

    def add(name, value, unit, target=None):
        rows.append({"name": name, "value": value, "unit": unit, "target": target})
        say(rows[-1])

    with tempfile.TemporaryDirectory() as d:
        path = _demo(d)
        if flat_only:
            first, last = flat(path, every_episode)
            add("stream, 500,000 rows, all_history: CPU ms per episode, rows 2,000-4,000", first, "ms")
            add("stream, 500,000 rows, all_history: CPU ms per episode, the last 2,000", last, "ms")
            add("stream, 500,000 rows, all_history: last block / rows 2,000-4,000", last / first, "x", 1.5)
            return rows
        world = scenarios.make_scenario("stream", 1, {"data": str(path), "text": "text", "label": "label"})
        for stored in (4_000, N_ROWS - 1_000):
            for name, ms in choice(world.table.x, stored).items():
                add(f"stream index: {name}, {stored:,} rows stored (ms/query)", ms, "ms")
        del world
        news = _news_file(d)
        if news is not None:
            for name, value in recall(news).items():
                add(f"stream index on 20 Newsgroups: {name}", value, "")
        first, last = flat(path, every_episode)
    add("stream, 500,000 rows, all_history: CPU ms per episode, rows 2,000-4,000", first, "ms")
    add("stream, 500,000 rows, all_history: CPU ms per episode, the last 2,000", last, "ms")
    add("stream, 500,000 rows, all_history: last block / rows 2,000-4,000", last / first, "x", 1.5)
    return rows


def _news_file(folder: str) -> Path | None:
    from bench.stream_peers import write_streams

    streams = [s for s in write_streams(Path(folder), None) if s["name"].endswith("shuffled")]
    return Path(streams[0]["path"]) if streams else None


if __name__ == "__main__":
    import sys

    run("--every-episode" in sys.argv,
        say=lambda row: print(f"{row['name']:<78} {row['value']:>10.3f} {row['unit']}", flush=True),
        flat_only="--flat" in sys.argv)
