"""A long stream's save (issue 39): its cap grows with the stream's episodes, read from
the save's head before a byte is parsed, and checked against the stream once loaded; a
save that would be over its cap is refused before a file is written. On a small scale:
the base cap is lowered here so that a 120-row stream is "long" (the real case, 250,000
rows, is measured by hand: docs/worlds.md, "Long streams")."""

from __future__ import annotations

import pytest

import engine.store.persistence as persistence
import scenarios
from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from engine.store.schema_types import MAX_ITEMS
from tests.conftest import new_session
from scenarios.stream.demo import write_demo
from scenarios.stream.table import MAX_ROWS

ROWS = 120


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    path = write_demo(tmp_path_factory.mktemp("long") / "demo.csv", 1, ROWS)
    opts = {"data": str(path), "text": "text", "label": "label", "meta": ["source"]}

    def session():
        return new_session("stream", 3, "ts", scenario_options=opts)

    whole = session()
    whole.run()
    half = session()
    half.run(until=ROWS // 2)
    return whole, half


@pytest.fixture
def small_caps(monkeypatch):
    """A base cap under this stream's save, and 1 KiB an episode (120 KiB for it)."""
    monkeypatch.setattr(persistence, "MAX_SESSION_BYTES", 16 * 1024)
    monkeypatch.setattr(persistence, "SAVE_BYTES_PER_EPISODE", 1024)


def test_a_save_over_the_base_cap_loads_under_its_streams_cap_and_resumes_the_same(played, small_caps, tmp_path):
    whole, half = played
    path = tmp_path / "s.json"
    save_session(half, path)
    assert path.stat().st_size > persistence.MAX_SESSION_BYTES  # only the stream's cap lets it in
    assert path.read_bytes().startswith(b'{"format":"ael-lab-session","schema_version":1,"saved_at":"')
    resumed = load_session(path, scenarios.make_scenario)
    resumed.run()
    assert [r["info"]["predicted"] for r in resumed.history] == [r["info"]["predicted"] for r in whole.history]


def test_a_head_claiming_more_episodes_than_its_stream_is_one_line(played, small_caps, tmp_path):
    path = tmp_path / "s.json"
    save_session(played[1], path)
    path.write_bytes(path.read_bytes().replace(f'"episodes":{ROWS},'.encode(), b'"episodes":400,', 1))
    with pytest.raises(AELError, match="field episodes: the save states 400 episodes but its session has 120"):
        load_session(path, scenarios.make_scenario)


def test_a_large_file_without_the_head_gets_the_base_cap(played, small_caps, tmp_path):
    path = tmp_path / "s.json"
    save_session(played[1], path)
    path.write_bytes(path.read_bytes().replace(f'"episodes":{ROWS},'.encode(), b"", 1))  # an older save's layout
    with pytest.raises(AELError, match="larger than the .* MiB a session file may be"):
        load_session(path, scenarios.make_scenario)


def test_a_save_over_its_cap_is_refused_before_a_file_is_written(played, monkeypatch, tmp_path):
    monkeypatch.setattr(persistence, "MAX_SESSION_BYTES", 1024)
    monkeypatch.setattr(persistence, "SAVE_BYTES_PER_EPISODE", 16)
    with pytest.raises(AELError, match=r"cannot save to .*: the save would be .* MiB, over the .* MiB a save of "
                                       r"120 episodes may be"):
        save_session(played[1], tmp_path / "s.json")
    assert list(tmp_path.iterdir()) == []


def test_the_schema_holds_as_many_episodes_as_the_longest_stream():
    assert MAX_ITEMS >= MAX_ROWS
    assert persistence.session_cap(MAX_ROWS) >= MAX_ROWS * 1024  # twice the demo stream's 0.6 KiB a row
