"""The lab driven by keys, as a person would: start, step, run, decide, save, load, pause."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, Select, TextArea

from ael_tui.screens.approval import ApprovalScreen
from ael_tui.screens.dialogs import ConfirmScreen, PromptScreen
from ael_tui.screens.editor import EditProposalScreen
from ael_tui.screens.lab import LabScreen
from ael_tui.screens.load import LoadScreen
from ael_tui.screens.start import StartScreen
from ael_tui.screens.views import AuditScreen
from ael_tui.widgets.episodes import EpisodeLog
from ael_tui.widgets.memory import MemoryPanel
from engine.persistence import load_session, save_session
from scenarios import make_scenario
from tests.tui_helpers import frozen_lab, make_app, notifications, settle, synthetic  # noqa: F401

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
    app = make_app(synthetic(approval="auto"), delay=0.03)  # 208 episodes: over 6 s unpaused
    async with app.run_test(size=SIZE) as pilot:
        host = app.lab.host
        await pilot.press("g")
        await pilot.pause(0.2)
        s = host.session
        assert 0 < s.t < s.n_episodes
        await pilot.press("p")
        await settle(pilot)
        stopped_at = s.t
        await pilot.pause(0.3)
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
        assert app.screen is editor  # refused
        assert any("policy field 'k'" in m for m in notifications(app))

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
        assert app.screen.query_one("#audit-table").row_count == 1


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
        await pilot.pause(0.2)
        text = str(app.screen.query_one("#status").render())
        for part in ("synthetic", "seed 42", "13/208", "train", "true regime R0", "pool underperforming (0.50)",
                     "ts+reflection", "manual", "1 pending", "offline $0.00"):
            assert part in text, part
