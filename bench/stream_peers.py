"""`python -m bench stream --vs river`: the stream world's selectors beside the learners a
practitioner tries first, on the same files, in one table (issue 39).

Streams: the real 20 Newsgroups corpus (`../shared/data/news/20news-bydate.tar.gz`, read
as the news world reads it: `scenarios.news.corpus`) written as a labelled JSONL file in two
orders, `shuffled` (one seeded permutation) and `train-then-test` (the by-date split: every
training post, then every test post, each part in its own seeded shuffle, since the archive
keeps no dates; the test posts are later, so the stream drifts), and the demo stream
(`scenarios/stream/demo.py`, seed 1, with its --meta columns). A row's text is the post's
subject and body; its label is the group.

Learners, each run prequentially (predict the row, then learn it), one process each, so
each one's peak memory is its own:
- ours: `ts`, `ts+reflection` (proposals approved automatically, as `ael-lab run` does), `oracle`, and
  every arm's accuracy from one pass (`run_arms`), of which the table shows the best ("best
  arm"; its time is not one run's, so it is not shown);
- River (a bench and test extra, never a dependency of the lab: `pip install -e '.[bench]'`):
  TF-IDF + multinomial naive Bayes, `predict_one` then `learn_one`; its k-NN with its
  defaults (5 neighbours over its last 50 rows: River's `LazySearch` window, a bounded search
  that keeps its time per row flat; over all past rows it would be quadratic, hours on
  20 Newsgroups); and an online logistic regression (`SoftmaxRegression` over the same
  TF-IDF, its defaults: plain SGD at a learning rate of 0.01).

By default every learner but `oracle` and `arms` runs (each is ours and costs several runs:
every arm reads memory at every row; `--learners` adds them). Under the table: the notes on these choices, then the issue's targets read off the
rows: on each real stream ts+reflection against the best River learner (≥ it − 0.02; on the
drifting order, ahead of it) and one run's time against River's naive Bayes (≤ 2×).

Columns: progressive accuracy; µs per row and seconds for one run, from reading the file to
the last row (imports and interpreter start-up not counted, for both sides), and that run's
CPU time (on a shared machine the wall time also counts waiting for others); the process's
peak resident memory (imports included). `--rows N` cuts each stream to its first N rows
(a quick look; the README's table is the whole files). The first line names the BLAS numpy
calls and its thread count as each run reported it: a threaded BLAS call on a loaded machine
waits for its threads, and its CPU time counts theirs (the prototypes' norm was one: docs/worlds.md).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 1
INSTALL = "River is not installed: pip install -e '.[bench]' (or pip install river==0.26.1), then run this again"
RIVER = ("river:naive_bayes", "river:knn", "river:logistic")
USAGE = ("usage: python -m bench stream --vs river [--rows N] [--streams shuffled,dated,demo|news] "
         "[--learners ts,ts+reflection,oracle,arms,river:naive_bayes,river:knn,river:logistic]")
OURS = ("ts", "ts+reflection", "oracle")


# ------------------------------------------------------------------ the files
def archive() -> Path | None:
    """../shared/data/news/20news-bydate.tar.gz above this checkout, if there (the news bench's finder)."""
    from bench.news import real_archive

    return real_archive()


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def news_rows(source: Path) -> tuple[list[dict], list[dict]]:
    """(shuffled, train-then-test) rows of the corpus: text, label, split."""
    import numpy as np

    from scenarios.news.corpus import read_local

    corpus = read_local(str(source))
    n_train = sum(1 for _ in _train_members(corpus))
    rows = []
    for i, (group, subject, body) in enumerate(zip(corpus.groups, corpus.subjects, corpus.texts)):
        text = " ".join(f"{subject}\n{body}".split())
        if text:
            rows.append({"text": text, "label": group, "split": "train" if i < n_train else "test"})
    rng = np.random.default_rng(SEED)
    shuffled = [rows[i] for i in rng.permutation(len(rows))]
    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == "test"]
    dated = [train[i] for i in rng.permutation(len(train))] + [test[i] for i in rng.permutation(len(test))]
    return shuffled, dated


def _train_members(corpus):
    """The corpus lists the training posts first (scikit-learn's order); their count is the
    archive's: 11,314 for the real one, found here as where the group order restarts."""
    last = ""
    for g in corpus.groups:
        if g < last:
            return
        last = g
        yield g


STREAMS = ("shuffled", "dated", "demo")  # `--streams`: any of these, or news (= shuffled,dated)


