"""The news world (issue 17) on a corpus the tests write themselves: no network.

The network is closed for every test here (sockets and name lookups fail), so
a test that reached for it would fail rather than download.
"""

from __future__ import annotations

import io
import json
import socket
import tarfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import scenarios
from ael_cli.main import main
from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from engine.session import Session, SessionConfig
from scenarios.news import corpus as news_corpus
from scenarios.news.corpus import article, cluster_of, read_archive, read_folder
from scenarios.news.policies import regime_label
from scenarios.news.stream import P_FOCUS, regime_of, sample
from tests.news_corpus import GROUPS, write_corpus

SEEDS = "42,123,456,789,1024"



@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Sockets and name lookups fail, and scikit-learn's fetch is refused outright: only the
    test of the missing-data message puts it back (with --data nothing may fetch)."""
    def refuse(*args, **kwargs):
        raise OSError("network closed in the news tests")

    def no_fetch(*args, **kwargs):
        raise AssertionError("the news scenario fetched although it had --data")

    monkeypatch.setattr("sklearn.datasets.fetch_20newsgroups", no_fetch)  # imported here, not at collection
    connect = socket.socket.connect

    def local_only(sock, address):  # worker processes still reach their forkserver over a Unix socket
        if sock.family != socket.AF_UNIX:
            refuse()
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", local_only)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    news_corpus.load.cache_clear()
    yield
    news_corpus.load.cache_clear()


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> str:
    return str(write_corpus(tmp_path_factory.mktemp("news")))


def readme_text() -> str:
    """The README and the docs pages it sends a reader to (the news world's section may be either)."""
    root = Path(__file__).resolve().parents[2]
    return "\n".join(p.read_text() for p in (root / "README.md", *sorted((root / "docs").glob("*.md"))))


def scenario(data: str, seed: int = 42):
    return scenarios.make_scenario("news", seed, {"data": data})


# ------------------------------------------------------------------ the corpus
def test_posts_are_stripped_as_scikit_learn_strips_them(data):
    from sklearn.datasets._twenty_newsgroups import (strip_newsgroup_footer, strip_newsgroup_header,
                                                     strip_newsgroup_quoting)

    files = sorted(Path(data).glob("20news-bydate-*/*/*"))
    assert len(files) == 450
    for f in files[::37]:
        raw = f.read_text(encoding="latin-1")
        subject, body = article(raw)
        assert body == strip_newsgroup_quoting(strip_newsgroup_footer(strip_newsgroup_header(raw)))
        assert subject.startswith("Re: ") and "writes:" not in body and "\n>" not in body
        assert "From:" not in body and "Example University" not in body  # header and signature gone


def test_the_folder_is_read_in_scikit_learns_order(data):
    c = read_folder(data)
    assert len(c) == 450 and set(c.groups) == set(GROUPS) and not c.is_standard
    # train then test, groups in name order: the first article is train's first group's
    assert c.groups[0] == min(GROUPS) and c.groups[-1] == max(GROUPS)


def test_a_hostile_folder_is_read_within_limits(tmp_path, monkeypatch):
    root = write_corpus(tmp_path / "c", per_group=2)
    group = root / "20news-bydate-train" / "sci.space"
    (group / "huge").write_bytes(b"Subject: big\n\n" + b"\xff" * (news_corpus.MAX_FILE_BYTES * 2))
    (group / "link").symlink_to("/dev/zero")
    (group / "sub").mkdir()
    c = read_folder(str(root))
    assert len(c) == 19  # 18 posts + the huge one; the link and the folder are skipped
    assert max(len(t) for t in c.texts) <= news_corpus.MAX_FILE_BYTES
    monkeypatch.setattr(news_corpus, "MAX_FILES", 5)
    with pytest.raises(AELError, match="more than 5 files"):
        read_folder(str(root))


def _real_archive() -> Path | None:
    """../shared/data/news/20news-bydate.tar.gz beside the project (or a clone deeper in), if there."""
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "shared" / "data" / "news" / "20news-bydate.tar.gz"
        if candidate.is_file():
            return candidate
    return None


def _pack(folder: str, target: Path) -> Path:
    with tarfile.open(target, "w:gz") as tar:
        for subset in sorted(Path(folder).iterdir()):
            tar.add(subset, arcname=subset.name)
    return target


@pytest.fixture(scope="module")
def archive(data, tmp_path_factory) -> str:
    """The real 20news-bydate archive when ../shared has it, else the generated corpus packed the same way."""
    real = _real_archive()
    return str(real) if real else str(_pack(data, tmp_path_factory.mktemp("arch") / "20news-bydate.tar.gz"))


def test_the_archive_is_read_in_memory_as_its_folder_is(data, tmp_path):
    packed = _pack(data, tmp_path / "news.tar.gz")
    a, f = read_archive(str(packed)), read_folder(data)
    assert (a.groups, a.subjects, a.texts) == (f.groups, f.subjects, f.texts)
    assert list(tmp_path.iterdir()) == [packed]  # nothing extracted


@pytest.mark.heavy
def test_the_real_archive_or_the_generated_one_runs_the_papers_command(archive, tmp_path, capsys):
    """With ../shared's archive this is the paper's corpus: the paper's command prints the paper's
    rows beside ours, and ours are the README's real-corpus table. Without it the generated
    corpus packed as an archive goes through the same path."""
    real = _real_archive() is not None
    c = news_corpus.load(archive)
    assert c.is_standard == real and len(c) == (18_846 if real else 450)
    out = tmp_path / "news.json"
    # the README's table runs the paper's most likely reading of `none` (issue 42)
    selectors = ["--none-fallback", "regime_cluster", "--selector", "all", "--seeds", SEEDS] if real else [
        "--selector", "fixed:compressed,ts", "--seeds", "42,123"]
    assert main(["run", "news", "--data", archive, *selectors, "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert ("paper" in table) == real and "fixed:compressed" in table
    if not real:
        return
    shown = readme_text().split("**On the real corpus**")[1].split("\n\n")[1]
    rows = {cells[1].strip(): [c.strip() for c in cells[2:7]]
            for cells in (line.split("|") for line in shown.splitlines()[2:]) if not cells[1].strip().startswith("*")}
    summary = json.loads(out.read_text())["summary"]
    assert set(rows) == {row["selector"] for row in summary}
    for row in summary:
        assert rows[row["selector"]] == [*(f"{row['regimes'][g]:.3f}" for g in ("R0", "R1", "R2", "R3")),
                                         f"{row['overall_mean']:.3f}±{row['overall_std']:.3f}"], row["selector"]


def test_a_hostile_archive_is_read_within_limits_and_writes_nothing(tmp_path, monkeypatch):
    root = write_corpus(tmp_path / "c", per_group=2)
    target = tmp_path / "hostile.tar.gz"
    with tarfile.open(target, "w:gz") as tar:
        for subset in sorted(root.iterdir()):
            tar.add(subset, arcname=subset.name)

        def add(name: str, payload: bytes = b"Subject: x\n\nbody", **kw) -> None:
            info = tarfile.TarInfo(name)
            for k, v in kw.items():
                setattr(info, k, v)
            info.size = len(payload) if info.isreg() else 0
            tar.addfile(info, io.BytesIO(payload) if info.isreg() else None)

        add("../escape")
        add("/abs/20news-bydate-train/sci.space/1")
        add("20news-bydate-train/../../20news-bydate-train/sci.space/2")
        add("20news-bydate-train/sci.space/link", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        add("20news-bydate-train/sci.space/hard", type=tarfile.LNKTYPE, linkname="20news-bydate-train/sci.space/1")
        add("20news-bydate-train/sci.space/dev", type=tarfile.CHRTYPE)
        add("20news-bydate-train/sci.space/huge", b"Subject: big\n\n" + b"\xff" * (news_corpus.MAX_FILE_BYTES * 2))
    before = sorted(p.name for p in tmp_path.parent.iterdir())
    c = read_archive(str(target))
    assert len(c) == 19  # the 18 posts and the huge one (cut to the cap); every other member skipped
    assert max(len(t) for t in c.texts) <= news_corpus.MAX_FILE_BYTES
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == before and not (tmp_path / "escape").exists()
    monkeypatch.setattr(news_corpus, "MAX_ARCHIVE_BYTES", 10_000)
    with pytest.raises(AELError, match="more than 0 MB of articles"):
        read_archive(str(target))
    monkeypatch.setattr(news_corpus, "MAX_MEMBERS", 5)
    with pytest.raises(AELError, match="more than 5 members"):
        read_archive(str(target))


def test_a_broken_archive_is_one_line(tmp_path, capsys):
    broken = tmp_path / "20news-bydate.tar.gz"
    broken.write_bytes(b"\x1f\x8b\x08 truncated")
    assert main(["run", "news", "--data", str(broken), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "cannot read it as a 20news-bydate archive" in err


@pytest.mark.parametrize("make, words", [
    (lambda p: p / "missing", "no such folder"),
    (lambda p: p, "no 20news-bydate-train"),
    (lambda p: write_corpus(p, per_group=4), "a regime needs at least 50"),
])
def test_a_bad_folder_is_one_line(tmp_path, capsys, make, words):
    folder = make(tmp_path)
    assert main(["run", "news", "--data", str(folder), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and words in err, err


@pytest.mark.heavy
def test_without_data_or_network_one_line_says_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "empty"))
    from sklearn.datasets._twenty_newsgroups import fetch_20newsgroups

    monkeypatch.setattr("sklearn.datasets.fetch_20newsgroups", fetch_20newsgroups)  # the real one, on a closed network
    assert main(["run", "news"]) == 2  # one run: in this process, on the closed network
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert str(tmp_path / "empty") in err and "--data DIR" in err and "20news-bydate.tar.gz" in err


# ------------------------------------------------------------------ the stream
def test_the_stream_is_the_seeds_and_over_samples_each_cluster(data):
    a, b, c = scenario(data, 42), scenario(data, 42), scenario(data, 7)
    assert np.array_equal(a.stream.docs, b.stream.docs) and not np.array_equal(a.stream.docs, c.stream.docs)
    assert len(set(a.stream.docs.tolist())) == 200  # no article twice
    corpus = read_folder(data)
    focus = Counter()
    for seed in (1, 2, 3, 4, 5):
        docs = sample(corpus, seed)
        for t, d in enumerate(docs):
            focus[cluster_of(corpus.groups[d]) == ("comp", "rec", "sci", "talk")[regime_of(t)]] += 1
    share = focus[True] / 1000
    assert abs(share - P_FOCUS) < 0.05, share  # the other 20% may still hit the cluster: never far below


def test_the_regime_label_reads_only_revealed_classes(data):
    s = scenario(data)
    for t in (0, 1, 30, 120, 199):
        changed = list(s.labels)
        changed[t:] = ["comp.graphics"] * (200 - t)  # the future (and the present) rewritten
        assert regime_label(changed, t) == s.query(t).metadata["regime_label"]
    assert s.query(0).metadata["regime_label"] == "unknown"
    assert "regime" not in s.query(60).metadata


# ------------------------------------------------------------------ the runs
@pytest.mark.heavy
def test_the_papers_command_prints_the_table_in_its_layout(data, tmp_path, capsys):
    out = tmp_path / "news.json"
    assert main(["run", "news", "--data", data, "--selector", "all", "--seeds", SEEDS, "--json", str(out)]) == 0
    table = capsys.readouterr().out
    for word in ("R0", "R1", "R2", "R3", "overall ± sd", "p vs ts+reflection", "fixed:class_balanced",
                 "egreedy", "oracle"):
        assert word in table, table
    assert "paper" not in table  # a synthetic corpus never stands beside the paper's numbers
    doc = json.loads(out.read_text())
    assert len(doc["runs"]) == 11 * 5 and all(r["episodes"] == 200 for r in doc["runs"])
    overall = {row["selector"]: row["overall_mean"] for row in doc["summary"]}
    # the README's synthetic-corpus table is this run's (the corpus there is this one)
    shown = readme_text().split("**A synthetic corpus, not the paper's data.**")[1].split("\n\n")[1]
    rows = {cells[1].strip(): cells[2:7] for cells in (line.split("|") for line in shown.splitlines()[2:])}
    assert set(rows) == set(overall)
    for row in doc["summary"]:
        cells = [c.strip() for c in rows[row["selector"]]]
        assert cells == [*(f"{row['regimes'][g]:.3f}" for g in ("R0", "R1", "R2", "R3")),
                         f"{row['overall_mean']:.3f}±{row['overall_std']:.3f}"], row["selector"]
    assert overall["oracle"] >= max(v for k, v in overall.items() if k != "oracle")
    assert overall["fixed:compressed"] > overall["fixed:none"] + 0.3  # retrieval matters on this corpus


def test_a_save_resumes_exactly(data, tmp_path):
    config = SessionConfig(scenario="news", seed=123, selector="ts+reflection", scenario_options={"data": data},
                           reflector_options={"threshold": 0.95})
    s = Session(config, scenario(data, 123))
    s.run(until=87)
    assert s.injections, "the gate at 0.95 injects regime_filtered before the save"
    save_session(s, tmp_path / "news.json")
    again = load_session(tmp_path / "news.json", scenarios.make_scenario)
    s.run()
    again.run()
    assert again.history == s.history and len(s.history) == 200
    assert any(h["policy"] == "regime_filtered" for h in s.history[87:])


def test_the_log_and_memory_show_subject_prediction_and_truth(data):
    config = SessionConfig(scenario="news", seed=42, selector="fixed:compressed", scenario_options={"data": data})
    s = Session(config, scenario(data))
    s.run(until=30)
    last = s.history[-1]
    subject = s.scenario.subject(29)
    assert subject in last["action"] and last["info"]["predicted"] in last["action"]
    assert last["result"].startswith(f"true {s.scenario.labels[29]}")
    retrieved = [e for e in s.memory.entries("episodic") if e.id in s.last_hits]
    assert len(retrieved) == 10 and all(e.content.startswith(f"[{e.metadata['label']}] ") for e in retrieved)


def test_a_rejected_proposal_waits_three_windows_then_comes_back(data):
    config = SessionConfig(scenario="news", seed=42, selector="ts+reflection", scenario_options={"data": data},
                           approval="manual", reflector_options={"threshold": 0.95})
    s = Session(config, scenario(data))
    s.run(until=200)
    assert s.queue.pending, "the gate at 0.95 proposes regime_filtered"
    first = s.reflections[-1].episode
    for proposal in list(s.queue.pending):  # the policy and its insight
        s.decide(proposal.id, "reject")
    assert s.reflector.outlook(s.t).startswith("A proposal was rejected")
    s.run(until=200)
    assert s.queue.pending and s.reflections[-1].episode >= first + 3 * 25


def test_the_help_and_the_tour_say_what_this_world_teaches(data):
    from ael_tui.help_screen import panels_text
    from ael_tui.tour.guide import TourGuide
    from engine import events as ev

    assert "best memory style changes with the regime" in panels_text().plain
    config = SessionConfig(scenario="news", seed=42, selector="ts+reflection", scenario_options={"data": data},
                           reflector_options={"threshold": 0.95})
    s = Session(config, scenario(data))
    guide = TourGuide(s)
    while not any(c.moment == "reflected" for c in guide.cards) and not s.done:
        guide.feed(s.step(), s)
    card = next(c for c in guide.cards if c.moment == "reflected")
    assert "What this world teaches: Reflection helps only where" in card.text


def test_the_news_agent_says_how_it_voted(data):
    """Issue 41: the k-NN agent reports its plurality vote (and the prior class it falls back on)."""
    from engine.explain import explain, render

    s = Session(SessionConfig(scenario="news", seed=42, selector="ts", scenario_options={"data": data}),
                scenario(data))
    s.run(until=40)
    report = explain(s, 35)
    (vote,) = report["decided"]["votes"]
    assert vote["threshold"] is None and report["decided"]["answer"] == report["record"]["info"]["predicted"]
    assert [v["episode"] for v in vote["voters"]] == report["record"]["info"]["voters"]
    assert "How it decided:" in render(report)
