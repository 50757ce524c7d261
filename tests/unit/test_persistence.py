"""Saves are one JSON document, written atomically; bad files are refused in one line."""

import json
import os

import pytest

from engine.errors import AELError
from engine.store.atomic import write_json_atomic
from engine.store.persistence import SCHEMA_VERSION, load_session, read_document, save_session
from scenarios import make_scenario
from tests.conftest import new_session


@pytest.fixture
def saved(tmp_path):
    s = new_session()
    s.run(until=60)
    path = tmp_path / "s.json"
    save_session(s, path)
    return s, path


def test_a_save_is_versioned_json_without_pickle(saved):
    _, path = saved
    doc = json.loads(path.read_text())
    assert doc["format"] == "ael-lab-session" and doc["schema_version"] == SCHEMA_VERSION
    assert doc["session"]["t"] == 60


def test_load_restores_the_session_state(saved):
    s, path = saved
    loaded = load_session(path, make_scenario)
    assert loaded.to_dict() == s.to_dict()


@pytest.mark.parametrize("content,message", [
    (b"", "is empty"),
    (b"hello", "not JSON"),
    (b'{"format": "ael-lab-session", "sche', "truncated or corrupt"),
    (b'{"name": "something else"}', "not an AEL Lab session"),
    (b'[1, 2]', "not an AEL Lab session"),
    (b'{"format": "ael-lab-session", "schema_version": 999, "session": {}}', "newer AEL Lab"),
    (b'{"format": "ael-lab-session", "schema_version": "1", "session": {}}', "invalid schema_version"),
    (b'{"format": "ael-lab-session", "schema_version": 1, "session": {"config": {}}}', "field session.config.scenario: field required"),
])
def test_bad_files_are_refused_with_one_clear_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(AELError, match=message) as err:
        load_session(path, make_scenario)
    assert "\n" not in str(err.value)


def test_a_missing_file(tmp_path):
    with pytest.raises(AELError, match="no such session file"):
        read_document(tmp_path / "nope.json")


def test_a_failed_save_leaves_the_previous_one_intact(saved, monkeypatch):
    s, path = saved
    before = path.read_bytes()
    s.history.append({"bad": object()})  # not serialisable
    with pytest.raises(AELError, match="not serialisable"):
        save_session(s, path)
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == ["s.json"]  # no temp file left behind


def test_a_crash_during_write_leaves_no_half_file(tmp_path, monkeypatch):
    path = tmp_path / "x.json"
    write_json_atomic(path, {"v": 1})

    def boom(fd):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        write_json_atomic(path, {"v": 2})
    assert json.loads(path.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_saving_into_a_missing_folder_says_so(tmp_path):
    s = new_session()
    with pytest.raises(AELError, match="does not exist"):
        save_session(s, tmp_path / "no" / "such" / "s.json")


def test_session_files_written_by_earlier_versions_still_load():
    """Every file in tests/unit/fixtures/sessions must load and continue to the end."""
    folder = os.path.join(os.path.dirname(__file__), "fixtures", "sessions")
    files = sorted(f for f in os.listdir(folder) if f.endswith(".json"))
    assert files, "the fixtures corpus is empty"
    for name in files:
        s = load_session(os.path.join(folder, name), make_scenario)
        s.run()
        assert s.done
