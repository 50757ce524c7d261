"""The lab driven by keys, as a person would: start, step, run, decide, save, load, pause."""

from __future__ import annotations

import io
import json
from pathlib import Path

from textual import events
from textual.widgets import Input, Select, TextArea

from ael_tui.decisions.approval import ApprovalScreen
from ael_tui.widgets.dialogs import ConfirmScreen, PromptScreen
from ael_tui.decisions.editor import EditProposalScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.files.load_dialog import LoadScreen
from ael_tui.files.start_screen import StartScreen
from scenarios import spec_of
from ael_tui.lab.records import AuditScreen
from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.memory.memory_panel import MemoryPanel
from engine.store.persistence import load_session, save_session
from scenarios import make_scenario
from tests.tui_helpers import FakeClock, frozen_lab, make_app, notifications, settle, synthetic  # noqa: F401

SIZE = (160, 48)


async def run_to_proposal(pilot):
    await pilot.press("r")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ApprovalScreen)
    return pilot.app.lab.host.session


# ------------------------------------------------------------------ start
async def test_start_screen_starts_a_new_session():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        # each world says what it is in one line under its name, following the choice (issue 41)
        about = app.screen.query_one("#scenario-about")
        assert str(about.render()) == spec_of("synthetic").summary
        app.screen.query_one("#scenario", Select).value = "support"
        await settle(pilot)
        assert str(about.render()) == spec_of("support").summary
        app.screen.query_one("#scenario", Select).value = "synthetic"
        await settle(pilot)
        app.screen.query_one("#seed", Input).value = "7"
        app.screen.query_one("#approval", Select).value = "auto"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen)
        s = app.screen.host.session
        assert (s.config.scenario, s.config.seed, s.queue.mode, s.t) == ("synthetic", 7, "auto", 0)


async def test_start_screen_refuses_a_bad_seed_and_says_why():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#seed", Input).value = "-3"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert any("seed" in m for m in notifications(app))


# --------------------------------------------------------------- stepping
async def test_space_steps_one_episode_at_a_time():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        await settle(pilot)
        assert app.lab.host.session.t == 1
        await pilot.press("space")
        await settle(pilot)
        assert app.lab.host.session.t == 2
        assert app.screen.query_one(EpisodeLog).row_count == 2


async def test_w_runs_one_slow_window():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        assert app.lab.host.session.t == 13  # the synthetic slow window


async def test_r_stops_at_the_reflection_with_the_arm_proposal_open():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        s = await run_to_proposal(pilot)
        assert s.t == 13
        assert [p.kind for p in s.queue.pending] == ["arm"]
        assert app.screen.proposal.payload["name"] == "a10"


async def test_pause_stops_a_long_run():
    """That it stops; how fast (the 0.1 s target) is measured by bench/tui.py, not asserted here."""
    clock = FakeClock()
    app = make_app(synthetic(approval="auto"), delay=0.03, clock=clock)  # 208 episodes: over 6 s unpaused
    async with app.run_test(size=SIZE) as pilot:
        host = app.lab.host
        await pilot.press("g")
        await clock.until_waiting()  # a step taken, the delay before the next one begun
        s = host.session
        assert 0 < s.t < s.n_episodes
        await pilot.press("p")
        await settle(pilot)
        stopped_at = s.t
        clock.advance(1.0)  # the time of 33 more episodes
        await settle(pilot)
        assert s.t == stopped_at < s.n_episodes
        assert host.running is None


