"""The news world in the lab: the log shows subject, prediction and truth; the memory
panel the retrieved articles; a start without data is a notification, not a crash."""

from __future__ import annotations

import socket

import pytest

from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.memory.memory_panel import MemoryTable
from scenarios.news import corpus as news_corpus
from tests.news_corpus import write_corpus
from tests.tui_helpers import FakeClock, frozen_lab, make_app, notifications, settle, until  # noqa: F401

SIZE = (160, 48)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network closed in the news tests")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    connect = socket.socket.connect

    def local_only(sock, address):  # worker processes still reach their forkserver over a Unix socket
        if sock.family != socket.AF_UNIX:
            refuse()
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", local_only)
    news_corpus.load.cache_clear()


async def test_the_lab_shows_the_article_its_prediction_and_what_was_retrieved(tmp_path):
    data = str(write_corpus(tmp_path / "news"))
    session = build_session(NewSession("news", 42, "fixed:compressed", "auto", options={"data": data}))
    app = make_app(session, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(12):
            await pilot.press("space")
            await settle(pilot)
        s = app.lab.host.session
        assert s.t == 12
        log = app.screen.query_one(EpisodeLog)
        await until(pilot, lambda: len(log.rows) == 12)  # as the memory panel below: a throttled redraw
        last = log.rows[-1]
        assert s.scenario.subject(11)[:40] in last["action"] and last["result"].startswith("true ")
        table = app.screen.query_one(MemoryTable)
        await until(pilot, lambda: {r.id for r in table.rows if r.hit} == set(s.last_hits))  # a throttled redraw
        hits = [r for r in table.rows if r.hit]
        assert {r.id for r in hits} == set(s.last_hits) and len(hits) == 10
        assert all(r.content.startswith("[") for r in hits)


async def test_a_start_without_the_data_is_a_notification(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "empty"))
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        app.start_new_session(NewSession("news", 42, "ts+reflection", "auto"))
        await settle(pilot, rounds=4)
        assert any("--data DIR" in m for m in notifications(app)), notifications(app)