def write_streams(folder: Path, rows: int | None, which: tuple[str, ...] = STREAMS) -> list[dict]:
    """The files and the options that read them, cut to `rows` when given."""
    from scenarios.stream.demo import make_demo_stream

    streams = []
    source = archive() if {"shuffled", "dated"} & set(which) else None
    if source is not None:
        shuffled, dated = news_rows(source)
        for key, name, data in (("shuffled", "20 Newsgroups, shuffled", shuffled),
                                ("dated", "20 Newsgroups, train-then-test", dated)):
            if key not in which:
                continue
            path = _write_jsonl(folder / f"news-{len(streams)}.jsonl", data[:rows] if rows else data)
            streams.append({"name": name, "path": str(path), "text": "text", "label": "label", "meta": [],
                            "regime": "split", "real": True, "drifts": key == "dated"})
    if "demo" not in which:
        return streams
    demo = make_demo_stream(SEED)
    path = _write_jsonl(folder / "demo.jsonl", demo[:rows] if rows else demo)
    streams.append({"name": "demo stream (seed 1)", "path": str(path), "text": "text", "label": "label",
                    "meta": ["source", "region", "channel"], "regime": "phase", "real": False, "drifts": True})
    return streams


# ------------------------------------------------------------- one learner, one process
def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def _cpu() -> float:
    """CPU seconds of this process so far: on a shared machine the wall time waits for others."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def blas() -> list[str]:
    """Each BLAS loaded in this process, whose copy it is (numpy's, scipy's) and its thread count
    (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS or the cores): on a loaded machine a threaded BLAS call
    waits for its threads, and its CPU time counts theirs, so the table says what its runs used."""
    import numpy  # noqa: F401  (loads the BLAS threadpoolctl looks for)
    from threadpoolctl import threadpool_info

    out = []
    for lib in threadpool_info():
        if lib.get("user_api") != "blas":
            continue
        owner = Path(lib.get("filepath") or "").parent.name.removesuffix(".libs") or "?"
        threads = lib["num_threads"]
        out.append(f"{owner}'s {lib['internal_api']} {lib.get('version') or ''}".rstrip()
                   + f" ({threads} thread{'s' if threads != 1 else ''})")
    return out


def run_ours(stream: dict, selector: str) -> dict:
    """One session of the stream world on the file, in this process."""
    import scenarios
    from engine.session import Session, SessionConfig

    opts = {"data": stream["path"], "text": stream["text"], "label": stream["label"], "meta": stream["meta"],
            "regime": stream["regime"]}
    t0 = time.perf_counter()
    session = Session(SessionConfig("stream", SEED, selector, scenario_options=dict(opts)),
                      scenarios.make_scenario("stream", SEED, opts))
    session.run()
    seconds = time.perf_counter() - t0
    n = len(session.history)
    approved = [p.payload.get("name", "") for p in session.queue.proposals
                if p.kind == "arm" and p.status in ("approved", "edited")]
    return {"accuracy": sum(r["correct"] for r in session.history) / n, "seconds": seconds, "rows": n,
            "peak_mb": _peak_mb(), "reflections": len(session.reflections), "approved": approved}


def run_arms(stream: dict) -> dict:
    """Every arm's accuracy from one pass: a `fixed:none` session whose memory is read by
    every arm at every episode, uncounted (what memory holds does not depend on the arm that
    reads it, and counts change nothing in this world), so each arm's accuracy is its
    `fixed:` run's, for one run's cost (tests/unit/test_stream_memory.py checks it)."""
    import scenarios
    from engine.session import Session, SessionConfig

    opts = {"data": stream["path"], "text": stream["text"], "label": stream["label"], "meta": stream["meta"],
            "regime": stream["regime"]}
    world = scenarios.make_scenario("stream", SEED, opts)
    session = Session(SessionConfig("stream", SEED, "fixed:none", scenario_options=dict(opts)), world)
    pool = list(world.initial_pool)
    right = dict.fromkeys((p.name for p in pool), 0)

    def read_all(_spec, query, similarity, _hits):
        t = int(query["_episode"])
        for arm in pool:
            hits = session.memory.retrieve(arm, query, similarity, count=False)
            right[arm.name] += world._predict(hits, t)[0] == world.labels[t]

    with session.memory.observing(read_all):
        session.run()
    n = len(session.history)
    return {"arms": {name: k / n for name, k in right.items()}, "rows": n}


def river_model(kind: str):
    from river import feature_extraction, linear_model, naive_bayes, neighbors

    if kind == "river:naive_bayes":
        return feature_extraction.TFIDF() | naive_bayes.MultinomialNB()
    if kind == "river:knn":
        return feature_extraction.TFIDF() | neighbors.KNNClassifier(n_neighbors=5)
    if kind == "river:logistic":
        return feature_extraction.TFIDF() | linear_model.SoftmaxRegression()
    raise ValueError(kind)


def run_river(stream: dict, kind: str) -> dict:
    """predict_one then learn_one on every row of the file, in order."""
    model = river_model(kind)
    t0 = time.perf_counter()
    rows = [json.loads(line) for line in Path(stream["path"]).read_text(encoding="utf-8").splitlines() if line]
    right = 0
    for row in rows:
        text, label = str(row[stream["text"]]), str(row[stream["label"]])
        right += model.predict_one(text) == label
        model.learn_one(text, label)
    seconds = time.perf_counter() - t0
    return {"accuracy": right / len(rows), "seconds": seconds, "rows": len(rows), "peak_mb": _peak_mb()}


def child(argv: list[str]) -> int:
    """`python -m bench.stream_peers child KIND STREAM_JSON`: one run, its result as JSON on stdout."""
    kind, stream = argv[0], json.loads(argv[1])
    if kind.startswith("river:"):
        import river  # noqa: F401  (imports are not what is timed)
    else:
        import sklearn.feature_extraction.text  # noqa: F401
    cpu = _cpu()
    out = in_process(kind, stream)
    out["cpu"] = _cpu() - cpu
    out["blas"] = blas()
    print(json.dumps(out))
    return 0


def in_child(kind: str, stream: dict) -> dict:
    cmd = [sys.executable, "-m", "bench.stream_peers", "child", kind, json.dumps(stream)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"{kind} on {stream['name']} failed: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------- the table
def river_installed() -> bool:
    try:
        import river  # noqa: F401
    except ImportError:
        return False
    return True


def in_process(kind: str, stream: dict) -> dict:
    """One run in this process (the test's way; the bench runs each in a child of its own)."""
    if kind == "arms":
        return run_arms(stream)
    return run_river(stream, kind) if kind.startswith("river:") else run_ours(stream, kind)


LEARNERS = (*OURS, "arms", *RIVER)  # `--learners`: a subset of these
# oracle and arms cost several runs each (every arm reads memory at every row): asked for, not by default
DEFAULT_LEARNERS = tuple(k for k in LEARNERS if k not in ("oracle", "arms"))


def compare(stream: dict, with_river: bool, say=print, run=in_child, learners=DEFAULT_LEARNERS) -> list[dict]:
    """Every learner on one stream: rows of the table."""
    out = []
    for kind in (k for k in OURS if k in learners):
        r = run(kind, stream)
        say(f"  {stream['name']}: {kind} {r['accuracy']:.3f}")
        out.append({"stream": stream["name"], "learner": kind, **r})
    if "arms" in learners:
        every = run("arms", stream)
        say(f"  {stream['name']}: arms {every['arms']}")
        best = max(every["arms"], key=every["arms"].get)  # the first arm among equals
        out.append({"stream": stream["name"], "learner": f"best arm ({best})", "accuracy": every["arms"][best],
                    "rows": every["rows"], "seconds": None, "peak_mb": None, "arms": every["arms"]})
    if with_river:
        for kind in (k for k in RIVER if k in learners):
            r = run(kind, stream)
            say(f"  {stream['name']}: {kind} {r['accuracy']:.3f}")
            out.append({"stream": stream["name"], "learner": kind, **r})
    return out


def table(rows: list[dict]) -> str:
    lines = ["| stream | learner | accuracy | µs per row | one run (s) | its CPU (s) | peak memory (MB) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        timed = r["seconds"] is not None
        per_row = f"{r['seconds'] / r['rows'] * 1e6:,.0f}" if timed else "–"
        seconds = f"{r['seconds']:.1f}" if timed else "–"
        peak = f"{r['peak_mb']:,.0f}" if timed else "–"
        cpu = f"{r['cpu']:.1f}" if timed and r.get("cpu") is not None else "–"
        lines.append(f"| {r['stream']} | {r['learner']} | {r['accuracy']:.3f} | {per_row} | {seconds} | {cpu} | {peak} |")
    return "\n".join(lines)


NOTES = (
    "River's k-NN: its defaults, 5 neighbours among its last 50 rows (`LazySearch(window_size=50)`): "
    "bounded, as a search over every past row would be quadratic in the stream's length.",
    "River's logistic regression: `SoftmaxRegression()` with its defaults (plain SGD, learning rate 0.01, no L2); "
    "River's TF-IDF and naive Bayes: their defaults.",
    "best arm: every arm's accuracy from one pass (`run_arms`), the best shown; not one run, so no time.",
    "time: from reading the file to the last row, imports not counted; CPU beside wall, as the machine is shared.",
)


def targets(rows: list[dict], streams: list[dict] | None = None) -> list[str]:
    """The issue's targets, read off the rows: on each real stream ts+reflection against the best
    River learner (≥ it − 0.02; on the drifting order, ahead of it), and one run's time against
    River's naive Bayes (≤ 2×). The demo stream is generated: its line says where we stand."""
    kinds = {s["name"]: s for s in streams or []}
    lines = []
    for name in dict.fromkeys(r["stream"] for r in rows):
        mine = {r["learner"]: r for r in rows if r["stream"] == name}
        ours, nb = mine.get("ts+reflection"), mine.get("river:naive_bayes")
        river = [r for k, r in mine.items() if k.startswith("river:")]
        if ours is None or not river:
            continue
        best = max(river, key=lambda r: r["accuracy"])
        gap = ours["accuracy"] - best["accuracy"]
        stream = kinds.get(name, {"real": True, "drifts": False})
        if not stream.get("real", True):
            verdict = "a generated stream: no target"
        elif stream.get("drifts"):
            verdict = f"target on the drifting order: ahead: {'met' if gap > 0 else 'MISSED'}"
        else:
            verdict = f"target ≥ −0.02: {'met' if gap >= -0.02 else 'MISSED'}"
        line = f"{name}: ts+reflection − best River learner ({best['learner']}) = {gap:+.3f} ({verdict})"
        if nb is not None:
            line += (f"; one run {ours['seconds'] / nb['seconds']:.2f}× River NB's wall time (target ≤ 2: "
                     f"{'met' if ours['seconds'] <= 2 * nb['seconds'] else 'MISSED'})")
            if ours.get("cpu") and nb.get("cpu"):
                line += f", {ours['cpu'] / nb['cpu']:.2f}× its CPU time"
        lines.append(line)
    return lines


def _option(argv: list[str], flag: str) -> str | None:
    if flag not in argv:
        return None
    at = argv.index(flag)
    return argv[at + 1] if at + 1 < len(argv) else ""


def main(argv: list[str], run=in_child, out: Path | None = None) -> int:
    rows_cap = _option(argv, "--rows")
    which = tuple((_option(argv, "--streams") or ",".join(STREAMS)).replace("news", "shuffled,dated").split(","))
    learners = tuple((_option(argv, "--learners") or ",".join(DEFAULT_LEARNERS)).split(","))
    if (rows_cap is not None and not rows_cap.isdigit()) or not set(which) <= set(STREAMS) \
            or not set(learners) <= set(LEARNERS):
        print(USAGE, file=sys.stderr)
        return 2
    cap = int(rows_cap) if rows_cap else None
    with_river = river_installed()
    if not with_river:
        print(INSTALL, file=sys.stderr)
    load_before, started = os.getloadavg()[0], time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    with tempfile.TemporaryDirectory() as d:
        streams = write_streams(Path(d), cap, which)
        rows = []
        for stream in streams:
            rows += compare(stream, with_river, say=lambda s: print(s, file=sys.stderr, flush=True), run=run,
                            learners=learners)
    shown = " ".join(argv)
    used = ", ".join(dict.fromkeys(b for r in rows for b in r.get("blas") or blas())) or "none found"  # as each run said
    print(f"`python -m bench stream --vs river{' ' + shown if shown else ''}` on {platform.machine()}, "
          f"Python {platform.python_version()}, {os.cpu_count()} cores, BLAS {used}, 1-minute load average "
          f"{load_before:.1f} at the start and {os.getloadavg()[0]:.1f} at the end, "
          f"{started}–{time.strftime('%H:%M', time.gmtime())} UTC:\n")
    print(table(rows))
    print()
    for note in NOTES:
        print(f"- {note}")
    print()
    for line in targets(rows, streams):
        print(line)
    out = out or Path(__file__).with_name("stream_peers.json")
    out.write_text(json.dumps({"rows": rows, "river": with_river, "args": argv}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        raise SystemExit(child(sys.argv[2:]))
    raise SystemExit(main(sys.argv[1:]))