async def test_speed_keys_change_the_delay_between_episodes():
    app = make_app(synthetic(), delay=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("plus")
        assert app.lab.host.settings.delay < 0.05
        await pilot.press("minus", "minus")
        assert app.lab.host.settings.delay > 0.05


# -------------------------------------------------------------- decisions
async def test_y_approves_and_the_arm_joins_the_pool():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        s = await run_to_proposal(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen)
        assert not s.queue.pending
        assert "a10" in s.selector.names()
        last = s.queue.audit[-1]
        assert (last.decision, last.who) == ("approve", "human")


async def test_an_invalid_edit_is_refused_with_the_reason_then_a_valid_one_is_used():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        s = await run_to_proposal(pilot)
        await pilot.press("e")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, EditProposalScreen)
        bad = dict(s.queue.pending[0].payload, k=-1)
        editor.query_one(TextArea).load_text(json.dumps(bad))
        await pilot.pause()
        status = str(editor.query_one("#editor-status").render())
        assert "policy field 'k'" in status
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is editor  # refused, and said in the dialog (no notification over it)
        status = str(editor.query_one("#editor-status").render())
        assert "edit refused" in status and "policy field 'k'" in status

        good = dict(s.queue.pending[0].payload, description="edited by hand")
        editor.query_one(TextArea).load_text(json.dumps(good))
        await pilot.pause()
        assert "valid" in str(editor.query_one("#editor-status").render())
        assert "edited by hand" in str(editor.query_one("#editor-diff").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen)
        last = s.queue.audit[-1]
        assert last.decision == "edit"
        assert last.accepted["description"] == "edited by hand"
        assert s.pool["a10"].to_dict() == last.accepted  # exactly the normalised object shown


async def test_n_rejects_with_an_optional_reason():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        s = await run_to_proposal(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"too early")
        await pilot.press("enter")
        await settle(pilot)
        assert "a10" not in s.selector.names()
        last = s.queue.audit[-1]
        assert (last.decision, last.reason) == ("reject", "too early")


async def test_shift_a_sets_a_standing_rule_and_approves():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        s = await run_to_proposal(pilot)
        await pilot.press("A")
        await settle(pilot)
        assert s.queue.standing == {"arm": "approve"}
        assert "a10" in s.selector.names()
        assert s.queue.audit[-1].decision == "approve"


async def test_later_leaves_it_pending_and_stepping_says_why():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        s = await run_to_proposal(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LabScreen)
        assert s.queue.pending
        await pilot.press("space")
        await settle(pilot)
        assert s.t == 13
        assert any(s.blocked_reason in m for m in notifications(app))
        await pilot.press("d")  # and the decision can be reopened
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)


async def test_audit_view_lists_every_decision():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        await run_to_proposal(pilot)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AuditScreen)
        table = app.screen.query_one("#audit-table")
        assert table.row_count == 1
        # one numbering, from 1 (issue 41): the first entry is 1, the proposal #1, nothing numbered #0
        header, row = table.render_line(0).text.split(), table.render_line(1).text.split()
        assert header[:2] == ["entry", "episode"] and row[0] == "1" and "#1" in row and "#0" not in row


# --------------------------------------------------------------- sessions
async def test_ctrl_s_saves_a_file_that_loads_back_at_the_same_episode():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        assert app.screen.query_one(Input).value == "saves/synthetic-s42-e13.json"
        await pilot.press("enter")
        await pilot.pause()
    path = Path("saves/synthetic-s42-e13.json")
    assert path.exists()
    assert load_session(path, make_scenario).t == 13


async def test_saving_over_a_file_asks_first():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        for expect_confirm in (False, True):
            await pilot.press("ctrl+s")
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen) == expect_confirm
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, LabScreen)
        assert any("Saved" in m for m in notifications(app))


async def test_ctrl_o_loads_a_save_from_the_list():
    saved = synthetic(approval="auto")
    saved.run(until=20)
    save_session(saved, "saves/twenty.json")
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, LoadScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen)
        assert app.screen.host.session.t == 20


async def test_a_corrupt_save_is_reported_and_the_session_is_untouched():
    Path("saves/broken.json").write_text('{"format": "ael-lab-session", "schema_version": 1, "sess')
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        lab, session = app.screen, app.screen.host.session
        await pilot.press("ctrl+o")
        await settle(pilot)
        app.screen.query_one("#load-path", Input).value = "saves/broken.json"
        app.screen.query_one("#load-path", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)  # episode 13 is not in any file: asked first
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is lab and lab.host.session is session and session.t == 13
        assert any("truncated or corrupt" in m for m in notifications(app))


