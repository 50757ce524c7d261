"""The stream world's memory that is all there (issue 39): the row index, the label
prototypes of the semantic tier, their round trip through save/load/rewind, and the
`python -m bench stream --vs river` table on a tiny file (flat cost is measured in
bench/stream_index.py, never here)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import scenarios
from engine.memory import MemoryStore
from engine.session import Session, SessionConfig
from engine.store.persistence import load_session, save_session
from scenarios.stream.demo import write_demo
from scenarios.stream.index import RowIndex
from scenarios.stream.policies import ALL_HISTORY, INITIAL_POOL, MEMORY_ARMS, PROTOTYPES, PROTOTYPES_KNN
from scenarios.stream.prototypes import Prototypes
from tests.conftest import new_session

ROWS = 160


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> dict:
    path = write_demo(tmp_path_factory.mktemp("memory") / "demo.csv", 2, ROWS)
    return {"data": str(path), "text": "text", "label": "label", "meta": ["source"], "regime": "phase"}


def _matrix(seed: int, rows: int = 120, terms: int = 60) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    x = sp.random(rows, terms, density=0.08, format="csr", random_state=rng)
    x.data = rng.random(len(x.data)) + 0.05
    from sklearn.preprocessing import normalize  # not at collection: every worker collects this module

    return normalize(x).tocsr()


def _brute(x, t: int, k: int) -> list[int]:
    s = (x[:t] @ x[t].T).toarray().ravel()
    order = np.lexsort((-np.arange(t), -s))
    return [int(r) for r in order[:k] if s[r] > 0]


def test_the_index_finds_exactly_brute_forces_neighbours_while_its_lists_are_under_the_cap():
    x = _matrix(1)
    index = RowIndex(x, postings=x.shape[0])  # no list ever full: the shortlist holds every row sharing a term
    for t in range(1, x.shape[0]):
        index.sync(t)
        lo, hi = x.indptr[t], x.indptr[t + 1]
        short = index.shortlist(x.indices[lo:hi], x.data[lo:hi], 5)
        assert set(_brute(x, t, 5)) <= set(short.tolist())
        assert short.max(initial=-1) < t  # only stored rows


def test_a_full_list_keeps_the_rows_a_term_weighs_most_in():
    x = sp.csr_matrix(np.array([[0.1], [0.9], [0.5], [0.7], [0.2]]))
    index = RowIndex(x, postings=2)
    index.sync(5)
    assert sorted(index.shortlist(np.array([0]), np.array([1.0]), 1).tolist()) == [1, 3]


def test_the_index_is_a_function_of_the_rows_it_holds():
    x = _matrix(2)
    grown, fresh = RowIndex(x, postings=4), RowIndex(x, postings=4)
    grown.sync(100)
    grown.sync(37)  # a rewind: rebuilt
    fresh.sync(37)
    q = x.indices[x.indptr[50]:x.indptr[51]], x.data[x.indptr[50]:x.indptr[51]]
    assert grown.shortlist(*q, 5).tolist() == fresh.shortlist(*q, 5).tolist()
    assert np.array_equal(grown._rows[:grown._slots], fresh._rows[:fresh._slots])


def test_the_session_reads_all_history_as_brute_force_does_on_small_data(demo):
    world = scenarios.make_scenario("stream", 1, demo)
    world.row_index = RowIndex(world.table.x, postings=ROWS)  # every list under the cap: exact
    memory = MemoryStore(cap_per_tier=ROWS)
    for t in range(ROWS - 1):
        memory.episode = t
        query = {**world.query(t).metadata, "_episode": t}
        indexed = memory.retrieve(ALL_HISTORY, query, world.similarity, count=False)
        plain = memory.retrieve(ALL_HISTORY, query, lambda q, tier, eps: world.sims(t, eps), count=False)
        # the same neighbours; a row sharing no term with the query (cosine 0) is no neighbour
        assert [h.entry.episode for h in indexed] == [h.entry.episode for h in plain if h.score > 0]
        assert world._predict(indexed, t)[0] == world._predict(plain, t)[0]
        content, meta, quality = world._entry(t)
        memory.write("episodic", content, meta, quality)


def test_prototypes_are_the_label_sums_and_their_cosines_the_centroids():
    x = _matrix(3, rows=80)
    labels = tuple("abc"[i % 3] if i % 7 else "d" for i in range(80))
    protos = Prototypes(x, labels)
    protos.sync(60)
    for label in set(labels[:60]):
        rows = [i for i in range(60) if labels[i] == label]
        s = protos.slot[label]
        assert protos.counts[s] == len(rows)
        centroid = np.asarray(x[rows].mean(axis=0)).ravel()
        q = x[70].toarray().ravel()
        want = centroid @ q / np.linalg.norm(centroid)
        lo, hi = x.indptr[70], x.indptr[71]
        assert protos.cosines(np.array([s]), x.indices[lo:hi], x.data[lo:hi])[0] == pytest.approx(want)
    # as they stood before row 40: the later rows taken back out equal a build of rows 0..39
    earlier = Prototypes(x, labels)
    earlier.sync(40)
    slots = np.array([protos.slot[lab] for lab in earlier.labels])
    lo, hi = x.indptr[45], x.indptr[46]
    assert np.allclose(protos.cosines_as_of(40, slots, x.indices[lo:hi], x.data[lo:hi]),
                       earlier.cosines(np.arange(len(slots)), x.indices[lo:hi], x.data[lo:hi]))


def test_a_prototypes_norm_kept_as_rows_arrive_is_its_sums_norm_and_a_rebuild_the_same_floats():
    x = _matrix(5, rows=90, terms=40)
    labels = tuple("abcd"[i % 4] for i in range(90))
    protos = Prototypes(x, labels)
    protos.sync(90)
    slots = np.arange(len(protos.labels))
    sums = protos._sums[slots]
    assert protos._norms(slots) == pytest.approx(np.sqrt((sums * sums).sum(axis=1)), rel=1e-12)
    lo, hi = x.indptr[89], x.indptr[90]
    before = protos.cosines(slots, x.indices[lo:hi], x.data[lo:hi])
    protos.sync(30)  # back: rebuilt from row 0
    protos.sync(90)
    assert protos.cosines(slots, x.indices[lo:hi], x.data[lo:hi]).tobytes() == before.tobytes()


def test_prototype_cosines_are_the_same_floats_with_one_or_two_blas_threads():
    # a vocabulary past 10,000 terms, where OpenBLAS splits a dot product among its threads: the
    # norms were such a dot, once per row, and on a loaded machine it waited for the second thread
    # (milliseconds a row: 20 Newsgroups train-then-test took 190 s of CPU instead of 37)
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(7)
    x = sp.random(60, 24_000, density=0.05, format="csr", random_state=rng)
    x.data = rng.random(len(x.data)) + 0.05
    from sklearn.preprocessing import normalize

    x = normalize(x).tocsr()
    labels = tuple("abcdef"[i % 6] for i in range(60))
    lo, hi = x.indptr[59], x.indptr[60]
    slots = np.arange(6)
    got = []
    for threads in (1, 2):
        with threadpool_limits(threads):
            protos, cosines = Prototypes(x, labels), []
            for n in range(12, 60, 4):  # the norms at several sizes (a 1-thread and a 2-thread dot agree often)
                protos.sync(n)
                cosines.append(protos.cosines(slots, x.indices[lo:hi], x.data[lo:hi]))
            cosines.append(protos.cosines_as_of(40, slots, x.indices[lo:hi], x.data[lo:hi]))
            got.append(np.concatenate(cosines).tobytes())
    assert got[0] == got[1]

def test_the_semantic_tier_shows_one_prototype_per_label_and_the_arms_read_it(demo):
    world = scenarios.make_scenario("stream", 1, demo)
    s = Session(SessionConfig("stream", 1, "fixed:prototypes", scenario_options=dict(demo)), world)
    s.run()
    semantic = s.memory.entries("semantic")
    labels = world.labels
    assert sorted(e.metadata["label"] for e in semantic) == sorted(set(labels))
    for e in semantic:
        assert e.metadata["rows"] == labels.count(e.metadata["label"])
        assert e.episode == labels.index(e.metadata["label"])  # the label's first row names it
        assert e.content.startswith(f"[{e.metadata['label']}] prototype of ")
    # prototypes alone answer the nearest centroid of the rows before
    t = ROWS - 1
    x = world.table.x
    sums = {lab: np.asarray(x[[i for i in range(t) if labels[i] == lab]].sum(axis=0)).ravel() for lab in set(labels[:t])}
    q = x[t].toarray().ravel()
    nearest = max(sorted(sums), key=lambda lab: sums[lab] @ q / np.linalg.norm(sums[lab]))
    assert s.history[t]["info"]["predicted"] == nearest
    assert {p.name for p in MEMORY_ARMS} <= {p.name for p in INITIAL_POOL}


def test_prototypes_beside_rows_vote_with_both(demo):
    world = scenarios.make_scenario("stream", 1, demo)
    memory = MemoryStore(cap_per_tier=ROWS)
    for t in range(100):
        memory.episode = t
        content, meta, quality = world._entry(t)
        memory.write("episodic", content, meta, quality)
        world.distil(memory, t)
    memory.episode = 100
    hits = memory.retrieve(PROTOTYPES_KNN, {**world.query(100).metadata, "_episode": 100}, world.similarity)
    tiers = [h.entry.tier for h in hits]
    assert tiers.count("episodic") == 5 and 1 <= tiers.count("semantic") <= 5
    label, voters = world._predict(hits, 100)
    assert label in set(world.labels[:100]) and len(voters) == 5
    only = memory.retrieve(PROTOTYPES, {**world.query(100).metadata, "_episode": 100}, world.similarity)
    assert {h.entry.tier for h in only} == {"semantic"}


def test_the_reflectors_replay_reads_the_prototypes_as_they_stood(demo):
    """A replay (memory rebuilt from the rows before each episode) gives the prototype arms
    the answers they gave live, while memory holds fewer rows than the replay keeps."""
    world = scenarios.make_scenario("stream", 1, demo)
    s = Session(SessionConfig("stream", 1, "fixed:prototypes_knn", scenario_options=dict(demo)), world)
    s.run()
    episodes = list(range(60, ROWS, 6))
    replayed = world.counterfactual(PROTOTYPES_KNN, episodes)
    assert replayed.tolist() == [s.history[t]["correct"] for t in episodes]
    assert world.counterfactual(PROTOTYPES, episodes).sum() > 0


def test_save_load_and_rewind_give_the_same_run(demo, tmp_path):
    def session():  # ts plays every arm: the index and the prototypes are rebuilt from what memory holds
        return new_session("stream", 4, "ts", scenario_options=demo)

    whole = session()
    whole.run()
    half = session()
    half.run(until=ROWS // 2)
    path = tmp_path / "s.json"
    save_session(half, path)
    resumed = load_session(path, scenarios.make_scenario)
    resumed.run()
    key = [(r["policy"], r["info"]["predicted"]) for r in whole.history]
    assert [(r["policy"], r["info"]["predicted"]) for r in resumed.history] == key
    assert [e.content for e in resumed.memory.entries("semantic")] == [e.content for e in whole.memory.entries("semantic")]
    whole.rewind_to(40)
    whole.run()
    assert [(r["policy"], r["info"]["predicted"]) for r in whole.history] == key


def test_a_meta_column_named_like_the_prototypes_mark_is_one_line(tmp_path):
    from engine.errors import AELError

    path = tmp_path / "d.csv"
    path.write_text("text,label,distilled\na b,x,1\nc d,y,2\n")
    with pytest.raises(AELError, match="rename the column"):
        scenarios.make_scenario("stream", 1, {"data": str(path), "text": "text", "label": "label",
                                              "meta": ["distilled"]})


# ------------------------------------------------------------ the bench's table
def _tiny_bench(monkeypatch, capsys, tmp_path, river: bool) -> str:
    import bench.stream_peers as peers

    monkeypatch.setattr(peers, "river_installed", lambda: river)
    assert peers.main(["--rows", "30", "--streams", "demo"], run=peers.in_process, out=tmp_path / "o.json") == 0
    out = capsys.readouterr()
    saved = json.loads((tmp_path / "o.json").read_text())
    assert [r["learner"] for r in saved["rows"]][:2] == ["ts", "ts+reflection"]  # oracle only when asked
    assert all(r["rows"] == 30 for r in saved["rows"])
    return out.out + out.err


def test_the_bench_table_without_river_says_how_to_install_it(monkeypatch, capsys, tmp_path):
    text = _tiny_bench(monkeypatch, capsys, tmp_path, river=False)
    assert "| demo stream (seed 1) | ts+reflection |" in text and "best arm (" not in text  # arms: when asked
    assert "river:" not in text.split("| stream |")[1]
    assert "pip install -e '.[bench]'" in text
    assert " thread" in text.split("| stream |")[0].split("BLAS ")[1]  # the runs' BLAS threads, in the header


def test_the_bench_table_with_river_has_its_three_learners(monkeypatch, capsys, tmp_path):
    pytest.importorskip("river")
    text = _tiny_bench(monkeypatch, capsys, tmp_path, river=True)
    for learner in ("river:naive_bayes", "river:knn", "river:logistic"):
        assert f"| demo stream (seed 1) | {learner} |" in text
    assert "demo stream (seed 1): ts+reflection − best River learner (river:" in text
    assert "a generated stream: no target" in text and "LazySearch(window_size=50)" in text


def test_the_targets_read_the_best_river_learner_and_ask_more_on_the_drifting_order():
    import bench.stream_peers as peers

    def row(stream, learner, accuracy):
        return {"stream": stream, "learner": learner, "accuracy": accuracy, "seconds": 10.0, "cpu": 9.0}

    streams = [{"name": "flat", "real": True, "drifts": False}, {"name": "drift", "real": True, "drifts": True}]
    rows = [row(s, "ts+reflection", 0.80) for s in ("flat", "drift")]
    rows += [row(s, "river:naive_bayes", 0.70) for s in ("flat", "drift")]
    rows += [row("flat", "river:logistic", 0.815), row("drift", "river:logistic", 0.80)]
    flat, drift = peers.targets(rows, streams)
    assert "best River learner (river:logistic) = -0.015 (target ≥ −0.02: met)" in flat
    assert "= +0.000 (target on the drifting order: ahead: MISSED)" in drift  # a tie is not ahead
    assert "1.00× River NB's wall time (target ≤ 2: met)" in flat


def test_one_pass_over_every_arm_gives_each_fixed_runs_accuracy(demo, tmp_path):
    import bench.stream_peers as peers

    stream = {"path": demo["data"], "text": "text", "label": "label", "meta": demo["meta"], "regime": "phase"}
    every = peers.run_arms(stream)["arms"]
    for name in ("all_history", "prototypes_knn"):
        assert every[name] == peers.run_ours(stream, f"fixed:{name}")["accuracy"]


def test_the_bench_refuses_other_peers(capsys):
    from bench.__main__ import main

    assert main(["bench", "stream", "--vs", "sklearn"]) == 2
    assert "usage: python -m bench stream --vs river" in capsys.readouterr().err
