"""News-stream benchmark: the paper's five-seed table on the generated test corpus,
and on the real 20 Newsgroups archive when ../shared has it.

The generated corpus (450 articles, `tests/news_corpus.py`) measures the engine and
the per-seed TF-IDF work; the real one (18,846 articles, read from the archive in
memory) adds reading the archive and the one-off TF-IDF fit over all of it.
`python -m bench.news evidence DATA` prints what the README's reading of the
real-corpus table rests on (`policy_evidence`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.news_corpus import write_corpus


def table_wall() -> float:
    """Wall time of `ael-lab run news --data DIR --selector all --seeds 42,123,456,789,1024`
    (a new process: imports and start-up included)."""
    with tempfile.TemporaryDirectory() as d:
        data = write_corpus(Path(d) / "news")
        cmd = [os.path.join(os.path.dirname(sys.executable), "ael-lab"), "run", "news", "--data", str(data),
               "--seeds", "42,123,456,789,1024", "--selector", "all", "--quiet", "--json", os.path.join(d, "o.json")]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        return time.perf_counter() - t0


def real_archive() -> Path | None:
    """../shared/data/news/20news-bydate.tar.gz above this checkout, if there."""
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "shared" / "data" / "news" / "20news-bydate.tar.gz"
        if candidate.is_file():
            return candidate
    return None


def real_wall(archive: Path) -> float:
    """Wall time of the paper's command on the real archive (a new process)."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [os.path.join(os.path.dirname(sys.executable), "ael-lab"), "run", "news", "--data", str(archive),
               "--seeds", "42,123,456,789,1024", "--selector", "all", "--quiet", "--json", os.path.join(d, "o.json")]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        return time.perf_counter() - t0


def run() -> list[dict]:
    rows = [{"name": "news: 5 seeds x 11 selectors, generated corpus, `ael-lab run` (wall)", "value": table_wall(),
             "unit": "s", "target": 15}]
    archive = real_archive()
    if archive is not None:
        rows.append({"name": "news: the same on the real 20news-bydate archive (wall)", "value": real_wall(archive),
                     "unit": "s", "target": None})
    return rows


def policy_evidence(data: str, seeds: tuple[int, ...] = (42, 123, 456, 789, 1024)) -> dict:
    """What the news policies do on a corpus, episode by episode over the paper's seeds, for
    the README's reading of the real-corpus table (`python -m bench.news evidence DATA`):

    - how often `class_balanced`'s five voters, and its answer, differ from `compressed`'s;
    - `compressed` with an unweighted 5-NN majority (ties to the nearest) beside ours (cosine-weighted);
    - what a policy that retrieves nothing could answer: ours (the group seen most often so
      far), the commonest group of the last W revealed (W = 5, 20, 50), and a uniform guess.
    Per-regime and overall accuracy, each over 5 × 50 and 5 × 200 episodes."""
    from collections import Counter

    import numpy as np

    from engine.memory import MemoryStore
    from engine.scenario import Outcome
    from scenarios.news.policies import CLASS_BALANCED, COMPRESSED, K_NEIGHBOURS, predict, prior
    from scenarios.news.scenario import NewsScenario
    from scenarios.news.stream import N_EPISODES, regime_of

    names = ["none (ours: commonest so far)", "commonest of the last 5", "commonest of the last 20",
             "commonest of the last 50", "compressed (ours: cosine-weighted vote)", "compressed, unweighted vote",
             "class_balanced"]
    right = {n: np.zeros(4) for n in names}
    voters_differ = answers_differ = episodes = 0
    groups = 0
    for seed in seeds:
        sc = NewsScenario(seed, data=data)
        groups = len(set(sc.corpus.groups))
        memory = MemoryStore(cap_per_tier=N_EPISODES)
        labels = sc.labels
        for t in range(N_EPISODES):
            memory.episode = t
            q = sc.query(t)
            r, truth = regime_of(t), labels[t]
            fallback = prior(labels, t, sc._default)
            right[names[0]][r] += fallback == truth
            for name, w in zip(names[1:4], (5, 20, 50)):
                recent = labels[max(0, t - w):t]
                if recent:
                    counts = Counter(recent)
                    best = max(counts.values())
                    right[name][r] += next(g for g in reversed(recent) if counts[g] == best) == truth
            query = {**q.metadata, "_episode": t}
            hc = memory.retrieve(COMPRESSED, query, sc.similarity, count=False)
            hb = memory.retrieve(CLASS_BALANCED, query, sc.similarity, count=False)
            pc, vc = predict(hc, sc.stream.sim[t], fallback)
            pb, vb = predict(hb, sc.stream.sim[t], fallback)
            right[names[4]][r] += pc == truth
            right[names[6]][r] += pb == truth
            if vc:  # the same five voters, one vote each, ties to the nearest
                votes = Counter(labels[e] for e in vc[:K_NEIGHBOURS])
                best = max(votes.values())
                right[names[5]][r] += next(labels[e] for e in vc if votes[labels[e]] == best) == truth
            else:
                right[names[5]][r] += fallback == truth
            episodes += 1
            voters_differ += vc != vb
            answers_differ += pc != pb
            content, meta, quality = sc.episodic_entry(q, Outcome(0.0, 0.0, "", ""), "compressed")
            memory.write("episodic", content, meta, quality)
    per_regime = len(seeds) * N_EPISODES / 4
    table = {n: {"R": [round(float(v) / per_regime, 3) for v in a], "overall": round(float(a.sum()) / episodes, 3)}
             for n, a in right.items()}
    table[f"uniform guess over the {groups} groups (expected)"] = {"R": [round(1 / groups, 3)] * 4,
                                                                   "overall": round(1 / groups, 3)}
    return {"episodes": episodes, "class_balanced voters differ": voters_differ,
            "class_balanced answer differs": answers_differ, "accuracy": table}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "evidence":
        found = policy_evidence(sys.argv[2])
        print(f"episodes {found['episodes']}: class_balanced's five voters differ from compressed's in "
              f"{found['class_balanced voters differ']}, its answer in {found['class_balanced answer differs']}")
        print(f"{'answer':<48} {'R0':>6} {'R1':>6} {'R2':>6} {'R3':>6} {'overall':>8}")
        for name, row in found["accuracy"].items():
            print(f"{name:<48} " + " ".join(f"{v:>6.3f}" for v in row["R"]) + f" {row['overall']:>8.3f}")
    else:
        print("usage: python -m bench.news evidence DATA  (the 20news-bydate archive or folder)", file=sys.stderr)
        raise SystemExit(2)