async def test_autosave_writes_every_n_episodes():
    app = make_app(synthetic(approval="auto"), autosave_every=5)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        path = app.lab.host.autosave_path()
    assert path.name.startswith("autosave-synthetic-s42-")
    assert load_session(path, make_scenario).t == 10


# ------------------------------------------------------------ the panels
async def test_memory_filter_keeps_only_matching_entries():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("slash", *"a4 ")
        await pilot.pause()
        panel = app.screen.query_one(MemoryPanel)
        table = panel.query_one("#memory-table")
        s = app.lab.host.session
        expected = [e for e in s.memory.tiers["episodic"].entries if "a4 " in e.content]
        assert table.row_count == len(expected) > 0


async def test_status_line_shows_where_the_run_is():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        await run_to_proposal(pilot)
        await pilot.press("escape")
        await settle(pilot)
        text = str(app.screen.query_one("#status").render())
        for part in ("synthetic", "seed 42", "13/208", "train", "true regime R0", "pool underperforming (0.50)",
                     "ts+reflection", "manual", "1 pending", "offline"):
            assert part in text, part


async def test_space_pressed_three_times_at_once_on_a_new_session_steps_three_episodes():
    """Issue 13 item 2: presses made while the first step computes (the support scenario's
    table, about a second) were refused; now each is queued and counts."""
    from ael_tui.widgets.opening import NewSession, build_session
    app = make_app(build_session(NewSession("support", 42, "ts+reflection", "manual")))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):  # posted at once, as a person's presses arrive (pilot.press waits for each)
            app.post_message(events.Key("space", " "))
        await settle(pilot, 3)
        assert app.lab.host.session.t == 3
        assert app.screen.query_one(EpisodeLog).row_count == 3
        assert not [m for m in notifications(app) if "already running" in m]


def test_pause_forgets_the_steps_queued_ahead():
    from ael_tui.lab.session_host import SessionHost
    host = SessionHost(synthetic())
    for _ in range(5):
        host.queue_step()
    host.pause()
    assert host.queued_steps == 0


async def test_ctrl_n_and_ctrl_o_ask_before_dropping_unsaved_progress_and_esc_comes_back():
    """Issue 13 item 3."""
    saved = synthetic(approval="auto")
    saved.run(until=20)
    save_session(saved, "saves/twenty.json")
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        lab, session = app.screen, app.screen.host.session
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        await pilot.press("escape")  # back to the same session, unchanged
        await settle(pilot)
        assert app.screen is lab and lab.host.session is session and session.t == 13
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("ctrl+n")  # start: the open session has 13 unsaved episodes
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, StartScreen) and app.lab is lab
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("enter")  # the first save in the list
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen) and app.screen.host.session.t == 20
        assert [type(s).__name__ for s in app.screen_stack][1:] == ["LabScreen"]
        await pilot.press("ctrl+n")  # nothing unsaved now: no question, a new session at once
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen) and app.screen.host.session.t == 0
        assert [type(s).__name__ for s in app.screen_stack][1:] == ["LabScreen"]


def support(approval: str = "manual"):
    from ael_tui.widgets.opening import NewSession, build_session
    return build_session(NewSession("support", 42, "ts+reflection", approval))


async def test_r_runs_past_silent_reflections_to_the_proposal_and_says_how_many_it_passed():
    """Issue 13 item 7: r stopped at every reflection (9 presses to reach 920 on support)."""
    app = make_app(support())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot, 3)
        s = app.lab.host.session
        assert isinstance(app.screen, ApprovalScreen) and s.t == 920
        silent = len(s.reflections) - 1
        assert silent >= 5
        shown = str(app.screen.query_one("#approval-note").render())
        assert f"Passed {silent} silent reflections" in shown and "e stops at each" in shown


