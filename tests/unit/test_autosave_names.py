"""Two labs on the same scenario and seed never share an autosave file."""

from __future__ import annotations

from pathlib import Path

from ael_tui.config import LabSettings
from ael_tui.lab.session_host import SessionHost
from engine.store.persistence import load_session
from scenarios import make_scenario
from tests.conftest import new_session


def test_two_hosts_on_one_scenario_and_seed_autosave_to_their_own_files(tmp_path):
    settings = LabSettings(delay=0.0, autosave_every=5, saves_dir=Path(tmp_path))
    first = SessionHost(new_session(seed=42), settings)
    second = SessionHost(new_session(seed=42), settings)
    assert first.autosave_path() != second.autosave_path()
    first.run("window")   # to episode 10: autosaved at 5 and 10
    second.run("window")  # to 10 as well, in its own file
    for _ in range(5):
        first.run("step")  # 15: the first autosaves again, the second's file must not move
    assert first.saved_at == first.autosave_path() and second.saved_at == second.autosave_path()
    assert load_session(first.autosave_path(), make_scenario).t == 15
    assert load_session(second.autosave_path(), make_scenario).t == 10
