"""A served lab reads files only inside its sessions folder (issue: trust round four, finding 1).

Every path field of the served start screen (the stream world's Data file and its preview,
the news world's and the portfolio's typed data folder, "…or open a file") is given `../`,
an absolute path and a symlink leading out of the folder: each is refused in one line, and
the file's content is never shown. A data file inside the folder still previews and runs,
and a save naming a data file outside the folder is refused when a visitor loads it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.widgets import Input, Select, Static

from ael_tui.files.scenario_fields import OTHER
from ael_tui.files.start_screen import StartScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.serve.lab import ServedLab
from ael_tui.serve.mode import ServedMode
from scenarios.stream.demo import write_demo
from tests.tui_helpers import frozen_lab, notifications, settle  # noqa: F401  (frozen_lab: autouse)

SIZE = (160, 60)
SECRET = "sk-live-visitor-must-never-see-this"
HOSTILE = ("../outside.csv", "ABSOLUTE", "link.csv")  # ABSOLUTE: the outside file's absolute path


@pytest.fixture
def folder(tmp_path) -> Path:
    """The sessions folder, beside a file outside it that holds a secret (a readable CSV and
    JSONL both: a preview would show it), and a symlink in the folder leading to it."""
    outside = tmp_path / "outside.csv"
    outside.write_text(f"text,label\n{SECRET},a\nhello there,b\n")
    (tmp_path / "outside").mkdir()
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "link.csv").symlink_to(outside)
    (folder / "link.json").symlink_to(outside)
    (folder / "link").symlink_to(tmp_path / "outside")
    return folder


def typed(value: str, folder: Path, suffix: str = ".csv") -> str:
    """A hostile path as the visitor types it, for a field that wants `suffix` ('' a folder)."""
    outside = folder.parent / f"outside{suffix}"
    if value == "ABSOLUTE":
        return str(outside)
    return value.replace(".csv", suffix)


def served(folder: Path, **mode) -> ServedLab:
    return ServedLab(ServedMode(root=str(folder), **mode), None, cursor_blink=False, show_times=False)


def on_screen(app) -> str:
    """Every static text of the start screen (the preview and the notes) and every notification."""
    texts = [str(w.render()) for w in app.screen.query(Static)]
    return "\n".join(texts + notifications(app))


async def start_with(app, pilot, scenario: str) -> None:
    assert isinstance(app.screen, StartScreen)
    app.screen.query_one("#scenario", Select).value = scenario
    await settle(pilot)


def refused(app, *words: str, case: str = "") -> None:
    """Refused in one line naming `words`, the start screen still up and the secret nowhere;
    the notifications are then cleared, so the same app can be given the next hostile path."""
    errors = [m for m in notifications(app) if all(w in m for w in words)]
    assert errors and all("\n" not in m for m in errors), (case, notifications(app))
    assert app.lab is None and isinstance(app.screen, StartScreen), case
    assert SECRET not in on_screen(app), case
    app.clear_notifications()


# ------------------------------------------------------------------ the stream's Data file
# One app per field, given each hostile path in turn (an app's start is most of a case's time).
async def test_the_stream_data_file_outside_the_folder_is_refused_never_previewed(folder):
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        await start_with(app, pilot, "stream")
        app.screen.query_one("#opt-stream-text", Input).value = "text"
        app.screen.query_one("#opt-stream-label", Input).value = "label"
        for hostile in HOSTILE:
            app.screen.query_one("#opt-stream-data", Input).value = typed(hostile, folder)
            await settle(pilot, rounds=3)
            preview = str(app.screen.query_one("#data-preview", Static).render())
            assert "outside this lab's sessions folder" in preview and "\n" not in preview, (hostile, preview)
            assert "rows ·" not in preview and SECRET not in preview, hostile
            app.screen.action_start_session()
            await settle(pilot, rounds=3)
            refused(app, "outside this lab's sessions folder", case=hostile)


async def test_a_data_file_inside_the_folder_previews_and_runs(folder):
    write_demo(folder / "tickets.csv", 1, 60)
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        await start_with(app, pilot, "stream")
        for name, value in {"data": "tickets.csv", "text": "text", "label": "label"}.items():
            app.screen.query_one(f"#opt-stream-{name}", Input).value = value
        await settle(pilot, rounds=3)
        assert "60 rows ·" in str(app.screen.query_one("#data-preview", Static).render())
        app.screen.action_start_session()
        await settle(pilot, rounds=4)
        assert isinstance(app.screen, LabScreen), notifications(app)
        # the folder's copy, by its absolute path: never whatever the process's own folder holds
        assert app.lab.host.session.config.scenario_options["data"] == str((folder / "tickets.csv").resolve())


async def test_a_fifo_in_the_folder_is_named_in_the_preview_never_opened(folder):
    os.mkfifo(folder / "pipe.csv")  # opening it to read would wait for a writer for ever
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        await start_with(app, pilot, "stream")
        app.screen.query_one("#opt-stream-data", Input).value = "pipe.csv"
        await settle(pilot, rounds=3)
        preview = str(app.screen.query_one("#data-preview", Static).render())
        assert "a FIFO, not a regular file" in preview and "\n" not in preview


# --------------------------------------------------- the other worlds' typed data folders
@pytest.mark.parametrize("scenario, words", [("news", "teacher's copy"), ("portfolio", "synthetic market")])
async def test_a_typed_data_folder_is_refused(folder, scenario, words):
    app = served(folder, local_copies={"news": str(folder.parent / "teachers-news")})  # news offered; never read here
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        await start_with(app, pilot, scenario)
        app.screen.query_one(f"#opt-{scenario}-data", Select).value = OTHER
        await settle(pilot)
        for hostile in HOSTILE:
            app.screen.query_one(f"#opt-{scenario}-data-other", Input).value = typed(hostile, folder, "")
            await settle(pilot)
            app.screen.action_start_session()
            await settle(pilot, rounds=3)
            refused(app, words, case=hostile)


# ------------------------------------------------------------------ "…or open a file"
async def test_a_save_outside_the_folder_is_not_opened(folder):
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        for hostile in HOSTILE:
            app.screen.query_one("#open-path", Input).value = typed(hostile, folder, ".json")
            app.screen.action_open_selected()
            await settle(pilot, rounds=3)
            refused(app, "outside this lab's sessions folder", case=hostile)


# ------------------------------------------------------------------ a save's data path
def stream_save(folder: Path, data: str) -> None:
    """s.json in the folder: a short stream run on the folder's tickets.csv (once), its data
    path then rewritten to `data`."""
    from ael_cli.main import main

    save = folder / "s.json"
    if not save.exists():
        write_demo(folder / "tickets.csv", 1, 60)
        assert main(["run", "stream", "--data", str(folder / "tickets.csv"), "--text", "text", "--label", "label",
                     "--selector", "ts", "--seeds", "1", "--until", "5", "--save", str(save), "--quiet"]) == 0
    doc = json.loads(save.read_text())
    doc["session"]["config"]["scenario_options"]["data"] = data
    save.write_text(json.dumps(doc))


async def test_a_save_whose_data_file_is_outside_the_folder_is_refused_on_load(folder):
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        for hostile in HOSTILE:
            stream_save(folder, typed(hostile, folder))
            app.open_saved_session(Path("s.json"))
            await settle(pilot, rounds=4)
            refused(app, "data file", "outside this lab's sessions folder", case=hostile)


async def test_a_save_naming_its_data_file_by_a_relative_name_reads_it_from_the_folder(folder, tmp_path,
                                                                                      monkeypatch):
    stream_save(folder, "tickets.csv")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "tickets.csv").write_text(f"text,label\n{SECRET},a\nhello there,b\n")
    monkeypatch.chdir(elsewhere)  # the process stands elsewhere: the folder's file is still the one read
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        app.open_saved_session(Path("s.json"))
        await settle(pilot, rounds=4)
        assert isinstance(app.screen, LabScreen), notifications(app)
        assert app.lab.host.session.n_episodes == 60