async def test_e_stops_at_every_reflection_even_a_silent_one():
    app = make_app(support())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await settle(pilot, 3)
        s = app.lab.host.session
        assert isinstance(app.screen, LabScreen) and len(s.reflections) == 1 and not s.queue.pending
        assert s.t == s.reflections[0].episode + 1
        await pilot.press("e")
        await settle(pilot, 3)
        assert len(s.reflections) == 2
        shown = notifications(app)
        assert len([m for m in shown if "Nothing to decide" in m]) == 1  # the second replaced the first


async def test_notifications_never_stack_over_a_proposal():
    """Issue 13 item 4: six stacked notices covered the proposal dialog and the status line.
    Issue 29: none is drawn over a dialog; one raised while it is open waits for it to close."""
    from ael_tui.compat import Toast
    app = make_app(support())
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        for i in range(6):
            app.notify(f"notice {i}")
        await pilot.pause()
        assert notifications(app) == ["notice 3", "notice 4", "notice 5"]
        await pilot.press("r")
        await settle(pilot, 3)
        assert isinstance(app.screen, ApprovalScreen)
        app.notify("raised over the dialog")
        await pilot.pause()
        assert not list(app.screen.query(Toast))
        assert "raised over the dialog" in [n.message for n in app.waiting_notifications()]


async def test_what_is_approved_is_in_view_and_pagedown_scrolls_at_once():
    """Issue 13 item 5: the payload was below the fold at 160×48, and PageDown/End did
    nothing until Tab."""
    app = make_app(support())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot, 3)
        await pilot.press("y")  # the insight; the route_aware arm comes next
        await settle(pilot, 3)
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and screen.proposal.kind == "arm"
        body, payload = screen.query_one("#approval-body"), screen.query_one("#approval-payload")
        assert body.region.contains_region(payload.region)  # whole, without scrolling
        assert "route_aware" in str(payload.render())
        assert body.max_scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("pagedown")  # nothing left to do, but still the dialog
        assert isinstance(app.screen, ApprovalScreen)


async def test_in_the_editor_tab_reaches_the_reason_and_the_first_escape_goes_back():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        await run_to_proposal(pilot)
        await pilot.press("e")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, EditProposalScreen)
        before = editor.query_one(TextArea).text
        await pilot.press("tab", *"tighter prior")
        await pilot.pause()
        assert editor.query_one(TextArea).text == before  # no indent, no reason in the JSON
        assert editor.query_one("#editor-reason", Input).value == "tighter prior"
        editor.query_one(TextArea).focus()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)


async def test_enter_or_escape_leave_the_memory_filter_so_m_changes_tier():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        panel = app.screen.query_one(MemoryPanel)
        for leave in ("enter", "escape"):
            tier = panel.tier
            await pilot.press("slash", *"a4", leave, "m")
            await pilot.pause()
            assert panel.needle == "a4" if leave == "enter" else True
            assert panel.tier != tier, leave
            assert app.lab.host.running is None and isinstance(app.screen, LabScreen)
            panel.query_one("#memory-filter", Input).value = ""


async def test_after_a_rejection_the_reflection_panel_says_when_the_reflector_looks_again():
    from ael_tui.lab.reflection_panel import ReflectionPanel
    app = make_app(support())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot, 3)
        for _ in range(2):  # the insight, then the arm
            await pilot.press("n")
            await pilot.pause()
            await pilot.press("enter")
            await settle(pilot, 3)
        assert isinstance(app.screen, LabScreen)
        panel = app.screen.query_one(ReflectionPanel)
        assert "cool-down until episode 1040" in str(panel.render())
        await pilot.press("r")
        await settle(pilot, 3)
        assert isinstance(app.screen, ApprovalScreen) and app.lab.host.session.t == 1080


