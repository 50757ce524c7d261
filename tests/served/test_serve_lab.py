"""The served lab (what one browser visitor drives), in the pilot: it reads and writes
only inside its sessions folder, starts no model, and opens at the tour in class
mode. Plus the pieces of the server that need no network: the cap, the app's
environment, the flags."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from textual.widgets import Input

from ael_cli.main import main
from ael_tui.widgets.dialogs import PromptScreen
from ael_tui.widgets.opening import NewSession
from ael_tui.files.start_screen import StartScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.tour.tour_card import TourCardScreen
from ael_tui.serve.command import DEFAULT_MAX_SESSIONS
from ael_tui.serve.lab import ServedLab
from ael_tui.serve.mode import ENV, ServedMode
from ael_tui.serve.server import LabServer, SessionCap, app_environment
from engine.errors import AELError
from engine.store.persistence import save_session

from tests.tui_helpers import frozen_lab, notifications, settle, synthetic  # noqa: F401  (frozen_lab: autouse)

SIZE = (160, 48)


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "class").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "class" / "out").symlink_to(tmp_path / "elsewhere")  # a link inside that leads out
    return tmp_path / "class"


def served(folder: Path, session=None, **mode) -> ServedLab:
    return ServedLab(ServedMode(root=str(folder), **mode), session, cursor_blink=False, show_times=False)


async def save_as(pilot, app, text: str) -> None:
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert isinstance(app.screen, PromptScreen)
    app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await settle(pilot)


# ------------------------------------------------------------------ files
HOSTILE = ["../outside.json", "../../etc/evil.json", "/tmp/evil.json", "~/evil.json", "out/evil.json",
           "a/../../evil.json", "sub/../x.json", ".", "", "x\x00.json"]


@pytest.mark.parametrize("typed", HOSTILE)
def test_a_path_leaving_the_sessions_folder_is_refused(folder, typed):
    with pytest.raises(AELError, match="outside this lab's sessions folder"):
        ServedMode(root=str(folder)).confine(Path(typed))


def test_a_name_or_a_path_inside_the_folder_is_kept_inside(folder):
    mode = ServedMode(root=str(folder))
    assert mode.confine(Path("mine.json")) == folder.resolve() / "mine.json"
    assert mode.confine(folder / "exports" / "x") == folder.resolve() / "exports" / "x"


async def test_a_visitors_save_outside_the_sessions_folder_is_refused(folder, tmp_path):
    app = served(folder, synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        for typed in ("../outside.json", str(tmp_path / "elsewhere" / "abs.json"), "out/through-link.json"):
            await save_as(pilot, app, typed)
            assert isinstance(app.screen, LabScreen)
            assert any("outside this lab's sessions folder" in m for m in notifications(app)), typed
        await save_as(pilot, app, "mine.json")
        assert any(m.startswith("Saved episode") for m in notifications(app))
    assert (folder / "mine.json").exists()
    assert not (tmp_path / "outside.json").exists()
    assert list((tmp_path / "elsewhere").iterdir()) == []


async def test_a_visitor_cannot_open_a_save_outside_the_folder(folder, tmp_path):
    outside = synthetic(approval="auto")
    outside.run(until=7)
    save_session(outside, tmp_path / "elsewhere" / "seven.json")
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        for typed in ("../elsewhere/seven.json", str(tmp_path / "elsewhere" / "seven.json"), "out/seven.json"):
            app.screen.query_one("#open-path", Input).value = typed
            app.screen.query_one("#open-path", Input).focus()
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, StartScreen) and app.lab is None, typed
            assert "outside this lab's sessions folder" in notifications(app)[-1], typed
            app.clear_notifications()


async def test_a_save_inside_the_folder_opens(folder):
    inside = synthetic(approval="auto")
    inside.run(until=5)
    save_session(inside, folder / "five.json")
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        app.open_saved_session(Path("five.json"))
        await settle(pilot)
        assert isinstance(app.screen, LabScreen) and app.lab.host.session.t == 5


async def test_exports_of_a_served_lab_stay_in_its_folder(folder, tmp_path):
    app = served(folder, synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        app.lab.files.export_to("../leak")
        await settle(pilot)
        assert any("outside this lab's sessions folder" in m for m in notifications(app))
        app.lab.files.export_to(str(app.settings.exports_dir / "history"))
        await settle(pilot)
    assert not (tmp_path / "leak.csv").exists()
    assert (folder / "exports" / "history.csv").exists()


async def test_a_lab_the_server_ends_autosaves_its_progress_into_the_folder(folder):
    from textual.messages import ExitApp

    app = served(folder, synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        app.post_message(ExitApp())  # what textual-serve's "quit" does when the tab closes or idles out
        await pilot.pause()
    saved = list(folder.glob("autosave-synthetic-s42-*.json"))
    assert len(saved) == 1
    from engine.store.persistence import load_session
    from scenarios import make_scenario

    assert load_session(saved[0], make_scenario).t == 13


# ------------------------------------------------------------- backends
def test_a_served_lab_starts_no_model_unless_the_teacher_allowed_it():
    offline = ServedMode(root="/nowhere")
    for agent, reflector in (("anthropic", "offline"), ("offline", "gemini"), ("openai-compatible", "offline")):
        with pytest.raises(AELError, match="served offline"):
            offline.check_new(agent, reflector, None)
    with pytest.raises(AELError, match="the synthetic market"):  # its spec: served_data "offline"
        offline.check_options("portfolio", {"data": "/home/teacher/dfull"})
    offline.check_options("portfolio", {"data": "synthetic"})
    ServedMode(root="/nowhere", allow_llm=True).check_new("anthropic", "gemini", None)


async def test_the_start_screen_refuses_an_llm_session_with_a_notification(folder):
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        app.start_new_session(NewSession("support", 42, agent="anthropic"))
        await settle(pilot)
        assert isinstance(app.screen, StartScreen) and app.lab is None
        assert sum(isinstance(s, StartScreen) for s in app.screen_stack) == 1  # one, not a second under it
        assert any("served offline" in m for m in notifications(app))


def test_the_app_environment_holds_no_credential_unless_allowed():
    env = {"PATH": "/usr/bin", "HOME": "/home/t", "ANTHROPIC_API_KEY": "sk-ant-secret", "GEMINI_API_KEY": "g",
           "AWS_SECRET_ACCESS_KEY": "a", "AEL_OPENAI_BASE_URL": "http://gpu:8000", "TEXTUAL_DRIVER": "web",
           "LC_ALL": "C.UTF-8", "COLUMNS": "80"}
    mode = ServedMode(root="/class")
    safe = app_environment(env, mode)
    assert set(safe) - set(mode.private_env("k")) == {"PATH", "TEXTUAL_DRIVER", "LC_ALL", "COLUMNS", ENV}
    assert not any("KEY" in k and k != "AEL_LAB_KEYS" or "SECRET" in k for k in safe)
    assert ServedMode.from_env(safe) == mode
    assert app_environment(env, ServedMode(root="/class", allow_llm=True))["ANTHROPIC_API_KEY"] == "sk-ant-secret"


# ---------------------------------------------------------- class mode
async def test_class_mode_opens_every_lab_at_the_tours_first_card(folder):
    mode = dict(scenario="support", seed=42, tour=True)
    from ael_tui.serve.mode import first_session

    app = served(folder, first_session(ServedMode(root=str(folder), **mode)), **mode)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(20):
            await settle(pilot)
            if isinstance(app.screen, TourCardScreen):
                break
        assert isinstance(app.screen, TourCardScreen)
        assert app.screen.number == 1 and app.screen.card.moment == "posterior"
        assert app.lab.host.session.config.seed == 42
        assert sum(isinstance(s, LabScreen) for s in app.screen_stack) == 1  # the lab under the card, once


# ------------------------------------------------------------ the page
@pytest.mark.parametrize("host, base", [
    ("127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("lab.school.example:80", "http://lab.school.example:80"),
    ('x"><script>alert(1)</script>', "http://127.0.0.1:8123"),
    ("a b", "http://127.0.0.1:8123"),
])
def test_the_page_follows_the_visitors_host_only_when_it_is_a_plain_host(host, base):
    from aiohttp.test_utils import make_mocked_request

    server = LabServer(ServedMode(root="/class"), host="127.0.0.1", port=8123, what="the start screen")
    http, ws = server._base(make_mocked_request("GET", "/", headers={"Host": host}))
    assert http == base and ws == base.replace("http", "ws", 1)


# ------------------------------------------------------------ the cap
def test_the_cap_admits_40_sessions_and_refuses_the_41st():
    assert DEFAULT_MAX_SESSIONS == 40
    cap = SessionCap(DEFAULT_MAX_SESSIONS)
    assert all(cap.acquire() for _ in range(40))
    assert cap.full and not cap.acquire()
    cap.release()
    assert cap.acquire() and cap.active == 40


# ------------------------------------------------------------- the flags
@pytest.mark.parametrize("flags, message", [
    (["--port", "70000"], "--port: 70000 is not a port number"),
    (["--max-sessions", "0"], "--max-sessions: 0 is too small"),
    (["--idle-minutes", "0"], "--idle-minutes: 0 is outside"),
    (["--idle-minutes", "nan"], "--idle-minutes: 'nan' is not a finite number"),
    (["--tour"], "--tour: give the scenario too"),
    (["--scenario", "nope"], "nope"),
    (["--scenario", "support", "--selector", "bogus"], "bogus"),
])
def test_a_bad_serve_flag_is_one_line_and_exit_2(flags, message, capsys, tmp_path):
    assert main(["serve", "--sessions", str(tmp_path / "c"), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_busy_port_is_one_line_and_exit_2(capsys, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--sessions", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in err and err.count("\n") == 1

