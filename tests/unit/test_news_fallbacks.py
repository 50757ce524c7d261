"""The news world's `none_fallback` option (issue 42): what `none` answers reads no
article, each fallback does what its name says, the default is unchanged, and the
guess is a pure function of the stream (same on every selector, untouched by the
session's generator). On the tests' own corpus: no network."""

from __future__ import annotations

import pytest

import scenarios
from engine.errors import AELError
from engine.session import Session, SessionConfig
from scenarios.news.corpus import CLUSTERS, cluster_of
from scenarios.news.fallbacks import FALLBACKS, PAPERS_READING, REGIME_CLUSTER, commonest_recent, most_seen
from scenarios.news.policies import regime_label
from scenarios.news.stream import regime_of
from tests.news_corpus import write_corpus


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> str:
    return str(write_corpus(tmp_path_factory.mktemp("news")))


def world(data: str, fallback: str | None = None, seed: int = 42):
    options = {"data": data} | ({"none_fallback": fallback} if fallback else {})
    return scenarios.make_scenario("news", seed, options)


def test_each_fallback_answers_what_its_name_says(data):
    w = world(data)
    labels, groups = w.labels, sorted(set(w.corpus.groups))
    answers = {name: [world(data, name).fallback(t) for t in range(200)] for name in FALLBACKS}
    assert [w.fallback(t) for t in range(200)] == answers["most_seen"] == [most_seen(labels, t, groups[0])
                                                                            for t in range(200)]
    assert answers["last5"] == [commonest_recent(labels, t, groups[0]) for t in range(200)]
    for t, guess in enumerate(answers["regime_cluster"]):
        assert cluster_of(guess) == CLUSTERS[regime_of(t)]
    for t, guess in enumerate(answers["label_cluster"]):
        label = regime_label(labels, t)
        assert cluster_of(guess) == label or label not in CLUSTERS
    assert len(set(answers["regime_cluster"][100:150])) > 1  # a guess, not one group


def test_none_answers_the_fallback_in_a_session(data):
    w = world(data, "regime_cluster")
    config = SessionConfig(scenario="news", seed=42, selector="fixed:none",
                           scenario_options={"data": data, "none_fallback": "regime_cluster"})
    s = Session(config, w)
    s.run(until=40)
    assert [h["info"]["predicted"] for h in s.history] == [w.fallback(t) for t in range(40)]


def test_the_guess_is_the_streams_own_draw(data):
    a, b = world(data, "regime_cluster"), world(data, "regime_cluster")
    assert [a.fallback(t) for t in range(200)] == [b.fallback(t) for t in range(200)]
    assert [a.fallback(t) for t in range(200)] != [world(data, "regime_cluster", seed=7).fallback(t)
                                                  for t in range(200)]


def test_the_papers_reading_is_named_and_a_bad_name_is_one_line(data):
    assert PAPERS_READING == REGIME_CLUSTER and "paper" in FALLBACKS[PAPERS_READING]
    with pytest.raises(AELError, match="none_fallback"):
        world(data, "psychic")


def test_the_reproduce_table_runs_the_papers_reading():
    from ael_cli.reproduce.tables import TABLES

    news = next(t for t in TABLES if t.key == "news")
    assert news.options["none_fallback"] == PAPERS_READING


def test_the_report_says_which_answer_none_gave():
    from ael_cli.reproduce.markdown import table_markdown
    from ael_cli.reproduce.tables import TABLES

    news = next(t for t in TABLES if t.key == "news")
    assert "Scenario `news` with `none_fallback=regime_cluster`, seeds 42" in table_markdown(news, [], None)