async def test_always_approve_shows_in_the_rules_view_with_who_and_when_and_can_be_revoked():
    """Issue 13 item 9: A had no visible place where it could be seen or revoked."""
    from textual.widgets import DataTable
    from ael_tui.lab.records import RulesScreen
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        await run_to_proposal(pilot)
        await pilot.press("A")
        await settle(pilot)
        s = app.lab.host.session
        assert s.queue.standing == {"arm": "approve"}
        await pilot.press("u")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        table = app.screen.query_one(DataTable)
        row = [str(c) for c in table.get_row_at(0)]
        assert row[:5] == ["arm", "always approve", "human", "12", "in force"]
        await pilot.press("delete")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen) and s.queue.standing == {}
        assert s.queue.rules[0].revoked_episode == 12 and s.queue.rules[0].revoked_by == "human"
        await pilot.press("u")
        await pilot.pause()
        assert "revoked after episode 12" in str(app.screen.query_one(DataTable).get_row_at(0)[4])


def test_a_rule_survives_a_save_and_an_older_save_s_rule_is_listed():
    from engine.approvals import ApprovalQueue
    q = ApprovalQueue(mode="manual")
    q.set_standing("insight", "approve", who="human", episode=40)
    again = ApprovalQueue.from_dict(q.to_dict())
    assert [(r.kind, r.who, r.episode, r.active) for r in again.rules] == [("insight", "human", 40, True)]
    old = q.to_dict()
    del old["rules"]
    assert [(r.kind, r.who) for r in ApprovalQueue.from_dict(old).rules] == [("insight", "older save")]


async def test_b_decides_every_pending_proposal_in_one_dialog():
    """Issue 13: decisions can be batched (the support reflection at 920 proposes an
    insight and an arm: both approved in one go)."""
    from ael_tui.decisions.approval import BatchScreen
    app = make_app(support())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await settle(pilot, 3)
        assert isinstance(app.screen, ApprovalScreen) and len(app.lab.host.session.queue.pending) == 2
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, BatchScreen)
        await pilot.press("y")
        await settle(pilot, 3)
        s = app.lab.host.session
        assert isinstance(app.screen, LabScreen) and not s.queue.pending
        assert [a.decision for a in s.queue.audit] == ["approve", "approve"] and "route_aware" in s.pool
        assert any("2 proposal(s) approved" in m for m in notifications(app))


async def test_the_end_of_a_phase_shows_the_results_beside_the_baselines_for_every_scenario():
    """Issue 13 item 10 and the results view: the portfolio's Sharpe, Sortino, MaxDD and
    return beside eqw/mom/minv/invm; support and synthetic by regime with the paper's rows."""
    from rich.console import Console
    from ael_tui.lab.records import ResultsScreen
    from ael_tui.widgets.opening import NewSession, build_session
    expected = {"synthetic": ["R3", "overall", "paper", "oracle"], "support": ["R3", "accuracy", "paper", "fixed:none"],
                "portfolio": ["Sharpe", "Sortino", "MaxDD %", "return %", "baseline:eqw", "baseline:invm"]}
    for scenario, words in expected.items():
        s = build_session(NewSession(scenario, 42, "ts+reflection", "auto",
                                     options={"data": "synthetic"} if scenario == "portfolio" else None))
        s.run(until=s.n_episodes - 1)
        app = make_app(s)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("g")
            await settle(pilot, 4)
            assert isinstance(app.screen, ResultsScreen), scenario
            console = Console(width=150, record=True, file=io.StringIO())
            console.print(app.screen.query_one("#results-table").content)
            text = console.export_text()
            for word in words:
                assert word in text, (scenario, word)
            assert "(this run)" in text and "max_drawdown_pct" not in text


async def window_with_the_log_focused(app, pilot) -> EpisodeLog:
    """One slow window run (40 episodes), then the episode log has the keys."""
    await pilot.press("w")
    await settle(pilot, 3)
    log = app.screen.query_one(EpisodeLog)
    log.focus()
    return log


