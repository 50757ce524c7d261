"""Teaching: help, the guided tour, exports of the history and of the screen."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from rich.console import Console
from textual.widgets import Input

from ael_tui.widgets.exports import csv_text, history_rows
from ael_tui.decisions.approval import ApprovalScreen
from ael_tui.widgets.dialogs import PromptScreen
from ael_tui.help_screen import PANELS, HelpScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.tour.tour_card import TourCardScreen
from ael_tui.tour.guide import TourGuide
from engine.store.persistence import save_session
from tests.tui_helpers import frozen_lab, make_app, notifications, settle, synthetic  # noqa: F401

SMALL = (100, 30)


def text_of(widget) -> str:
    return " ".join(str(widget.render()).split())


# ------------------------------------------------------------------ help
async def test_f1_and_question_mark_open_help_on_every_panel():
    app = make_app(synthetic())
    async with app.run_test(size=SMALL) as pilot:
        for key in ("f1", "question_mark"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            shown = text_of(app.screen.query_one("#help-panels"))
            for name in ("Posteriors", "Beta densities", "Progress", "Reflection", "Memory", "Episodes",
                         "Guided tour", "Compare", "What happened"):
                assert name in shown, name
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, LabScreen)


async def test_help_opens_over_a_decision_and_a_typed_question_mark_stays_text():
    """Textual ends a dialog's binding chain at the dialog: F1 there did nothing."""
    from ael_tui.decisions.editor import EditProposalScreen
    from textual.widgets import TextArea

    s = synthetic()
    s.run(until=200)
    assert s.queue.pending, "the synthetic run has a proposal waiting by episode 200"
    app = make_app(s)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        for key in ("f1", "question_mark"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen), key
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, ApprovalScreen)  # back to the decision, still pending
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, EditProposalScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, EditProposalScreen) and "?" in app.screen.query_one(TextArea).text


def test_every_panel_is_explained_in_two_or_three_sentences():
    for items in PANELS.values():
        for name, text in items:
            sentences = [s for s in text.replace("e.g.", "eg").split(". ") if s.strip()]
            assert 1 <= len(sentences) <= 4, name


async def test_help_lists_keys_as_remapped(tmp_path, monkeypatch):
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"lab.tour": "f8"}))
    monkeypatch.setenv("AEL_LAB_KEYS", str(keys))
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(app.screen.keys)
        line = next(x for x in console.export_text().splitlines() if "Guided tour" in x)
        assert "f8" in line.lower() and " t " not in line


# ------------------------------------------------------------------ tour
async def test_the_tour_stops_at_the_first_posterior_update_then_at_the_first_reflection():
    app = make_app(synthetic())
    async with app.run_test(size=SMALL) as pilot:
        s = app.lab.host.session
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TourCardScreen)
        assert (app.screen.card.moment, s.t) == ("posterior", 1)
        assert "Beta(" in app.screen.card.text
        await pilot.press("t")  # on the card: run to the next moment
        await settle(pilot)
        assert isinstance(app.screen, TourCardScreen)
        assert (app.screen.card.moment, s.t) == ("reflected", 13)
        assert app.lab.page == "progress"  # a small screen shows the panels the card talks about
        await pilot.press("t")  # a proposal is waiting: t opens it
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, TourCardScreen) and app.screen.card.moment == "arm"
        assert app.screen.number == 3  # issue 13 item 1: on synthetic card 3 never appeared
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LabScreen) and app.lab.host.tour is not None


def test_the_tour_notices_a_regime_change_and_a_distillation_once():
    s = synthetic(approval="auto")
    guide = TourGuide(s)
    while not s.done and s.t < 60:
        guide.feed(s.step(), s)
    moments = [c.moment for c in guide.cards]
    assert moments == ["posterior", "reflected", "arm", "distilled", "regime"]
    assert [c.episode for c in guide.cards] == [0, 12, 12, 29, 52]


