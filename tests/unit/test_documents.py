"""Reading documents from outside: size caps before parsing, depth and finite numbers
before walking, one line naming the file and the field."""

from __future__ import annotations

import json

import pytest

import engine.store.persistence
from ael_tui.config import MAX_KEYS_BYTES, load_keymap
from engine.store.documents import check_tree, parse_json, read_capped
from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from scenarios import make_scenario
from tests.conftest import new_session


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    save_session(new_session(), path)
    monkeypatch.setattr(engine.store.persistence, "MAX_SESSION_BYTES", path.stat().st_size - 1)
    monkeypatch.setattr(engine.store.persistence, "SAVE_BYTES_PER_EPISODE", 0)  # no long stream's allowance
    with pytest.raises(AELError, match="larger than the .* MiB a session file may be"):
        load_session(path, make_scenario)


def test_read_capped_refuses_a_fifo_without_blocking(tmp_path):
    import os

    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(AELError, match="not a regular file"):
        read_capped(tmp_path / "pipe", 100, "session file")


def test_a_keys_file_over_its_cap_is_one_problem(tmp_path):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"lab.step": "n" * MAX_KEYS_BYTES}))
    keymap, problems = load_keymap(path)
    assert keymap == {} and len(problems) == 1 and "larger than" in problems[0]


@pytest.mark.parametrize("doc, words", [
    ({"a": [1, 2, float("nan")]}, "field a[2]: expected a finite number"),
    ({"a": {"b": float("inf")}}, "field a.b: expected a finite number"),
    ({"a": [[[[1]]]]}, "nests deeper than 3 levels"),
])
def test_check_tree_names_where_the_problem_is(doc, words):
    with pytest.raises(AELError, match=words.replace("[", r"\[").replace("]", r"\]")):
        check_tree(doc, "f.json", depth=3)


def test_nesting_beyond_pythons_own_stack_is_one_line():
    with pytest.raises(AELError, match="nested deeper than"):
        parse_json(b"[" * 200_000 + b"]" * 200_000, "f.json", "session file")


@pytest.mark.parametrize("scenario, until", [("synthetic", 0), ("synthetic", 208), ("support", 41),
                                             ("portfolio", 0), ("portfolio", 180)])
def test_real_saves_pass_the_schema_at_any_point_of_a_run(tmp_path, scenario, until):
    session = new_session(scenario, seed=3)
    session.run(until=until)
    path = tmp_path / "s.json"
    save_session(session, path)
    assert load_session(path, make_scenario).to_dict() == session.to_dict()