async def test_enter_on_the_episode_log_shows_the_episode_in_full():
    from ael_tui.lab.records import EpisodeScreen
    app = make_app(support(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await window_with_the_log_focused(app, pilot)
        await pilot.press("enter")
        await settle(pilot)  # the explanation is made in the screen's worker
        assert isinstance(app.screen, EpisodeScreen)
        record = app.screen.record
        text = str(app.screen.query_one("#episode-text").render())
        assert str(record["action"]) in text and str(record["result"]) in text
        # and why: the engine's explanation of that episode, replayed, the session untouched
        why = str(app.screen.query_one("#episode-why").render())
        s = app.lab.host.session
        assert f"Episode {record['episode']}" in why and "Input, as the agent saw it" in why
        assert f"Policy played: {record['policy']}" in why and "Retrieval 1 by" in why
        assert s.t == 40


async def test_slash_on_the_episode_log_filters_it_and_hash_n_goes_to_episode_n():
    app = make_app(support(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        log = await window_with_the_log_focused(app, pilot)
        for text, check in (("wrong policy=compressed", lambda rows: all(r["correct"] is False and
                                                                          r["policy"] == "compressed" for r in rows)),
                            ("#7", lambda rows: rows[0]["episode"] == 7 and log.highlighted == "7")):
            await pilot.press("slash")
            await pilot.pause()
            app.screen.query_one(Input).value = text
            await pilot.press("enter")
            await settle(pilot)
            assert log.rows and check(log.rows), text
            assert f"filter: {text}" in str(log.border_subtitle)
        await pilot.press("slash")
        await pilot.pause()
        app.screen.query_one(Input).value = "colour=red"
        await pilot.press("enter")
        await settle(pilot)
        assert any("colour=red" in n for n in notifications(app)) and log.rows[0]["episode"] == 7  # unchanged


async def test_the_audit_log_shows_an_edit_with_its_diff_and_a_synthetic_arm_without_retrieval_fields():
    from ael_tui.lab.records import AuditScreen
    app = make_app(synthetic())
    async with app.run_test(size=SIZE) as pilot:
        await run_to_proposal(pilot)
        payload = str(app.screen.query_one("#approval-payload").render())
        assert '"a10"' in payload and '"tiers"' not in payload and '"vote_share"' not in payload
        await pilot.press("e")
        await pilot.pause()
        editor = app.screen
        edited = dict(editor.proposal.payload, description="renamed by a person")
        editor.query_one(TextArea).load_text(json.dumps(edited, indent=2))
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AuditScreen)
        detail = str(app.screen.query_one("#audit-detail").render())
        assert "What the person changed" in detail and "+  \"description\": \"renamed by a person\"" in detail


async def test_on_the_portfolio_r_asks_only_at_proposals_not_at_every_daily_reflection():
    """Issue 13 item 9: the portfolio asked every 4 bars (39 stops in 208): the reflector reflects
    daily, but r now stops only where there is something to decide. A third of the bars is
    enough to tell (4 stops and 16 reflections once r has passed bar 72, at 76; 12 and 39 over
    all 208)."""
    from ael_tui.widgets.opening import NewSession, build_session
    s = build_session(NewSession("portfolio", 42, "ts+reflection", "manual", options={"data": "synthetic"}))
    app = make_app(s)
    stops = 0
    async with app.run_test(size=SIZE) as pilot:
        while s.t < 72 and stops < 60:
            await pilot.press("r")
            await settle(pilot, 3)
            while isinstance(app.screen, ApprovalScreen):
                stops += 1
                await pilot.press("y")
                await settle(pilot, 3)
            if not isinstance(app.screen, LabScreen):
                await pilot.press("escape")  # the results at the end of a phase
                await settle(pilot)
    proposals = len(s.queue.proposals)
    assert s.t >= 72 and stops == proposals >= 3 and proposals * 2 < len(s.reflections)
