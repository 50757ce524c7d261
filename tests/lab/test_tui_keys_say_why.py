"""Issue 29: no key that does nothing without saying so, and the other key traps a person
met trying the lab (the tour at a proposal, Enter through the screenshot prompt, g in the
portfolio's warm-up, the export path field)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui_helpers import frozen_lab, make_app, notifications, settle, synthetic  # noqa: F401

SIZE = (160, 48)


async def test_r_pressed_during_a_window_says_a_run_is_going_and_how_to_pause():
    """Item 6: w then r 0.3 s later: the window ran on and r was dropped without a word."""
    app = make_app(synthetic("auto"), delay=10.0)  # one episode, then a 10 s wait: the window runs until paused
    async with app.run_test(size=SIZE) as pilot:
        host = app.screen.host
        await pilot.press("w")
        await pilot.pause()
        assert host.running == "window"
        await pilot.press("r")
        await pilot.pause()
        said = notifications(app)
        assert any("Already running one slow window" in m and "p pauses it" in m for m in said), said
        host.pause()
        await settle(pilot)


async def test_d_with_nothing_pending_and_p_with_nothing_running_say_so():
    app = make_app(synthetic("manual"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("d")
        await pilot.pause()
        assert "Nothing is waiting for a decision." in notifications(app)
        await pilot.press("p")
        await pilot.pause()
        assert any("Nothing is running" in m for m in notifications(app))
        await pilot.press("v")  # a big screen shows every panel already
        await pilot.pause()
        assert any("Every panel is in view" in m for m in notifications(app))
        app.clear_notifications()
        await pilot.press("escape")  # Escape at rest means nothing, and says nothing
        await pilot.pause()
        assert not notifications(app)


async def test_the_speed_keys_at_their_limits_say_so():
    app = make_app(synthetic("auto"), delay=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("plus")
        await pilot.pause()
        assert any("Already the fastest" in m for m in notifications(app))
        app.screen.host.settings.delay = 1.0
        await pilot.press("minus")
        await pilot.pause()
        assert any("Already the slowest: 1 s" in m for m in notifications(app))


async def test_in_the_compare_view_a_run_key_during_a_run_says_why():
    from tests.lab.test_tui_compare import open_compare
    app = make_app(synthetic("auto"), delay=10.0)  # one round, then a 10 s wait: the run goes on until paused
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compare(pilot)
        await pilot.press("g")
        await pilot.pause()
        assert screen.host.running == "phase"
        await pilot.press("w")
        await pilot.pause()
        assert any("Already running" in m and "p pauses it" in m for m in notifications(app)), notifications(app)
        screen.host.pause()
        await settle(pilot)


async def test_g_in_the_portfolio_warm_up_runs_through_training_and_f_refuses_warm_up_alone():
    """Item 7: g on a new portfolio session stopped at the end of the 15-bar warm-up and showed
    "the train phase" with a Sharpe over the warm-up bars alone, the same for every selector."""
    from ael_tui.widgets.opening import NewSession, build_session
    from ael_tui.lab.records import ResultsScreen
    from ael_tui.lab.results_table import ResultsTable

    session = build_session(NewSession("portfolio", 3, "ts+reflection", "auto", variants=["planners", "per-tool"]))
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("f")  # one warm-up bar: nothing to compare
        await settle(pilot)
        assert not isinstance(app.screen, ResultsScreen)
        assert any("Only warm-up so far (1 of its 15 episodes)" in m for m in notifications(app))
        await pilot.press("g")
        await settle(pilot, 6)
        assert session.t == session.phase_ends["train"] == 128
        assert isinstance(app.screen, ResultsScreen)
        table = app.screen.results
        assert isinstance(table, ResultsTable) and table.title.endswith("the train phase")
        cells = {label: row for label, row, _ in table.rows}
        assert cells["ts+reflection (this run)"] != cells["fixed:none"]  # training tells them apart


async def test_enter_answers_the_screenshot_prompt_and_opens_no_episode():
    """Item 8: Episodes panel focused, s, Enter: the SVG was saved and an episode opened too."""
    from ael_tui.widgets.dialogs import PromptScreen
    from ael_tui.lab.episode_log import EpisodeLog
    from ael_tui.lab.lab_screen import LabScreen

    app = make_app(synthetic("auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        app.screen.query_one(EpisodeLog).focus()
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.query_one("#svg-path").value == "exports/lab-synthetic-s42-e13.svg"
        await pilot.press("enter")
        await settle(pilot, 3)
        assert isinstance(app.screen, LabScreen)  # no episode detail over it
        assert Path("exports/lab-synthetic-s42-e13.svg").read_text().lstrip().startswith("<svg")
        picture = Path("exports/lab-synthetic-s42-e13.svg").read_text().replace("&#160;", " ")
        assert "Episodes" in picture and "screenshot of this screen" not in picture  # the lab, not the prompt


async def test_the_export_path_is_edited_not_replaced_and_an_emptied_one_is_refused_in_the_dialog():
    """Item 11: the path was selected on focus (the first key replaced it) and an emptied field
    closed the dialog without a word."""
    from ael_tui.widgets.dialogs import PromptScreen

    app = make_app(synthetic("auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        await pilot.pause()
        field = app.screen.query_one("#export-path")
        await pilot.press("2")
        assert field.value == "exports/synthetic-s42-e0-history2"
        field.value = "  "
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert "Empty: type a path, or esc to cancel." in str(app.screen.query_one("#prompt-error").render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PromptScreen)


async def test_the_tour_at_a_proposal_says_decide_to_go_on_and_t_in_the_dialog_says_why_it_waits():
    """Item 10: the tour stopped at a proposal without saying why: t did nothing in the
    decision dialog, and neither the card nor the dialog said "decide to go on"."""
    from ael_tui.decisions.approval import ApprovalScreen
    from ael_tui.tour.tour_card import TourCardScreen

    def said(screen, selector: str) -> str:
        return " ".join(str(screen.query_one(selector).render()).split())

    app = make_app(synthetic("manual"))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(6):  # card 1 (the bandit), then on to the reflection that proposes a10
            await pilot.press("t")
            await settle(pilot, 3)
            if isinstance(app.screen, TourCardScreen) and app.screen.waits:
                break
        card = app.screen
        assert isinstance(card, TourCardScreen) and card.waits
        assert "decide to go on" in said(card, "#tour-text")
        assert card.query_one("#tour-card").border_subtitle.startswith("t: decide the proposal")
        await pilot.press("t")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ApprovalScreen)
        assert "The tour waits for this decision: decide to go on" in said(dialog, "#approval-note")
        await pilot.press("t")
        await pilot.pause()
        assert app.screen is dialog
        assert "The tour goes on once this proposal is decided" in said(dialog, "#approval-note")


def test_the_reflection_card_ends_the_diagnosis_with_a_full_stop():
    """Item 11: tour card 2 (the synthetic reflection) ran 'not a diagnosis) It proposes'."""
    from ael_tui.tour.guide import TourGuide

    s = synthetic("manual")
    guide = TourGuide(s)
    while "reflected" not in guide.seen:
        guide.feed(s.step(), s)
    cards = {c.moment: c for c in guide.cards}
    text = cards["reflected"].text
    assert "not a diagnosis). It proposes" in text


def test_the_readme_key_table_has_every_key_of_the_lab():
    """Item 11: the README's key table had neither ctrl+q nor v."""
    import re

    from ael_tui.actions import actions_for

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("| key | what it does |", 1)[1].split("\n\n", 1)[0]
    first_column = " ".join(line.split("|")[1] for line in table.splitlines() if line.startswith("| `"))
    shown = set(re.findall(r"`([^`]+)`", first_column))
    for action in [*actions_for("app"), *actions_for("lab")]:
        key = action.key_display or action.key.split(",")[0]
        assert key in shown, (action.id, key)