# --------------------------------------------------------------- exports
async def test_x_exports_the_history_as_csv_and_json():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("w", "w")
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.query_one(Input).value == "exports/synthetic-s42-e26-history"
        await pilot.press("enter")
        await pilot.pause()
        assert any("Exported" in m or ".csv" in m for m in notifications(app))
    assert not list(Path("saves").glob("*history*"))  # the saves lists stay saves only
    with open("exports/synthetic-s42-e26-history.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 26
    assert rows[0]["episode"] == "0" and rows[0]["selector"] == "ts+reflection" and rows[0]["regime"] == "R0"
    doc = json.loads(Path("exports/synthetic-s42-e26-history.json").read_text())
    history = doc["selectors"]["ts+reflection"]["history"]
    assert len(history) == doc["episodes"] == 26
    assert [i["arm"] for i in doc["selectors"]["ts+reflection"]["injections"]] == ["a10"]


async def test_an_export_to_a_missing_folder_says_why_and_writes_nothing():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one(Input).value = "no/such/folder/h"
        await pilot.press("enter")
        await pilot.pause()
        assert any("does not exist" in m for m in notifications(app))
    assert not Path("no").exists()


def test_csv_has_one_row_per_episode_and_the_scenario_numbers():
    s = synthetic(approval="auto")
    s.run(until=5)
    rows = list(csv.DictReader(csv_text(history_rows("ts+reflection", s)).splitlines()))
    assert [r["episode"] for r in rows] == ["0", "1", "2", "3", "4"]


async def test_s_saves_an_svg_screenshot_in_the_exports_folder_without_the_notifications():
    """Issue 13 item 11: the screenshot went to saves/ and showed the notification on screen."""
    app = make_app(synthetic())
    async with app.run_test(size=SMALL) as pilot:
        app.notify("a notice that is not part of the lab")
        await pilot.pause()
        for _ in range(2):
            await pilot.press("s")  # the prompt, its path ready
            await pilot.pause()
            await pilot.press("enter")
            await settle(pilot)
    first, second = Path("exports/lab-synthetic-s42-e0.svg"), Path("exports/lab-synthetic-s42-e0-2.svg")
    assert first.read_text().lstrip().startswith("<svg") and second.exists()
    assert "notice" not in first.read_text().replace("&#160;", " ")
    assert not list(Path("saves").glob("*.svg"))


async def test_exports_are_named_after_the_save_a_session_came_from():
    save_session(synthetic(approval="auto"), "saves/lesson-one.json")
    from ael_tui.widgets.opening import open_session
    app = make_app(open_session(Path("saves/lesson-one.json")), path=Path("saves/lesson-one.json"))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("x")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "exports/lesson-one-e0-history"


async def test_t_pressed_quickly_walks_the_whole_support_tour_without_ending_the_app():
    """Issue 13 item 1: t on a card while the next card is already queued pushed a second
    screen with the id of the one being removed (DuplicateIds ended the app)."""
    from ael_tui.widgets.opening import NewSession, build_session
    app = make_app(build_session(NewSession("support", 42, "ts+reflection", "manual")))
    shown = []
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(12):
            await pilot.press("t")
            await settle(pilot, 3)
            if isinstance(app.screen, TourCardScreen):
                shown.append((app.screen.number, app.screen.card.moment))
                if app.screen.card.moment == "arm":
                    break
            elif isinstance(app.screen, ApprovalScreen):
                await pilot.press("y")
                await settle(pilot, 3)
                if isinstance(app.screen, TourCardScreen):
                    shown.append((app.screen.number, app.screen.card.moment))
                    break
        assert app.is_running
    assert shown == [(1, "posterior"), (2, "distilled"), (3, "reflected"), (4, "regime"), (5, "arm")]


async def test_every_key_hint_follows_the_keymap(tmp_path, monkeypatch):
    """Issue 13: a key hint on a button or in a text is read from the active keymap."""
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"approval.approve": "f6", "lab.decide": "f7", "lab.tour": "f8", "tour.next": "f9",
                                "lab.reflections": "f10", "lab.tier": "f11", "lab.save": "f12"}))
    monkeypatch.setenv("AEL_LAB_KEYS", str(keys))
    app = make_app(synthetic())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        panels = text_of(app.screen.query_one("#help-panels"))
        assert "Guided tour (f8)" in panels and "f6 approves" in panels and "f10 lists every" in panels
        await pilot.press("escape")
        await pilot.press("f8")  # the tour: its card names the keys as mapped
        await settle(pilot)
        assert isinstance(app.screen, TourCardScreen)
        assert "f9: run to the next moment" in str(app.screen.query_one("#tour-card").border_subtitle)
        await pilot.press("f9")
        await settle(pilot)
        assert "rejects each (f7)" in app.screen.card.text
        await pilot.press("f9")  # a proposal is waiting: the tour opens it
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        assert str(app.screen.query_one("#approve").label) == "Approve (f6)"