async def test_b_with_one_proposal_pending_says_so_in_the_dialog():
    from ael_tui.decisions.approval import ApprovalScreen

    app = make_app(synthetic("manual"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot, 3)
        dialog = app.screen
        assert isinstance(dialog, ApprovalScreen) and len(dialog.ctx.pending) == 1
        await pilot.press("b")
        await pilot.pause()
        assert app.screen is dialog
        assert "Only this proposal is pending: b decides several at once." in \
            " ".join(str(dialog.query_one("#approval-note").render()).split())


async def test_s_on_a_tour_card_saves_the_card_over_the_lab():
    """A modal card cuts the app's keys off: s did nothing on the tour's cards, a teacher's slides."""
    from ael_tui.tour.tour_card import TourCardScreen

    app = make_app(synthetic("auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t")
        await settle(pilot, 3)
        assert isinstance(app.screen, TourCardScreen)
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot, 3)
        assert isinstance(app.screen, TourCardScreen)
        picture = Path("exports/lab-synthetic-s42-e1.svg").read_text().replace("&#160;", " ")
        assert "The bandit learns from one episode" in picture


# ------------------------------------------------------------------ issue 41, item 3
async def test_on_a_tour_card_w_closes_it_and_runs_a_window_and_another_key_says_what_to_press():
    """Issue 41 item 3 (and its Done-when, at 80×24): `t`, then `w`, did nothing: the card
    took only t and Escape, and said nothing about any other key."""
    from ael_tui.tour.tour_card import TourCardScreen

    app = make_app(synthetic("auto"))
    async with app.run_test(size=(80, 24)) as pilot:
        host = app.screen.host
        await pilot.press("t")
        await settle(pilot, 3)
        card = app.screen
        assert isinstance(card, TourCardScreen)
        await pilot.press("x")
        await pilot.pause()
        note = " ".join(str(card.query_one("#tour-note").render()).split())
        assert "t the next moment" in note and "space, w or r close it and run" in note, note
        before = host.session.t
        await pilot.press("w")
        await settle(pilot, 3)
        assert not isinstance(app.screen, TourCardScreen) and host.session.t > before


async def test_k_and_S_with_no_chart_focused_act_on_the_progress_chart_and_say_so(tmp_path, monkeypatch):
    from ael_tui.lab.progress_chart import ProgressChart

    monkeypatch.chdir(tmp_path)
    app = make_app(synthetic("auto"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("space")
        await settle(pilot)
        chart = app.screen.query_one(ProgressChart)
        assert not chart.has_focus and chart.kind == "rolling"
        await pilot.press("k")
        await settle(pilot)
        assert chart.kind == "cumulative" and app.screen.page == "progress"  # its page shown on a small screen
        assert any("The progress chart now shows the cumulative reward" in m for m in notifications(app))
        await pilot.press("S")
        await settle(pilot)
        assert any("Saved the reward chart as" in m for m in notifications(app)), notifications(app)


async def test_at_80x24_the_footer_keeps_t_and_v_and_v_to_the_episodes_reaches_the_log():
    from ael_tui.lab.records import EpisodeScreen

    app = make_app(synthetic("auto"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("space")
        await settle(pilot)
        footer = app.screen.query_one("SteadyFooter")
        shown = [k.key for k in footer.query("FooterKey") if k.display]
        assert "t" in shown and "v" in shown, shown
        while app.screen.page != "episodes":
            await pilot.press("v")
            await settle(pilot)
        log = app.screen.query_one("#log")
        assert log.has_focus
        shown = [k.key for k in footer.query("FooterKey") if k.display]
        assert "enter" in shown and "slash" in shown, shown  # the log's own keys, while it has the focus
        screen = app.screen
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, EpisodeScreen)  # the highlighted episode, in full


async def test_an_empty_filter_result_says_no_episode_matches_and_slash_selects_the_old_text():
    from textual.widgets import Input

    from ael_tui.widgets.dialogs import PromptScreen

    app = make_app(synthetic("auto"))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):
            await pilot.press("space")
            await settle(pilot)
        app.screen.query_one("#log").focus()
        await pilot.press("slash")
        await pilot.pause()
        for ch in "policy=nonesuch":
            await pilot.press(ch)
        await pilot.press("enter")
        await settle(pilot)
        said = [m for m in notifications(app) if "No episode matches policy=nonesuch" in m]
        assert said and "policy= is one of:" in said[0], notifications(app)
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        field = app.screen.query_one(Input)
        assert field.selected_text == "policy=nonesuch"  # typing replaces it
        await pilot.press("x")
        assert field.value == "x"


async def test_a_class_the_teacher_paused_says_so_on_every_run_key_and_resume_runs_again(tmp_path, monkeypatch):
    """Issue 41 item 2: pause had no resume, and a paused student's next key simply ran."""
    import json
    import socket

    from ael_tui.serve.lab import ServedLab
    from ael_tui.serve.mode import ServedMode

    monkeypatch.chdir(tmp_path)
    mode = ServedMode(root=str(tmp_path / "class"))
    mode.prepare()
    ours, theirs = socket.socketpair()
    app = ServedLab(mode, synthetic("auto"), control=theirs, visitor="v1")
    app.settings.delay = 10.0  # one episode, then a wait: the window runs until paused

    def answers() -> list[dict]:
        ours.setblocking(False)
        data = b""
        try:
            while chunk := ours.recv(65536):
                data += chunk
        except BlockingIOError:
            pass
        return [m for m in map(json.loads, data.decode().splitlines()) if "ack" in m]

    async with app.run_test(size=SIZE) as pilot:
        host = app.lab.host
        await pilot.press("w")
        await pilot.pause()
        assert host.running == "window"
        app.class_link.command({"cmd": "pause", "id": 1})
        await settle(pilot)
        assert host.running is None
        await pilot.press("space")
        await pilot.pause()
        assert any("Your teacher paused the class" in m for m in notifications(app)), notifications(app)
        assert host.running is None
        app.class_link.command({"cmd": "resume", "id": 2})
        await pilot.pause()
        assert host.running == "window"  # the run the pause stopped, again
        said = answers()
        assert {"ack": 1, "was_running": True, "lab": True} in said
        assert {"ack": 2, "restarted": True, "lab": True} in said
        host.pause()
        await settle(pilot)
    ours.close()
